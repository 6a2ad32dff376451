"""`diagnose gradescope-autograder`: the zip's layout, and the real `run_autograder` run from it
in a folder laid out as Gradescope's /autograder, for several students."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from grading.seal import new_secret, unseal_scenario, write_key_file
from grading.writer import format_diagnoses

sys.path.insert(0, str(Path(__file__).parent / "grading"))
from grading_testkit import make_workspace  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TRUTH = {
    "ana": {"01": "no-warmup", "02": "broken-mask", "03": "bad-init"},
    "borja": {"01": "bad-init", "02": "no-warmup", "03": "broken-mask"},
    "chen": {"01": "broken-mask", "02": "bad-init", "03": "no-warmup"},
}
CODES = {"ana": "AAAA-2222", "borja": "BBBB-3333", "chen": "CCCC-4444"}
MANIFEST = ("student,code,email,level,lang\n"
            "ana,AAAA-2222,ana@uni.example,,es\n"
            "borja,BBBB-3333,,,\n"
            "chen,CCCC-4444,chen@uni.example,,\n")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Three dealt bundles (sealed, untrained), the key file, and the zip the CLI wrote."""
    root = tmp_path_factory.mktemp("course")
    secret = new_secret()
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


def test_the_zip_holds_what_gradescope_runs_and_never_the_instructor_key(course):
    with zipfile.ZipFile(course["zip"]) as archive:
        names = set(archive.namelist())
        wheels = [n for n in names if n.endswith(".whl")]
        assert len(wheels) == 1 and wheels[0].startswith("diagnose-") and "/" not in wheels[0]
        assert {"setup.sh", "run_autograder", "course/autograder.json",
                "course/manifest.csv"} <= names
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
        with zipfile.ZipFile(archive.open(wheels[0])) as wheel:
            assert "grading/autograder.py" in wheel.namelist()
    assert data["visibility"] == "after_published"
    langs = {s["student"]: s["lang"] for s in data["students"]}
    assert langs == {"ana": "es", "borja": "en", "chen": "en"}
    for entry in data["students"]:  # each derived key opens its own scenario, no other
        sealed = (course["bundles"] / entry["student"] / "experiments" / "19-break-it"
                  / "answer-key.sealed").read_text()
        assert unseal_scenario(sealed, entry["key"].encode(), entry["code"]) == \
            TRUTH[entry["student"]]


@pytest.fixture(scope="module")
def grader(course, tmp_path_factory):
    """Runs the zip's real run_autograder on one upload in a fresh /autograder-like folder."""
    fake = tmp_path_factory.mktemp("no-app-deps")  # the grader must not need numpy or textual
    for name in ("numpy", "textual"):
        (fake / name).mkdir()
        (fake / name / "__init__.py").write_text("raise ImportError('not on Gradescope')\n")
    with zipfile.ZipFile(course["zip"]) as archive:
        (wheel,) = [n for n in archive.namelist() if n.endswith(".whl")]
    count = iter(range(1000))

    def run(users, files, previous=(), real=True):
        """`real`: the zip's run_autograder in a fresh interpreter; else its body, in-process."""
        root = tmp_path_factory.mktemp(f"autograder-{next(count)}")
        with zipfile.ZipFile(course["zip"]) as archive:
            archive.extractall(root / "source")
        (root / "submission").mkdir()
        for name, data in files.items():
            (root / "submission" / name).write_bytes(data)
        (root / "submission_metadata.json").write_text(json.dumps({
            "id": 1, "created_at": "2026-03-02T10:15:00.000000-08:00", "users": users,
            "previous_submissions": list(previous)}))
        if real:
            env = {**os.environ, "AUTOGRADER_ROOT": str(root),
                   "DIAGNOSE_PYTHON": sys.executable,
                   "PYTHONPATH": os.pathsep.join([str(fake), str(root / "source" / wheel)])}
            done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env,
                                  cwd=root, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
        else:
            from grading.autograder import main

            assert main([str(root)]) == 0
        return json.loads((root / "results" / "results.json").read_text())

    return run


def diagnoses(student, answers, code=None):
    text = format_diagnoses(student, code or CODES[student],
                            {i: (slug, "Panel 2 says so.") for i, slug in answers.items()})
    return text.encode("utf-8")


def previous(results, when="2026-03-01T09:00:00.000000-08:00"):
    return {"submission_time": when, "score": results["score"], "results": results}


def test_a_student_matched_by_email_is_graded_in_their_language_and_the_first_upload_counts(
        grader):
    ana = [{"name": "Ana García", "email": "ANA@uni.example", "id": 7}]
    first = grader(ana, {"whatever-name.md": diagnoses("ana", TRUTH["ana"])})
    assert first["score"] == 3
    assert first["output_format"] == "text" and first["visibility"] == "after_published"
    assert "Puntuación: 3/3" in first["output"] and "este es el que cuenta" in first["output"]
    assert [t["name"] for t in first["tests"]] == ["01", "02", "03"]
    assert all(t["status"] == "passed" and t["visibility"] == "after_published"
               for t in first["tests"])
    assert first["tests"][0]["output"].startswith("Leído")

    wrong = {"01": "bad-init", "02": "broken-mask", "03": "no-warmup"}
    second = grader(ana, {"ana-diagnoses.md": diagnoses("ana", wrong)}, [previous(first)])
    assert second["score"] == 3  # the first attempt still counts
    assert "no cuenta" in second["output"]
    assert [t["score"] for t in second["tests"]] == [1, 1, 1]
    assert "Incorrecto" in second["tests"][0]["output"]  # this upload's feedback, shown too

    forged = json.loads(json.dumps(first))
    forged["extra_data"]["diagnose"]["correct"] = []  # an edited record is no attempt
    third = grader(ana, {"a.md": diagnoses("ana", wrong)}, [previous(forged)], real=False)
    assert third["score"] == 1 and "este es el que cuenta" in third["output"]


def test_a_pdf_gets_a_clear_failing_result_and_is_not_an_attempt(grader):
    borja = [{"name": "Borja", "email": "borja@elsewhere.example", "id": 8}]
    pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    result = grader(borja, {"diagnoses.pdf": pdf})
    assert result["score"] == 0 and result["visibility"] == "visible"
    assert "diagnoses.pdf is a PDF" in result["output"]
    assert result["tests"][0]["visibility"] == "visible"
    assert "diagnose" not in result.get("extra_data", {})
    later = grader(borja, {"borja.md": diagnoses("borja", TRUTH["borja"])},
                   [previous(result)], real=False)
    assert later["score"] == 3 and "First attempt: this one counts." in later["output"]

    binary = grader(borja, {"notes.docx": b"PK\x03\x04\x00\x00binary"}, real=False)
    assert binary["score"] == 0 and "cannot be graded" in binary["output"]
    wrong_file = grader(borja, {"todo.txt": b"buy milk\n"}, real=False)
    assert wrong_file["score"] == 0 and "holds no diagnoses" in wrong_file["output"]


def test_a_student_not_on_the_roster_and_another_students_scenario_are_refused(grader):
    stranger = grader([{"name": "Zoe Stranger", "email": "zoe@uni.example", "id": 9}],
                      {"zoe.md": diagnoses("ana", TRUTH["ana"])})
    assert stranger["score"] == 0
    assert "Zoe Stranger is not on this course's diagnose roster" in stranger["output"]

    copied = grader([{"name": "Chen", "email": "chen@uni.example", "id": 10}],
                    {"chen.md": diagnoses("ana", TRUTH["ana"])}, real=False)
    assert copied["score"] == 0
    assert "written for scenario AAAA-2222, but yours is CCCC-4444" in copied["output"]
    retitled = grader([{"name": "Chen", "email": "chen@uni.example", "id": 10}],
                      {"chen.md": diagnoses("ana", TRUTH["chen"], code=CODES["chen"])},
                      real=False)
    assert retitled["score"] == 0 and "is titled for ana, not for you" in retitled["output"]


def test_bad_inputs_are_one_error_line_and_no_zip(course, tmp_path):
    out = tmp_path / "a.zip"
    other = tmp_path / "other.key"
    write_key_file(other, new_secret())
    for args, expected in [
        (["--key", str(other), "--bundles", str(course["bundles"])], "sealed with another key"),
        (["--key", str(course["key"]), "--bundles", str(tmp_path)], "no manifest.csv here"),
        (["--key", str(course["key"]), "--bundles", str(course["bundles"]), "--wheel",
          str(course["key"])], "not a diagnose wheel"),
    ]:
        result = CliRunner().invoke(cli, ["gradescope-autograder", "--out", str(out), *args],
                                    catch_exceptions=False)
        assert result.exit_code == 1, result.output
        assert result.output.startswith("Error: ") and expected in result.output
        assert len(result.output.strip().splitlines()) == 1
        assert not out.exists() and not list(tmp_path.glob(".a.zip*"))


def test_the_feedback_language_defaults_to_the_deal_s(tmp_path):
    from diagnose.gradescope import deal_lang

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
    with pytest.raises(Refused, match="several students"):
        find_student([{"name": "lee"}, {"name": "jose"}], course)
    with pytest.raises(Refused, match="not on this course"):
        find_student([{"name": "Nobody", "email": "n@x"}], course)


def test_a_level_3_bundle_is_graded_in_its_own_deck_s_words(tmp_path):
    """"sano" names the healthy decoy only at level 3: the autograder reads the bundle's level."""
    from grading.autograder import main

    secret = new_secret()
    write_key_file(tmp_path / "course.key", secret)
    truth = {"01": "healthy", "02": "high-lr", "03": "frozen-block"}
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
