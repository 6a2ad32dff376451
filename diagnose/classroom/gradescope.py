"""The Gradescope autograder zip: `diagnose gradescope-autograder` (docs/instructors.md,
"Gradescope").

`build_autograder` packs what Gradescope's servers need to grade a class offline and nothing
more: `setup.sh` and `run_autograder` at the root (Gradescope's autograder specification); the
grader itself, `grader/grading/` and `grader/scenarios/`, copied from the installed package
(`diagnose.classroom.wheel.package_files`: pure Python, the catalog's TOML and the compiled
words, each break's own catalog included, so no build backend and no source tree are
needed); and `course/`:
the bundles' manifest, each student's `scenario.json` and sealed key, and `autograder.json`
with, per student, the key that opens that one scenario (`grading.seal.scenario_key`, derived
one-way from the instructor's key, which never enters the zip) and the feedback numbers from
their runs' metrics, computed here so the grader on Gradescope reads no metrics and needs no
numpy. The zip is built from the instructor's records alone: each student's `scenario.json` and
sealed key are written here from what the key and the manifest derive (`grading.dealt`), never
copied from a bundle; the numbers are quoted only from metrics whose sha256 was kept at deal
time. A bundle that disagrees is reported, and its student packed all the same.
The grading itself is `grading.autograder`.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnose import __version__
from diagnose.classroom.wheel import package_files
from grading.autograder import BUNDLES, COURSE, SCHEMA, SETTINGS
from grading.dealt import deal_lang  # noqa: F401 (the deal's language, imported from here too)
from grading.layout import GRADESCOPE_VISIBILITIES, KEY_FILE, MANIFEST, SCENARIO_FILE
from grading.manifest import ManifestRow, manifest_path, read_manifest
from grading.seal import scenario_key
from scenarios.errors import UserError
from scenarios.files import atomic_output, loads_json, read_small

COPIED_MAX = 16 * 1024 * 1024  # a manifest or a bundle's file packed into the zip
GRADER = "grader"  # inside the zip: the packages run_autograder puts on the path
GRADER_PACKAGES = ("grading", "scenarios")
BREAKS_INSIDE = "scenarios/breaks/"  # a break folder: its data alone (break.toml, locale/)
CRYPTOGRAPHY = "cryptography>=42,<51"  # all the grader needs beyond the stdlib (tried: 48)

SETUP_SH = f"""\
#!/usr/bin/env bash
# diagnose autograder: Gradescope runs this once, when it builds the autograder's image.
# The grader (grader/ in this zip) is pure Python: it needs a released Python 3.11 or newer
# (never a release candidate, such as Ubuntu 22.04's python3.11) and {CRYPTOGRAPHY}, nothing
# else. A Python the image already has comes first, then the distribution's own package, then
# the deadsnakes PPA; it says which. AUTOGRADER_ROOT replaces /autograder.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
version_of() {{  # "3 11 final" for a released Python 3.11, "3 11 candidate" for its rc
  "$1" -c 'import sys; v = sys.version_info; print(v.major, v.minor, v.releaselevel)' \
    2>/dev/null || true
}}
recent() {{  # a released Python 3.11 or newer: jammy's python3.11 package is 3.11.0rc1
  local major minor level
  read -r major minor level <<< "$(version_of "$1")"
  [ "${{major:-0}}" -eq 3 ] && [ "${{minor:-0}}" -ge 11 ] && [ "${{level:-}}" = final ]
}}
PYTHON=""
for candidate in python3.14 python3.13 python3.12 python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1 && recent "$candidate"; then
    PYTHON="$candidate"
    break
  fi
done
if [ -z "$PYTHON" ]; then
  apt-get update -q
  for version in 3.13 3.12 3.11; do
    if apt-cache show "python$version-venv" >/dev/null 2>&1; then
      apt-get install -y -q "python$version" "python$version-venv"
      if recent "python$version"; then
        PYTHON="python$version"
        break
      fi
      echo "diagnose autograder: python$version here is a pre-release" \
        "($("python$version" --version 2>&1 || true)); not used"
    fi
  done
fi
if [ -z "$PYTHON" ]; then
  apt-get install -y -q software-properties-common
  add-apt-repository -y ppa:deadsnakes/ppa
  apt-get update -q
  apt-get install -y -q python3.11 python3.11-venv
  if ! recent python3.11; then
    echo "diagnose autograder: no released Python 3.11 or newer could be installed" >&2
    exit 1
  fi
  PYTHON=python3.11
fi
echo "diagnose autograder: using $PYTHON ($("$PYTHON" --version 2>&1 || true))"
if ! "$PYTHON" -m venv "$ROOT/venv" >/dev/null 2>&1; then  # Debian ships venv apart
  rm -rf "$ROOT/venv"
  read -r major minor _ <<< "$(version_of "$PYTHON")"
  apt-get update -q
  apt-get install -y -q "python$major.$minor-venv"
  "$PYTHON" -m venv "$ROOT/venv"
fi
"$ROOT/venv/bin/python" -m pip install -q --disable-pip-version-check "{CRYPTOGRAPHY}"
# the build fails here, not at the first student's upload, if the grader cannot start
PYTHONPATH="$ROOT/source/{GRADER}" "$ROOT/venv/bin/python" \\
  -c 'import cryptography.fernet, grading.autograder'
echo "diagnose autograder: ready ($("$ROOT/venv/bin/python" --version))"
"""

RUN_AUTOGRADER = f"""\
#!/usr/bin/env bash
# diagnose autograder: Gradescope runs this once per submission, in a fresh container.
# It grades the file in /autograder/submission/ for the student named in
# /autograder/submission_metadata.json and writes /autograder/results/results.json.
# AUTOGRADER_ROOT and DIAGNOSE_PYTHON replace /autograder and setup.sh's Python (a dry run).
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
export PYTHONPATH="$ROOT/source/{GRADER}"
# -P: the working folder's files never shadow the grader's
exec "${{DIAGNOSE_PYTHON:-$ROOT/venv/bin/python}}" -P -B -m grading.autograder "$ROOT"
"""


class AutograderError(UserError):
    """The autograder zip cannot be built as asked; one line saying why."""


@dataclass(frozen=True)
class Packed:
    """What `build_autograder` wrote: how many students, and who was left out and why."""

    students: int
    left_out: tuple[str, ...] = ()  # what was found wrong with the bundles (packed all the same)


def course_data(bundles: Path, secret: bytes, visibility: str, lang: str
                ) -> tuple[dict, list[tuple[str, dict[str, bytes]]], list[str]]:
    """autograder.json's content, per student the files packed for them (`scenario.json` and
    the sealed key, written from the derivation), and what was found wrong with the bundles
    (said; their students packed all the same)."""
    from diagnose.classroom.grading import class_options
    from grading.dealt import derive, disagreements, read_settings
    from grading.grade import scenario_json
    from grading.gradebook import check_key
    from grading.seal import seal

    bundles = Path(bundles)
    manifest = manifest_path(bundles)
    if not manifest.is_file():
        raise AutograderError(f"{bundles}: no {MANIFEST} here; pass the folder `diagnose deal` "
                              "wrote")
    rows = read_manifest(bundles)
    if not rows:
        raise AutograderError(f"{manifest}: lists no students")
    check_key(bundles, secret)
    refuse_another_key(bundles, rows, secret)
    settings = read_settings(bundles) or {}
    steps = settings["steps"] if isinstance(settings.get("steps"), int) else 1
    engine = str(settings.get("engine_version") or "unknown")
    emails = unique_emails(rows, manifest)
    students, packed, said = [], [], []

    def evidence_of(student_lang: str) -> Any:
        options = class_options(student_lang)
        assert options.class_evidence is not None
        return options.class_evidence

    for row in rows:
        dealt = derive(secret, row, bundles)
        said += [f"{row.student}: {line}" for line in disagreements(dealt, secret)]
        student_lang = row.lang or lang
        numbers, note = evidence_of(student_lang)(dealt)
        if note:
            said.append(note)
        students.append({
            "student": row.student, "code": row.code, "email": emails.get(row.student, ""),
            "lang": student_lang, "level": dealt.level,
            "key": scenario_key(secret, row.code).decode("ascii"),
            "evidence": numbers or {}})
        packed.append((row.student, {
            SCENARIO_FILE: scenario_json(row.code, list(dealt.ids), steps, engine,
                                         "instructor", dealt.level).encode(),
            KEY_FILE: seal(row.code, dealt.truth, secret).encode()}))
    return ({"schema": SCHEMA, "diagnose": __version__, "visibility": visibility, "lang": lang,
             "students": students}, packed, said)


def refuse_another_key(bundles: Path, rows: Sequence[ManifestRow], secret: bytes) -> None:
    """A deal older than its settings' key fingerprint: AutograderError when no bundle's
    sealed key names this key's fingerprint (the wrong key file). Only ever refuses: nothing
    read here decides what is packed."""
    from grading.layout import DEFAULT_DIR
    from grading.seal import fingerprint

    seen = set()
    for row in rows:
        try:
            text = read_small(Path(bundles) / row.student / DEFAULT_DIR / KEY_FILE,
                              "an answer key", 64 * 1024)
            found = loads_json(text.decode("utf-8")).get("fingerprint")
        except (UserError, ValueError, AttributeError):
            continue
        if isinstance(found, str):
            seen.add(found[:64])
    if seen and fingerprint(secret) not in seen:
        raise AutograderError(f"{bundles}: its bundles were sealed with another key (fingerprint "
                              f"{', '.join(sorted(seen)[:3])}; this key is "
                              f"{fingerprint(secret)}); nothing written")


def unique_emails(rows: Sequence[ManifestRow], manifest: Path) -> dict[str, str]:
    """student -> email; AutograderError naming both rows when two students share an email
    under case folding (Gradescope would match one to the other's key)."""
    seen: dict[str, tuple[int, str]] = {}
    emails = {}
    for number, row in enumerate(rows, start=2):
        email = row.email.strip()
        if not email:
            continue
        key = email.casefold()
        if key in seen:
            line, student = seen[key]
            raise AutograderError(f"{manifest}: rows {line} ({student}) and {number} "
                                  f"({row.student}) share the email {email!r} (emails are "
                                  "compared without case); give each student their own")
        seen[key] = (number, row.student)
        emails[row.student] = email
    return emails


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    archive.writestr(info, data)


def grader_files() -> Iterator[tuple[str, bytes]]:
    """(name inside `grader/`, bytes) of the grader: `grading` and `scenarios` as installed,
    each break folder's data, its `break.toml` and its catalogs (`locale/`), and nothing else
    of it (its signature.py is code for the instructor's machine), and the course deck's
    (`DIAGNOSE_DECK`) data beside the package's."""
    import scenarios
    from scenarios.catalog import break_data, is_break_data

    for package in GRADER_PACKAGES:
        for name, path in package_files(package):
            if (name.startswith(BREAKS_INSIDE)
                    and not is_break_data(name[len(BREAKS_INSIDE):].partition("/")[2])):
                continue
            yield name, grader_file(name, path)
    for brk in scenarios.breaks(None).values():
        if brk.course and brk.folder is not None:
            for inner, path in break_data(Path(str(brk.folder))):
                yield f"{BREAKS_INSIDE}{brk.slug}/{inner}", path.read_bytes()


def build_autograder(out: Path, bundles: Path, secret: bytes, *,
                     visibility: str = "after_published", lang: str | None = None) -> Packed:
    """Write the autograder zip to `out` (whole or not at all).

    A student's feedback is in their manifest row's `lang`, else `lang`, else the deal's."""
    if visibility not in GRADESCOPE_VISIBILITIES:
        raise AutograderError(f"visibility {visibility!r}: use one of "
                              + ", ".join(GRADESCOPE_VISIBILITIES))
    out = Path(out)
    if out.is_dir():
        raise AutograderError(f"{out}: is a directory; name the zip file to write")
    data, packed, left_out = course_data(bundles, secret, visibility,
                                         lang or deal_lang(bundles))
    out.parent.mkdir(parents=True, exist_ok=True)
    with (atomic_output(out, error=AutograderError) as partial,
          zipfile.ZipFile(partial, "w") as archive):
        _add(archive, "setup.sh", SETUP_SH.encode(), executable=True)
        _add(archive, "run_autograder", RUN_AUTOGRADER.encode(), executable=True)
        for name, content in grader_files():
            _add(archive, f"{GRADER}/{name}", content)
        _add(archive, f"{COURSE}/{SETTINGS}",
             (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode())
        _add(archive, f"{COURSE}/{MANIFEST}",
             read_small(Path(bundles) / MANIFEST, "a manifest", COPIED_MAX))
        for name, files in packed:
            for file, content in files.items():
                _add(archive, f"{COURSE}/{BUNDLES}/{name}/{file}", content)
    return Packed(len(packed), tuple(left_out))


def grader_file(name: str, path: Path) -> bytes:
    """A file of the grader as it runs here: the levels in use (`DIAGNOSE_LEVELS`'s file, or the
    package's as a course deck extends them) stand in for the package's levels.toml, so the
    zip reads every level dealt here."""
    from scenarios.catalog import levels_file_in_use
    from scenarios.levels import LEVELS_FILE

    chosen = levels_file_in_use() if name == f"scenarios/{LEVELS_FILE}" else None
    return path.read_bytes() if chosen is None else chosen
