"""Issue 22's proof that a break is one folder: a course's own break, written in a temporary
folder outside the package (the engine's init_scale at a new magnitude), is dealt, played
headless, graded and revealed, and no file of the package changes."""

from __future__ import annotations

from click.testing import CliRunner

import scenarios
from diagnose.cli import cli
from diagnose.diagnosis.reveal import open_assignment
from diagnose.home import self_study_secret
from diagnose.tui.app import PlayApp
from diagnose.tui.screens.form import FormScreen
from diagnose.workspace import open_workspace
from grading.dealt import assignment
from scenarios.catalog import DECK_SETTING
from tests.test_course_deck import SLUG, package_state, write_course_deck
from tests.tui.screen import screen_text
from tests.tui.test_app import SMALL, until
from tests.tui.test_levels_tui import _grade_all_right, grade_text


def _cli(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


async def test_a_course_break_is_dealt_played_graded_and_revealed(tmp_path, course,
                                                                  monkeypatch):
    before = package_state()
    deck = write_course_deck(tmp_path / "deck")
    monkeypatch.chdir(course)
    secret = self_study_secret(create=True)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    code = next(c for c in (f"DECK-{n}" for n in range(100))
                if SLUG in assignment(secret, c, scenarios.level(3)).values())
    monkeypatch.delenv(DECK_SETTING)
    out = _cli("--deck", str(deck), "new", "--level", "3", "--steps", "5", "--seed", code,
               "--jobs", "2")
    assert out.exit_code == 0, out.output
    ws = course / "experiments" / "19-break-it-level-3"
    truth = open_assignment(open_workspace(ws))
    run = next(rid for rid, slug in truth.items() if slug == SLUG)

    app = PlayApp(ws, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: f"scenario {code}" in screen_text(app))
        await pilot.press(str(int(run)), "d")
        assert isinstance(app.screen, FormScreen)
        assert scenarios.breaks(3)[SLUG].title["en"] in screen_text(app)
        await pilot.press("escape")
        await _grade_all_right(app, pilot, ws)
        assert "Score: 3/3" in grade_text(app)

    out = _cli("reveal", "--dir", str(ws), "--lang", "es")
    assert out.exit_code == 0, out.output
    assert f"{run}: {SLUG}" in out.output
    solutions = next((course / "solutions").glob("*.md")).read_text(encoding="utf-8")
    # the course signature's own finding, with this run's number, and its break.toml's text
    assert "veces la de referencia (baraja del curso)" in solutions
    assert "diez veces el de referencia" in solutions
    assert package_state() == before

    monkeypatch.delenv(DECK_SETTING)  # where the deck is not named, the key is one line
    out = _cli("reveal", "--dir", str(ws))
    assert out.exit_code == 1
    assert out.output == (f"Error: {ws / 'answer-key.sealed'}: the answer key deals {SLUG}, a "
                          "break this catalog does not hold (a course deck's? name its folder: "
                          "diagnose --deck DIR ..., or DIAGNOSE_DECK=DIR)\n")
