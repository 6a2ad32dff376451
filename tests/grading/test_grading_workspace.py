"""Grading against a workspace: scores, feedback in both languages, attempts, and refusals."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from grading_testkit import CODE, TRUTH, make_workspace

from grading import GradeError, check_file, grade_workspace, read_attempts
from grading.grade import GradeOptions
from grading.seal import new_secret, seal

FILE = """# Diagnoses — Borja
<!-- scenario: 7KQ2-M9XF -->

## 01
Diagnosis: no warmup
Evidence: Panel 2 starts at lr_max.

## 02
Diagnosis: bad init
"""
MARCH = datetime(2025, 3, 2, 10, 15, tzinfo=UTC)


@pytest.fixture
def setup(tmp_path):
    secret = new_secret()
    workspace = make_workspace(tmp_path / "ws", secret)
    file = tmp_path / "borja-diagnoses.md"
    file.write_text(FILE, encoding="utf-8")
    return file, workspace, secret


def test_a_grading_scores_each_id_and_says_why(setup):
    file, workspace, secret = setup
    numbers = {"02": ["val loss 0.004, 64x below the floor 0.255"],
               "01": ["never shown: 01 is right"]}
    report = grade_workspace(file, workspace, secret,
                             GradeOptions(now=MARCH, evidence=lambda folder: numbers))
    data = report.to_json()
    assert list(data)[:6] == ["score", "max_score", "results", "attempt", "after_reveal",
                              "counts"]
    assert (data["score"], data["max_score"], data["attempt"], data["after_reveal"]) == (
        1, 3, 1, False)
    assert [list(r) for r in data["results"]] == [
        ["id", "answer", "truth", "correct", "feedback"]] * 3
    one, two, three = data["results"]
    assert (one["answer"], one["truth"], one["correct"]) == ("no-warmup", "no-warmup", True)
    assert one["feedback"] == ('Read "no warmup" on the Diagnosis line: no-warmup. '
                               "Right: 01 was no-warmup: No learning-rate warmup.")
    assert (two["answer"], two["truth"], two["correct"]) == ("bad-init", "broken-mask", False)
    assert two["feedback"].startswith('Read "bad init" on the Diagnosis line: bad-init. '
                                      "Wrong: 02 was broken-mask: Broken causal mask. "
                                      "The panels that show it: Panel 1 (Loss): ")
    assert "Panel 6 (Dead): " in two["feedback"]
    assert two["feedback"].endswith("In this run: val loss 0.004, 64x below the floor 0.255.")
    assert (three["answer"], three["correct"]) == (None, False)
    assert three["feedback"].startswith("No section for 03 was found. Wrong: 03 was bad-init")
    assert data["first_attempt"] is None and data["code"] == CODE
    assert data["time"] == "2025-03-02T10:15:00Z"


def test_feedback_in_spanish(setup):
    file, workspace, secret = setup
    report = grade_workspace(file, workspace, secret, GradeOptions("es"))
    one, two, _ = report.results
    assert one.feedback == ("Leído «no warmup» en la línea Diagnosis: no-warmup. "
                            "Correcto: 01 era no-warmup: Sin warmup del learning rate.")
    assert two.feedback.startswith("Leído «bad init» en la línea Diagnosis: bad-init. "
                                   "Incorrecto: 02 era broken-mask: Máscara causal rota. "
                                   "Los paneles que lo muestran: Panel 1 (pérdida): La pérdida")
    text = report.render()
    assert "02  incorrecto" in text and "Puntuación: 1/3" in text
    assert "Primer intento: este es el que cuenta." in text


def test_the_first_attempt_counts_and_later_ones_say_so(setup):
    file, workspace, secret = setup
    first = grade_workspace(file, workspace, secret, GradeOptions(now=MARCH))
    assert first.counts and first.render().endswith("Score: 1/3\nFirst attempt: this one counts.")
    (workspace / "reveal.json").write_text('{"revealed_at": "x", "by": "reveal"}')
    file.write_text(FILE.replace("bad init", "broken mask") + "## 03\nDiagnosis: bad init\n")
    later = grade_workspace(file, workspace, secret)
    assert (later.score, later.attempt, later.after_reveal, later.counts) == (3, 2, True, False)
    assert later.standing == ("First attempt 1/3 on 2025-03-02; this one after the reveal "
                              "does not count.")
    assert later.to_json()["first_attempt"] == {"time": "2025-03-02T10:15:00Z", "score": 1,
                                                "max_score": 3}
    (workspace / "reveal.json").unlink()
    same = grade_workspace(file, workspace, secret, GradeOptions("es"))  # the same bytes
    assert same.repeat and same.attempt == 2 and not same.counts
    file.write_text(file.read_text() + "<!-- once more -->\n")
    third = grade_workspace(file, workspace, secret, GradeOptions("es"))
    assert third.standing == "Primer intento 1/3 el 2025-03-02; este (intento 3) no cuenta."

    attempts = read_attempts(workspace)
    assert [a.score for a in attempts] == [1, 3, 3]
    assert [a.after_reveal for a in attempts] == [False, True, False]
    assert attempts[0].answers == {"01": "no-warmup", "02": "bad-init", "03": None}
    assert attempts[0].correct == ("01",) and attempts[0].by == "self-study"
    line = json.loads((workspace / "attempts.jsonl").read_text().splitlines()[0])
    assert line == {"schema": "diagnose.attempt/1", "time": "2025-03-02T10:15:00Z",
                    "sha256": first.sha256, "file": "borja-diagnoses.md", "score": 1,
                    "max_score": 3, "after_reveal": False, "by": "self-study",
                    "answers": {"01": "no-warmup", "02": "bad-init", "03": None},
                    "correct": ["01"], "n": 1}  # and no truth: the workspace is the student's


def test_broken_attempt_lines_are_skipped(setup):
    file, workspace, secret = setup
    (workspace / "attempts.jsonl").write_text('{"half a line\n[1, 2]\n{"schema": "other"}\n')
    assert grade_workspace(file, workspace, secret).attempt == 1


def test_record_false_leaves_no_trace(setup):
    file, workspace, secret = setup
    grade_workspace(file, workspace, secret, record=False)
    assert not (workspace / "attempts.jsonl").exists()


def test_statuses_are_explained(tmp_path):
    secret = new_secret()
    workspace = make_workspace(tmp_path / "ws", secret)
    file = tmp_path / "d.md"
    file.write_text("## 01\nDiagnosis: not sure\n## 02\nDiagnosis: no-warmup (not bad-init)\n"
                    "## 03\nIt is not the mask, it has no warmup.\n## 04\nDiagnosis: mask\n")
    report = grade_workspace(file, workspace, secret)
    one, two, three = (r.reading for r in report.results)
    assert one == 'The Diagnosis line says "not sure": no answer.'
    assert two == ('The Diagnosis line "no-warmup (not bad-init)" names 2 breaks: bad-init '
                   '("bad-init"); no-warmup ("no-warmup"); an answer must name exactly one '
                   '(and "not X" still names X).')
    assert three == ('No answer line, and the free text names 2 breaks: broken-mask ("mask"); '
                     'no-warmup ("no warmup"); put the one you mean on a "Diagnosis:" line.')
    assert report.notes == ("Sections for 04 were found, but this scenario has only "
                            "01, 02, 03: ignored.",)
    assert report.score == 0


def test_an_empty_file_scores_zero(tmp_path):
    secret = new_secret()
    workspace = make_workspace(tmp_path / "ws", secret)
    (tmp_path / "empty.md").write_bytes(b"")
    report = grade_workspace(tmp_path / "empty.md", workspace, secret)
    assert (report.score, report.max_score) == (0, 3)
    assert report.notes[0] == 'No sections found: start each with a heading such as "## 01".'
    assert report.notes[1].startswith("No section for 01, 02, 03. A section starts with")


def test_truth_ids_follow_the_scenario(tmp_path):
    secret = new_secret()
    truth = {"01": "bad-init", "02": "no-warmup", "03": "broken-mask", "04": "no-warmup"}
    workspace = make_workspace(tmp_path / "ws", secret, truth=truth)
    (tmp_path / "d.md").write_text("01: bad init\n04: warmup\n")
    report = grade_workspace(tmp_path / "d.md", workspace, secret)
    assert (report.score, report.max_score) == (2, 4)


def test_refusals(tmp_path):
    secret = new_secret()
    workspace = make_workspace(tmp_path / "ws", secret)
    file = tmp_path / "d.md"
    file.write_text(FILE)

    def refused(file=file, workspace=workspace, secret=secret):
        with pytest.raises(GradeError) as err:
            grade_workspace(file, workspace, secret)
        return str(err.value)

    key = workspace / "answer-key.sealed"
    assert refused(secret=new_secret()).startswith(
        f"{key}: the answer key was sealed with another key (fingerprint ")
    assert refused(file=tmp_path / "nope.md") == f"{tmp_path / 'nope.md'}: no such file"
    assert refused(workspace=tmp_path / "nope") == f"{tmp_path / 'nope'}: no such directory"
    assert refused(workspace=tmp_path) == (f"{tmp_path}: no scenario here (scenario.json is "
                                           "missing)")
    other = file.with_name("other.md")
    other.write_text("<!-- scenario: ZZZZ-0000 -->\n## 01\nDiagnosis: bad init\n")
    assert refused(file=other) == (f"{other}: written for scenario ZZZZ-0000, but the answer "
                                   f"key is for scenario {CODE}")

    sealed = json.loads(key.read_text())
    sealed["token"] = sealed["token"][:-8] + "AAAAAAA="
    key.write_text(json.dumps(sealed))
    assert refused() == f"{key}: the answer key has been changed or belongs to another scenario"
    key.write_text(seal("ZZZZ-0000", TRUTH, secret))
    assert refused() == (f"{key}: the answer key has been changed or belongs to another "
                         f"scenario (it is for scenario ZZZZ-0000, not {CODE})")
    key.write_text("{not json")
    assert refused() == (f"{key}: the answer key has been changed or belongs to another "
                         "scenario (it is not valid JSON)")
    key.write_text(seal(CODE, {"01": "bad-init", "02": "no-warmup"}, secret))
    assert refused() == (f"{key}: the answer key has been changed or belongs to another "
                         "scenario (its IDs are not the scenario's)")
    key.unlink()
    assert refused() == f"{key}: the answer key is missing"
    (workspace / "scenario.json").write_text('{"schema": "diagnose.scenario/1"}')
    assert refused() == (f"{workspace / 'scenario.json'}: corrupt (expected schema "
                         "diagnose.scenario/1 with code, ids, steps, engine_version and key)")


def test_check_reads_without_a_key(tmp_path):
    file = tmp_path / "d.md"
    file.write_text(FILE)
    check = check_file(file, CODE)
    data = check.to_json()
    assert [(i["id"], i["answer"], i["status"]) for i in data["ids"]] == [
        ("01", "no-warmup", "named"), ("02", "bad-init", "named"), ("03", None, "missing")]
    assert data["named"] == 2 and data["code"] == CODE
    text = check.render()
    assert text.startswith(f"Checked {file} · scenario {CODE}\n\n01  no-warmup\n    Read ")
    assert text.endswith("2 of 3 IDs name one break. Nothing is scored without the key.")
    spanish = check_file(file, lang="es").render()
    assert "03  falta\n    No se encontró ninguna sección para 03." in spanish
    with pytest.raises(GradeError, match="written for scenario 7KQ2-M9XF, but the answer key "
                                         "is for scenario OTHER"):
        check_file(file, "OTHER")
    file.write_text("## 01\nDiagnosis: bad init\n")
    assert "No <!-- scenario: CODE --> comment" in check_file(file).render()
