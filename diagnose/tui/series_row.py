"""`SeriesRow`: one series of a panel: its label, its sparkline (the reference's under it when
overlaid, labelled "ref" so that it reads without colour), and its numbers: the value at the
cursor or the last one, then the minimum and the maximum of what is shown, as many of the
three as the row's height holds.

The row draws a `frames.Line` it is handed; it computes nothing about the run itself.
"""

from __future__ import annotations

import math

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical

from diagnose.columns import nonfinite_mark
from diagnose.panels import format_number
from diagnose.tui.frames import Line, PanelFrame
from diagnose.tui.readout import Readout
from diagnose.tui.sparkline import SafeSparkline
from diagnose.tui.text import tr

GROUPS = 5  # colour families the stylesheet defines: -g0 .. -g4 (panels.Series.group)


def group_class(group: int) -> str:
    return f"-g{group % GROUPS}"


class SeriesRow(Horizontal):
    def __init__(self, group: int) -> None:
        super().__init__(classes=group_class(group))  # the colour at once: no restyle later
        # Kept, not queried: a redraw touches every row, and DOM queries would dominate it.
        self.label, self.stats = Readout(classes="label"), Readout(classes="stats")
        self.labels, self.curves = Vertical(classes="labels"), Vertical(classes="curves")
        self.run = SafeSparkline(classes="run")
        self.reference: SafeSparkline | None = None
        self.reference_label: Readout | None = None
        self._shown: tuple[Line, PanelFrame] | None = None

    def compose(self) -> ComposeResult:
        with self.labels:
            yield self.label
        with self.curves:
            yield self.run
        yield self.stats

    async def add_reference(self, lang: str) -> None:
        """Give the row its reference sparkline and its legend (the panel does, after the first
        frame)."""
        self.reference = SafeSparkline(classes="ref")
        self.reference_label = Readout(classes="label ref")
        self.reference_label.show(tr(lang, "ref_label"))
        self.reference.display = self.reference_label.display = False
        for parent, child in ((self.labels, self.reference_label), (self.curves, self.reference)):
            if not parent.is_attached:
                return  # the app is closing already
            await parent.mount(child)

    def on_resize(self) -> None:
        if self._shown is not None:  # a row of one line may have room for the reference now
            self.show(*self._shown)

    def show(self, line: Line, frame: PanelFrame) -> None:
        self._shown = (line, frame)
        if not self.has_class(group_class(line.series.group)):  # an envelope row took its place
            self.remove_class(*(group_class(g) for g in range(GROUPS)))
            self.add_class(group_class(line.series.group))
        self.label.show(line.label)
        scale = {"log": frame.log, "value_range": frame.value_range, "cursor": frame.cursor,
                 "guides": [value for _, value in frame.guides]}
        self.run.plot(line.values, **scale)
        if self.reference is not None:
            # A row one line high keeps that line for the run: split, it would show only the
            # reference's half. (A row's height comes from its panel's, not from the overlay.)
            overlaid = line.reference is not None and self.size.height != 1
            self.reference.display = overlaid
            if self.reference_label is not None:
                self.reference_label.display = overlaid
            if line.reference is not None and overlaid:
                self.reference.plot(line.reference, **scale)
        self.stats.show(stats_text(line, frame.cursor is not None))


def value_text(line: Line, value: float | None, style: str = "") -> Text:
    """One value as the panels print it; a NaN or infinity in red with its marker."""
    if value is not None and not math.isfinite(value):
        return Text(f"{nonfinite_mark(value)}{format_number(value)}", style="bold red")
    return Text(line.series.format(value), style=style)


def stats_text(line: Line, at_cursor: bool) -> Text:
    """Three lines: the cursor's (highlighted) or the last value, then ↓min and ↑max."""
    summary = line.summary
    first = (value_text(line, line.at_cursor, "reverse") if at_cursor
             else value_text(line, summary.last))
    low = Text("↓") + value_text(line, summary.low)
    high = Text("↑") + value_text(line, summary.high)
    return Text("\n").join([first, low, high])
