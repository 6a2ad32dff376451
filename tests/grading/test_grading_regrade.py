"""Grading you can re-run (issue 35): the same bytes again are no attempt, the gradebook is
rebuilt from the ledger alone, an attempt is cancelled and kept, files are taken in the order
they were collected, and late files are marked. Real files, real seals, the CLI as typed."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from grading_testkit import dealing_secret, make_workspace

from diagnose.cli import cli
from grading import DEFAULT_DIR
from grading.ledger import read_ledger
from grading.seal import write_key_file

CODES = {"borja": "AAAA-1111", "ana": "BBBB-2222"}
TRUTH = {"01": "no-warmup", "02": "broken-mask", "03": "bad-init"}
KEY = dealing_secret(CODES.values(), TRUTH)
RIGHT = "## 01\nDiagnosis: no warmup\n## 02\nDiagnosis: broken mask\n## 03\nDiagnosis: bad init\n"
DRAFT = "## 01\nDiagnosis: no warmup\n## 02\nDiagnosis: bad init\n## 03\nDiagnosis: not sure\n"
MARCH = 1_772_000_000  # a collection time (2026-02-25), set as the files' mtimes


@pytest.fixture
def course(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for student, code in CODES.items():
        make_workspace(Path("bundles", student) / DEFAULT_DIR, KEY, code, TRUTH, "instructor")
    Path("bundles/manifest.csv").write_text(
        "student,code\n" + "".join(f"{s},{c}\n" for s, c in CODES.items()))
    write_key_file(Path("course.key"), KEY)
    return Path("bundles")


def grade(*args: str):
    return CliRunner().invoke(cli, ["grade", "--key", "course.key", "--bundles", "bundles",
                                    *args], catch_exceptions=False)


def handed_in(name: str, text: str, minutes: int = 0) -> str:
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (MARCH + 60 * minutes, MARCH + 60 * minutes))
    return name


def gradebook(path: str = "grades.csv") -> dict[str, dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as stream:
        return {row["student"]: row for row in csv.DictReader(stream)}


def test_grading_the_same_bytes_again_adds_no_attempt(course):
    file = handed_in("ana.md", DRAFT)
    for _ in range(3):
        assert grade(file).exit_code == 0
    assert len(read_ledger(course, KEY)["ana"].records) == 1
    again = grade(file)
    assert "The same file as attempt 1: graded again, not a new attempt." in again.stdout


def test_the_gradebook_is_rebuilt_from_the_ledger_without_a_file(course):
    assert grade(handed_in("ana.md", RIGHT), "--gradebook", "first.csv").exit_code == 0
    result = grade("--gradebook", "rebuilt.csv")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Gradebook: rebuilt.csv (2 students; private")
    assert Path("rebuilt.csv").read_text() == Path("first.csv").read_text()
    assert len(read_ledger(course, KEY)["ana"].records) == 1  # nothing graded
    assert gradebook("rebuilt.csv")["ana"]["score"] == "3"
    usage = CliRunner().invoke(cli, ["grade", "--key", "course.key", "--bundles", "bundles"])
    assert usage.exit_code == 2 and "Missing argument 'FILE...'." in usage.output


def test_several_files_of_one_student_are_taken_in_collection_order(course):
    """Alphabetical order would grade the corrected file first and let the draft count."""
    corrected = handed_in("a/ana-diagnoses.md", RIGHT, minutes=30)
    draft = handed_in("b/ana.md", DRAFT, minutes=0)
    result = grade(corrected, draft, "--gradebook", "grades.csv")
    assert result.exit_code == 0, result.output
    records = read_ledger(course, KEY)["ana"].records
    assert [r.file for r in records] == ["ana.md", "ana-diagnoses.md"]
    assert [r.collected for r in records] == ["2026-02-25T06:13:20Z", "2026-02-25T06:43:20Z"]
    row = gradebook()["ana"]
    assert (row["score"], row["counted_attempt"], row["collected"]) == (
        "3", "2", "2026-02-25T06:43:20Z")
    assert row["first_attempt"] != row["collected"]  # graded now, collected then


def test_a_deadline_marks_late_files(course):
    grade(handed_in("ana.md", DRAFT, minutes=0), handed_in("x/ana.md", RIGHT, minutes=90))
    result = grade("--gradebook", "grades.csv", "--deadline", "2026-02-25T07:00:00Z")
    assert result.exit_code == 0, result.output
    row = gradebook()["ana"]
    assert (row["late"], row["counted_attempt"]) == ("late", "2")
    assert "attempt 2 collected after the deadline (2026-02-25T07:43:20Z)" in row["records"]
    grade("--gradebook", "grades.csv", "--deadline", "2026-02-25")  # the whole day
    assert gradebook()["ana"]["late"] == ""
    bad = grade("--gradebook", "g.csv", "--deadline", "friday")
    assert bad.exit_code == 1 and "--deadline 'friday': not an ISO-8601 date" in bad.output


def cancel(*args: str):
    return CliRunner().invoke(cli, ["attempts", "cancel", *args, "--key", "course.key",
                                    "--bundles", "bundles"], catch_exceptions=False)


def test_an_attempt_is_cancelled_kept_and_shown_never_deleted(course):
    grade(handed_in("ana.md", DRAFT, minutes=0), handed_in("x/ana.md", RIGHT, minutes=5))
    result = cancel("ana", "2", "--why", "a classmate's file, handed in by mistake")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ana: attempt 2 (ana.md, 3/3, graded ")
    kept = read_ledger(course, KEY)["ana"]
    assert len(kept.records) == 2 and [v.n for v in kept.void] == [2]
    grade("--gradebook", "grades.csv")
    row = gradebook()["ana"]
    assert (row["score"], row["counted_attempt"], row["attempts"]) == ("1", "1", "2")
    assert "attempt 2 cancelled on " in row["records"] and "by mistake" in row["records"]
    for args, said in [(("ana", "2", "--why", "again"), "attempt 2 is already cancelled"),
                       (("ana", "3", "--why", "x"), "no attempt 3 (the ledger keeps 2)"),
                       (("borja", "1", "--why", "x"), "keeps no attempt of this student"),
                       (("zoe", "1", "--why", "x"), "zoe: not a student of"),
                       (("ana", "1", "--why", "  "), "--why is empty")]:
        refused = cancel(*args)
        assert refused.exit_code == 1 and said in refused.output, refused.output
    assert read_ledger(course, KEY)["ana"].void == kept.void  # nothing else changed


def test_a_documented_redeal_reads_as_nothing_wrong(course):
    """Issue 35: a lost bundle dealt again made every later gradebook say "records were
    deleted or replaced"; the ledger is the only record now, so it says nothing of the kind."""
    grade(handed_in("ana.md", DRAFT))
    (course / "ana" / DEFAULT_DIR / "attempts.jsonl").unlink()
    make_workspace(course / "ana" / DEFAULT_DIR, KEY, CODES["ana"], TRUTH, "instructor")
    result = grade(handed_in("x/ana.md", RIGHT, minutes=3), "--gradebook", "grades.csv")
    assert result.exit_code == 0 and "deleted" not in result.output
    assert gradebook()["ana"]["records"] == ""
    data = json.loads((course / "ana" / DEFAULT_DIR / "attempts.jsonl").read_text()
                      .splitlines()[0])
    assert data["collected"] == "2026-02-25T06:13:20Z"  # the courtesy copy, from the ledger
