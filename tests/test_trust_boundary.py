"""Issue 34's reproductions on a real deal (three students, `--steps 1`): the grader reads
nothing a student can write. Reproduction 2 is tests/test_classroom_records.py's
`test_a_bundle_is_never_read_to_decide_a_deal`, 5 tests/test_self_study.py's, 6-8
tests/test_gradescope.py's and tests/test_classroom.py's roster test."""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from grading import ledger as ledger_module
from grading.dealt import derive
from grading.gradebook import gradebook_rows
from grading.ledger import LEDGER, read_ledger
from grading.manifest import read_manifest
from grading.seal import read_key_file

WS = Path("experiments") / "19-break-it"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    root = tmp_path_factory.mktemp("trust")
    key = root / "course.key"
    assert run("keygen", "--out", str(key)).exit_code == 0
    roster = root / "roster.txt"
    roster.write_text("ana\nbob\ncy\n")
    assert run("deal", "--key", str(key), "--out", str(root / "bundles"), "--roster",
               str(roster), "--steps", "1").exit_code == 0
    return key, root / "bundles"


@pytest.fixture
def course(dealt, tmp_path, monkeypatch):
    """A copy of the deal, the key as course.key, and each student's truth and answer files."""
    key, bundles = dealt
    monkeypatch.chdir(tmp_path)
    shutil.copytree(bundles, "bundles")
    shutil.copyfile(key, "course.key")
    os.chmod("course.key", 0o600)
    secret = read_key_file(Path("course.key"))
    truth = {row.student: derive(secret, row, Path("bundles")).truth
             for row in read_manifest(Path("bundles"))}
    return secret, truth


def answers(truth: dict[str, str], right: int) -> str:
    slugs = sorted(set(truth.values()))
    wrong = {s: slugs[(slugs.index(s) + 1) % len(slugs)] for s in slugs}
    return "".join(f"## {i}\nDiagnosis: {s if n < right else wrong[s]}\n"
                   for n, (i, s) in enumerate(sorted(truth.items())))


def hand_in(name: str, text: str) -> str:
    Path(name).parent.mkdir(parents=True, exist_ok=True)
    Path(name).write_text(text, encoding="utf-8")
    return name


def forge_first_attempt(student: str, score: int = 3) -> None:
    """Reproduction 1: scenario.json says self-study, and one unsigned self-study record of
    3/3, dated before any grading."""
    bundle = Path("bundles", student) / WS
    scenario = json.loads((bundle / "scenario.json").read_text())
    (bundle / "scenario.json").write_text(json.dumps({**scenario, "key": "self-study"}))
    (bundle / "attempts.jsonl").write_text(json.dumps({
        "schema": "diagnose.attempt/1", "time": "2026-12-01T09:00:00Z", "sha256": "f" * 64,
        "file": f"{student}.md", "score": score, "max_score": 3, "after_reveal": False,
        "by": "self-study", "answers": {"01": None, "02": None, "03": None},
        "correct": ["01", "02", "03"][:score], "n": 1}) + "\n")


@pytest.mark.parametrize("route", ["class", "single"])
def test_1_a_forged_first_attempt_is_never_believed(course, route):
    secret, truth = course
    forge_first_attempt("ana")
    file = hand_in("ana.md", answers(truth["ana"], 0))
    if route == "class":
        result = run("grade", "--key", "course.key", "--bundles", "bundles", file,
                     "--gradebook", "grades.csv")
    else:
        result = run("grade", file, "--dir", str(Path("bundles/ana") / WS), "--key",
                     "course.key")
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "3/3 on 2026-12-01" not in said and "does not count" not in said
    assert "says key 'self-study' for 'instructor'" in said  # the bundle, said
    (kept,) = read_ledger(Path("bundles"), secret)["ana"].records
    assert (kept.score, kept.by) == (0, "instructor")
    rows = {r.student: r for r in gradebook_rows(Path("bundles"), secret)}
    assert (rows["ana"].first.score, rows["ana"].attempts) == (0, 1)


def test_1_a_forged_record_an_older_ledger_took_in_is_flagged_and_not_counted(course):
    """Under the old rule the forged record entered the ledger; it still opens, flagged."""
    secret, truth = course
    forge_first_attempt("ana")
    forged = json.loads((Path("bundles/ana") / WS / "attempts.jsonl").read_text())
    codes = {row.student: row.code for row in read_manifest(Path("bundles"))}
    students = {name: {"code": codes[name], "records": [forged], "found": []}
                for name in ("ana", "bob")}
    Path("bundles", LEDGER).write_text(json.dumps({
        "schema": "diagnose.attempts-ledger/2", "students": students,
        "mac": ledger_module._ledger_mac(students, secret)}))
    (ana, *_) = gradebook_rows(Path("bundles"), secret)
    assert ana.first is None and ana.attempts == 1
    assert ana.problems == ("attempt 1 came from the bundle under the old rule (not sealed by "
                            "this course's grading): kept, not counted",)
    result = run("grade", "--key", "course.key", "--bundles", "bundles",
                 hand_in("ana.md", answers(truth["ana"], 1)), "--gradebook", "grades.csv")
    assert result.exit_code == 0
    with open("grades.csv", newline="") as stream:
        row = next(csv.DictReader(stream))
    assert (row["score"], row["attempts"], row["counted_attempt"]) == ("1", "2", "2")
    assert "under the old rule" in row["records"]
    rows = {r.student: r for r in gradebook_rows(Path("bundles"), secret)}  # format 3 now
    assert rows["bob"].first is None and "under the old rule" in rows["bob"].problems[0]
    assert rows["ana"].first.score == 1


def test_3_a_deal_folder_planted_inside_a_bundle_records_nothing(course):
    secret, truth = course
    experiments = Path("bundles/ana/experiments")
    code = read_manifest(Path("bundles"))[0].code
    (experiments / "manifest.csv").write_text(f"student,code\nx,{code}\n")
    os.symlink("..", experiments / "x")
    (experiments / "19-break-it" / "attempts.jsonl").unlink(missing_ok=True)
    file = hand_in("ana.md", answers(truth["ana"], 3))
    planted = run("grade", file, "--key", "course.key", "--dir",
                  str(experiments / "x" / "experiments" / "19-break-it"))
    assert planted.exit_code == 0
    assert "Not recorded: " in planted.stderr and "Score: 3/3" in planted.stdout
    assert not (experiments / LEDGER).exists() and not Path("bundles", LEDGER).exists()
    real = run("grade", file, "--key", "course.key", "--dir", str(experiments / "19-break-it"))
    assert real.exit_code == 0 and "Not recorded" not in real.output
    assert not (experiments / LEDGER).exists()
    assert read_ledger(Path("bundles"), secret)["ana"].first.score == 3  # the real ledger


def test_4_a_level_in_scenario_json_is_never_read_for_scoring(course):
    secret, truth = course
    grade = ("grade", "--key", "course.key", "--bundles", "bundles")
    assert run(*grade, hand_in("a/ana.md", answers(truth["ana"], 1))).exit_code == 0
    assert run(*grade, hand_in("b/bob.md", answers(truth["bob"], 3))).exit_code == 0
    for student in ("ana", "bob"):
        path = Path("bundles", student) / WS / "scenario.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "level": 2}))
    rows = {r.student: r for r in gradebook_rows(Path("bundles"), secret)}
    assert (rows["ana"].first.score, rows["bob"].first.score) == (1, 3)
    again = run(*grade, hand_in("c/bob.md", answers(truth["bob"], 3) + "\n"))
    assert again.exit_code == 0 and "bob  3/3" in again.stdout
    assert "says level 2 for 1" in again.stdout


def test_feedback_quotes_only_metrics_whose_sha256_was_kept_at_deal_time(course):
    secret, truth = course
    digests = json.loads(Path("bundles/deal-digests.json").read_text())["students"]
    assert set(digests) == {"ana", "bob", "cy"} and set(digests["ana"]) == {
        "reference", "01", "02", "03"}
    grade = ("grade", "--key", "course.key", "--bundles", "bundles", "--json")
    quoted = json.loads(run(*grade, hand_in("a/bob.md", answers(truth["bob"], 0))).stdout)
    assert quoted["graded"][0].get("records") is None  # as dealt: nothing to say
    assert any("In this run:" in r["feedback"] for r in quoted["graded"][0]["results"])
    metrics = Path("bundles/ana") / WS / "01" / "metrics.jsonl"
    metrics.write_bytes(metrics.read_bytes() + b" ")  # any change of any byte
    result = json.loads(run(*grade, hand_in("b/ana.md", answers(truth["ana"], 0))).stdout)
    (graded,) = result["graded"]
    assert graded["score"] == 0  # graded all the same
    assert any("the metrics of 01 are not the ones dealt (changed since); no numbers quoted"
               in line for line in graded["records"])
    assert all("In this run:" not in r["feedback"] for r in graded["results"])
