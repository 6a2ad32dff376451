"""A panel's row is one widget (`widgets.series_row`), and a detail plot's chart and value axis
too (`widgets.axes.ScaledSparkline`): each paints, cell for cell, what its parts painted as
widgets of their own, and a click on any of its parts does what a click on the panel does."""

from __future__ import annotations

import random
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region

import diagnose.tui
from diagnose.tui.app import PlayApp
from diagnose.tui.drawing.frames import panel_frame
from diagnose.tui.drawing.state import RunStore, View
from diagnose.tui.screens.detail import DetailScreen
from diagnose.tui.widgets.axes import ScaledSparkline, StepAxis
from diagnose.tui.widgets.readout import Readout
from diagnose.tui.widgets.series_row import (
    LABEL_WIDTH,
    STATS_WIDTH,
    SeriesRow,
    group_class,
    row_texts,
)
from diagnose.tui.widgets.sparkline import SafeSparkline
from diagnose.views.panels import panels_for
from diagnose.workspace import open_workspace
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


class ThreeWidgets(Horizontal):
    """A row as it was drawn before it was one widget: label, chart and numbers side by side."""

    DEFAULT_CSS = """
    ThreeWidgets { height: 1; }
    ThreeWidgets .label { width: 6; height: 1fr; color: $text-muted; }
    ThreeWidgets SafeSparkline { width: 1fr; height: 1fr; }
    ThreeWidgets .stats { width: 10; height: 1fr; padding: 0 0 0 1; }
    """

    def compose(self) -> ComposeResult:
        yield Readout(classes="label")
        yield SafeSparkline(classes="run")
        yield Readout(classes="stats")

    def show(self, line, frame, lang: str) -> None:
        label, stats = row_texts(line, frame, self.size.height, lang)
        self.query_one(".label", Readout).show(label)
        self.query_one(".stats", Readout).show(stats)
        self.query_one(SafeSparkline).plot(
            line.values, log=frame.log, value_range=frame.value_range, cursor=frame.cursor,
            guides=[value for _, value in frame.guides], reference=line.reference)


class Both(App[None]):
    CSS_PATH = str(Path(diagnose.tui.__file__).parent / "play.tcss")

    def compose(self) -> ComposeResult:
        yield SeriesRow(0, "en")
        yield ThreeWidgets()


def cells(widget) -> list[list[tuple[str, object]]]:
    """What `widget` and its children paint, cell by cell: (character, style)."""
    grid = [[(" ", None)] * widget.size.width for _ in range(widget.size.height)]
    for part in [widget, *widget.children]:
        x0, y0 = part.region.x - widget.region.x, part.region.y - widget.region.y
        for y, strip in enumerate(part.render_lines(Region(0, 0, *part.outer_size))):
            x = x0
            for segment in strip:
                for character in segment.text:
                    if 0 <= x < widget.size.width and 0 <= y0 + y < widget.size.height:
                        grid[y0 + y][x] = (character, segment.style)
                    x += 1
    return grid


async def test_a_row_paints_what_its_three_widgets_painted(workspace):
    """Over views drawn at random (a seeded generator: run, scale, overlay, zoom, cursor, row
    height, terminal width), every cell of a row, character and style, is the cell the row's
    label, chart and numbers drew as three widgets."""
    store = RunStore.from_workspace(open_workspace(workspace))
    panels = panels_for([])  # the game's model, as the app has them
    draw = random.Random(24)
    app = Both()
    async with app.run_test(size=(100, 12)) as pilot:
        row, three = app.query_one(SeriesRow), app.query_one(ThreeWidgets)
        for _ in range(30):
            panel = draw.choice(panels)
            view = View(run=draw.choice(store.runs), log=draw.random() < 0.7,
                        overlay=draw.random() < 0.5, zoom=draw.random() < 0.3)
            view.cursor = draw.choice([None, 0, 5, 19])
            frame = panel_frame(panel, store, view, "en", rows=4)
            line = draw.choice(frame.lines)
            height, width = draw.choice([1, 2, 3, 4, 6]), draw.choice([24, 40, 61, 100])
            row.set_classes(group_class(line.series.group))
            three.set_classes(group_class(line.series.group))
            for widget in (row, three):
                widget.styles.height, widget.styles.width = height, width
            await pilot.pause()
            row.show(line, frame)
            three.show(line, frame, "en")
            await pilot.pause()
            assert cells(row) == cells(three), (panel.key, view, height, width)
