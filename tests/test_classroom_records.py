"""The bundles folder's records hold: each student's feedback language from the roster, the
manifest in roster order (jobs > 1; on a cluster in tests/test_cluster.py, on its cluster), a
deleted bundle dealt again under its manifest code, a deleted `deal-settings.json` checked
against what the bundles say, and the files today's version writes still open (written here as
literal text)."""

from __future__ import annotations

import csv
import json
import shutil

import pytest
from click.testing import CliRunner

from diagnose.classroom import deal as classroom
from diagnose.cli import cli
from diagnose.game.dealing import ScenarioError
from diagnose.game.scenario import engine_version
from grading import gradebook
from grading.manifest import ManifestRow, read_manifest
from grading.seal import fingerprint, read_key_file

STEPS = "1"  # any length deals the same folders; one step trains the least


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


def manifest_rows(out) -> list[list[str]]:
    with (out / "manifest.csv").open(newline="", encoding="utf-8") as stream:
        return list(csv.reader(stream))


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    """One key and one folder dealt with it (--count 2, --steps STEPS), copied by each test."""
    root = tmp_path_factory.mktemp("dealt")
    key = root / "course.key"
    assert run("keygen", "--out", str(key)).exit_code == 0
    assert deal(key, root / "bundles", "--count", "2").exit_code == 0
    return key, root / "bundles"


@pytest.fixture
def key(dealt):
    return dealt[0]


@pytest.fixture
def folder(dealt, tmp_path):
    """A copy of the dealt folder: student-01 and student-02."""
    return shutil.copytree(dealt[1], tmp_path / "bundles")


def deal(key, out, *args: str, steps: str = STEPS):
    return run("deal", "--key", str(key), "--out", str(out), "--steps", steps, *args)


# --- the roster's lang and the manifest's order ------------------------------------------------

def test_roster_order_and_each_students_language_reach_the_manifest(tmp_path, key):
    out = tmp_path / "bundles"
    roster = write(tmp_path / "r1.csv", "name,email,level,lang\nzoe,,,es\nana,a@x.org,,EN\n"
                                        "mia,,,\n")
    result = deal(key, out, "--roster", str(roster), "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert manifest_rows(out)[0] == ["student", "code", "email", "level", "lang"]
    assert [(r[0], r[3], r[4]) for r in manifest_rows(out)[1:]] == [
        ("zoe", "1", "es"), ("ana", "1", "en"), ("mia", "1", "")]
    first = manifest_rows(out)
    # a later roster, in another order: new students appended in theirs, old rows kept
    roster = write(tmp_path / "r2.csv", "yan\nmia\n")
    assert deal(key, out, "--roster", str(roster), "--jobs", "2").exit_code == 0
    rows = manifest_rows(out)
    assert rows[:4] == first and [r[0] for r in rows[4:]] == ["yan"]
    by_name = {row.student: row for row in read_manifest(out)}
    assert by_name["zoe"].lang == "es" and by_name["yan"].lang == ""
    assert [s.name for s in gradebook.dealt_students(out)] == ["zoe", "ana", "mia", "yan"]


def test_an_unknown_language_is_refused_with_its_line(tmp_path, key):
    roster = write(tmp_path / "r.csv", "name,lang\nana,es\nbeto,fr\n")
    result = deal(key, tmp_path / "bundles", "--roster", str(roster))
    assert result.exit_code == 1
    assert result.output == (f"Error: {roster}:3: lang 'fr': expected en, es (the student's "
                             "feedback language), or nothing\n")
    assert not (tmp_path / "bundles").exists()


# --- a deleted bundle ---------------------------------------------------------------------------

def test_a_deleted_bundle_is_dealt_again_under_its_manifest_code(folder, key):
    out = folder
    before = manifest_rows(out)
    bundle = classroom.bundle_dir(out, "student-01")
    metrics = (bundle / "01" / "metrics.jsonl").read_bytes()
    shutil.rmtree(out / "student-01")
    result = deal(key, out, "--count", "2")
    assert result.exit_code == 0, result.output
    assert manifest_rows(out) == before
    assert json.loads((bundle / "scenario.json").read_text())["code"] == before[1][1]
    assert (bundle / "01" / "metrics.jsonl").read_bytes() == metrics  # the same scenario
    shutil.rmtree(out / "student-01")
    result = deal(key, out, "--count", "2", "--level", "2")  # a dealt student keeps a level
    assert result.exit_code == 1
    assert "student-01 was dealt level 1, not 2" in result.output
    assert not (out / "student-01").exists() and manifest_rows(out) == before


def test_a_documented_redeal_reads_as_a_redeal_in_the_gradebook(folder, key, tmp_path,
                                                                monkeypatch):
    """Issue 35: re-dealing a lost bundle as the README says once made every later gradebook
    say "records were deleted or replaced", which reads like cheating."""
    out = folder
    monkeypatch.chdir(tmp_path)
    (tmp_path / "student-01.md").write_text("## 01\nDiagnosis: bad init\n")
    grade = ["grade", "--key", str(key), "--bundles", str(out)]
    assert run(*grade, "student-01.md").exit_code == 0
    shutil.rmtree(out / "student-01")  # lost
    assert deal(key, out, "--count", "2").exit_code == 0
    result = run(*grade, "--gradebook", "grades.csv")
    assert result.exit_code == 0, result.output
    with open("grades.csv", newline="", encoding="utf-8") as stream:
        row = next(csv.DictReader(stream))
    assert "deleted" not in row["records"] and row["attempts"] == "1"
    assert "bundle dealt again on " in row["records"] and "the same scenario" in row["records"]


# --- deal-settings.json deleted -----------------------------------------------------------------

@pytest.mark.parametrize("args", [[], ["--lang", "es"], ["--steps", "6"]])
def test_without_its_settings_file_a_deal_folder_is_refused_saying_how_to_restore(folder, key,
                                                                                  args):
    """The bundles are the students' copies: they never say what was dealt (issue 34)."""
    out = folder
    saved = (out / classroom.SETTINGS_FILE).read_bytes()
    (out / classroom.SETTINGS_FILE).unlink()
    result = run("deal", "--key", str(key), "--out", str(out), "--count", "3",
                 *(["--steps", STEPS] if "--steps" not in args else []), *args)
    assert result.exit_code == 1
    assert "holds a deal (manifest.csv or bundles) but not its deal-settings.json" in (
        result.output)
    assert "restore deal-settings.json from your backup" in result.output
    assert not (out / classroom.SETTINGS_FILE).exists()  # nothing rewritten
    assert not (out / "student-03").exists()
    (out / classroom.SETTINGS_FILE).write_bytes(saved)  # restored: the deal goes on
    assert deal(key, out, "--count", "3").exit_code == 0
    assert (out / "student-03").is_dir()


def test_a_bundle_is_never_read_to_decide_a_deal(folder, key):
    """Issue 34, reproduction 2: bob's workspace copied over ana's, then a late student dealt
    into the same folder: the manifest keeps ana's code, and the swapped bundle is said."""
    out = folder
    before = manifest_rows(out)
    shutil.rmtree(out / "student-01")
    shutil.copytree(out / "student-02", out / "student-01")
    result = deal(key, out, "--count", "3")
    assert result.exit_code == 0, result.output
    assert "Warning: student-01:" in result.output and "left as it is" in result.output
    assert "student-01: " + before[2][1] not in result.output  # bob's code is never "kept"
    rows = manifest_rows(out)
    assert rows[1] == before[1] and rows[2] == before[2]  # ana still bound to her own code
    assert len(rows) == 4


# --- files written by today's version (279bf2f) still open ---------------------------------------

OLD_SETTINGS = """{{
  "schema": "diagnose.deal/1",
  "steps": {steps},
  "lang": "en",
  "key": "{key}",
  "engine_version": "{version}"
}}
"""


def test_a_folder_of_the_previous_version_takes_a_later_deal(tmp_path, folder, key):
    out = folder
    code = manifest_rows(out)[1][1]
    secret = read_key_file(key)
    shutil.rmtree(out / "student-02")
    write(out / "manifest.csv", f"student,code,email,level\nstudent-01,{code},ana@uni.es,1\n")
    write(out / "deal-settings.json", OLD_SETTINGS.format(
        steps=STEPS, key=fingerprint(secret), version=engine_version()))
    assert read_manifest(out) == [ManifestRow("student-01", code, "ana@uni.es", "1", "")]
    assert [s.name for s in gradebook.dealt_students(out)] == ["student-01"]
    roster = write(tmp_path / "r2.csv", "name,email,level\nstudent-01,,1\nbeto,b@uni.es,\n")
    result = deal(key, out, "--roster", str(roster))
    assert result.exit_code == 0, result.output
    assert manifest_rows(out) == [["student", "code", "email", "level", "lang"],
                                  ["student-01", code, "ana@uni.es", "1", ""],
                                  ["beto", manifest_rows(out)[2][1], "b@uni.es", "1", ""]]


def test_a_headerless_manifest_of_the_previous_version_reads(tmp_path):
    write(tmp_path / "manifest.csv", "ana,AAAA-1111,ana@uni.es,2\nbeto,BBBB-2222,,1\n")
    assert read_manifest(tmp_path) == [ManifestRow("ana", "AAAA-1111", "ana@uni.es", "2"),
                                       ManifestRow("beto", "BBBB-2222", "", "1")]


@pytest.mark.parametrize(("text", "students"), [
    ("# class A\nana\n\nbeto\n", [("ana", "", ""), ("beto", "", "")]),
    ("name,email,level\nana,ana@uni.es,2\nbeto,,\n", [("ana", "ana@uni.es", "2"),
                                                      ("beto", "", "")]),
    ("ana,ana@uni.es,3\nbeto\n", [("ana", "ana@uni.es", "3"), ("beto", "", "")]),
    ("name,level\nana,2\n", [("ana", "", "2")]),
])
def test_rosters_of_the_previous_version_read(tmp_path, text, students):
    read = classroom.read_roster(write(tmp_path / "roster.csv", text))
    assert [(s.name, s.email, s.level) for s in read] == students
    assert all(s.lang == "" for s in read)


def test_a_roster_of_more_than_the_cap_is_refused_on_its_line(tmp_path):
    names = "".join(f"s{i}\n" for i in range(classroom.MAX_STUDENTS + 1))
    with pytest.raises(ScenarioError, match=rf":{classroom.MAX_STUDENTS + 1}: more than "
                                            "10,000 students"):
        classroom.read_roster(write(tmp_path / "roster.csv", names))


def test_a_later_deal_with_another_deck_is_refused(folder, key):
    """The settings keep the deck (its folder and a sha256): a late student dealt from another
    deck would be graded against a truth the class was never dealt."""
    out = folder
    settings = json.loads((out / classroom.SETTINGS_FILE).read_text())
    assert settings["deck"] == {"folder": None, "sha256": None}  # the package's own
    settings["deck"] = {"folder": "/courses/ml-deck", "sha256": "0" * 64}
    (out / classroom.SETTINGS_FILE).write_text(json.dumps(settings))
    result = deal(key, out, "--count", "3")
    assert result.exit_code == 1
    assert "deck /courses/ml-deck here, the package's own deck now" in result.output
    assert not (out / "student-03").exists()
