"""After grading, the game goes on in the app: the grade says what each ID's break changed, the
level's way on comes first (visible at 80×24), Esc opens the run's own reveal (its section of
the solutions file, a digit for another ID's), `w` there opens that run's what-if; the footer
names the keys that act in each state (`w` and `n` after the reveal, `g` and `d` before)."""

from __future__ import annotations

import pytest

import scenarios
from diagnose.diagnosis.reveal import open_assignment
from diagnose.tui.app import PlayApp
from diagnose.tui.screens.grade import GradeScreen
from diagnose.tui.screens.reveal import RevealScreen, reveal_sections
from diagnose.workspace import open_workspace
from tests.tui.screen import screen_text, until
from tests.tui.test_levels_tui import _grade_all_right, grade_text

SMALL = (80, 24)


def footer(app) -> str:
    return screen_text(app).splitlines()[-1]


async def test_grading_explains_then_opens_each_ids_reveal_and_its_what_if(workspace):
    truth = open_assignment(open_workspace(workspace))
    deck = scenarios.breaks(1)
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        assert "g grade" in footer(app) and "w what-if" not in footer(app)
        await _grade_all_right(app, pilot, workspace)
        text = grade_text(app)
        for rid, slug in truth.items():  # more than right or wrong: what the break changed
            assert f"{rid} — {deck[slug].title['en']}: {deck[slug].reveal['en'].changed}" in text
        # the way on, before the feedback: on the first lines of an 80×24 screen
        await until(pilot, lambda: any("Level 1 passed (3/3 on the first attempt)" in line
                                       for line in screen_text(app).splitlines()[:8]))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, RevealScreen))
        screen = app.screen
        await until(pilot, lambda: screen.sections)
        assert screen.run == app.view.run == "03"  # the run shown, the last one answered
        await pilot.press("1")
        assert screen.run == "01" and f"## 01 — {deck[truth['01']].title['en']}" in \
            screen.sections["01"] and "**What was changed.**" in screen.sections["01"]
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, (RevealScreen, GradeScreen)))
        keys = footer(app)
        assert "w what-if" in keys and "n next level" in keys and "g grade" not in keys
        assert keys.endswith("q quit")
        await pilot.press("v")  # the reveal again, from the dashboard
        await until(pilot, lambda: isinstance(app.screen, RevealScreen))


@pytest.mark.usefixtures("foreground_whatif")
async def test_w_in_the_reveal_opens_that_runs_what_if(workspace):
    from diagnose.diagnosis.reveal import write_solutions
    from diagnose.tui.screens.whatif import WhatIfScreen

    write_solutions(workspace)
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=(120, 40)) as pilot:
        assert "v reveal" in footer(app) and "p progress" in footer(app)
        await pilot.press("3", "v")
        await until(pilot, lambda: isinstance(app.screen, RevealScreen))
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        assert app.view.run == "03"
        await pilot.press("escape")
        await until(pilot, lambda: not list(app.screen.workers) and not isinstance(
            app.screen, WhatIfScreen))


def test_the_sections_are_the_solutions_files_own():
    text = "# Solutions\n| ID |\n## 01 — A\nx\n## 02 — B\ny\n## 03 — C\nz\n"
    assert reveal_sections(text, ("01", "02", "03")) == {
        "01": "## 01 — A\nx", "02": "## 02 — B\ny", "03": "## 03 — C\nz"}


async def test_the_footer_fits_80_columns_in_every_state(workspace):
    """Before the reveal `d` and `g` act and are named; `n` (the level passed) and `p`, `u`
    are named where there is room; after it `w`; the footer always ends with q quit."""
    from diagnose.diagnosis.reveal import write_solutions
    from diagnose.game.progress import record_grading

    record_grading(1, "TUI-FIXTURE", 3, 3, counts=True)  # passed: n acts
    for lang, end in (("en", "q quit"), ("es", "q salir")):
        app = PlayApp(workspace, name="Ana", lang=lang)
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            assert footer(app).rstrip().endswith(end) and " n " not in footer(app)
        app = PlayApp(workspace, name="Ana", lang=lang)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert " n " in footer(app) and " p " in footer(app) and " u " in footer(app)
    write_solutions(workspace)
    for lang, end in (("en", "q quit"), ("es", "q salir")):
        app = PlayApp(workspace, name="Ana", lang=lang)
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            keys = footer(app).rstrip()
            assert keys.endswith(end) and " w " in keys and " n " in keys and " g " not in keys
