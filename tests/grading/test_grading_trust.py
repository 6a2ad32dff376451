"""Class mode you can trust (issue 11): whose attempt a file is, records a student cannot bend,
and exports a spreadsheet or Gradescope cannot misread."""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner
from grading_testkit import dealing_secret, make_workspace
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnose.cli import cli
from grading import (
    DEFAULT_DIR,
    GradeError,
    grade_bundles,
    gradebook,
    gradebook_rows,
    write_gradescope,
)
from grading import ledger as ledger_module
from grading.attempts import Attempt, append_attempt, load_attempts, seal_attempt
from grading.gradebook import (
    deal_of,
    dealt_students,
    named_student,
    refused_rows,
    spreadsheet_safe,
    write_gradebook,
)
from grading.layout import printable
from grading.ledger import LEDGER, read_ledger
from grading.seal import new_secret, write_key_file
from scenarios.escape import LINES, needs_escape
from scenarios.files import exclusive_lock

CODES = {"borja": "AAAA-1111", "ana": "BBBB-2222"}
TRUTH = {"01": "no-warmup", "02": "broken-mask", "03": "bad-init"}
RIGHT = "## 01\nDiagnosis: no warmup\n## 02\nDiagnosis: broken mask\n## 03\nDiagnosis: bad init\n"
UNTIL_SHOWN = ("This one counts: a corrected file handed in later replaces it, until the "
               "answers are shown.")
WRONG = "## 01\nDiagnosis: bad init\n## 02\nDiagnosis: bad init\n## 03\nDiagnosis: bad init\n"


COURSE_KEY = dealing_secret(CODES.values(), TRUTH)  # deals TRUTH to both, as `deal` derives


@pytest.fixture
def course(tmp_path):
    key = COURSE_KEY
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


def test_the_bundles_attempts_are_a_courtesy_copy_written_from_the_ledger(course, tmp_path):
    """A torn, edited or forged attempts file in a bundle is never read: each grading writes
    the copy again, whole, from the ledger (issue 34)."""
    key, bundles = course
    attempts = bundle(bundles, "borja") / "attempts.jsonl"
    attempts.write_text('{"schema": "diagnose.attempt/1", "time": "2025-')  # a crash mid-write
    (graded,) = grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)
    assert graded.report.counts and graded.report.score == 3
    log = load_attempts(attempts.parent, TRUTH, secret=key, code="AAAA-1111")
    assert [a.score for a in log.records] == [3] and log.problems == ()
    assert log.records == read_ledger(bundles, key)["borja"].records


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


def test_an_edited_record_in_a_bundle_changes_nothing(course, tmp_path):
    key, bundles = course
    grade_bundles([submit(tmp_path, "borja.md", WRONG)], bundles, key)
    attempts = bundle(bundles, "borja") / "attempts.jsonl"
    record = json.loads(attempts.read_text())
    attempts.write_text(json.dumps({**record, "score": 3, "correct": ["01", "02", "03"]}) + "\n")

    (row, _) = gradebook_rows(bundles, key)
    assert (row.first.score, row.attempts) == (1, 1)  # the ledger's record, never the bundle's
    (graded,) = grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)
    assert (graded.report.counts, graded.report.replaces.score) == (True, 1)  # a correction
    assert gradebook_rows(bundles, key)[0].first.score == 3


def test_a_record_copied_from_another_bundle_is_not_genuine(course, tmp_path):
    key, bundles = course
    grade_bundles([submit(tmp_path, "ana.md", RIGHT)], bundles, key)
    ana, borja = (bundle(bundles, s) / "attempts.jsonl" for s in ("ana", "borja"))
    borja.write_text(ana.read_text())
    log = load_attempts(borja.parent, TRUTH, secret=key, code="AAAA-1111")
    assert log.records == () and "its seal does not match" in log.problems[0]


def test_deleting_the_attempts_resets_nothing(course, tmp_path):
    key, bundles = course
    grade_bundles([submit(tmp_path, "borja.md", WRONG)], bundles, key)
    (bundle(bundles, "borja") / "attempts.jsonl").unlink()
    (graded,) = grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)
    assert (graded.report.attempt, graded.report.counts) == (2, True)
    assert len(load_attempts(bundle(bundles, "borja")).records) == 2  # the copy, rewritten
    (row, _) = gradebook_rows(bundles, key)
    assert (row.first.score, row.attempts, row.problems) == (3, 2, ())


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


def test_the_class_command_reads_no_bundle_and_refuses_an_edited_ledger(course, tmp_path,
                                                                        monkeypatch):
    key, bundles = course
    monkeypatch.chdir(tmp_path)
    write_key_file(Path("course.key"), key)
    submit(tmp_path, "borja.md", WRONG)
    assert class_grade("borja.md").exit_code == 0
    (bundle(bundles, "borja") / "attempts.jsonl").unlink()  # the student's copy: changes nothing
    submit(tmp_path, "borja.md", RIGHT)
    result = class_grade("borja.md", "--gradebook", "grades.csv")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[:1] == [
        "borja  3/3  borja.md  (This one counts: it replaces attempt 1 (1/3), until the answers "
        "are shown.)"]
    with open("grades.csv", newline="") as stream:
        borja = next(csv.DictReader(stream))
    assert (borja["score"], borja["attempts"], borja["records"]) == ("3", "2", "")

    ledger = Path("bundles") / LEDGER
    assert '"score": 1,' in ledger.read_text()
    ledger.write_text(ledger.read_text().replace('"score": 1,', '"score": 3,'))
    result = class_grade("borja.md")
    assert (result.exit_code, result.stdout) == (1, "")
    assert "its seal does not match this key" in result.stderr
    assert "move it aside" not in result.stderr  # that would drop every attempt (issue 35)


def test_a_wrong_key_is_named_with_both_fingerprints(course, tmp_path, monkeypatch):
    """Issue 35: a wrong key is a wrong key, never "move the ledger aside"."""
    from grading.seal import fingerprint

    key, bundles = course
    grade_bundles([submit(tmp_path, "borja.md", WRONG)], bundles, key)
    other = new_secret()
    with pytest.raises(GradeError) as raised:
        grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, other)
    assert (f"written with another key (fingerprint {fingerprint(key)}; this key is "
            f"{fingerprint(other)})") in str(raised.value)
    (bundles / "deal-settings.json").write_text(json.dumps({"key": fingerprint(key)}))
    with pytest.raises(GradeError, match=f"dealt with another key .fingerprint {fingerprint(key)}"):
        gradebook_rows(bundles, other)


# --- Issue 20: the instructor's side is the truth; check, then record ---------------------------

def swap(bundles: Path, into: str, source: str) -> None:
    """`cp -a bundles/<source>/experiments/19-break-it bundles/<into>/experiments/19-break-it`"""
    shutil.rmtree(bundle(bundles, into))
    shutil.copytree(bundle(bundles, source), bundle(bundles, into))


def test_a_bundle_swapped_for_a_classmates_is_reported_and_never_believed(course, tmp_path):
    key, bundles = course
    grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)
    swap(bundles, "ana", "borja")  # ana's folder now holds borja's bundle, his 3/3 included
    (graded,) = grade_bundles([submit(tmp_path, "ana.md", WRONG)], bundles, key)
    assert (graded.report.code, graded.report.score, graded.student) == ("BBBB-2222", 1, "ana")
    assert any("says scenario AAAA-1111 for BBBB-2222" in p and "not believed" in p
               for p in graded.problems)
    assert len(load_attempts(bundle(bundles, "ana"), TRUTH).records) == 1  # borja's, untouched
    assert read_ledger(bundles, key)["ana"].code == "BBBB-2222"
    borja, ana = gradebook_rows(bundles, key)
    assert (borja.first.score, ana.first.score, ana.code) == (3, 1, "BBBB-2222")


def test_a_swapped_bundle_is_never_believed_by_the_single_file_route_either(course, tmp_path,
                                                                            monkeypatch):
    key, bundles = course
    monkeypatch.chdir(tmp_path)
    write_key_file(Path("course.key"), key)
    swap(bundles, "ana", "borja")
    submit(tmp_path, "ana.md", RIGHT)
    result = one_grade("ana.md", "bundles/ana/experiments/19-break-it")
    assert result.exit_code == 0
    assert "Scenario BBBB-2222" in result.stdout and "Score: 3/3" in result.stdout
    assert "says scenario AAAA-1111 for BBBB-2222" in result.stderr
    assert not (bundle(bundles, "ana") / "attempts.jsonl").exists()
    assert read_ledger(bundles, key)["ana"].first.score == 3


def one_grade(file: str, workspace: str, *more: str):
    return CliRunner().invoke(cli, ["grade", file, "--dir", workspace, "--key", "course.key",
                                    *more], catch_exceptions=False)


def test_a_single_file_graded_with_the_key_is_kept_in_the_deal_folders_ledger(course, tmp_path,
                                                                             monkeypatch):
    """Issue 20, item 3: the README's one-file command, then the student deletes attempts.jsonl:
    the ledger keeps the attempt, and the next class grading takes the correction after it."""
    key, bundles = course
    monkeypatch.chdir(tmp_path)
    write_key_file(Path("course.key"), key)
    submit(tmp_path, "ana.md", WRONG)
    result = one_grade("ana.md", "bundles/ana/experiments/19-break-it")
    assert (result.exit_code, result.stderr) == (0, "")
    assert "Score: 1/3" in result.stdout
    assert read_ledger(bundles, key)["ana"].first.score == 1
    (bundle(bundles, "ana") / "attempts.jsonl").unlink()
    submit(tmp_path, "ana.md", RIGHT)
    result = class_grade("ana.md", "--gradebook", "grades.csv")
    assert result.exit_code == 0
    assert result.stdout.startswith("ana  3/3  ana.md  (This one counts: it replaces attempt 1")
    with open("grades.csv", newline="") as stream:
        ana = next(r for r in csv.DictReader(stream) if r["student"] == "ana")
    assert (ana["score"], ana["attempts"]) == ("3", "2")
    # The courtesy copy, written again from the ledger.
    assert [a.score for a in load_attempts(bundle(bundles, "ana"), TRUTH).records] == [1, 3]


def test_a_single_file_graded_outside_any_deal_folder_records_nothing_and_says_so(
        course, tmp_path, monkeypatch):
    key, bundles = course
    monkeypatch.chdir(tmp_path)
    write_key_file(Path("course.key"), key)
    shutil.copytree(bundle(bundles, "ana"), "copy")
    submit(tmp_path, "ana.md", WRONG)
    for lang in ("en", "es"):
        result = one_grade("ana.md", "copy", "--lang", lang)
        assert result.exit_code == 0 and result.stderr.startswith("Warning: ")
        assert "copy" in result.stderr and len(result.stderr.splitlines()) == 1
    assert "Not recorded: copy is not a student's folder of a deal" in one_grade(
        "ana.md", "copy").stderr
    assert not (Path("copy") / "attempts.jsonl").exists()
    assert not (bundles / LEDGER).exists()
    data = json.loads(one_grade("ana.md", "copy", "--json").stdout)
    assert (data["ledger"], data["recorded"], data["counts"]) == (None, False, False)
    data = json.loads(one_grade("ana.md", "bundles/ana/experiments/19-break-it", "--json").stdout)
    assert (data["ledger"], data["counts"]) == (str((bundles / LEDGER).resolve()), True)


def test_when_the_bundle_write_fails_the_ledger_holds_the_attempt_and_restores_it(
        course, tmp_path, monkeypatch):
    key, bundles = course

    def fail(workspace, records, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(gradebook, "rewrite_attempts", fail)
    (graded,) = grade_bundles([submit(tmp_path, "borja.md", WRONG)], bundles, key)
    assert graded.report.counts and graded.report.score == 1
    assert graded.problems == (f"{bundle(bundles, 'borja')}: its courtesy copy of the attempts "
                               "could not be written (No space left on device); the ledger "
                               "keeps them",)
    assert not (bundle(bundles, "borja") / "attempts.jsonl").exists()
    monkeypatch.undo()
    (graded,) = grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)
    assert (graded.report.counts, graded.report.replaces.score, graded.report.attempt) == (
        True, 1, 2)
    log = load_attempts(bundle(bundles, "borja"), TRUTH, secret=key, code="AAAA-1111")
    assert ([a.score for a in log.records], [a.n for a in log.records], log.problems) == (
        [1, 3], [1, 2], ())


def test_a_kill_after_the_ledger_was_written_leaves_the_ledger_the_truth(course, tmp_path,
                                                                       monkeypatch):
    key, bundles = course

    def killed(workspace, records, **kwargs):
        raise KeyboardInterrupt  # as SIGINT would, after the ledger was written

    monkeypatch.setattr(gradebook, "rewrite_attempts", killed)
    with pytest.raises(KeyboardInterrupt):
        grade_bundles([submit(tmp_path, "borja.md", WRONG)], bundles, key)
    monkeypatch.undo()
    (row, _) = gradebook_rows(bundles, key)
    assert (row.first.score, row.attempts) == (1, 1)


def test_when_the_ledger_cannot_be_written_nothing_is_recorded(course, tmp_path, monkeypatch):
    key, bundles = course
    grade_bundles([submit(tmp_path, "borja.md", WRONG)], bundles, key)
    before = (bundles / LEDGER).read_bytes()

    def full(path, data, **kwargs):
        raise GradeError(f"{path}: cannot be written (No space left on device)")

    monkeypatch.setattr(ledger_module, "atomic_write", full)
    with pytest.raises(GradeError, match="cannot be written"):
        grade_bundles([submit(tmp_path, "borja.md", RIGHT), submit(tmp_path, "ana.md", RIGHT)],
                      bundles, key)
    assert (bundles / LEDGER).read_bytes() == before
    assert len(load_attempts(bundle(bundles, "borja"), TRUTH).records) == 1
    assert not (bundle(bundles, "ana") / "attempts.jsonl").exists()


# --- two gradings of one class at once -----------------------------------------------------------

def test_two_gradings_of_one_class_at_once_lose_no_record(course, tmp_path, monkeypatch):
    """A grading reads the ledger, adds its records and writes it whole: the second of two at
    once waits and reads what the first wrote. The ledger's write is slowed so that, unlocked,
    the two would each write a ledger without the other's record, every time."""
    key, bundles = course
    write = ledger_module.atomic_write

    def slow(path, data, **kwargs):
        time.sleep(0.3)
        return write(path, data, **kwargs)

    monkeypatch.setattr(ledger_module, "atomic_write", slow)
    files = {name: submit(tmp_path / name, f"{name}.md", RIGHT) for name in CODES}
    start = threading.Barrier(len(files))

    def grade(name: str) -> list:
        start.wait()
        return grade_bundles([files[name]], bundles, key)

    with ThreadPoolExecutor(len(files)) as pool:
        results = list(pool.map(grade, files))
    assert all(graded.report is not None for result in results for graded in result)
    kept = read_ledger(bundles, key)
    assert {name: len(kept[name].records) for name in CODES} == {"borja": 1, "ana": 1}
    # released: a third grading takes it at once
    exclusive_lock(bundles / ledger_module.LOCK, wait=0, keep=True)()


def test_a_grading_that_cannot_get_the_class_waits_then_records_nothing(course, tmp_path,
                                                                        monkeypatch):
    key, bundles = course
    monkeypatch.setattr(ledger_module, "GRADING_WAIT", 0.2)
    release = exclusive_lock(bundles / ledger_module.LOCK)  # another grading, still running
    try:
        with pytest.raises(GradeError, match="another grading of this class is recording right "
                                             "now") as caught:
            grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)
    finally:
        release()
    assert "\n" not in str(caught.value)
    assert not (bundles / LEDGER).exists()
    assert not (bundle(bundles, "borja") / "attempts.jsonl").exists()
    (graded,) = grade_bundles([submit(tmp_path, "borja.md", RIGHT)], bundles, key)  # then it may
    assert graded.report is not None and len(read_ledger(bundles, key)["borja"].records) == 1


# --- names that are not UTF-8 ------------------------------------------------------------------

def latin1(folder: Path, name: bytes, text: str) -> Path:
    """A file whose name is not UTF-8 (as a zip made on Windows leaves it)."""
    path = Path(os.fsdecode(os.path.join(os.fsencode(folder), name)))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_class_grading_refuses_a_name_that_is_not_utf8_in_one_line(course, tmp_path,
                                                                   monkeypatch):
    key, bundles = course
    monkeypatch.chdir(tmp_path)
    write_key_file(Path("course.key"), key)
    latin1(Path("subs"), b"\xc1na-diagnoses.md", RIGHT)  # "Ána" in Windows-1252
    latin1(Path("subs") / os.fsdecode(b"lote-\xff"), b"borja.md", WRONG)
    result = class_grade(os.fsdecode(b"subs/\xc1na-diagnoses.md"),
                         os.fsdecode(b"subs/lote-\xff/borja.md"), "--gradebook", "grades.csv")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "ana    error  subs/\\xc1na-diagnoses.md: its name is not UTF-8 text (shown with \\x "
        "escapes); nothing recorded (rename the file and grade it again)",
        f"borja  1/3  subs/lote-\\xff/borja.md  ({UNTIL_SHOWN})",
        "Gradebook: grades.csv (2 students; private: it holds every scenario's truth. For "
        "your LMS: --gradebook-format canvas, moodle or plain)"]
    assert result.stderr == "Error: 1 of 2 files could not be graded\n"
    assert not (bundle(bundles, "ana") / "attempts.jsonl").exists()
    with open("grades.csv", newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert [(r["student"], r["score"], r["file"]) for r in rows] == [
        ("borja", "1", "borja.md"), ("ana", "", ""), ("ana", "", "\\xc1na-diagnoses.md")]
    assert "its name is not UTF-8 text" in rows[2]["note"]


def test_self_study_refuses_a_name_that_is_not_utf8_in_one_line(tmp_path, monkeypatch):
    from grading_testkit import home_secret

    monkeypatch.chdir(tmp_path)
    make_workspace(Path("ws"), home_secret(), "AAAA-1111", TRUTH)
    latin1(Path("."), b"m\xedo.md", RIGHT)
    for args in (["--dir", "ws"], ["--dir", "ws", "--json"]):
        result = CliRunner().invoke(cli, ["grade", "--yes", os.fsdecode(b"m\xedo.md"), *args],
                                    catch_exceptions=False)
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == ("Error: m\\xedo.md: its name is not UTF-8 text (shown with \\x "
                                 "escapes); nothing recorded (rename the file and grade it "
                                 "again)\n")
    assert not Path("ws/attempts.jsonl").exists()
    result = CliRunner().invoke(cli, ["grade", os.fsdecode(b"m\xedo.md"), "--check"],
                                catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout.startswith("Checked m\\xedo.md")


# --- a bundle's file nested past any reader ----------------------------------------------------

@pytest.mark.parametrize("name", ["scenario.json", "answer-key.sealed", "attempts.jsonl"])
def test_one_bundles_deeply_nested_file_is_reported_and_the_class_is_graded(course, tmp_path,
                                                                            name):
    """The bundle is never the grader's input: a hostile file in it is said, and the student
    is graded from the key and the manifest all the same."""
    key, bundles = course
    (bundle(bundles, "ana") / name).write_text("[" * 30_000)
    graded = grade_bundles([submit(tmp_path, "ana.md", RIGHT), submit(tmp_path, "borja.md",
                                                                       RIGHT)], bundles, key)
    assert [g.report.score for g in graded] == [3, 3]
    if name != "attempts.jsonl":  # compared with the derivation, said, not believed
        assert graded[0].problems[0].startswith(f"{bundle(bundles, 'ana') / name}: ")
    write_gradebook(gradebook_rows(bundles, key) + refused_rows(graded), tmp_path / "g.csv")
    with (tmp_path / "g.csv").open(newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert [(r["student"], r["score"]) for r in rows] == [("borja", "3"), ("ana", "3")]


# --- files today's version (commit 279bf2f) wrote still open -----------------------------------

OLD_KEY = b"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ="
OLD_ATTEMPT = (
    '{"schema": "diagnose.attempt/1", "time": "2025-03-02T09:00:00Z", "sha256": '
    '"3dc926e93d860596749607cef9d92b2ec6d14f6e1e8a7b36fbe88eccfb2058d8", "file": "borja.md", '
    '"score": 1, "max_score": 3, "after_reveal": false, "by": "instructor", "answers": {"01": '
    '"bad-init", "02": "broken-mask", "03": null}, "correct": ["02"], "n": 1, "mac": '
    '"61ec77f2fcbaae5edb1b01bd995e9979f8bd6318b41d81d82b0e1ba3b2c537eb"}\n')
OLD_LEDGER = (
    '{\n "schema": "diagnose.attempts-ledger/1",\n "students": {\n  "ana": {\n   "count": 0,\n'
    '   "digest": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",\n   '
    '"first": null\n  },\n  "borja": {\n   "count": 1,\n   "digest": '
    '"2d6d20907619cf6f3fb3da8095d2a95cc749b465b3f8aaa654bafc0548aa9161",\n   "first": {\n    '
    '"schema": "diagnose.attempt/1",\n    "time": "2025-03-02T09:00:00Z",\n    "sha256": '
    '"3dc926e93d860596749607cef9d92b2ec6d14f6e1e8a7b36fbe88eccfb2058d8",\n    "file": '
    '"borja.md",\n    "score": 1,\n    "max_score": 3,\n    "after_reveal": false,\n    "by": '
    '"instructor",\n    "answers": {\n     "01": "bad-init",\n     "02": "broken-mask",\n     '
    '"03": null\n    },\n    "correct": [\n     "02"\n    ],\n    "n": 1,\n    "mac": '
    '"61ec77f2fcbaae5edb1b01bd995e9979f8bd6318b41d81d82b0e1ba3b2c537eb"\n   }\n  }\n },\n '
    '"mac": "902f0a78529096f18668255a714ee65746e0ed04e42181bee4d5ca5b463450f9"\n}\n')
OLD_SELF_STUDY = (
    '{"schema": "diagnose.attempt/1", "time": "2025-03-02T10:15:00Z", "sha256": "' + "a" * 64
    + '", "file": "borja-diagnoses.md", "score": 1, "max_score": 3, "after_reveal": false, '
    '"by": "self-study", "answers": {"01": "no-warmup", "02": "bad-init", "03": null}, '
    '"correct": ["01"], "n": 1}\n')


@pytest.fixture
def old_course(tmp_path):
    bundles = tmp_path / "bundles"
    for student, code in CODES.items():
        make_workspace(bundle(bundles, student), OLD_KEY, code, TRUTH, "instructor")
    (bundles / "manifest.csv").write_text("student,code\nborja,AAAA-1111\nana,BBBB-2222\n")
    (bundles / LEDGER).write_text(OLD_LEDGER)
    (bundle(bundles, "borja") / "attempts.jsonl").write_text(OLD_ATTEMPT)
    return bundles


def test_a_ledger_and_attempts_of_format_1_still_open(old_course):
    kept = read_ledger(old_course, OLD_KEY)
    assert (kept["borja"].count, kept["borja"].first.score, kept["ana"].count) == (1, 1, 0)
    (borja, ana) = gradebook_rows(old_course, OLD_KEY)
    assert (borja.first.score, borja.attempts, borja.problems) == (1, 1, ())
    assert (ana.first, ana.attempts) == (None, 0)


def test_a_format_1_ledger_still_opens_and_becomes_format_3(old_course, tmp_path):
    (bundle(old_course, "borja") / "attempts.jsonl").unlink()  # never read anyway
    (graded,) = grade_bundles([submit(tmp_path, "borja.md", RIGHT)], old_course, OLD_KEY)
    assert (graded.report.counts, graded.report.replaces.score) == (True, 1)
    data = json.loads((old_course / LEDGER).read_text())
    assert data["schema"] == "diagnose.attempts-ledger/3"
    kept = read_ledger(old_course, OLD_KEY)["borja"]
    assert [a.score for a in kept.records] == [1, graded.report.score]
    # this fixture's bundle seals a truth OLD_KEY does not derive: said, and left without a copy
    assert any("seals another assignment" in p for p in graded.problems)


def test_a_self_study_attempts_file_of_today_still_opens(tmp_path):
    (tmp_path / "attempts.jsonl").write_text(OLD_SELF_STUDY)
    log = load_attempts(tmp_path, TRUTH)
    assert ([a.score for a in log.records], log.problems, log.lines) == ([1], (), 1)
    append_attempt(tmp_path, attempt())
    assert [a.n for a in load_attempts(tmp_path, TRUTH).records] == [1, 2]


name_bytes = st.binary(min_size=1, max_size=24).filter(
    lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b".."))


@settings(max_examples=20)
@given(prefix=st.sampled_from([b"", b"ana-", b"borja/", b"\xc1na-"]), name=name_bytes)
def test_any_file_name_ends_in_one_line_or_a_grade_never_a_traceback(prefix, name):
    with tempfile.TemporaryDirectory() as root:
        root = Path(root)
        key = COURSE_KEY
        bundles = root / "bundles"
        for student, code in CODES.items():
            make_workspace(bundle(bundles, student), key, code, TRUTH, "instructor")
        (bundles / "manifest.csv").write_text(
            "student,code\n" + "".join(f"{s},{c}\n" for s, c in CODES.items()))
        write_key_file(root / "course.key", key)
        file = latin1(root / "subs", prefix + name + b".md", RIGHT)
        result = CliRunner().invoke(cli, [
            "grade", "--key", str(root / "course.key"), "--bundles", str(bundles), str(file),
            "--gradebook", str(root / "g.csv"), "--gradescope", str(root / "gs")],
            catch_exceptions=False)
        assert result.exit_code in (0, 1)
        assert len(result.stdout.splitlines()) == 3  # the file's line, the CSV's, Gradescope's
        for results in (root / "gs").glob("*/results.json"):
            assert json.loads(results.read_text(encoding="utf-8"))["score"] == 3
        with (root / "g.csv").open(newline="", encoding="utf-8") as stream:
            rows = list(csv.DictReader(stream))
        refused = rows[2:]
        if printable(file.name) != file.name:
            assert "its name is not UTF-8 text (shown with \\x escapes)" in result.stdout
            assert not any((bundle(bundles, s) / "attempts.jsonl").exists() for s in CODES)
            assert refused[0]["file"] == spreadsheet_safe(printable(file.name, one_line=True))
        if result.exit_code == 0:  # graded: into the bundle its name places, and no other
            (row,) = (r for r in rows if r["score"])
            assert named_student(file, dealt_students(bundles)).name == row["student"]


@given(text=st.text(st.characters(blacklist_categories=())), raw=st.binary())
def test_printable_text_always_encodes_and_leaves_utf8_alone(text, raw):
    for value in (text, os.fsdecode(raw)):
        shown = printable(value)
        shown.encode("utf-8")  # never raises: every output can carry it
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            assert shown != value
        else:  # UTF-8 text is left alone, but for its controls (scenarios.escape)
            assert shown == value or any(needs_escape(c, LINES) for c in value)
        line = printable(value, one_line=True)
        line.encode("utf-8")
        assert not any(c < " " or "\x7f" <= c <= "\x9f" or "\u202a" <= c <= "\u202e"
                       for c in line)  # no newline, no terminal escape, no bidi override
    assert printable(os.fsdecode(b"\xc1na")) == "\\xc1na"
    assert printable("a\nb\x1b[2J\u202e", one_line=True) == "a\\x0ab\\x1b[2J\\u202e"


def test_a_one_file_grading_carries_the_other_format_1_entries_over(old_course, tmp_path):
    borja = next(s for s in dealt_students(old_course) if s.name == "borja")
    (graded,) = grade_bundles([submit(tmp_path, "x.md", RIGHT)], old_course, OLD_KEY,
                              student=borja)
    assert (graded.report.counts, graded.report.attempt) == (True, 2)
    students = json.loads((old_course / LEDGER).read_text())["students"]
    assert set(students["ana"]) == {"count", "digest", "first", "code", "legacy"}  # format 1
    assert set(students["borja"]) == {"code", "records", "found"}
    assert read_ledger(old_course, OLD_KEY)["ana"].count == 0


def test_without_a_manifest_nothing_is_graded(course, tmp_path):
    """The bundles never say who was dealt what (issue 34)."""
    key, bundles = course
    grade_bundles([submit(tmp_path, "ana.md", WRONG)], bundles, key)
    (bundles / "manifest.csv").unlink()
    with pytest.raises(GradeError, match="no manifest.csv here"):
        grade_bundles([submit(tmp_path, "ana.md", RIGHT)], bundles, key)
    with pytest.raises(GradeError, match="no manifest.csv here"):
        gradebook_rows(bundles, key)
    assert read_ledger(bundles, key)["ana"].first.score == 1  # kept


def test_a_deal_folder_is_exactly_the_one_above_the_students_folder(course, tmp_path):
    """Issue 34, reproduction 3: `--dir` records only when it is exactly
    `<deal>/<student>/experiments/19-break-it`, no symbolic link on the way, the student in
    that deal's manifest; a deal folder planted inside a bundle is none."""
    key, bundles = course
    assert deal_of(bundle(bundles, "ana"))[0] == Path(os.path.abspath(bundles))
    assert deal_of(bundles / "ana" / "experiments" / ".." / "experiments" / "19-break-it")
    os.symlink(bundle(bundles, "ana"), tmp_path / "link")
    assert deal_of(tmp_path / "link") is None  # not inside a deal folder's layout
    os.symlink(bundles / "ana", bundles / "ana-link")
    (bundles / "manifest.csv").write_text(
        "student,code\nborja,AAAA-1111\nana,BBBB-2222\nana-link,BBBB-2222\n")
    assert deal_of(bundles / "ana-link" / "experiments" / "19-break-it") is None  # a link
    experiments = bundles / "ana" / "experiments"
    (experiments / "manifest.csv").write_text("student,code\nx,BBBB-2222\n")
    os.symlink("..", experiments / "x")  # the attack: a deal folder planted in her bundle
    assert deal_of(experiments / "x" / "experiments" / "19-break-it") is None
    (experiments / "y" / "experiments").mkdir(parents=True)  # a real folder this time
    shutil.copytree(bundle(bundles, "ana"), experiments / "y" / "experiments" / "19-break-it")
    (experiments / "manifest.csv").write_text("student,code\ny,BBBB-2222\n")
    assert deal_of(experiments / "y" / "experiments" / "19-break-it") is None  # nested
    assert deal_of(bundle(bundles, "nobody")) is None
    assert deal_of(bundles / "ana" / "experiments" / "other") is None


def test_a_ledger_nested_past_any_reader_is_refused_in_one_line(course, tmp_path):
    key, bundles = course
    (bundles / LEDGER).write_text("[" * 30_000)
    with pytest.raises(GradeError, match="changed since a grading wrote it"):
        grade_bundles([submit(tmp_path, "ana.md", RIGHT)], bundles, key)
    assert not (bundle(bundles, "ana") / "attempts.jsonl").exists()


def test_no_courtesy_copy_is_written_through_a_symbolic_link(course, tmp_path):
    key, bundles = course
    elsewhere = tmp_path / "elsewhere"
    shutil.move(bundle(bundles, "ana"), elsewhere)
    os.symlink(elsewhere, bundle(bundles, "ana"))
    (graded,) = grade_bundles([submit(tmp_path, "ana.md", RIGHT)], bundles, key)
    assert graded.report.score == 3 and read_ledger(bundles, key)["ana"].first.score == 3
    assert not (elsewhere / "attempts.jsonl").exists()


def test_a_deck_other_than_the_one_dealt_is_said(course, tmp_path):
    key, bundles = course
    (bundles / "deal-settings.json").write_text(json.dumps(
        {"schema": "diagnose.deal/1", "deck": {"folder": "/courses/ml-deck", "sha256": "0" * 64}}))
    (graded,) = grade_bundles([submit(tmp_path, "ana.md", RIGHT)], bundles, key)
    assert graded.report.score == 3
    assert any("is not the one this class was dealt with (/courses/ml-deck" in p
               for p in graded.problems)
