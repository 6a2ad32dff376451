"""A panel's row is one widget (`widgets.series_row`): a click on any of its parts, the label,
the chart or the numbers, opens its panel as a click on the panel does."""

from __future__ import annotations

from diagnose.tui.app import PlayApp
from diagnose.tui.screens.detail import DetailScreen
from diagnose.tui.widgets.axes import ScaledSparkline, StepAxis
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


async def test_the_detail_views_charts_line_up_with_the_step_axis(workspace):
    """A detail plot is one widget, its value axis on its left: its chart is exactly as wide as
    the step axis under it and starts in its column, so the cursor's column sits over the ▲
    (the last steps included: a chart wider than its room would cut them off)."""
    app = PlayApp(workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3", "enter")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        axis = app.screen.query_one(StepAxis)
        for key in ("end", "home", "right"):
            await pilot.press(key)
            await pilot.pause()
            rule = axis.render().split()[0]  # its only spans: the cursor's, reversed
            marks = [column for span in rule.spans for column in range(span.start, span.end)]
            for plot in app.screen.query(ScaledSparkline):
                if not plot.display or not plot.parent.display:
                    continue
                assert plot.region.x + plot.LEFT == axis.region.x
                assert plot.chart_width == axis.size.width
                line = plot.render_line(plot.size.height - 1)
                cells = [segment.style for segment in line for _ in segment.text]
                reversed_cells = [i - plot.LEFT for i, style in enumerate(cells)
                                  if style and style.reverse]
                assert reversed_cells == marks and marks, key
