"""Grading a class: matching files to bundles, attempts in the bundles, CSV and Gradescope."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime

import pytest
from grading_testkit import dealing_secret, make_workspace

from grading import (
    DEFAULT_DIR,
    GradeError,
    grade_bundles,
    gradebook_rows,
    read_attempts,
    write_gradebook,
    write_gradescope,
)
from grading.diagnoses import parse_diagnoses
from grading.grade import GradeOptions
from grading.gradebook import dealt_students, match

CODES = {"borja": "AAAA-1111", "ana": "BBBB-2222", "luis": "CCCC-3333"}
TRUTHS = {"borja": {"01": "no-warmup", "02": "broken-mask", "03": "bad-init"},
          "ana": {"01": "bad-init", "02": "no-warmup", "03": "broken-mask"},
          "luis": {"01": "broken-mask", "02": "bad-init", "03": "no-warmup"}}
DAY = datetime(2025, 3, 2, 9, 0, tzinfo=UTC)


def answers(truth, wrong=()):
    other = {"no-warmup": "bad init", "bad-init": "broken mask", "broken-mask": "no warmup"}
    return "".join(f"## {i}\nDiagnosis: {other[s] if i in wrong else s}\n"
                   for i, s in truth.items())


KEY = dealing_secret({CODES[s]: TRUTHS[s] for s in CODES})  # as `deal` derives each truth


@pytest.fixture
def course(tmp_path):
    key = KEY
    bundles = tmp_path / "bundles"
    for student, code in CODES.items():
        make_workspace(bundles / student / DEFAULT_DIR, key, code, TRUTHS[student], "instructor")
    (bundles / "manifest.csv").write_text(
        "student,code\n" + "".join(f"{s},{c}\n" for s, c in CODES.items()))
    subs = tmp_path / "submissions"
    subs.mkdir()
    (subs / "borja-diagnoses.md").write_text(
        "<!-- scenario: AAAA-1111 -->\n" + answers(TRUTHS["borja"], wrong={"02"}))
    (subs / "Ana.md").write_text(answers(TRUTHS["ana"]))  # no comment: by its name
    (subs / "luis").mkdir()
    (subs / "luis" / "diagnoses.md").write_text(answers(TRUTHS["luis"], wrong={"01", "02"}))
    return key, bundles, subs


def test_a_class_is_graded_into_its_bundles(course):
    key, bundles, subs = course
    files = [subs / "borja-diagnoses.md", subs / "Ana.md", subs / "luis" / "diagnoses.md"]
    graded = grade_bundles(files, bundles, key, GradeOptions(now=DAY))
    assert [(g.student, g.report.score, g.error) for g in graded] == [
        ("borja", 2, ""), ("ana", 3, ""), ("luis", 1, "")]
    (attempt,) = read_attempts(bundles / "borja" / DEFAULT_DIR)
    assert (attempt.by, attempt.score, attempt.file) == ("instructor", 2, "borja-diagnoses.md")


def test_matching_refuses_what_it_cannot_place(course):
    key, bundles, subs = course
    roster = dealt_students(bundles)
    assert [s.name for s in roster] == ["borja", "ana", "luis"]
    assert match(subs / "x" / "ANA-diagnoses.md", reading(), roster).name == "ana"
    assert match(subs / "Ana.md", reading("bbbb-2222"), roster).name == "ana"
    cases = {
        (subs / "luis-diagnoses.md", "AAAA-1111"):
            "named for luis, but written for borja's scenario AAAA-1111",
        (subs / "maria.md", ""): "its name matches no student of the roster; nothing recorded",
        # The file name decides: a comment naming a student does not place an unnamed file.
        (subs / "whatever.md", "BBBB-2222"): "its name matches no student of the roster",
        (subs / "ana.md", "ZZZZ-9999"): "named for ana, but written for scenario ZZZZ-9999",
    }
    for (file, code), message in cases.items():
        with pytest.raises(GradeError, match=message):
            match(file, reading(code), roster)


def reading(code="", title=""):
    head = (f"# Diagnoses — {title}\n" if title else "") + (
        f"<!-- scenario: {code} -->\n" if code else "")
    return parse_diagnoses(head + "## 01\nbad init\n")


def test_files_that_cannot_be_graded_are_reported_and_the_rest_go_on(course):
    key, bundles, subs = course
    (subs / "luis-diagnoses.md").write_text("<!-- scenario: AAAA-1111 -->\n## 01\nbad init\n")
    graded = grade_bundles([subs / "luis-diagnoses.md", subs / "nope.md", subs / "Ana.md"],
                           bundles, key)
    order = ["luis-diagnoses.md", "nope.md", "Ana.md"]  # graded in collection order: back in ours
    graded.sort(key=lambda g: order.index(g.file.rsplit("/", 1)[-1]))
    assert [g.error.split(": ", 1)[1] if g.error else g.report.score for g in graded] == [
        "named for luis, but written for borja's scenario AAAA-1111; nothing recorded",
        "no such file", 3]
    # A refused file's row names the student its name places (luis), never the one inside.
    assert [g.student for g in graded] == ["luis", None, "ana"]


def test_gradebook_and_gradescope(course, tmp_path):
    key, bundles, subs = course
    graded = grade_bundles([subs / "borja-diagnoses.md", subs / "Ana.md"], bundles, key,
                           GradeOptions(now=DAY))
    # A second session: borja hands in a corrected file; until the answers are shown, it
    # replaces his draft (class grading shows nothing: grading.policy)
    (subs / "borja-diagnoses.md").write_text(answers(TRUTHS["borja"]))
    later = grade_bundles([subs / "borja-diagnoses.md"], bundles, key)
    assert (later[0].report.score, later[0].report.counts) == (3, True)

    rows = gradebook_rows(bundles, key)
    write_gradebook(rows, tmp_path / "grades.csv")
    with (tmp_path / "grades.csv").open(newline="") as stream:
        table = list(csv.DictReader(stream))
    assert list(table[0]) == ["student", "code", "score", "max_score", "first_attempt",
                              "attempts", "file", "answer_01", "truth_01", "answer_02",
                              "truth_02", "answer_03", "truth_03", "note", "records", "level"]
    borja, ana, luis = table
    assert borja["level"] == ana["level"] == "1"
    assert (borja["score"], borja["attempts"]) == ("3", "2")
    assert (borja["answer_02"], borja["truth_02"]) == ("broken-mask", "broken-mask")
    assert (ana["score"], ana["file"], ana["note"]) == ("3", "Ana.md", "")
    assert (luis["score"], luis["truth_01"], luis["note"]) == (
        "", "broken-mask", "no submission graded")

    written = write_gradescope(rows, graded + later, tmp_path / "gs")
    assert sorted(p.parent.name for p in written) == ["ana", "borja"]
    ana_results = json.loads((tmp_path / "gs" / "ana" / "results.json").read_text())
    assert list(ana_results) == ["score", "output", "output_format", "test_output_format",
                                 "visibility", "tests"]
    assert ana_results["score"] == 3
    assert ana_results["tests"][0] == {
        "name": "01", "score": 1, "max_score": 1, "status": "passed",
        "output": graded[1].report.results[0].feedback, "visibility": "after_published"}
    borja_results = json.loads((tmp_path / "gs" / "borja" / "results.json").read_text())
    assert borja_results["score"] == 3
    assert borja_results["tests"][1]["status"] == "passed"


def test_bundles_without_a_manifest_are_refused(course):
    key, bundles, _ = course
    (bundles / "manifest.csv").unlink()
    with pytest.raises(GradeError, match="no manifest.csv here"):
        dealt_students(bundles)


def test_a_folder_without_bundles_is_refused(tmp_path):
    with pytest.raises(GradeError, match="no manifest.csv here"):
        dealt_students(tmp_path)
    with pytest.raises(GradeError, match="no such directory of bundles"):
        dealt_students(tmp_path / "nope")


def test_a_broken_bundle_changes_no_gradebook_row(course, tmp_path):
    key, bundles, _ = course
    before = gradebook_rows(bundles, key)
    (bundles / "luis" / DEFAULT_DIR / "answer-key.sealed").write_text("{}")
    assert gradebook_rows(bundles, key) == before  # the truth is derived, never read
