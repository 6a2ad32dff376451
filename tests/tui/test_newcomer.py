"""`diagnose play` as a newcomer meets it (issue 13): without colour, with the focus shown in
words, charts that take the room they have, and the reference overlay labelled."""

from __future__ import annotations

import pytest

from diagnose.tui.app import PlayApp
from diagnose.tui.drafts import DRAFTS_FILE
from diagnose.tui.screens.detail import DetailScreen
from diagnose.tui.screens.form import FormScreen
from diagnose.tui.screens.grade import GradeScreen
from diagnose.tui.screens.help import HelpScreen
from diagnose.tui.widgets.panel import PanelBox
from diagnose.tui.widgets.series_row import LABEL_WIDTH, SeriesRow
from diagnose.views.columns import cursor_columns
from tests.tui.screen import screen_text, until

SMALL = (80, 24)


async def footer(pilot) -> str:
    """The screen's last line once the footer has drawn its keys (it composes them late)."""
    for _ in range(200):
        last = screen_text(pilot.app).split("\n")[-1]
        if last.strip():
            return last
        await pilot.pause(0.01)
    raise AssertionError("no footer")


def focused_titles(app: PlayApp) -> list[str]:
    return [line for line in screen_text(app).splitlines() if "▶" in line]


async def test_every_screen_draws_under_no_color(workspace, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")  # read (and removed) by the App when it is made
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        assert app.no_color
        for keys in (["1", "r", "z", "right"], ["enter"], ["escape", "d"], ["escape", "?"],
                     ["escape", "g"], ["escape"]):
            await pilot.press(*keys)
            await pilot.pause()
            assert screen_text(app).strip()
        await pilot.press("g", "y")
        await pilot.pause()
        while not isinstance(app.screen, GradeScreen):
            await pilot.pause(0.05)
        await pilot.pause()
        assert "Your grade" in screen_text(app)
    assert app.return_code in (None, 0)


async def test_tab_moves_a_marked_focus_and_enter_opens_that_panel(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        keys = await footer(pilot)
        assert "tab panel" in keys and "⏎ open" in keys and keys.endswith("q quit")
        await until(pilot, lambda: any("▶ 1 · Loss" in line for line in focused_titles(app)))
        await pilot.press("tab", "tab")
        await until(pilot, lambda: any("▶ 3 · Gradient" in line for line in focused_titles(app)))
        marked = focused_titles(app)
        assert len(marked) == 1 and "▶ 3 · Gradient norm" in marked[0]
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert app.screen.panel.number == 3
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, DetailScreen))
        await pilot.click("#panel-6")  # a click focuses and opens
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert app.screen.panel.number == 6
        await pilot.press("escape", "question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_spanish_footer_names_tab_and_enter(workspace):
    app = PlayApp(workspace, lang="es")
    async with app.run_test(size=SMALL) as pilot:
        keys = await footer(pilot)
        assert "tab panel" in keys and "⏎ ver" in keys and keys.endswith("q salir")


async def test_the_chosen_break_has_its_own_glyph(workspace, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("1", "d")
        assert isinstance(app.screen, FormScreen)
        text = screen_text(app)
        assert text.count("( )") == 4 and "(•)" not in text
        await pilot.press("down")
        await pilot.pause()
        pointed = [line for line in screen_text(app).splitlines() if "›( )" in line]
        assert len(pointed) == 1  # the option under the keys is marked without colour
        await pilot.press("enter")
        text = screen_text(app)
        assert text.count("(•)") == 1 and text.count("( )") == 3
        chosen = next(line for line in text.splitlines() if "(•)" in line)
        assert app.screen.query_one("RadioSet").pressed_button.label.plain in chosen
        assert "›(•)" in chosen and pointed[0].split("›( )")[1].strip() in chosen


@pytest.mark.parametrize("size,at_least", [((80, 24), 20), ((120, 40), 30), ((160, 48), 40)])
async def test_charts_take_the_width_their_panel_has(workspace, size, at_least):
    app = PlayApp(workspace)
    async with app.run_test(size=size) as pilot:
        await pilot.press("1", "r")
        await pilot.pause()
        for box in app.screen.query(PanelBox):
            rows = [row for row in box.query(SeriesRow) if row.display]
            room = box.content_size.width - 6 - 10  # the row's label and numbers
            assert rows and all(row.size.width == box.content_size.width
                                and row.chart_width == room >= at_least for row in rows), box.id
            for row in rows:  # the chart's bars fill its columns: its last one is drawn
                line = row.render_line(row.size.height - 1)
                assert line.cell_length == row.size.width
                assert line.crop(LABEL_WIDTH + room - 1, LABEL_WIDTH + room).text.strip(), box.id


@pytest.mark.parametrize("width", [21, 30, 41, 47, 61])
def test_a_zoom_of_twenty_steps_gives_each_step_whole_columns(width):
    spans = [cursor_columns(step, 20, width) for step in range(20)]
    assert [c for span in spans for c in span] == list(range(width))  # none empty, in order
    assert {len(span) for span in spans} <= {width // 20, width // 20 + 1}


async def test_a_zoomed_chart_draws_every_step_once(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2", "z", "home")
        row = app.screen.query_one("#panel-2 SeriesRow", SeriesRow)
        width = row.chart_width
        at = 0
        for step in (0, 1, 2, 10, 19):  # the cursor moves on from where it is, as a player's
            await pilot.press(*["right"] * (step - at))
            at = step
            line = row.render_line(row.size.height - 1).crop(LABEL_WIDTH, LABEL_WIDTH + width)
            styles = [segment.style for segment in line for _ in segment.text]
            reversed_cells = [i for i, style in enumerate(styles) if style and style.reverse]
            assert reversed_cells == cursor_columns(step, 20, width), step


async def test_the_reference_overlay_is_labelled(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("1")
        assert "│ ref " not in screen_text(app)
        await pilot.press("r")
        lines = screen_text(app).splitlines()
        labelled = [line for line in lines if "│ ref " in line]
        assert len(labelled) >= 6  # at least one per panel, beside the reference's chart
        await pilot.press("l")  # es: the same label
    app = PlayApp(workspace, lang="es")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("1", "r")
        assert "│ ref " in screen_text(app) and "+referencia" in screen_text(app)


async def test_a_small_panel_says_what_it_hides_and_how_to_see_it(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: "max/min of 9: ⏎ shows each" in screen_text(app))


async def test_quit_says_where_the_drafts_are_kept(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("q")
    assert str(workspace / DRAFTS_FILE) in app.note and "diagnose play --dir" in app.note


async def test_quit_after_a_save_also_names_the_diagnoses_file(workspace, course):
    app = PlayApp(workspace, name="Ana", lang="es")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.saved_to is not None)
        await pilot.press("q")
    assert app.saved_to == course / "Ana-diagnoses.md" and app.saved_to.is_file()
    assert "borrador" in app.note and f"Tu archivo de diagnósticos: {app.saved_to}." in app.note
