"""`SeriesRow`: one series of a panel: its label, its chart (the reference's curve in its lower
half when overlaid, labelled "ref" so that it reads without colour), and its numbers: the
value at the cursor or the last one, then the minimum and the maximum of what is shown, as
many of the three as the row's height holds. A summary row (a layer's largest matrix) names,
under its label, the matrix it shows at that step. Overlaid, the numbers split as the chart does:
the run's beside the run's half, the reference's (muted) beside the reference's half.

The row draws a `frames.DrawnSeries` it is handed; it computes nothing about the run itself.
"""

from __future__ import annotations

import math

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal

from diagnose.columns import Value, nonfinite_mark
from diagnose.panels import Summary, format_number
from diagnose.tui.drawing.frames import DrawnSeries, PanelFrame, short_matrix
from diagnose.tui.widgets.readout import Readout
from diagnose.tui.widgets.sparkline import SafeSparkline
from scenarios.words import say

GROUPS = 5  # colour families the stylesheet defines: -g0 .. -g4 (panels.Series.group)


def group_class(group: int) -> str:
    return f"-g{group % GROUPS}"


class SeriesRow(Horizontal):
    def __init__(self, group: int, lang: str) -> None:
        super().__init__(classes=group_class(group))  # the colour at once: no restyle later
        self.lang = lang
        # Kept, not queried: a redraw touches every row, and DOM queries would dominate it.
        self.label, self.stats = Readout(classes="label"), Readout(classes="stats")
        self.chart = SafeSparkline(classes="run")
        self._shown: tuple[DrawnSeries, PanelFrame] | None = None

    def compose(self) -> ComposeResult:
        yield self.label
        yield self.chart
        yield self.stats

    def on_resize(self) -> None:
        if self._shown is not None:  # the reference's half and its label move with the height
            self.show(*self._shown)

    def show(self, line: DrawnSeries, frame: PanelFrame) -> None:
        self._shown = (line, frame)
        if not self.has_class(group_class(line.series.group)):  # an envelope row took its place
            self.remove_class(*(group_class(g) for g in range(GROUPS)))
            self.add_class(group_class(line.series.group))
        self.chart.plot(line.values, log=frame.log, value_range=frame.value_range,
                        cursor=frame.cursor, guides=[value for _, value in frame.guides],
                        reference=line.reference)
        # The legend: "ref" beside the reference's half (a row one line high has none), and
        # under a summary's label the matrix it shows, where the run's half has a second line.
        top = self.chart.run_height
        overlaid = line.reference is not None and top < self.size.height
        legend = [line.label]
        if line.shows is not None and (top if overlaid else self.size.height) >= 2:
            legend.append(short_matrix(line.shows))
        if overlaid:
            legend += [""] * (top - len(legend)) + [say(self.lang, "ref")]
        self.label.show(Text("\n".join(legend)))  # a matrix's name is the user's: no markup
        self.stats.show(stats_text(line, frame.cursor is not None,
                                   top if overlaid else None))


def value_text(line: DrawnSeries, value: float | None, style: str = "") -> Text:
    """One value as the panels print it; a NaN or infinity in red with its marker."""
    if value is not None and not math.isfinite(value):
        return Text(f"{nonfinite_mark(value)}{format_number(value)}", style="bold red")
    return Text(line.series.format(value), style=style)


def readings(line: DrawnSeries, summary: Summary, cursor_value: Value, at_cursor: bool,
             style: str = "") -> list[Text]:
    """The cursor's (highlighted) or the last value, then ↓min and ↑max."""
    first = (value_text(line, cursor_value, "reverse") if at_cursor
             else value_text(line, summary.last, style))
    return [first, Text("↓", style) + value_text(line, summary.low, style),
            Text("↑", style) + value_text(line, summary.high, style)]


def stats_text(line: DrawnSeries, at_cursor: bool, run_lines: int | None = None) -> Text:
    """The run's readings; with `run_lines` (overlaid), that many of them, then the
    reference's, muted, on the lines of the reference's half."""
    run = readings(line, line.summary, line.at_cursor, at_cursor)
    if run_lines is None or line.reference_summary is None:
        return Text("\n").join(run)
    reference = readings(line, line.reference_summary, line.reference_at_cursor, at_cursor,
                         "dim")
    run = (run[:run_lines] + [Text()] * run_lines)[:run_lines]  # the reference's on its half
    return Text("\n").join(run + reference)
