"""The detail view's two axes: `YAxis` (values, beside a sparkline) and `StepAxis` (steps, under
the plots). Each draws for its own size, so the labels follow the terminal.

Both share the sparklines' arithmetic (`scale`): a tick sits on the row or column where the
sparkline draws that value or step.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from diagnose.columns import cursor_columns
from diagnose.panels import format_number
from diagnose.tui.drawing.scale import row_of, ticks

AXIS_WIDTH = 10  # "1.234e+04┤"


class YAxis(Widget):
    """Tick labels down the left of a sparkline: the top and bottom of its range, and between."""

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.value_range: tuple[float, float] | None = None
        self.log_scale = False  # `log` is taken: Widget.log is its logger

    def set_scale(self, value_range: tuple[float, float] | None, log: bool) -> None:
        if (value_range, log) != (self.value_range, self.log_scale):
            self.value_range, self.log_scale = value_range, log
            self.refresh()

    def render(self) -> Text:
        height = self.size.height
        rows = [" " * (AXIS_WIDTH - 1) + "│"] * height
        if self.value_range is not None and height >= 2:
            taken: set[int] = set()
            for value in ticks(self.value_range, self.log_scale, max(1, height // 2)):
                row = row_of(value, self.value_range, self.log_scale, height)
                if taken.isdisjoint({row - 1, row, row + 1}) or value in self.value_range:
                    taken.add(row)  # the ends always; a round value only with room around it
                    rows[row] = format_number(value).rjust(AXIS_WIDTH - 1) + "┤"
        return Text("\n".join(rows), style="dim")


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
