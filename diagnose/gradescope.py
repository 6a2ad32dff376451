"""The Gradescope autograder zip: `diagnose gradescope-autograder` (README, "Gradescope").

`build_autograder` packs what Gradescope's servers need to grade a class offline and nothing
more: `setup.sh` and `run_autograder` at the root (Gradescope's autograder specification), the
package as a wheel, and `course/`: the bundles' manifest, each student's `scenario.json` and
sealed key, and `autograder.json` with, per student, the key that opens that one scenario
(`grading.seal.scenario_key`, derived one-way from the instructor's key, which never enters the
zip) and the feedback numbers from their runs' metrics, computed here so the grader on
Gradescope reads no metrics and needs no numpy. The grading itself is `grading.autograder`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from diagnose import __version__
from grading.autograder import BUNDLES, COURSE, SCHEMA, SETTINGS, read_manifest
from grading.grade import open_key, read_scenario
from grading.layout import DEFAULT_DIR, GRADESCOPE_VISIBILITIES, KEY_FILE, MANIFEST, SCENARIO_FILE
from grading.seal import scenario_key
from scenarios.errors import UserError
from scenarios.files import read_json, read_small
from scenarios.langs import LANGS

COPIED_MAX = 16 * 1024 * 1024  # a manifest or a bundle's file packed into the zip
SETUP_SH = """\
#!/usr/bin/env bash
# diagnose autograder: Gradescope runs this once, when it builds the autograder's image.
# It installs Python 3.11 or newer and the grader: the diagnose wheel without the app's
# dependencies (the grader needs neither numpy nor textual) and cryptography.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
cd /autograder/source
PYTHON=""
for candidate in python3.13 python3.12 python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    PYTHON="$candidate"
    break
  fi
done
if [ -z "$PYTHON" ]; then
  apt-get update
  apt-get install -y software-properties-common
  add-apt-repository -y ppa:deadsnakes/ppa
  apt-get update
  apt-get install -y python3.11 python3.11-venv
  PYTHON=python3.11
fi
if ! "$PYTHON" -m venv /autograder/venv; then
  apt-get update
  apt-get install -y "$PYTHON-venv"
  "$PYTHON" -m venv /autograder/venv
fi
/autograder/venv/bin/python -m pip install --no-deps ./diagnose-*.whl
/autograder/venv/bin/python -m pip install "cryptography>=42"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# diagnose autograder: Gradescope runs this once per submission, in a fresh container.
# It grades the file in /autograder/submission/ for the student named in
# /autograder/submission_metadata.json and writes /autograder/results/results.json.
# AUTOGRADER_ROOT and DIAGNOSE_PYTHON replace /autograder and the image's Python (a dry run).
set -euo pipefail
exec "${DIAGNOSE_PYTHON:-/autograder/venv/bin/python}" -m grading.autograder \\
  "${AUTOGRADER_ROOT:-/autograder}"
"""


class AutograderError(UserError):
    """The autograder zip cannot be built as asked; one line saying why."""


def source_root() -> Path:
    """The source tree this package runs from (the wheel is built from it)."""
    root = Path(__file__).resolve().parents[1]
    if not (root / "pyproject.toml").is_file():
        raise AutograderError("diagnose is not running from its source tree, so it cannot "
                              "build its wheel; pass --wheel diagnose-<version>-py3-none-any"
                              ".whl (python -m pip wheel --no-deps diagnose)")
    return root


def build_wheel(folder: Path) -> Path:
    """Build this source tree's wheel into `folder` (no dependencies, no isolation)."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(folder), str(source_root())], capture_output=True, text=True)
    wheels = sorted(Path(folder).glob("diagnose-*.whl"))
    if result.returncode != 0 or len(wheels) != 1:
        last = (result.stderr.strip().splitlines() or ["no wheel was written"])[-1]
        raise AutograderError(f"building the diagnose wheel failed: {last}")
    return wheels[0]


def course_data(bundles: Path, secret: bytes, visibility: str, lang: str
                ) -> tuple[dict, list[tuple[str, Path]]]:
    """autograder.json's content, and the (student, workspace) whose files go in the zip."""
    from diagnose.reveal import feedback_numbers

    bundles = Path(bundles)
    manifest = bundles / MANIFEST
    if not manifest.is_file():
        raise AutograderError(f"{bundles}: no {MANIFEST} here; pass the folder `diagnose deal` "
                              "wrote")
    rows = read_manifest(manifest)
    if not rows:
        raise AutograderError(f"{manifest}: lists no students")
    students, workspaces = [], []
    for row in rows:
        name = row["student"]
        workspace = bundles / name / DEFAULT_DIR
        scenario = read_scenario(workspace)  # GradeError: a missing or corrupt bundle
        open_key(scenario, secret)  # GradeError: sealed with another key, or tampered
        student_lang = row.get("lang") if row.get("lang") in LANGS else lang
        students.append({
            "student": name, "code": scenario.code, "email": row.get("email", ""),
            "lang": student_lang,
            "key": scenario_key(secret, scenario.code).decode("ascii"),
            "evidence": feedback_numbers(workspace, student_lang, secret) or {}})
        workspaces.append((name, workspace))
    return ({"schema": SCHEMA, "diagnose": __version__, "visibility": visibility, "lang": lang,
             "students": students}, workspaces)


def deal_lang(bundles: Path) -> str:
    """The language the class was dealt in (`deal-settings.json`), else English."""
    from diagnose.classroom import SETTINGS_FILE

    try:
        lang = read_json(Path(bundles) / SETTINGS_FILE, "deal settings", 64 * 1024)["lang"]
    except (UserError, KeyError, TypeError):
        return "en"
    return lang if lang in LANGS else "en"


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    archive.writestr(info, data)


def build_autograder(out: Path, bundles: Path, secret: bytes, *,
                     visibility: str = "after_published", lang: str | None = None,
                     wheel: Path | None = None) -> int:
    """Write the autograder zip to `out` (whole or not at all); returns how many students.

    A student's feedback is in their manifest row's `lang`, else `lang`, else the deal's."""
    if visibility not in GRADESCOPE_VISIBILITIES:
        raise AutograderError(f"visibility {visibility!r}: use one of "
                              + ", ".join(GRADESCOPE_VISIBILITIES))
    out = Path(out)
    if out.is_dir():
        raise AutograderError(f"{out}: is a directory; name the zip file to write")
    if wheel is not None and not (Path(wheel).is_file()
                                  and Path(wheel).name.startswith("diagnose-")
                                  and Path(wheel).suffix == ".whl"):
        raise AutograderError(f"{wheel}: not a diagnose wheel (diagnose-<version>-*.whl)")
    data, workspaces = course_data(bundles, secret, visibility, lang or deal_lang(bundles))
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".diagnose-autograder-") as scratch:
        wheel = Path(wheel) if wheel is not None else build_wheel(Path(scratch))
        partial = out.with_name(f".{out.name}.partial")
        try:
            with zipfile.ZipFile(partial, "w") as archive:
                _add(archive, "setup.sh", SETUP_SH.encode(), executable=True)
                _add(archive, "run_autograder", RUN_AUTOGRADER.encode(), executable=True)
                with wheel.open("rb") as stream:
                    _add(archive, wheel.name, stream.read())
                _add(archive, f"{COURSE}/{SETTINGS}",
                     (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode())
                _add(archive, f"{COURSE}/{MANIFEST}", read_small(
                    Path(bundles) / MANIFEST, "a manifest", COPIED_MAX))
                for name, workspace in workspaces:
                    for file in (SCENARIO_FILE, KEY_FILE):
                        _add(archive, f"{COURSE}/{BUNDLES}/{name}/{file}",
                             read_small(workspace / file, "a bundle's file", COPIED_MAX))
            os.replace(partial, out)
        except OSError as err:
            partial.unlink(missing_ok=True)
            raise AutograderError(f"{out}: cannot be written ({err.strerror or err})") from None
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    return len(workspaces)

