"""`diagnose grade`: exit codes, the exact `Error:` line for every bad input, never a traceback.

Every test runs in its own folder (chdir) with a private DIAGNOSE_HOME, a workspace of
scenario.json and a sealed key in `experiments/19-break-it`, and no metrics: the solutions
file then cannot be written, which the command says in a warning while still recording the
reveal.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from grading_testkit import CODE, dealing_secret, make_workspace

from diagnose.cli import cli
from grading import read_attempts
from grading.seal import fingerprint, new_secret, seal, write_key_file

WS = Path("experiments") / "19-break-it"
UNTIL_SHOWN = ("This one counts: a corrected file handed in later replaces it, until the "
               "answers are shown.")
KEY = WS / "answer-key.sealed"
GOOD = f"<!-- scenario: {CODE} -->\n## 01\nDiagnosis: no warmup\n## 02\nDiagnosis: bad init\n"


def run(*args: str):
    return CliRunner().invoke(cli, ["grade", "--yes", *args], catch_exceptions=False)


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A course folder with a self-study scenario and a diagnoses file `d.md`."""
    monkeypatch.chdir(tmp_path)
    from diagnose.home import self_study_secret

    make_workspace(WS, self_study_secret(create=True))
    Path("d.md").write_text(GOOD, encoding="utf-8")
    return tmp_path


def test_self_study_grading_scores_records_and_reveals(here):
    result = run("d.md")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"Scenario {CODE} · d.md"
    assert "01  right" in lines and "02  wrong" in lines and "03  wrong" in lines
    assert lines[-2:] == ["Score: 1/3", "First attempt: this one counts."]
    assert result.stderr.startswith("Warning: solutions not written (")
    assert json.loads((WS / "reveal.json").read_text())["by"] == "grade"
    assert [a.score for a in read_attempts(WS)] == [1]

    same = run("d.md")  # the same bytes again: no new attempt (issue 35)
    assert ("The same file as attempt 1: graded again, not a new attempt. Attempt 1, 1/3 on "
            in " ".join(same.stdout.split()))
    assert len(read_attempts(WS)) == 1
    Path("d.md").write_text(GOOD + "<!-- edited -->\n", encoding="utf-8")
    again = run("d.md", "--lang", "es")
    assert again.exit_code == 0
    assert again.stdout.splitlines()[-2:] == [
        "Puntuación: 1/3", f"Primer intento 1/3 el {read_attempts(WS)[0].date}; este, "
        "posterior a la revelación, no cuenta."]


def test_json(here):
    result = run("d.md", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert list(data)[:5] == ["score", "max_score", "results", "attempt", "after_reveal"]
    assert (data["score"], data["max_score"], data["attempt"], data["after_reveal"]) == (
        1, 3, 1, False)
    assert data["results"][0] == {
        "id": "01", "answer": "no-warmup", "truth": "no-warmup", "correct": True,
        "feedback": 'Read "no warmup" on the Diagnosis line: no-warmup. '
                    "Right: 01 was no-warmup: No learning-rate warmup."}
    assert data["solutions"] is None  # no metrics in this workspace to explain


def test_check_needs_no_key_and_records_nothing(here, monkeypatch):
    monkeypatch.setenv("DIAGNOSE_HOME", str(here / "empty-home"))
    result = run("d.md", "--check")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"Checked d.md · scenario {CODE}\n\n01  no-warmup\n")
    assert "03  missing" in result.stdout
    assert not (WS / "attempts.jsonl").exists() and not (WS / "reveal.json").exists()
    data = json.loads(run("d.md", "--check", "--json").stdout)
    assert [i["status"] for i in data["ids"]] == ["named", "named", "missing"]


def test_the_scenario_is_found_next_to_the_file(here):
    (here / "elsewhere").mkdir()
    Path("elsewhere/d.md").write_text(GOOD)
    assert run("elsewhere/d.md").exit_code == 0  # not next to it, but in ./experiments
    os.chdir("elsewhere")
    result = run("d.md")
    assert result.exit_code == 1
    assert result.stderr == ("Error: no scenario found next to d.md or in "
                             f"{WS}; pass --dir\n")
    result = run("d.md", "--dir", str(here / WS))
    assert result.exit_code == 0
    Path(WS).mkdir(parents=True)  # an empty ./experiments/19-break-it is no scenario
    assert run("../d.md").exit_code == 0  # ../experiments/19-break-it is next to the file


def error_line(result) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    return result.stderr


@pytest.mark.parametrize("name, content, message", [
    ("bin.md", b"\x89PNG\r\n\x1a\n\x00\x00", "Error: bin.md: binary content, not a Markdown "
                                               "text file\n"),
    ("latin.md", "Diagnóstico: máscara".encode("latin-1"),
     "Error: latin.md: not UTF-8 text; save it as UTF-8\n"),
    ("other.md", b"<!-- scenario: ZZZZ-0000 -->\n## 01\nbad init\n",
     f"Error: other.md: written for scenario ZZZZ-0000, but the answer key is for scenario "
     f"{CODE}\n"),
])
def test_bad_files(here, name, content, message):
    Path(name).write_bytes(content)
    assert error_line(run(name)) == message


def test_missing_directory_and_huge_files(here):
    assert error_line(run("nope.md")) == "Error: nope.md: no such file\n"
    assert error_line(run("experiments")) == ("Error: experiments: is a directory, not a "
                                              "diagnoses file\n")
    with open("big.md", "wb") as stream:
        stream.truncate(5 * 1024 * 1024)
    assert error_line(run("big.md")) == "Error: big.md: not a diagnoses file (over 1 MiB)\n"


def test_an_empty_file_scores_zero(here):
    Path("empty.md").write_bytes(b"")
    result = run("empty.md")
    assert result.exit_code == 0
    assert 'No sections found: start each with a heading such as "## 01".' in result.stdout
    assert "Score: 0/3" in result.stdout


def test_key_problems(here):
    from diagnose.home import self_study_secret

    tampered = "the answer key has been changed or belongs to another scenario"
    sealed = json.loads(KEY.read_text())
    sealed["token"] = sealed["token"][::-1]
    KEY.write_text(json.dumps(sealed))
    assert error_line(run("d.md")) == f"Error: {KEY}: {tampered}\n"
    KEY.write_text("garbage")
    assert error_line(run("d.md")) == f"Error: {KEY}: {tampered} (it is not valid JSON)\n"
    KEY.write_text(seal("ZZZZ-0000", {"01": "bad-init"}, self_study_secret()))
    assert error_line(run("d.md")) == (f"Error: {KEY}: {tampered} (it is for scenario "
                                       f"ZZZZ-0000, not {CODE})\n")
    other = new_secret()
    KEY.write_text(seal(CODE, {"01": "bad-init", "02": "no-warmup", "03": "broken-mask"},
                        other))
    assert error_line(run("d.md")) == (
        f"Error: {KEY}: the answer key was sealed with another key (fingerprint "
        f"{fingerprint(other)}, this key is {fingerprint(self_study_secret())})\n")
    KEY.unlink()
    assert error_line(run("d.md")) == f"Error: {KEY}: the answer key is missing\n"
    assert not (WS / "attempts.jsonl").exists()


def test_no_self_study_secret(here, monkeypatch):
    home = here / "other-home"
    monkeypatch.setenv("DIAGNOSE_HOME", str(home))
    assert error_line(run("d.md")) == (
        f"Error: no self-study secret at {home / 'self-study.key'}: this machine made no "
        "scenario (set DIAGNOSE_HOME if it lives elsewhere)\n")


def test_corrupt_or_missing_scenario(here):
    assert error_line(run("d.md", "--dir", "nope")) == "Error: nope: no such directory\n"
    assert error_line(run("d.md", "--dir", ".")) == ("Error: .: no scenario here "
                                                     "(scenario.json is missing)\n")
    (WS / "scenario.json").write_text("{")
    assert error_line(run("d.md")) == (f"Error: {WS / 'scenario.json'}: corrupt (expected "
                                       "schema diagnose.scenario/1 with code, ids, steps, "
                                       "engine_version and key)\n")


INSTRUCTOR_KEY = dealing_secret(["AAAA-1111", "BBBB-2222"])


@pytest.fixture
def instructor(tmp_path, monkeypatch):
    """An instructor's key file and two bundles, borja's and ana's."""
    monkeypatch.chdir(tmp_path)
    key = INSTRUCTOR_KEY  # deals the testkit's TRUTH to both codes, as `deal` derives it
    write_key_file(Path("course.key"), key)
    for student, code in (("borja", "AAAA-1111"), ("ana", "BBBB-2222")):
        make_workspace(Path("bundles", student) / WS, key, code, key="instructor")
    Path("bundles/manifest.csv").write_text("student,code\nborja,AAAA-1111\nana,BBBB-2222\n")
    Path("borja-diagnoses.md").write_text("<!-- scenario: AAAA-1111 -->\n01: no warmup\n")
    Path("ana.md").write_text("01: no warmup\n02: broken mask\n03: bad init\n")
    return tmp_path


def test_a_bundle_needs_the_instructors_key(instructor):
    bundle = Path("bundles/borja") / WS
    assert error_line(run("borja-diagnoses.md", "--dir", str(bundle))) == (
        f"Error: {bundle}: this scenario was dealt by an instructor and only their key opens "
        "it; check your file with `diagnose grade borja-diagnoses.md --check` and hand it in\n")
    assert run("borja-diagnoses.md", "--dir", str(bundle), "--check").exit_code == 0
    result = run("borja-diagnoses.md", "--dir", str(bundle), "--key", "course.key")
    assert result.exit_code == 0 and "Score: 1/3" in result.stdout
    assert not (bundle / "reveal.json").exists()  # the instructor grades; nothing is revealed
    assert read_attempts(bundle)[0].by == "instructor"

    os.chmod("course.key", 0o644)
    assert error_line(run("borja-diagnoses.md", "--dir", str(bundle), "--key",
                          "course.key")) == (
        "Error: course.key: permissions -rw-r--r-- let others read the key; run "
        "`chmod 600 course.key`\n")


def test_a_class(instructor):
    result = run("--key", "course.key", "--bundles", "bundles", "borja-diagnoses.md", "ana.md",
                 "--gradebook", "grades.csv", "--gradescope", "gs")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"borja  1/3  borja-diagnoses.md  ({UNTIL_SHOWN})",
        f"ana    3/3  ana.md  ({UNTIL_SHOWN})",
        "Gradebook: grades.csv (2 students; private: it holds every scenario's truth. For "
        "your LMS: --gradebook-format canvas, moodle or plain)",
        "Gradescope: 2 results.json in gs"]
    assert Path("grades.csv").read_text().splitlines()[1].startswith("borja,AAAA-1111,1,3,")
    assert json.loads(Path("gs/ana/results.json").read_text())["score"] == 3

    Path("stray.md").write_text("## 01\nbad init\n")
    result = run("--key", "course.key", "--bundles", "bundles", "stray.md", "ana.md", "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    data["graded"].sort(key=lambda g: g["file"], reverse=True)  # graded in collection order
    assert data["graded"][0] == {"file": "stray.md", "student": None, "error": (
        "stray.md: its name matches no student of the roster; nothing recorded (name it "
        "after the student as the manifest spells them, <student>-diagnoses.md)")}
    assert data["graded"][1]["attempt"] == 1 and data["graded"][1]["repeat"]  # the same bytes
    assert result.stderr == "Error: 1 of 2 files could not be graded\n"


@pytest.mark.parametrize("args, message", [
    ((), "Missing argument 'FILE...'."),
    (("--bundles", "b", "x.md"), "--bundles needs --key (the instructor's key file)."),
    (("--key", "k", "--bundles", "b", "--dir", "d", "x.md"),
     "--bundles finds each file's bundle: it takes no --dir or --check."),
    (("x.md", "--gradebook", "g.csv"), "--gradebook and --gradescope go with --bundles."),
    (("a.md", "b.md"), "several files are graded with --key KEY --bundles DIR."),
    (("x.md", "--lang", "fr"), "Invalid value for '--lang': 'fr' is not one of 'en', 'es'."),
])
def test_bad_usage(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == f"Error: {message}"


@pytest.mark.parametrize("target, data", [
    ("scenario.json", b"[" * 30_000), ("answer-key.sealed", b'{"a":' * 10_000),
    ("scenario.json", b'{"schema": "\xff'), ("answer-key.sealed", b"{\"token\": \"\\ud800\"}"),
])
def test_a_class_with_a_hostile_bundle_grades_the_others_and_writes_the_gradebook(
        instructor, target, data):
    """Issue 20, item 6: one bundle nested 30,000 deep once crashed class grading after it
    had recorded an attempt, leaving no gradebook."""
    (Path("bundles/ana") / WS / target).write_bytes(data)
    result = run("--key", "course.key", "--bundles", "bundles", "borja-diagnoses.md", "ana.md",
                 "--gradebook", "grades.csv")
    # the bundle is never read to decide (issue 34): ana is graded from the key and the
    # manifest, her broken bundle said, and no courtesy copy written into it
    lines = result.stdout.splitlines()
    assert result.exit_code == 0, result.output
    assert lines[0] == f"borja  1/3  borja-diagnoses.md  ({UNTIL_SHOWN})"
    assert lines[1] == f"ana    3/3  ana.md  ({UNTIL_SHOWN})"
    assert lines[2].startswith(f"       records  {Path('bundles/ana') / WS / target}: ")
    assert "Traceback" not in result.output
    assert Path("grades.csv").read_text().splitlines()[1].startswith("borja,AAAA-1111,1,3,")
    assert Path("grades.csv").read_text().splitlines()[2].startswith("ana,BBBB-2222,3,3,")
    assert not (Path("bundles/ana") / WS / "attempts.jsonl").exists()


def test_a_line_of_spaces_is_checked_at_once(tmp_path):
    """Issue 20, item 1: "loss" + 20,000 spaces + "x" took 4-13 s in `grade --check`."""
    file = tmp_path / "ana-diagnoses.md"
    file.write_text("## 01\nloss" + " " * 20_000 + "x\n## 02\nDiagnosis:" + "\t" * 20_000
                    + "bad init\n# Diagnoses -" + " " * 20_000 + "x\n", encoding="utf-8")
    result = run(str(file), "--check")
    assert result.exit_code == 0 and "02" in result.stdout
