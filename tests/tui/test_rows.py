"""A panel's row is one widget (`widgets.series_row`): a click on any of its parts, the label,
the chart or the numbers, opens its panel as a click on the panel does."""

from __future__ import annotations

from diagnose.tui.app import PlayApp
from diagnose.tui.screens.detail import DetailScreen
from diagnose.tui.widgets.series_row import LABEL_WIDTH, STATS_WIDTH, SeriesRow
from tests.tui.screen import drawn, until


async def test_a_click_on_any_part_of_a_row_opens_its_panel(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await drawn(pilot, app)
        for panel in (2,):  # not the first: the click moves the focus to it
            row = app.screen.query_one(f"#panel-{panel} SeriesRow", SeriesRow)
            width = row.size.width
            for column in (1, LABEL_WIDTH + 3, width - STATS_WIDTH + 2):  # label, chart, numbers
                await pilot.click(f"#panel-{panel} SeriesRow", offset=(column, 0))
                await until(pilot, lambda: isinstance(app.screen, DetailScreen))
                assert app.screen.panel.number == panel, (panel, column)
                await pilot.press("escape")
                await until(pilot, lambda: not isinstance(app.screen, DetailScreen))
            assert app.screen.focused is app.screen.query_one(f"#panel-{panel}")
