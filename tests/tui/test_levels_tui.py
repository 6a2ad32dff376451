"""Levels in the app: a 3/3 first grading passes the level, records it, offers the next (n),
and the level's form offers the level's deck."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Static

import scenarios
from diagnose.diagnosis.reveal import open_assignment
from diagnose.game.progress import load_progress
from diagnose.tui.app import PlayApp
from diagnose.tui.screens.form import FormScreen
from diagnose.tui.screens.grade import GradeScreen
from diagnose.tui.screens.whatif import WhatIfScreen
from diagnose.workspace import open_workspace
from tests.tui.conftest import deal_again
from tests.tui.screen import open_what_if, screen_text
from tests.tui.test_app import SMALL, _answer, until


def grade_text(app) -> str:
    return "\n".join(str(static.render()) for static in app.screen.query(Static))


async def _grade_all_right(app, pilot, workspace):
    catalog = list(scenarios.breaks(open_workspace(workspace).level))
    truth = open_assignment(open_workspace(workspace))
    for run, slug in truth.items():
        await _answer(pilot, str(int(run)), catalog.index(slug), "x")
        await pilot.press("escape")
    await pilot.press("g")
    await pilot.click("#yes")
    # the screen first, then its text once composed (a loaded machine shows the gap)
    await until(pilot, lambda: isinstance(app.screen, GradeScreen) and "Score:" in grade_text(app))


async def test_a_perfect_first_grading_passes_the_level_and_offers_the_next(workspace, course):
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await _grade_all_right(app, pilot, workspace)
        text = grade_text(app)
        assert "Score: 3/3" in text, text
        assert "Level 1 passed (3/3 on the first attempt). Next: level 2, n plays it." in text
        await pilot.press("n")
        await pilot.pause()
    assert app.next_level == 2
    progress, warnings = load_progress()
    assert not warnings and progress[1].passed and progress[1].firsts == [(3, 3)]


async def test_a_level_three_scenario_offers_its_deck_and_the_decoy(workspace):
    data = json.loads((workspace / "scenario.json").read_text()) | {"level": 3}
    (workspace / "scenario.json").write_text(json.dumps(data))
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: "scenario TUI-FIXTURE · level 3" in screen_text(app))
        await pilot.press("1", "d")
        assert isinstance(app.screen, FormScreen)
        text = screen_text(app)
        assert scenarios.breaks(3)["healthy"].title["en"] in text
        assert scenarios.breaks(1)["bad-init"].title["en"] not in text


async def test_what_if_is_refused_on_a_sealed_id(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await pilot.press("1", "w")
        await until(pilot, lambda: "still sealed" in screen_text(app))
        assert not isinstance(app.screen, WhatIfScreen)
        assert not list(app.workers)
    assert not (workspace / "whatif").exists()


@pytest.mark.usefixtures("foreground_whatif")
async def test_what_if_on_a_revealed_run_trains_and_shows_every_dose(workspace, home):
    """Real training: the fixture's no-warmup run, dealt again at 5 steps, at three other
    warmups (the flow: each dose joins as it comes)."""
    from diagnose.diagnosis.reveal import write_solutions

    deal_again(workspace, home, 5)
    write_solutions(workspace)
    app = PlayApp(workspace)
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await open_what_if(pilot, app, "1")
        # at once: the dealt run's numbers, the other doses marked as training
        await until(pilot, lambda: "warmup_steps=0 (dealt)" in grade_text(app))
        early = grade_text(app)
        if screen.results is None:  # still training (5 steps may be done before this look)
            assert "training…" in early and "What if: training the other magnitudes" in early
        await until(pilot, lambda: screen.results is not None, tries=3000)
        assert set(screen.partial) == set(screen.plan.doses)  # each dose joined as it came
        text = grade_text(app)
        assert "training…" not in text
        for label in ("warmup_steps=0 (dealt)", "warmup_steps=2", "warmup_steps=6",
                      "warmup_steps=12 (healthy)", "1 · Loss", "6 · Dead units"):
            assert label in text
        await pilot.press("escape")
        assert not isinstance(app.screen, WhatIfScreen)
    assert len(list((workspace / "whatif" / "01").iterdir())) == 3


async def test_the_progress_screen_shows_each_level(workspace):
    from diagnose.game.progress import record_grading
    from diagnose.tui.screens.progress import ProgressScreen

    record_grading(1, "A", 3, 3, counts=True)
    app = PlayApp(workspace, lang="es")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("p")
        assert isinstance(app.screen, ProgressScreen)
        text = grade_text(app)
        assert "Tu progreso por los niveles" in text
        assert "Nivel 1: superado" in text and "Nivel 2: sin superar" in text
        assert "Siguiente: nivel 2" in text and "diagnose play" not in text  # keys, not commands
        assert "n en el panel: el nivel siguiente" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, ProgressScreen)


@pytest.mark.usefixtures("foreground_whatif")
async def test_closing_the_what_if_stops_its_training_and_keeps_nothing(workspace):
    from diagnose.diagnosis.reveal import write_solutions

    write_solutions(workspace)
    app = PlayApp(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_what_if(pilot, app, "3")  # bad-init: four doses to train
        await until(pilot, lambda: screen.steps_done > 0, tries=3000)
        await pilot.press("escape")
        await until(pilot, lambda: not list(screen.workers), tries=3000)
        assert screen.results is None
    assert not (workspace / "whatif").exists()


async def test_reopening_a_graded_scenario_of_a_passed_level_offers_the_next(workspace):
    from diagnose.diagnosis.reveal import write_solutions
    from diagnose.game.progress import record_grading

    record_grading(1, "TUI-FIXTURE", 3, 3, counts=True)
    app = PlayApp(workspace)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await pilot.pause()
        assert "Level 1 passed" not in screen_text(app)  # still sealed: nothing to offer yet
    write_solutions(workspace)
    app = PlayApp(workspace, lang="es")
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await until(pilot, lambda: "Nivel 1 superado" in screen_text(app))
        assert "Siguiente: nivel 2, n lo abre" in screen_text(app)
