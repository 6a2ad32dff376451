"""`diagnose gradescope-autograder` and the zip's grader, on Gradescope as it is documented today.

The zip is built from the installed package; its real `setup.sh` builds the image in a
temporary /autograder (apt-get stubbed: no apt call when the image has Python 3.11), and its
real `run_autograder` grades chains of uploads in that layout with `submission_metadata.json`
as Gradescope writes it now: the results of the latest previous submission only, and
`autograder_error` on runs that failed on Gradescope's side. setup.sh's other paths (a Python
3.10 image, with and without the distribution's python3.11) run against stubbed commands.

The image's pip installs from a wheelhouse downloaded once per session from the package index
as this machine configures it (the grader's tests skip, saying why, when it is unreachable)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnose.classroom.gradescope import CRYPTOGRAPHY
from diagnose.cli import cli
from grading.seal import new_secret, scenario_key, unseal_scenario, write_key_file
from grading.writer import format_diagnoses

sys.path.insert(0, str(Path(__file__).parent / "grading"))
from grading_testkit import dealing_secret, make_workspace  # noqa: E402

TRUTH = {
    "ana": {"01": "no-warmup", "02": "broken-mask", "03": "bad-init"},
    "borja": {"01": "bad-init", "02": "no-warmup", "03": "broken-mask"},
    "chen": {"01": "broken-mask", "02": "bad-init", "03": "no-warmup"},
}
CODES = {"ana": "AAAA-2222", "borja": "BBBB-3333", "chen": "CCCC-4444"}
EMAILS = {"ana": "ana@uni.example", "borja": "borja@uni.example", "chen": "chen@uni.example"}
MANIFEST = ("student,code,email,level,lang\n"
            "ana,AAAA-2222,ana@uni.example,,es\n"
            "borja,BBBB-3333,borja@uni.example,,\n"
            "chen,CCCC-4444,chen@uni.example,,\n")


SECRET = dealing_secret({CODES[s]: TRUTH[s] for s in CODES})  # as `deal` derives each truth


def wrong(student: str) -> dict[str, str]:
    """0/3: each ID answered with the next ID's break."""
    truth = TRUTH[student]
    ids = sorted(truth)
    return {run_id: truth[ids[(i + 1) % len(ids)]] for i, run_id in enumerate(ids)}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Three dealt bundles (sealed, untrained), the key file, and the zip the CLI wrote."""
    root = tmp_path_factory.mktemp("course")
    secret = SECRET
    key = root / "course.key"
    write_key_file(key, secret)
    bundles = root / "bundles"
    for student, truth in TRUTH.items():
        make_workspace(bundles / student / "experiments" / "19-break-it", secret,
                       code=CODES[student], truth=truth, key="instructor")
    (bundles / "manifest.csv").write_text(MANIFEST, encoding="utf-8")
    out = root / "autograder.zip"
    result = CliRunner().invoke(cli, ["gradescope-autograder", "--key", str(key), "--bundles",
                                      str(bundles), "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "for 3 students" in result.output
    return {"root": root, "secret": secret, "key": key, "bundles": bundles, "zip": out}


# --- the zip and setup.sh ---------------------------------------------------------------------

def test_the_zip_holds_the_installed_grader_and_never_the_instructor_key(course):
    import grading
    import scenarios

    with zipfile.ZipFile(course["zip"]) as archive:
        names = set(archive.namelist())
        assert not [n for n in names if n.endswith(".whl") or n.startswith("grader/diagnose/")]
        assert {"setup.sh", "run_autograder", "course/autograder.json",
                "course/manifest.csv"} <= names
        for package in (grading, scenarios):  # the installed package's own files, as they are
            folder = Path(package.__file__).parent
            for file in folder.rglob("*.py"):
                if "__pycache__" not in file.parts and "breaks" not in file.parts:
                    inner = f"grader/{package.__name__}/{file.relative_to(folder).as_posix()}"
                    assert archive.read(inner) == file.read_bytes(), inner
        assert "grader/scenarios/breaks/bad-init/break.toml" in names
        for lang in ("es",):  # the grader's words, compiled: Gradescope needs nothing more
            catalog = f"scenarios/locale/{lang}/LC_MESSAGES/diagnose.mo"
            assert archive.read(f"grader/{catalog}") == (
                Path(scenarios.__file__).parent.parent / catalog).read_bytes()
        # a break's signature.py is the instructor's code: the zip carries its data only, its
        # break.toml and its own catalog (its texts and findings in every other language)
        assert [n for n in names if n.startswith("grader/scenarios/breaks/")] == [
            n for n in names if n.startswith("grader/scenarios/breaks/")
            and (n.endswith("/break.toml") or "/locale/" in n)]
        for slug in scenarios.breaks(None):
            catalog = f"scenarios/breaks/{slug}/locale/es/LC_MESSAGES/break.mo"
            assert archive.read(f"grader/{catalog}") == (
                Path(scenarios.__file__).parent.parent / catalog).read_bytes()
        assert not [n for n in names if n.endswith(".pyc")]
        for student in TRUTH:
            assert {f"course/bundles/{student}/scenario.json",
                    f"course/bundles/{student}/answer-key.sealed"} <= names
        for script in ("setup.sh", "run_autograder"):
            info = archive.getinfo(script)
            assert stat.S_IMODE(info.external_attr >> 16) == 0o755
            assert archive.read(script).startswith(b"#!/usr/bin/env bash\n")
            syntax = subprocess.run(["bash", "-n"], input=archive.read(script),
                                    capture_output=True)
            assert syntax.returncode == 0, syntax.stderr
        secret = course["secret"].strip()
        for name in names:
            assert secret not in archive.read(name), name
        data = json.loads(archive.read("course/autograder.json"))
    assert data["visibility"] == "after_published"
    langs = {s["student"]: s["lang"] for s in data["students"]}
    assert langs == {"ana": "es", "borja": "en", "chen": "en"}
    for entry in data["students"]:  # each derived key opens its own scenario, no other
        sealed = (course["bundles"] / entry["student"] / "experiments" / "19-break-it"
                  / "answer-key.sealed").read_text()
        assert unseal_scenario(sealed, entry["key"].encode(), entry["code"]) == \
            TRUTH[entry["student"]]


STUB_PYTHON = """#!/bin/bash
PATH="$STUB_TOOLS"  # the stubs' own tools, not the script's
echo "$(basename "$0") $*" >> "$STUB_LOG"
if [ "$1" = "-c" ]; then echo "{version} {level}"; exit 0; fi
if [ "$1" = "--version" ]; then echo "Python {shown}"; exit 0; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  [ -e "$STUB_STATE/python{dotted}-venv" ] || exit 1  # Debian: venv is a package apart
  mkdir -p "$3/bin" && cp "$STUB_STATE/venv-python" "$3/bin/python" && exit 0
fi
exit 2
"""
STUB_VENV_PYTHON = """#!/bin/bash
PATH="$STUB_TOOLS"  # the stubs' own tools, not the script's
echo "venv-python $*" >> "$STUB_LOG"
if [ "$1" = "-m" ]; then exit 0; fi  # pip: recorded, not run
exec {python} "$@"
"""
STUB_APT_GET = """#!/bin/bash
PATH="$STUB_TOOLS"  # the stubs' own tools, not the script's
echo "apt-get $*" >> "$STUB_LOG"
[ -e "$STUB_STATE/no-apt" ] && exit 1
if [ "$1" = install ]; then
  for pkg in "$@"; do
    touch "$STUB_STATE/$pkg"
    [ -e "$STUB_STATE/installs/$pkg" ] && cp "$STUB_STATE/installs/$pkg" "$STUB_BIN/$pkg"
  done
fi
exit 0
"""
STUB_APT_CACHE = """#!/bin/bash
PATH="$STUB_TOOLS"  # the stubs' own tools, not the script's
echo "apt-cache $*" >> "$STUB_LOG"
[ "$1" = show ] && [ -e "$STUB_STATE/repo/$2" ] && exit 0
exit 100
"""
STUB_PPA = """#!/bin/bash
PATH="$STUB_TOOLS"  # the stubs' own tools, not the script's
echo "add-apt-repository $*" >> "$STUB_LOG"
touch "$STUB_STATE/repo/python3.11" "$STUB_STATE/repo/python3.11-venv"
cp "$STUB_STATE/installs/ppa-python3.11" "$STUB_STATE/installs/python3.11"  # a release
"""


def _stub(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory) -> Path:
    """The bounded cryptography and what it needs, as wheels for this Python (the image's), from the
    package index this machine is configured with; the tests that install it skip without."""
    folder = tmp_path_factory.mktemp("wheelhouse")
    try:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "-q",
                               "--disable-pip-version-check", "--only-binary", ":all:",
                               "--dest", str(folder), CRYPTOGRAPHY],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip(f"the package index did not answer within 300 s for {CRYPTOGRAPHY}")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"the package index is unreachable for {CRYPTOGRAPHY}: {last}")
    return folder


def setup_image(course, tmp: Path, *, pythons: dict[str, str], repo=(), venv_ready=(),
                stub_python: bool = True, wheelhouse: Path | None = None, rc=()
                ) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the zip's setup.sh in `tmp` (its /autograder) with only stubs on PATH.

    `pythons`: command -> "3 12" already in the image; `repo`: packages the distribution
    offers; `venv_ready`: versions whose venv module is installed; `rc`: versions ("3.11")
    whose image or distribution build is a release candidate (jammy's python3.11; the PPA's
    is a release); `wheelhouse`: where the real pip finds its wheels. Returns the run and the
    commands it called, in order."""
    root, bin_, state = tmp / "autograder", tmp / "bin", tmp / "state"
    for folder in (bin_, state / "repo", state / "installs"):
        folder.mkdir(parents=True)
    with zipfile.ZipFile(course["zip"]) as archive:
        archive.extractall(root / "source")
    _stub(state / "venv-python", STUB_VENV_PYTHON.format(python=sys.executable))
    for version in ("3 10", "3 11", "3 12", "3 13"):
        dotted = version.replace(" ", ".")
        candidate = dotted in rc
        _stub(state / "installs" / f"python{dotted}",
              STUB_PYTHON.format(version=version, dotted=dotted,
                                 level="candidate" if candidate else "final",
                                 shown=f"{dotted}.0rc1" if candidate else f"{dotted}.9"))
    _stub(state / "installs" / "ppa-python3.11",
          STUB_PYTHON.format(version="3 11", dotted="3.11", level="final", shown="3.11.9"))
    for command, version in pythons.items():
        if stub_python:
            shutil.copy(state / "installs" / f"python{version.replace(' ', '.')}",
                        bin_ / command)
        else:
            (bin_ / command).symlink_to(sys.executable)
    for package in repo:
        (state / "repo" / package).touch()
    for version in venv_ready:
        (state / f"python{version}-venv").touch()
    if not stub_python:
        (state / "no-apt").touch()
    _stub(bin_ / "apt-get", STUB_APT_GET)
    _stub(bin_ / "apt-cache", STUB_APT_CACHE)
    _stub(bin_ / "add-apt-repository", STUB_PPA)
    (bin_ / "rm").symlink_to(shutil.which("rm"))
    (tmp / "tools").mkdir()
    for tool in ("touch", "basename", "mkdir", "cp"):
        (tmp / "tools" / tool).symlink_to(shutil.which(tool))
    log = tmp / "log"
    log.touch()
    env = {"PATH": str(bin_), "AUTOGRADER_ROOT": str(root), "STUB_LOG": str(log),
           "STUB_STATE": str(state), "STUB_BIN": str(bin_), "HOME": str(tmp),
           "STUB_TOOLS": str(tmp / "tools")}
    env.update({k: v for k, v in os.environ.items() if k.startswith("PIP_")})
    if wheelhouse is not None:  # setup.sh's own pip command, reading the wheels fetched once
        env.update({"PIP_FIND_LINKS": str(wheelhouse), "PIP_NO_INDEX": "1"})
    done = subprocess.run(["/bin/bash", str(root / "source" / "setup.sh")], env=env,
                          capture_output=True, text=True, timeout=300)
    return done, log.read_text().splitlines()


PIP = f"venv-python -m pip install -q --disable-pip-version-check {CRYPTOGRAPHY}"
IMPORT = "venv-python -c import cryptography.fernet, grading.autograder"


@pytest.mark.parametrize(("pythons", "repo", "venv_ready", "expected"), [
    ({"python3": "3 12"}, (), ("3.12",), ["python3 -m venv {root}/venv"]),
    ({"python3": "3 12"}, ("python3.12-venv",), (), [
        "python3 -m venv {root}/venv", "apt-get update -q",
        "apt-get install -y -q python3.12-venv", "python3 -m venv {root}/venv"]),
    ({"python3": "3 10"}, ("python3.11", "python3.11-venv"), (), [
        "apt-get update -q", "apt-cache show python3.13-venv", "apt-cache show python3.12-venv",
        "apt-cache show python3.11-venv", "apt-get install -y -q python3.11 python3.11-venv",
        "python3.11 -m venv {root}/venv"]),
    ({"python3": "3 10"}, (), (), [
        "apt-get update -q", "apt-cache show python3.13-venv", "apt-cache show python3.12-venv",
        "apt-cache show python3.11-venv", "apt-get install -y -q software-properties-common",
        "add-apt-repository -y ppa:deadsnakes/ppa", "apt-get update -q",
        "apt-get install -y -q python3.11 python3.11-venv", "python3.11 -m venv {root}/venv"]),
    ({"python3": "3 10"}, ("python3.11", "python3.11-venv"), (), [
        "apt-get update -q", "apt-cache show python3.13-venv", "apt-cache show python3.12-venv",
        "apt-cache show python3.11-venv", "apt-get install -y -q python3.11 python3.11-venv",
        "apt-get install -y -q software-properties-common",
        "add-apt-repository -y ppa:deadsnakes/ppa", "apt-get update -q",
        "apt-get install -y -q python3.11 python3.11-venv", "python3.11 -m venv {root}/venv"]),
    ({"python3": "3 11"}, (), (), [
        "apt-get update -q", "apt-cache show python3.13-venv", "apt-cache show python3.12-venv",
        "apt-cache show python3.11-venv", "apt-get install -y -q software-properties-common",
        "add-apt-repository -y ppa:deadsnakes/ppa", "apt-get update -q",
        "apt-get install -y -q python3.11 python3.11-venv", "python3.11 -m venv {root}/venv"]),
], ids=["image-3.12", "image-3.12-no-venv", "image-3.10-distro-3.11", "image-3.10-ppa",
        "jammy-distro-3.11-rc", "image-3.11-rc"])
def test_setup_prefers_the_image_s_python_then_the_distribution_s_then_the_ppa(
        course, tmp_path, pythons, repo, venv_ready, expected, request):
    """A released Python 3.11+ only: jammy's python3.11 (3.11.0rc1) is passed over, for the
    PPA's release; setup.sh says which Python it uses."""
    rc = ("3.11",) if "rc" in request.node.callspec.id else ()
    done, log = setup_image(course, tmp_path, pythons=pythons, repo=repo, venv_ready=venv_ready,
                            rc=rc)
    assert done.returncode == 0, done.stdout + done.stderr
    calls = [c for c in log if not c.startswith(tuple(
        f"{p} {flag}" for p in ("python3", "python3.11", "python3.12") for flag in
        ("-c", "--version")))]
    root = tmp_path / "autograder"
    assert calls == [*(c.format(root=root) for c in expected), PIP, IMPORT,
                     "venv-python --version"]
    assert "diagnose autograder: ready (Python 3." in done.stdout
    chosen = expected[-1].split()[0]
    version = {"python3": "3.12.9"}.get(chosen, f"{chosen.removeprefix('python')}.9")
    assert f"diagnose autograder: using {chosen} (Python {version})" in done.stdout
    if rc and "distro" in request.node.callspec.id:
        assert ("diagnose autograder: python3.11 here is a pre-release (Python 3.11.0rc1); "
                "not used") in done.stdout


# --- Gradescope, as documented today -------------------------------------------------------

@pytest.fixture(scope="module")
def image(course, wheelhouse, tmp_path_factory):
    """The zip's real setup.sh run once with this machine's Python 3.11 as the image's own: a
    real venv that holds only what setup.sh installs (apt-get must not be called)."""
    tmp = tmp_path_factory.mktemp("image")
    done, log = setup_image(course, tmp, pythons={"python3.11": "3 11"}, stub_python=False,
                            wheelhouse=wheelhouse)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not [c for c in log if c.startswith(("apt", "add-apt"))], log
    assert "ERROR" not in done.stdout + done.stderr  # no resolver complaint
    decoy = tmp / "autograder" / "grading"  # in the working folder: must not shadow the grader
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise ImportError('the working folder shadowed it')\n")
    return tmp / "autograder"


class Gradescope:
    """One student's submissions to one assignment, run as Gradescope runs them: a fresh
    submission/ and results/, `submission_metadata.json` with every earlier submission's time,
    score and autograder_error, and the results of the latest one only."""

    def __init__(self, root: Path, student: str, real: bool = True, floats: bool = False
                 ) -> None:
        self.root, self.real, self.past, self.floats = root, real, [], floats
        self.users = [{"email": EMAILS[student].upper(), "id": 7, "name": student.title()}]

    def upload(self, files: dict[bytes | str, bytes], failure: str | None = None
               ) -> dict | None:
        """`failure`: "lost" (the run failed on Gradescope's side, no results) or "flagged"
        (it ran, then Gradescope marked it autograder_error)."""
        when = f"2026-03-{len(self.past) + 1:02d}T10:00:00.000000-08:00"
        if failure == "lost":
            self.past.append({"submission_time": when, "score": 0.0, "autograder_error": True,
                              "results": None})
            return None
        for folder in ("submission", "results"):
            shutil.rmtree(self.root / folder, ignore_errors=True)
            (self.root / folder).mkdir()
        for name, data in files.items():
            name = os.fsencode(name)
            with open(os.path.join(os.fsencode(self.root / "submission"), name), "wb") as out:
                out.write(data)
        previous = [{"submission_time": p["submission_time"], "score": p["score"],
                     "autograder_error": p["autograder_error"]} for p in self.past]
        if self.past and self.past[-1]["results"] is not None:
            previous[-1]["results"] = (as_floats(self.past[-1]["results"]) if self.floats
                                       else self.past[-1]["results"])
        (self.root / "submission_metadata.json").write_text(json.dumps({
            "id": 1000 + len(self.past), "created_at": when,
            "assignment": {"id": 25828, "course_id": 1234, "title": "Diagnose",
                           "group_submission": False, "group_size": None,
                           "due_date": "2026-03-31T23:00:00.000000-07:00",
                           "late_due_date": None, "release_date": None, "total_points": "3.0"},
            "submission_method": "upload", "users": self.users,
            "previous_submissions": previous}))
        if self.real:
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",
                                                                    "DIAGNOSE_PYTHON")}
            done = subprocess.run(["bash", str(self.root / "source" / "run_autograder")],
                                  env={**env, "AUTOGRADER_ROOT": str(self.root)},
                                  cwd=self.root, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stdout + done.stderr
        else:
            from grading.autograder import main

            assert main([str(self.root)]) == 0
        results = json.loads((self.root / "results" / "results.json").read_text())
        self.past.append({"submission_time": when, "score": float(results["score"]),
                          "autograder_error": failure == "flagged", "results": results})
        return results


def as_floats(value):
    """JSON as Gradescope may hand it back: every number a float (3 -> 3.0)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, dict):
        return {k: as_floats(v) for k, v in value.items()}
    return [as_floats(v) for v in value]


def diagnoses(student, answers, code=None):
    text = format_diagnoses(student, code or CODES[student],
                            {i: (slug, "Panel 2 says so.") for i, slug in answers.items()})
    return text.encode("utf-8")


PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def record(results):
    return results["extra_data"]["diagnose"]


def test_the_first_graded_upload_counts_through_refusals_big_files_and_bad_names(image):
    """ana (Spanish): right, a 2 MiB file, a non-UTF-8 name with wrong answers, a PDF, wrong."""
    gradescope = Gradescope(image, "ana")
    first = gradescope.upload({"whatever-name.md": diagnoses("ana", TRUTH["ana"])})
    assert first["score"] == 3 and "este es el que cuenta" in first["output"]
    assert [t["name"] for t in first["tests"]] == ["01", "02", "03"]
    assert first["tests"][0]["output"].startswith("Leído")
    import scenarios  # the break's title, from its own catalog in the zip

    assert scenarios.breaks(None)[TRUTH["ana"]["01"]].title["es"] in first["tests"][0]["output"]
    big = gradescope.upload({"ana.md": diagnoses("ana", wrong("ana")) + b"x" * (2 << 20)})
    assert big["score"] == 3 and "ocupa más de 1 MiB" in big["output"]
    named = gradescope.upload({b"diagn\xf3stico.md": diagnoses("ana", wrong("ana"))})
    assert named["score"] == 3 and "diagn\\xf3stico.md" in named["output"]
    assert "(intento 2) no cuenta" in named["output"]
    assert "Incorrecto" in named["tests"][0]["output"]  # this upload's feedback, shown too
    pdf = gradescope.upload({"ana.pdf": PDF})
    assert pdf["score"] == 3 and "es un PDF" in pdf["output"]
    last = gradescope.upload({"ana.md": diagnoses("ana", wrong("ana"))})
    assert last["score"] == 3 and "(intento 3) no cuenta" in last["output"]
    for results in gradescope.past:
        text = json.dumps(results["results"])
        assert str(image) not in text and "/autograder" not in text  # no server path
        assert record(results["results"])["confirmed"] is True


def test_gradescope_side_failures_are_not_attempts(image):
    """borja: a run lost on Gradescope's side, a PDF, wrong (counts), a flagged run, right."""
    gradescope = Gradescope(image, "borja")
    assert gradescope.upload({"b.md": diagnoses("borja", TRUTH["borja"])}, "lost") is None
    pdf = gradescope.upload({"d.pdf": PDF})
    assert pdf["score"] == 0 and "d.pdf is a PDF" in pdf["output"]
    missed = gradescope.upload({"b.md": diagnoses("borja", wrong("borja"))})
    assert missed["score"] == 0 and "First attempt: this one counts." in missed["output"]
    flagged = gradescope.upload({"b.md": diagnoses("borja", TRUTH["borja"])}, "flagged")
    assert flagged["score"] == 0
    right = gradescope.upload({"b.md": diagnoses("borja", TRUTH["borja"])})
    assert right["score"] == 0 and "this one (attempt 2) does not count" in right["output"]
    assert record(right)["attempts"] == 2 and record(right)["confirmed"] is True


def test_a_lost_history_is_graded_and_said_never_counted_silently(image):
    """chen: right (3/3), a lost run, then wrong: Gradescope hands back no result to read."""
    gradescope = Gradescope(image, "chen")
    assert gradescope.upload({"c.md": diagnoses("chen", TRUTH["chen"])})["score"] == 3
    gradescope.upload({"c.md": diagnoses("chen", wrong("chen"))}, "lost")
    missed = gradescope.upload({"c.md": diagnoses("chen", wrong("chen"))})
    assert missed["score"] == 3  # where the last result that ran left it
    assert "first attempt could not be confirmed" in missed["output"]
    assert "Wrong" in missed["tests"][0]["output"] and missed["tests"][0]["max_score"] == 0
    later = gradescope.upload({"c.pdf": PDF})
    assert later["score"] == 3 and "could not be confirmed" in later["output"]
    assert record(later)["confirmed"] is False


def test_results_written_before_this_version_still_count(course, image):
    """A result as the zip of commit 279bf2f wrote it: its own attempt, sealed, nothing else."""
    key = scenario_key(course["secret"], CODES["chen"])
    old = {"schema": "diagnose.gradescope-attempt/1", "code": CODES["chen"],
           "time": "2026-02-01T10:00:00.000000-08:00", "file": "chen-diagnósticos.md",
           "sha256": "0" * 64, "score": 1, "max_score": 3,
           "answers": {"01": "broken-mask", "02": "no-warmup", "03": "bad-init"},
           "correct": ["01"]}
    body = json.dumps(old, sort_keys=True, ensure_ascii=False)
    old["mac"] = hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()
    gradescope = Gradescope(image, "chen", real=False)
    gradescope.past.append({"submission_time": "2026-02-01T10:00:00.000000-08:00",
                            "score": 1.0, "autograder_error": False,
                            "results": {"score": 1, "extra_data": {"diagnose": old}}})
    later = gradescope.upload({"c.md": diagnoses("chen", TRUTH["chen"])})
    assert later["score"] == 1 and "First attempt 1/3 on 2026-02-01" in later["output"]
    assert record(later)["confirmed"] is True and record(later)["first"]["score"] == 1


KINDS = ["right", "wrong", "one", "pdf", "big", "badname", "other", "lost", "flagged", "group"]


def _files(kind: str) -> dict:
    one = {"01": "bad-init", "02": "broken-mask", "03": "no-warmup"}  # 1/3 for borja
    return {"right": {"b.md": diagnoses("borja", TRUTH["borja"])},
            "wrong": {"b.md": diagnoses("borja", wrong("borja"))},
            "one": {"b.md": diagnoses("borja", one)},
            "pdf": {"b.pdf": PDF},
            "big": {"b.md": diagnoses("borja", TRUTH["borja"]) + b" " * (1 << 20)},
            "badname": {b"b\xff.md": diagnoses("borja", TRUTH["borja"])},
            "other": {"b.md": diagnoses("ana", TRUTH["ana"])}}.get(kind, {
                "b.md": diagnoses("borja", TRUTH["borja"])})


SCORES = {"right": 3, "wrong": 0, "one": 1, "badname": 3, "flagged": 3}


@settings(max_examples=25, deadline=None)
@given(chain=st.lists(st.sampled_from(KINDS), min_size=3, max_size=7), floats=st.booleans())
def test_any_chain_keeps_the_counted_first_attempt(image, chain, floats):
    """Generated chains of uploads, refusals, Gradescope-side failures (an `autograder_error`
    between graded uploads), group submissions, and results handed back with every number a
    float: every result scores the first graded upload (0 before one), unless a lost run hid
    the history, and then the score stays where the last result that ran left it and every
    later result says so. No per-ID test is ever more visible than the instructor's setting,
    and every output says which upload counts (issue 34)."""
    gradescope = Gradescope(image, "borja", real=False, floats=floats)
    alone = list(gradescope.users)
    counted, broken, last = None, False, 0
    for kind in chain:
        failure = kind if kind in ("lost", "flagged") else None
        gradescope.users = alone + ([{"name": "Chen", "email": EMAILS["chen"]}]
                                    if kind == "group" else [])
        ran_before = [p for p in gradescope.past if not p["autograder_error"]]
        hidden = bool(gradescope.past) and gradescope.past[-1]["results"] is None
        broken = broken or (hidden and bool(ran_before))
        results = gradescope.upload(_files(kind), failure)
        if results is None:
            continue
        for test in results["tests"]:
            assert test["name"] == "Upload" or test["visibility"] == "after_published", test
        assert "Here your first graded upload counts" in results["output"]
        if kind == "group":  # whose it is cannot be told: refused, the score rides on
            assert results["score"] == last and "turn groups off" in results["output"]
            continue
        would_count = kind in SCORES and counted is None and not broken
        expected = last if broken else SCORES[kind] if would_count else (counted or 0)
        assert results["score"] == expected, (chain, kind, results["output"])
        assert record(results)["confirmed"] is not broken
        if would_count and failure is None:  # a flagged run is no attempt
            counted = SCORES[kind]
        if failure is None:
            last = results["score"]


def test_issue_34_gradescope_reproductions(image):
    """Issue 34, reproductions 6 and 7: a graded upload, one that ends in autograder_error
    (so no results reach the next run), then another: graded, said, at the instructor's
    visibility, never forced visible; and a history handed back with floats still counts."""
    gradescope = Gradescope(image, "borja", real=False)
    assert gradescope.upload({"b.md": diagnoses("borja", TRUTH["borja"])})["score"] == 3
    gradescope.upload({"b.md": diagnoses("borja", wrong("borja"))}, "lost")
    unconfirmed = gradescope.upload({"b.md": diagnoses("borja", wrong("borja"))})
    assert unconfirmed["score"] == 3 and "could not be confirmed" in unconfirmed["output"]
    assert {t["visibility"] for t in unconfirmed["tests"]} == {"after_published"}
    floats = Gradescope(image, "borja", real=False, floats=True)
    assert floats.upload({"b.md": diagnoses("borja", TRUTH["borja"])})["score"] == 3
    later = floats.upload({"b.md": diagnoses("borja", wrong("borja"))})
    assert later["score"] == 3 and record(later)["confirmed"] is True  # 1.0 attempts is 1
    assert "(attempt 2) does not count" in later["output"]
    same = floats.upload({"b.md": diagnoses("borja", TRUTH["borja"])})  # the counted bytes
    assert same["score"] == 3 and record(same)["attempts"] == 2  # no new attempt

    # Reproduction 8, in a zip packed before emails were checked: two students share one
    # email without case; an upload under it is refused naming both, the score rides on.
    settings = image / "source" / "course" / "autograder.json"
    saved = settings.read_bytes()
    data = json.loads(saved)
    twin = {**next(e for e in data["students"] if e["student"] == "chen"),
            "email": EMAILS["borja"].upper()}
    settings.write_text(json.dumps({**data, "students": [
        e for e in data["students"] if e["student"] != "chen"] + [twin]}))
    try:
        refused = floats.upload({"b.md": diagnoses("borja", wrong("borja"))})
    finally:
        settings.write_bytes(saved)
    assert refused["score"] == 3 and "the roster gives this email to borja, chen" in (
        refused["output"])
    assert [t["name"] for t in refused["tests"]] == ["Upload"]  # the refusal, nothing more
    after = floats.upload({"b.md": diagnoses("borja", wrong("borja"))})
    assert after["score"] == 3 and record(after)["first"]["score"] == 3


def test_bad_inputs_are_one_error_line_and_no_zip(course, tmp_path):
    out = tmp_path / "a.zip"
    other = tmp_path / "other.key"
    write_key_file(other, new_secret())
    for args, expected in [
        (["--key", str(other), "--bundles", str(course["bundles"])], "sealed with another key"),
        (["--key", str(course["key"]), "--bundles", str(tmp_path)], "no manifest.csv here"),
    ]:
        result = CliRunner().invoke(cli, ["gradescope-autograder", "--out", str(out), *args],
                                    catch_exceptions=False)
        assert result.exit_code == 1, result.output
        assert result.output.startswith("Error: ") and expected in result.output
        assert len(result.output.strip().splitlines()) == 1
        assert not out.exists() and not list(tmp_path.glob(".a.zip*"))


def test_a_swapped_bundle_is_named_and_left_out_and_an_older_manifest_reads(tmp_path):
    """bob's bundle copied over ana's: ana is not packed under the manifest's name; a
    manifest without the lang column (as dealt before it) still builds."""
    secret = new_secret()
    write_key_file(tmp_path / "course.key", secret)
    bundles = tmp_path / "bundles"
    for student, code in (("ana", "AAAA-2222"), ("bob", "BBBB-3333")):
        make_workspace(bundles / student / "experiments" / "19-break-it", secret, code=code,
                       truth=TRUTH["ana"], key="instructor")
    (bundles / "manifest.csv").write_text("student,code,email,level\nana,AAAA-2222,,\n"
                                          "bob,BBBB-3333,,\n", encoding="utf-8")
    shutil.rmtree(bundles / "ana" / "experiments" / "19-break-it")
    shutil.copytree(bundles / "bob" / "experiments" / "19-break-it",
                    bundles / "ana" / "experiments" / "19-break-it")
    out = tmp_path / "autograder.zip"
    result = CliRunner().invoke(
        cli, ["gradescope-autograder", "--key", str(tmp_path / "course.key"), "--bundles",
              str(bundles), "--out", str(out), "--lang", "es"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("Warning: ana: ")  # said, never believed (issue 34)
    assert "says scenario BBBB-3333 for AAAA-2222" in result.stderr
    assert "for 2 students" in result.stdout
    with zipfile.ZipFile(out) as archive:
        data = json.loads(archive.read("course/autograder.json"))
        packed = json.loads(archive.read("course/bundles/ana/scenario.json"))
    assert packed["code"] == "AAAA-2222"  # written from the manifest, not copied
    assert [(s["student"], s["code"], s["lang"]) for s in data["students"]] == [
        ("ana", "AAAA-2222", "es"), ("bob", "BBBB-3333", "es")]


def test_the_feedback_language_defaults_to_the_deal_s(tmp_path):
    from diagnose.classroom.gradescope import deal_lang

    assert deal_lang(tmp_path) == "en"
    (tmp_path / "deal-settings.json").write_text('{"schema": "diagnose.deal/1", "lang": "es"}')
    assert deal_lang(tmp_path) == "es"
    (tmp_path / "deal-settings.json").write_text('{"lang": "xx"}')
    assert deal_lang(tmp_path) == "en"


def test_submitters_are_matched_by_email_then_by_name_and_a_group_is_refused(tmp_path):
    from grading.autograder import Course, Entry, Refused, find_student

    course = Course(tmp_path, "after_published", "en", (
        Entry("ana-garcia", "A", "ana@uni.example", "es", b"k"),
        Entry("José", "B", "", "en", b"k"), Entry("lee", "C", "", "en", b"k")))
    assert find_student([{"name": "Someone", "email": " ANA@uni.example"}], course).code == "A"
    assert find_student([{"name": "Ana García"}], course).code == "A"  # separators ignored
    assert find_student([{"name": "JOSE"}], course).code == "B"  # student_key
    for group in ([{"name": "lee"}, {"name": "jose"}], [{"name": "lee"}, {"name": "Zoe"}]):
        with pytest.raises(Refused) as refused:  # one score per submission: groups are off
            find_student(group, course)
        assert refused.value.said_in("en").startswith("This submission has 2 users (lee, ")
    with pytest.raises(Refused) as refused:
        find_student([{"name": "Nobody", "email": "n@x"}], course)
    assert refused.value.said_in("en").startswith("Nobody <n@x> is not on this course")
    twice = Course(tmp_path, "after_published", "en", (
        Entry("ana", "A", "ana@uni.example", "es", b"k"),
        Entry("bea", "B", "ANA@uni.example", "en", b"k")))  # a zip packed before the check
    with pytest.raises(Refused) as refused:
        find_student([{"name": "Bea", "email": "Ana@Uni.example"}], twice)
    assert refused.value.said_in("en") == ("Bea <Ana@Uni.example>: the roster gives this "
                                           "email to ana, bea; your instructor must give each "
                                           "student their own.")


def test_a_stranger_and_a_classmate_s_file_are_refused(image):
    stranger = Gradescope(image, "ana", real=False)
    stranger.users = [{"name": "Zoe Stranger", "email": "zoe@uni.example", "id": 9}]
    result = stranger.upload({"zoe.md": diagnoses("ana", TRUTH["ana"])})
    assert result["score"] == 0
    assert ("Zoe Stranger <zoe@uni.example> is not on this course's diagnose roster"
            in result["output"])  # the email it saw (issue 35)
    chen = Gradescope(image, "chen", real=False)
    copied = chen.upload({"chen.md": diagnoses("ana", TRUTH["ana"])})
    assert copied["score"] == 0
    assert "written for scenario AAAA-2222, but yours is CCCC-4444" in copied["output"]
    retitled = chen.upload({"chen.md": diagnoses("ana", TRUTH["chen"], code=CODES["chen"])})
    assert retitled["score"] == 0 and "is titled for ana, not for you" in retitled["output"]
    forged = json.loads(json.dumps(chen.past[-1]["results"]))
    forged["extra_data"]["diagnose"]["first"] = {"score": 3, "max_score": 3, "answers": {},
                                                 "correct": []}
    chen.past[-1]["results"] = forged  # an edited record is no history: it cannot be read
    later = chen.upload({"c.md": diagnoses("chen", TRUTH["chen"])})
    assert later["score"] == 0 and "could not be confirmed" in later["output"]


def test_a_level_3_bundle_is_graded_in_its_own_deck_s_words(tmp_path):
    """"sano" names the healthy decoy only at level 3: the autograder reads the bundle's level."""
    from grading.autograder import main

    truth = {"01": "healthy", "02": "high-lr", "03": "frozen-block"}
    secret = dealing_secret({"LVL3-0001": truth}, level=3)  # as `deal` derives it
    write_key_file(tmp_path / "course.key", secret)
    bundle = make_workspace(tmp_path / "bundles" / "ana" / "experiments" / "19-break-it",
                            secret, code="LVL3-0001", truth=truth, key="instructor")
    scenario = json.loads((bundle / "scenario.json").read_text())
    (bundle / "scenario.json").write_text(json.dumps({**scenario, "level": 3}))
    (tmp_path / "bundles" / "manifest.csv").write_text(
        "student,code,email,level\nana,LVL3-0001,ana@uni.example,3\n", encoding="utf-8")
    out = tmp_path / "autograder.zip"
    args = ["gradescope-autograder", "--key", str(tmp_path / "course.key"),
            "--bundles", str(tmp_path / "bundles"), "--out", str(out)]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    root = tmp_path / "autograder"
    with zipfile.ZipFile(out) as archive:
        archive.extractall(root / "source")
    (root / "submission").mkdir()
    (root / "submission" / "ana.md").write_text(
        "## 01\nDiagnóstico: sano\n\n## 02\nDiagnóstico: lr demasiado alto\n\n"
        "## 03\nDiagnóstico: bloque congelado\n", encoding="utf-8")
    (root / "submission_metadata.json").write_text(json.dumps({
        "id": 1, "created_at": "2026-03-02T10:15:00.000000-08:00",
        "users": [{"name": "Ana", "email": "ana@uni.example"}], "previous_submissions": []}))
    assert main([str(root)]) == 0
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 3, results["output"]


def test_a_broken_zip_keeps_the_counted_score_and_shows_students_no_path(image, tmp_path,
                                                                         capsys):
    """After a counted 3/3: a sealed key damaged in the zip, then autograder.json damaged.
    Each later run keeps 3 (and the history where it can read it); the path goes to stdout,
    which Gradescope shows to instructors only."""
    root = tmp_path / "autograder"
    shutil.copytree(image / "source", root / "source")
    gradescope = Gradescope(root, "chen", real=False)
    assert gradescope.upload({"c.md": diagnoses("chen", TRUTH["chen"])})["score"] == 3
    (root / "source" / "course" / "bundles" / "chen" / "answer-key.sealed").write_text("x")
    damaged = gradescope.upload({"c.md": diagnoses("chen", wrong("chen"))})
    assert damaged["score"] == 3 and record(damaged)["attempts"] == 1
    assert "could not grade this upload" in damaged["output"]
    (root / "source" / "course" / "autograder.json").write_text("[" * 100_000)
    broken = gradescope.upload({"c.md": diagnoses("chen", wrong("chen"))})
    assert broken["score"] == 3 and record(broken) == record(damaged)
    for results in (damaged, broken):
        assert str(tmp_path) not in json.dumps(results)
    assert str(root) in capsys.readouterr().out


def test_links_to_the_server_s_files_are_refused(image, tmp_path):
    """A link in the upload (a zip keeps them) would read the course's files: refused."""
    from grading.autograder import Refused, find_upload

    secret_file = image / "source" / "course" / "bundles" / "ana" / "answer-key.sealed"
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "ana.md").symlink_to(secret_file)
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "course").symlink_to(secret_file.parent, target_is_directory=True)
    (tmp_path / "folder" / "notes.md").write_text("## 01\n")
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "private.md").write_text("## 01\n")
    (tmp_path / "decoy").mkdir()
    (tmp_path / "decoy" / "x").symlink_to(tmp_path / "server", target_is_directory=True)
    for folder in ("linked", "decoy"):
        with pytest.raises(Refused) as refused:
            find_upload(tmp_path / folder)
        assert any(why in str(refused.value) for why in (
            "is not an ordinary file", "No file was uploaded")), folder
    assert find_upload(tmp_path / "folder").name == "notes.md"


def test_a_group_upload_after_a_counted_attempt_keeps_the_score_and_the_history(image):
    """Whose upload it is cannot be told (two students): refused, the score and the record of
    the latest result ride on, and the next upload of the student alone still counts it."""
    gradescope = Gradescope(image, "ana", real=False)
    first = gradescope.upload({"a.md": diagnoses("ana", TRUTH["ana"])})
    gradescope.users = [*gradescope.users, {"name": "Borja", "email": EMAILS["borja"]}]
    group = gradescope.upload({"a.md": diagnoses("ana", wrong("ana"))})
    assert group["score"] == 3 and "This submission has 2 users (Ana <ANA@UNI.EXAMPLE>, " \
        "Borja <borja@uni.example>)" in group["output"]
    assert group["tests"][0]["visibility"] == "visible"  # the refusal, in one visible line
    assert "turn groups off" in group["tests"][0]["output"]
    assert record(group) == record(first)
    gradescope.users = gradescope.users[:1]
    alone = gradescope.upload({"a.md": diagnoses("ana", wrong("ana"))})
    assert alone["score"] == 3 and "(intento 2) no cuenta" in alone["output"]


def test_an_upload_s_escape_and_bidi_characters_reach_no_output(course, tmp_path, capsys):
    """A file name and Evidence lines carrying ESC, a C1 CSI and U+202E: results.json and the
    autograder's stdout show them as escapes (`scenarios.escape`), never as they are."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(course["zip"]) as archive:
        archive.extractall(root / "source")
    hostile = "\x1b[2J\x9b31m\u202e"
    text = format_diagnoses("borja", CODES["borja"],
                            {i: (slug, f"Panel 2 {hostile} says so.")
                             for i, slug in TRUTH["borja"].items()})
    results = Gradescope(root, "borja", real=False).upload(
        {f"borja{hostile}.md": text.replace("Panel 2", f"Diagnosis {hostile}").encode()})
    raw = (root / "results" / "results.json").read_text(encoding="utf-8")
    printed = capsys.readouterr().out
    for output in (raw, printed, json.dumps(results, ensure_ascii=False)):
        assert not any(c in output for c in "\x1b\x9b\u202e"), output
    assert "\\x1b[2J" in raw and results["score"] == 3
