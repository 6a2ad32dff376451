"""Self-study grading is one service (`diagnose.game.self_study`): `diagnose grade FILE` prints it,
the app's grade screen draws it, and both say the same score, solutions and next level."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.game.progress import load_progress
from diagnose.game.self_study import grade_self_study
from diagnose.home import self_study_secret
from diagnose.workspace import open_workspace
from grading.grade import open_key, read_scenario
from scenarios.errors import UserError


def answers(folder: Path, ws: Path, wrong: int = 0) -> Path:
    truth = open_key(read_scenario(ws), self_study_secret())
    slugs = list(truth.values())
    guessed = slugs[wrong:] + slugs[:wrong]  # rotated: every answer wrong when wrong > 0
    path = folder / "ana-diagnoses.md"
    path.write_text("<!-- scenario: TUI-FIXTURE -->\n" + "".join(
        f"## {rid}\nDiagnosis: {slug}\n" for rid, slug in zip(truth, guessed, strict=True)))
    return path


def test_a_first_3_of_3_reveals_records_and_offers_the_next_level(fixture_course, tmp_path):
    graded = grade_self_study(answers(tmp_path, fixture_course), fixture_course, "en")
    assert (graded.report.score, graded.report.max_score) == (3, 3)
    assert graded.solutions is not None and graded.solutions.is_file()
    assert open_workspace(fixture_course).revealed and graded.warnings == ()
    assert graded.passed is not None and "Level 1 passed" in graded.passed
    assert graded.next_level == 2
    progress, _ = load_progress()
    assert progress[1].passed and progress[1].scenarios["TUI-FIXTURE"]["attempts"] == 1
    again = grade_self_study(answers(tmp_path, fixture_course), fixture_course, "es")
    assert again.passed is None and again.next_level == 2  # passed before: still offered
    assert load_progress()[0][1].scenarios["TUI-FIXTURE"]["attempts"] == 2


def test_the_cli_and_the_grade_screen_say_what_the_service_says(fixture_course, tmp_path):
    from diagnose.tui.screens.grade import grade

    file = answers(tmp_path, fixture_course, wrong=1)
    out = CliRunner().invoke(cli, ["grade", "--yes", str(file), "--json"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    printed = json.loads(out.stdout)
    screen = grade(file, open_workspace(fixture_course), "en")
    assert printed["score"] == 0 and screen.score == "0/3"
    assert Path(printed["solutions"]) == screen.solutions
    assert screen.passed is None and screen.next_level is None  # level 1 not passed


def test_what_cannot_be_written_is_a_warning_and_the_grade_stands(fixture_course, tmp_path):
    (tmp_path / "solutions").write_text("a file where the folder goes")
    graded = grade_self_study(answers(tmp_path, fixture_course), fixture_course, "en")
    assert graded.report.score == 3 and graded.solutions is None
    assert len(graded.warnings) == 1 and graded.warnings[0].startswith("solutions not written")
    assert open_workspace(fixture_course).revealed  # the feedback showed every answer
    out = CliRunner().invoke(cli, ["grade", "--yes", str(answers(tmp_path, fixture_course))])
    assert out.exit_code == 0 and "Warning: solutions not written" in out.stderr


def test_an_instructors_bundle_is_refused_in_one_line(fixture_course, tmp_path):
    file = answers(tmp_path, fixture_course)
    scenario = json.loads((fixture_course / "scenario.json").read_text())
    (fixture_course / "scenario.json").write_text(json.dumps({**scenario, "key": "instructor"}))
    with pytest.raises(UserError, match="dealt by an instructor and only their key opens it"):
        grade_self_study(file, fixture_course, "en")
    out = CliRunner().invoke(cli, ["grade", "--yes", str(file)])
    assert out.exit_code == 1
    assert out.output == (f"Error: {fixture_course}: this scenario was dealt by an instructor "
                          f"and only their key opens it; check your file with `diagnose grade "
                          f"{file} --check` and hand it in\n")


def test_a_grade_after_diagnose_reveal_never_counts_and_says_so(fixture_course, tmp_path):
    """Issue 34, reproduction 5: `diagnose reveal`, then `diagnose grade` once said "First
    attempt: this one counts" and "Level 1 passed"; the attempt policy counts no attempt made
    after an answer was shown, and a level passes only on one that counts."""
    revealed = CliRunner().invoke(cli, ["reveal", "--dir", str(fixture_course)],
                                  catch_exceptions=False)
    assert revealed.exit_code == 0, revealed.output
    graded = grade_self_study(answers(tmp_path, fixture_course), fixture_course, "en")
    assert (graded.report.score, graded.report.counts) == (3, False)
    assert graded.report.standing == ("Graded after the answers were shown: this one does not "
                                      "count. No attempt counts: none was made before the "
                                      "answers were shown.")
    assert graded.passed is None and not load_progress()[0][1].passed
    result = CliRunner().invoke(cli, ["grade", str(answers(tmp_path, fixture_course, wrong=1)),
                                      "--dir", str(fixture_course), "--yes"],
                                catch_exceptions=False)
    assert result.exit_code == 0 and "this one does not count" in " ".join(result.stdout.split())
    assert "Level 1 passed" not in result.stdout
