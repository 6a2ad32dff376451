"""The grading route is chosen in one place (`diagnose.game.routes.grading_route`) for the CLI and
the app, and the words files hold are StrEnums: who sealed a scenario, how an answer was read."""

from __future__ import annotations

import itertools
import json

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.game.routes import Route, grading_route
from grading.diagnoses import Source, Status, parse_diagnoses
from grading.grade import GradeError
from grading.seal import SEALERS, SealedBy


def _workspace(path, sealed_by):
    path.mkdir(parents=True, exist_ok=True)
    (path / "scenario.json").write_text(json.dumps({
        "schema": "diagnose.scenario/1", "code": "7KQ2-M9XF", "engine_version": "test",
        "steps": 400, "ids": ["01", "02", "03"], "key": str(sealed_by)}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("sealed_by", "check", "key_given"),
                         list(itertools.product(SealedBy, (False, True), (False, True))))
def test_every_route(tmp_path, sealed_by, check, key_given):
    """A check is asked for, or a key is given, or the seal decides: self-study grades, an
    instructor's bundle is handed in."""
    expected = (Route.CHECK if check else Route.WITH_KEY if key_given
                else Route.SELF_STUDY if sealed_by == SealedBy.SELF_STUDY else Route.HAND_IN)
    ws = _workspace(tmp_path / "ws", sealed_by)
    assert grading_route(ws, check=check, key_given=key_given) is expected


def test_a_check_or_a_key_reads_no_scenario(tmp_path):
    """What the caller asked for decides before any file is read (a missing one included)."""
    assert grading_route(tmp_path / "none", check=True) is Route.CHECK
    assert grading_route(None, check=True) is Route.CHECK
    assert grading_route(tmp_path / "none", key_given=True) is Route.WITH_KEY
    with pytest.raises(GradeError):
        grading_route(tmp_path / "none")


def test_the_cli_refuses_to_grade_an_instructors_bundle(tmp_path):
    ws = _workspace(tmp_path / "ws", SealedBy.INSTRUCTOR)
    answers = tmp_path / "Ana-diagnoses.md"
    answers.write_text("# 01\nDiagnosis: bad-init\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["grade", str(answers), "--dir", str(ws)],
                                catch_exceptions=False)
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {ws}: this scenario was dealt by an instructor and only their key opens it; "
        f"check your file with `diagnose grade {answers} --check` and hand it in\n")


def test_the_words_in_files_stay_what_they_were():
    """The StrEnums are the strings files have always held, and compare equal to them."""
    assert SEALERS == ("self-study", "instructor")
    assert [str(s) for s in Status] == ["named", "ambiguous", "nothing", "empty", "unsure",
                                        "missing"]
    assert [str(s) for s in Source] == ["label", "heading", "text"]
    answer = parse_diagnoses("# 01\nDiagnosis: not sure\n").answer("01")
    assert answer.status == "unsure" and answer.source == "label"
    assert json.dumps({"status": answer.status}) == '{"status": "unsure"}'
