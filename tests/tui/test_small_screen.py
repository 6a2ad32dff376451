"""80×24 keeps every label's name: a summary row one line high (the reference overlaid) names
the series it shows, marked ↑ or ↓; the detail view's header shows its keys' hint whole or not
at all; the help says how to close and scroll it; the review fits."""

from __future__ import annotations

from textual.widgets import Static

from diagnose.tui.app import PlayApp
from diagnose.tui.drawing.frames import short_shown
from diagnose.tui.screens.help import HelpScreen
from tests.tui.screen import screen_text, until

SMALL = (80, 24)


def test_a_summary_names_a_residual_stream_as_the_panel_does():
    assert short_shown("act.1") == "h.1" and short_shown("act.ln_f") == "ln_f"
    assert short_shown("h.1.mlp.c_proj") == "1.mprj"


async def test_overlaid_summaries_keep_the_layers_name(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("1", "r")
        await pilot.pause()
        text = screen_text(app)
        assert "│ ↑h.1  " in text and "│ ↓ln_f " in text  # Panel 4: which layer is max, min
        assert "│ ↑1.mpr" in text and "│ max   " not in text


async def test_the_detail_header_is_whole_or_without_its_hint(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        for panel in range(1, 7):
            await pilot.press("1", *["tab"] * (panel - 1), "enter")
            await pilot.pause()
            header = screen_text(app).splitlines()[0].rstrip()
            assert header.endswith(("esc back", ")")), header
            await pilot.press("escape")
            await pilot.pause()


async def test_the_help_says_esc_closes_and_pgdn_scrolls(workspace):
    app = PlayApp(workspace, lang="es")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        said = [str(s.render()) for s in app.screen.query(Static)]
        assert "Esc cierra · AvPág desplaza" in said
        assert "Esc cierra · AvPág desplaza" in screen_text(app)
