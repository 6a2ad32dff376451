"""The detail view's two axes: `value_labels`, which `ScaledSparkline` draws on its left, and
`StepAxis` (steps, under the plots). Each draws for its own size, so the labels follow the
terminal.

Both share the sparklines' arithmetic (`scale`): a tick sits on the row or column where the
sparkline draws that value or step.
"""

from __future__ import annotations

from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from diagnose.tui.drawing.scale import row_of, ticks
from diagnose.tui.widgets.readout import text_lines
from diagnose.tui.widgets.sparkline import SafeSparkline
from diagnose.views.columns import cursor_columns
from diagnose.views.panels import format_number

AXIS_WIDTH = 10  # "1.234e+04┤"


def value_labels(value_range: tuple[float, float] | None, log: bool, height: int,
                 lang: str = "en") -> Text:
    """Tick labels down the left of a sparkline `height` lines high: the top and bottom of its
    range, and round values between where there is room."""
    rows = [" " * (AXIS_WIDTH - 1) + "│"] * height
    if value_range is not None and height >= 2:
        taken: set[int] = set()
        for value in ticks(value_range, log, max(1, height // 2)):
            row = row_of(value, value_range, log, height)
            if taken.isdisjoint({row - 1, row, row + 1}) or value in value_range:
                taken.add(row)  # the ends always; a round value only with room around it
                rows[row] = format_number(value, lang).rjust(AXIS_WIDTH - 1) + "┤"
    return Text("\n".join(rows), style="dim")


class ScaledSparkline(SafeSparkline):
    """A sparkline with its value axis on its left (`value_labels`), one widget: the detail
    view shows dozens (a deep model's matrices), and Textual's cost is per widget."""

    LEFT = AXIS_WIDTH

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._axis: tuple[tuple[object, ...], list[Strip]] | None = None

    def render_line(self, y: int) -> Strip:
        chart = super().render_line(y)
        chart_range, log = self.chart.value_range, self.chart.log
        height = self.size.height
        key = (chart_range, log, height)
        if self._axis is None or self._axis[0] != key:
            text = value_labels(chart_range, log, height, getattr(self.app, "lang", "en"))
            self._axis = (key, text_lines(self, text, AXIS_WIDTH, height, self.visual_style))
        axis = self._axis[1]
        return Strip.join([axis[y] if y < len(axis) else Strip.blank(AXIS_WIDTH), chart])

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._axis = None


class StepAxis(Widget):
    """Step numbers under the plots, and a ▲ under the cursor's column."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = range(0)
        self.cursor: int | None = None  # an index into `steps`

    def set_steps(self, steps: range, cursor: int | None) -> None:
        if (steps, cursor) != (self.steps, self.cursor):
            self.steps, self.cursor = steps, cursor
            self.refresh()

    def render(self) -> Text:
        width, count = self.size.width, len(self.steps)
        if width <= 0 or count == 0:
            return Text("")
        rule, labels = ["─"] * width, [" "] * width
        marks = max(2, min(6, width // 10))
        for k in range(marks):
            index = round(k * (count - 1) / (marks - 1))
            column = cursor_columns(index, count, width)[0]
            rule[column] = "┬"
            text = str(self.steps.start + index)
            start = min(column, width - len(text))
            labels[start:start + len(text)] = text
        line = Text("".join(rule), style="dim")
        if self.cursor is not None:
            for column in cursor_columns(self.cursor, count, width):
                line.stylize("reverse bold", column, column + 1)
        return line + Text("\n") + Text("".join(labels)[:width], style="dim")
