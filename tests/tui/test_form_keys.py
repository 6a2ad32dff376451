"""The diagnosis form through Pilot: Esc then a key closes it and acts on the dashboard (the
keys Textual makes of Esc+digit and Esc+letter), a reopened evidence box goes on after its
text, Ctrl+A then Backspace empties it. The raw bytes of a terminal: test_keys_pty.py."""

from __future__ import annotations

import json

from diagnose.tui.app import PlayApp
from diagnose.tui.drafts import DRAFTS_FILE
from diagnose.tui.screens.form import ESCAPED_DIGITS, EvidenceArea, FormScreen
from diagnose.tui.screens.play import PlayScreen
from tests.tui.test_app import SMALL


def drafts(workspace) -> dict[str, str]:
    answers = json.loads((workspace / DRAFTS_FILE).read_text())["answers"]
    return {run: a["evidence"] for run, a in answers.items()}


async def test_esc_and_a_digit_read_as_one_key_close_the_form_and_show_that_run(workspace):
    two = next(c for c, d in ESCAPED_DIGITS.items() if d == "2")  # what Textual reads "\x1b2" as
    three = next(c for c, d in ESCAPED_DIGITS.items() if d == "3")
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("1", "d", "tab", *"for one", two, "d", "tab", *"for two", three, "d",
                          "tab", *"for three", "escape")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.view.run == "03"
    assert drafts(workspace) == {"01": "for one", "02": "for two", "03": "for three"}


async def test_esc_and_a_letter_close_the_form_and_act_on_the_dashboard(workspace):
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("1", "d", "tab", "x")
        log = app.view.log
        await pilot.press("alt+l")  # Esc l: the log scale toggled, as l on the dashboard
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.view.log is not log
        await pilot.press("d", "alt+shift+z")  # Esc Z: closes, Z means nothing below
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen)
    assert drafts(workspace) == {"01": "x"}


async def test_text_typed_on_the_choices_goes_into_the_evidence(workspace):
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2", "d", *"grad 3x", "escape")  # no Tab: the choices had the keys
        await pilot.pause()
    assert drafts(workspace) == {"02": "grad 3x"}  # the first letter moved to the box


async def test_a_reopened_box_goes_on_after_its_text_and_ctrl_a_backspace_empties_it(
        workspace):
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("1", "d", "tab", *"loss", "escape", "d", "tab", *" flat")
        await pilot.pause()
        box = app.screen.query_one(EvidenceArea)
        assert box.text == "loss flat" and box.cursor_location == (0, 9)
        await pilot.press("escape")
        assert drafts(workspace) == {"01": "loss flat"}
        await pilot.press("d", "tab", "ctrl+a", "backspace", *"new")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)
        assert app.screen.query_one(EvidenceArea).text == "new"
        await pilot.press("escape")
    assert drafts(workspace) == {"01": "new"}


async def test_the_header_names_the_run_and_its_tab_is_told_without_colour(workspace,
                                                                           monkeypatch):
    from tests.tui.screen import screen_text

    monkeypatch.setenv("NO_COLOR", "1")
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2")
        await pilot.pause()
        top = screen_text(app).splitlines()[:2]
        assert top[0].rstrip().endswith("scenario TUI-FIXTURE")
        assert top[1].rstrip().endswith("02 · step 40/40")

        def reversed_at(run: str) -> bool:
            region = app.screen.query_one(f"#tab-{run}").region
            return bool(app.screen.get_style_at(region.x + 1, region.y).reverse)

        assert reversed_at("02") and not reversed_at("01") and not reversed_at("reference")
        await pilot.press("right")  # the cursor: its step instead of the run's count
        await pilot.pause()
        line = screen_text(app).splitlines()[1]
        assert "02 · " in line and line.rstrip().endswith("step 39") and "40/40" not in line


async def test_a_bundles_review_without_a_name_says_how_the_file_is_made(workspace, course):
    import json as _json

    from textual.widgets import Label

    from diagnose.tui.screens.review import ReviewScreen

    scenario = _json.loads((workspace / "scenario.json").read_text())
    (workspace / "scenario.json").write_text(_json.dumps({**scenario, "key": "instructor"}))
    app = PlayApp(workspace)  # no name kept yet
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, ReviewScreen)
        said = " ".join(str(label.render()) for label in app.screen.query(Label))
        assert "y asks your name, saves and checks your file; hand that file in." in said
