"""Class mode you can trust (issue 11): whose attempt a file is, records a student cannot bend,
and exports a spreadsheet or Gradescope cannot misread."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from grading_testkit import make_workspace

from diagnose.cli import cli
from grading import DEFAULT_DIR, GradeError, grade_bundles, gradebook_rows, write_gradescope
from grading.attempts import Attempt, append_attempt, load_attempts, seal_attempt
from grading.gradebook import refused_rows, spreadsheet_safe, write_gradebook
from grading.ledger import LEDGER
from grading.seal import new_secret, write_key_file

CODES = {"borja": "AAAA-1111", "ana": "BBBB-2222"}
TRUTH = {"01": "no-warmup", "02": "broken-mask", "03": "bad-init"}
RIGHT = "## 01\nDiagnosis: no warmup\n## 02\nDiagnosis: broken mask\n## 03\nDiagnosis: bad init\n"
WRONG = "## 01\nDiagnosis: bad init\n## 02\nDiagnosis: bad init\n## 03\nDiagnosis: bad init\n"


@pytest.fixture
def course(tmp_path):
    key = new_secret()
    bundles = tmp_path / "bundles"
    for student, code in CODES.items():
        make_workspace(bundles / student / DEFAULT_DIR, key, code, TRUTH, "instructor")
    (bundles / "manifest.csv").write_text(
        "student,code\n" + "".join(f"{s},{c}\n" for s, c in CODES.items()))
    return key, bundles


def bundle(bundles: Path, student: str) -> Path:
    return bundles / student / DEFAULT_DIR


def submit(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- Item 2: someone else's first attempt cannot be burnt -------------------------------------

def test_a_file_named_for_nobody_records_nothing_even_with_a_students_comment(course, tmp_path):
    key, bundles = course
    stray = submit(tmp_path, "aaa.md", "<!-- scenario: AAAA-1111 -->\n# Diagnoses — borja\n"
                   + WRONG)
    (graded,) = grade_bundles([stray], bundles, key)
    assert graded.report is None and graded.student is None
    assert "its name matches no student of the roster; nothing recorded" in graded.error
    assert not (bundle(bundles, "borja") / "attempts.jsonl").exists()

    mine = submit(tmp_path, "borja.md", "<!-- scenario: AAAA-1111 -->\n" + RIGHT)
    (graded,) = grade_bundles([mine], bundles, key)
    assert (graded.report.score, graded.report.counts) == (3, True)


@pytest.mark.parametrize("name, text, message", [
    ("ana.md", "# Diagnoses — Borja\n" + WRONG, "named for ana, but its title names borja"),
    ("Ána-diagnoses.md", "<!-- scenario: AAAA-1111 -->\n" + WRONG,
     "named for ana, but written for borja's scenario AAAA-1111"),
])
def test_a_file_whose_inside_names_another_student_records_nothing(course, tmp_path, name,
                                                                     text, message):
    key, bundles = course
    (graded,) = grade_bundles([submit(tmp_path, name, text)], bundles, key)
    assert message in graded.error and "nothing recorded" in graded.error
    assert not any((bundle(bundles, s) / "attempts.jsonl").exists() for s in CODES)


def test_a_title_and_a_folder_that_agree_are_graded(course, tmp_path):
    key, bundles = course
    files = [submit(tmp_path, "borja/diagnoses.md", "# Diagnósticos — Borja\n" + RIGHT),
             submit(tmp_path, "ANA_diagnoses.md", "# Diagnoses — Ana López\n" + WRONG)]
    assert [(g.student, g.report.score) for g in grade_bundles(files, bundles, key)] == [
        ("borja", 3), ("ana", 1)]


def test_refused_files_have_their_row_in_the_gradebook(course, tmp_path):
    key, bundles = course
    graded = grade_bundles([submit(tmp_path, "=HYPERLINK(evil).md", RIGHT)], bundles, key)
    write_gradebook(gradebook_rows(bundles, key) + refused_rows(graded), tmp_path / "g.csv")
    with (tmp_path / "g.csv").open(newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert [r["student"] for r in rows] == ["borja", "ana", ""]
    assert rows[2]["file"] == "'=HYPERLINK(evil).md"  # a formula is shown, never run
    assert "matches no student of the roster" in rows[2]["note"]


# --- Item 5: the attempts record ---------------------------------------------------------------

def attempt(score=1, correct=("01",), answers=None) -> Attempt:
    return Attempt("2025-03-02T10:15:00Z", "0" * 64, "borja.md", score, 3, False, "instructor",
                   answers or {"01": "no-warmup", "02": None, "03": "bad-init"}, correct)


def test_a_torn_last_line_is_reported_and_the_next_attempt_starts_afresh(course, tmp_path):
    key, bundles = course
    attempts = bundle(bundles, "borja") / "attempts.jsonl"
    attempts.write_text('{"schema": "diagnose.attempt/1", "time": "2025-')  # a crash mid-write
    (graded,) = grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)
    assert graded.report.counts and graded.report.score == 3
    log = load_attempts(attempts.parent, TRUTH, secret=key, code="AAAA-1111")
    assert [a.score for a in log.records] == [3]
    assert log.problems == (f"{attempts}: line 1: not a whole record (a write cut short?); "
                            "skipped",)
    assert attempts.read_text().count("\n") == 2


@pytest.mark.parametrize("change, problem", [
    ({"score": 99}, "a score of 99/3 is not what its answers give"),
    ({"max_score": 1}, "a score of 1/1 is not what its answers give"),
    ({"answers": {"01": "no-warmup", "07": None, "03": None}}, "its IDs 01, 03, 07 are not"),
    ({"correct": ["09"], "score": 1}, "its right answers are not among the scenario's IDs"),
    ({"score": "1"}, "not an attempt record"),
    ({"after_reveal": "no"}, "not an attempt record"),
    ({"score": True}, "not an attempt record"),
])
def test_records_out_of_range_or_of_the_wrong_kind_are_skipped(tmp_path, change, problem):
    append_attempt(tmp_path, attempt())
    record = json.loads((tmp_path / "attempts.jsonl").read_text())
    (tmp_path / "attempts.jsonl").write_text(json.dumps({**record, **change}) + "\n")
    log = load_attempts(tmp_path, TRUTH)
    assert log.records == () and problem in log.problems[0]


def test_an_edited_record_is_detected_and_the_genuine_first_still_counts(course, tmp_path):
    key, bundles = course
    grade_bundles([submit(tmp_path, "borja.md", WRONG)], bundles, key)
    attempts = bundle(bundles, "borja") / "attempts.jsonl"
    record = json.loads(attempts.read_text())
    attempts.write_text(json.dumps({**record, "score": 3, "correct": ["01", "02", "03"]}) + "\n")

    (row, _) = gradebook_rows(bundles, key)
    assert (row.first.score, row.attempts) == (1, 1)  # the ledger's copy of the first
    assert "line 1: edited, or not written by this course's grading" in row.problems[0]
    assert "records were deleted or replaced" in row.problems[1]
    (graded,) = grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)
    assert (graded.report.counts, graded.report.first.score) == (False, 1)
    assert any("edited" in p for p in graded.problems)


def test_a_record_copied_from_another_bundle_is_not_genuine(course, tmp_path):
    key, bundles = course
    grade_bundles([submit(tmp_path, "ana.md", RIGHT)], bundles, key)
    ana, borja = (bundle(bundles, s) / "attempts.jsonl" for s in ("ana", "borja"))
    borja.write_text(ana.read_text())
    log = load_attempts(borja.parent, TRUTH, secret=key, code="AAAA-1111")
    assert log.records == () and "its seal does not match" in log.problems[0]


def test_deleting_the_attempts_does_not_reset_the_first_attempt(course, tmp_path):
    key, bundles = course
    grade_bundles([submit(tmp_path, "borja.md", WRONG)], bundles, key)
    (bundle(bundles, "borja") / "attempts.jsonl").unlink()
    (graded,) = grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)
    assert (graded.report.counts, graded.report.first.score) == (False, 1)
    assert "1 genuine record(s) at the last grading, 0 now" in graded.problems[0]
    (row, _) = gradebook_rows(bundles, key)
    assert row.first.score == 1 and "records were deleted" in row.problems[0]
    # The ledger keeps its evidence: the next grading still says so.
    assert "records were deleted" in gradebook_rows(bundles, key)[0].problems[0]


def test_a_deleted_middle_record_shows_by_its_place(tmp_path):
    key = new_secret()
    for score, correct in ((1, ("01",)), (2, ("01", "03")), (0, ())):
        append_attempt(tmp_path, attempt(score, correct), secret=key, code="X")
    lines = (tmp_path / "attempts.jsonl").read_text().splitlines()
    (tmp_path / "attempts.jsonl").write_text(lines[0] + "\n" + lines[2] + "\n")
    log = load_attempts(tmp_path, TRUTH, secret=key, code="X")
    assert [a.score for a in log.records] == [1, 0]
    assert "line 2: written as line 3; lines before it were deleted or moved" in log.problems[0]
    assert seal_attempt(log.records[0], key, "X") == log.records[0].mac


def test_an_edited_ledger_is_refused(course, tmp_path):
    key, bundles = course
    grade_bundles([submit(tmp_path, "borja.md", WRONG)], bundles, key)
    ledger = json.loads((bundles / LEDGER).read_text())
    ledger["students"]["borja"]["count"] = 0
    (bundles / LEDGER).write_text(json.dumps(ledger))
    with pytest.raises(GradeError, match="changed since a grading wrote it"):
        gradebook_rows(bundles, key)


# --- Item 9: exports ---------------------------------------------------------------------------

@pytest.mark.parametrize("cell, shown", [
    ("=HYPERLINK(1)", "'=HYPERLINK(1)"), ("+1", "'+1"), ("-1", "'-1"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\tx", "'\tx"), ("\rx", "'\rx"), ("borja", "borja"), (3, 3), ("", ""),
])
def test_cells_a_spreadsheet_would_evaluate_are_neutralised(cell, shown):
    assert spreadsheet_safe(cell) == shown


def test_gradescope_hides_the_whole_result_with_its_tests(course, tmp_path):
    key, bundles = course
    graded = grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)
    (path,) = write_gradescope(gradebook_rows(bundles, key), graded, tmp_path / "gs")
    results = json.loads(path.read_text())
    assert {t["visibility"] for t in results["tests"]} == {results["visibility"]}
    assert results["visibility"] == "after_published"
    assert (results["output_format"], results["test_output_format"]) == ("text", "text")


# --- The CLI: outputs checked before anything is recorded --------------------------------------

@pytest.mark.parametrize("option, make, message", [
    ("--gradebook", lambda: Path("out").mkdir(), "out: is a directory; --gradebook is the CSV "
     "file to write"),
    ("--gradebook", lambda: None, "nope/g.csv: cannot be written (no folder nope)"),
    ("--gradescope", lambda: Path("out").write_text("x"), "out: not a directory; --gradescope "
     "is the folder to write results.json files in"),
])
def test_unwritable_outputs_are_refused_before_grading(course, tmp_path, monkeypatch, option,
                                                       make, message):
    key, bundles = course
    monkeypatch.chdir(tmp_path)
    write_key_file(Path("course.key"), key)
    submit(tmp_path, "borja.md", RIGHT)
    make()
    target = "nope/g.csv" if "nope" in message else "out"
    result = CliRunner().invoke(cli, ["grade", "--key", "course.key", "--bundles", "bundles",
                                      "borja.md", option, target], catch_exceptions=False)
    assert (result.exit_code, result.stderr) == (1, f"Error: {message}\n")
    assert not (bundle(bundles, "borja") / "attempts.jsonl").exists()
    assert not (bundles / LEDGER).exists()


def test_an_attempts_file_that_is_no_file_is_reported_not_followed(tmp_path):
    import os

    os.mkfifo(tmp_path / "attempts.jsonl")  # reading or appending would block forever
    log = load_attempts(tmp_path, TRUTH)
    assert log.records == () and "not a regular file" in log.problems[0]
    with pytest.raises(OSError, match="not a regular file"):
        append_attempt(tmp_path, attempt())


def class_grade(*args):
    return CliRunner().invoke(cli, ["grade", "--key", "course.key", "--bundles", "bundles",
                                    *args], catch_exceptions=False)


def test_the_class_command_reports_tampering_and_refuses_an_edited_ledger(course, tmp_path,
                                                                          monkeypatch):
    key, bundles = course
    monkeypatch.chdir(tmp_path)
    write_key_file(Path("course.key"), key)
    submit(tmp_path, "borja.md", WRONG)
    assert class_grade("borja.md").exit_code == 0
    first = load_attempts(bundle(bundles, "borja"), TRUTH).first
    (bundle(bundles, "borja") / "attempts.jsonl").unlink()
    submit(tmp_path, "borja.md", RIGHT)
    result = class_grade("borja.md", "--gradebook", "grades.csv")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[:2] == [
        f"borja  3/3  borja.md  (First attempt 1/3 on {first.date}; this one (attempt 2) does "
        "not count.)",
        f"       records  {bundle(Path('bundles'), 'borja') / 'attempts.jsonl'}: 1 genuine "
        "record(s) at the last grading, 0 now: records were deleted or replaced (or a grading "
        "stopped before copying them there); the first one the ledger kept counts"]
    with open("grades.csv", newline="") as stream:
        borja = next(csv.DictReader(stream))
    assert (borja["score"], "records were deleted" in borja["records"]) == ("1", True)

    ledger = Path("bundles") / LEDGER
    assert '"score": 1,' in ledger.read_text()
    ledger.write_text(ledger.read_text().replace('"score": 1,', '"score": 3,'))
    result = class_grade("borja.md")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: {ledger}: changed since a grading wrote it, or written with another key (its "
        "seal does not match) (move it aside to start a new ledger, and look at who edited "
        "it)\n")
