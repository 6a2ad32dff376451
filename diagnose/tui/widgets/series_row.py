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
from typing import ClassVar

from rich.style import Style as RichStyle
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from diagnose.tui.drawing.frames import SUMMARY_MARK, DrawnSeries, PanelFrame, short_shown
from diagnose.tui.widgets.readout import boxed, text_lines
from diagnose.tui.widgets.sparkline import CHART_CLASSES, CHART_CSS, Chart, Palettes, Scale
from diagnose.views.columns import Value, nonfinite_mark
from diagnose.views.panels import Summary, format_number
from scenarios.words import say

GROUPS = 5  # colour families the stylesheet defines: -g0 .. -g4 (panels.Series.group)
LABEL_WIDTH = 6
STATS_WIDTH = 10  # the first column a space between the chart and the numbers


def group_class(group: int) -> str:
    return f"-g{group % GROUPS}"


class SeriesRow(Widget):
    """One widget, painted line by line: the label, the chart and the numbers are parts of
    each line, not widgets of their own. Textual restyles and lays out every widget on its
    own, and a dashboard has up to 19 rows: three children each were most of a frame's cost.
    A click falls through to the panel (`PanelBox.on_click`)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = CHART_CLASSES | {"series-row--label"}

    DEFAULT_CSS = """
    SeriesRow {
        height: 1fr;
    }
    SeriesRow > .series-row--label {
        color: $text-muted;
    }
    """ + CHART_CSS.format(widget="SeriesRow")

    def __init__(self, group: int, lang: str) -> None:
        super().__init__(classes=group_class(group))  # the colour at once: no restyle later
        self.lang = lang
        self.chart = Chart()
        self.palettes = Palettes(self)
        self.label, self.stats = Text(), Text()  # as `boxed` cuts them
        self._texts = 0  # bumped when the label or the numbers change
        self._lines: tuple[tuple[int, int, int, int], list[Strip]] | None = None
        # each text's lines, kept while the text (the same object) and the height are
        self._drawn: dict[str, tuple[Text, int, list[Strip]]] = {}
        self._shown: tuple[DrawnSeries, PanelFrame] | None = None

    @property
    def chart_width(self) -> int:
        return max(0, self.size.width - LABEL_WIDTH - STATS_WIDTH)

    @property
    def run_height(self) -> int:
        """The lines the run's curve takes: all, or the upper half when overlaid."""
        return self.chart.run_height(self.size.height)

    def on_resize(self) -> None:
        if self._shown is not None:  # the reference's half and its label move with the height
            self.show(*self._shown)

    def show(self, line: DrawnSeries, frame: PanelFrame) -> None:
        self._shown = (line, frame)
        if not self.has_class(group_class(line.series.group)):  # an envelope row took its place
            self.set_classes(group_class(line.series.group))  # its only class: one restyle
        scale = Scale(frame.log, frame.value_range, tuple(value for _, value in frame.guides),
                      line.reference)
        moved = self.chart.plot(line.values, self.chart_width, scale, frame.cursor)
        label, stats = row_texts(line, frame, self.size.height, self.lang)
        if label != self.label or stats != self.stats:
            if label != self.label:  # else the same object: its drawn lines still serve
                self.label = label
            if stats != self.stats:
                self.stats = stats
            self._texts += 1
            self.refresh()
        elif moved is None:
            self.refresh()
        elif moved:  # only the cursor moved: repaint its columns only
            self.refresh(*(Region(LABEL_WIDTH + column, 0, 1, self.size.height)
                           for column in moved))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.chart.forget()  # colours come from the stylesheet (a theme change, a class)
        self.palettes.forget()
        self._lines = None
        self._drawn = {}

    def render_line(self, y: int) -> Strip:
        width, height = self.size
        chart = self.chart.lines(self.chart_width, height, self.palettes)
        key = (width, height, self._texts, self.chart.version)
        if self._lines is None or self._lines[0] != key:
            self._lines = (key, self._draw(width, height, chart))
        lines = self._lines[1]
        return lines[y] if 0 <= y < len(lines) else Strip.blank(width, self.rich_style)

    def _draw(self, width: int, height: int, chart: list[Strip]) -> list[Strip]:
        """Each line: the label, the chart, a space, the numbers, as Textual would draw
        them as three widgets side by side (the same cells, the same styles)."""
        label = self._text_lines("label", self.label, LABEL_WIDTH, height)
        stats = self._text_lines("stats", self.stats, STATS_WIDTH - 1, height)
        # the numbers' left padding, in the background alone, as Textual pads a widget
        gap = Strip.blank(1, RichStyle.from_color(bgcolor=self.rich_style.bgcolor))
        lines = []
        for y in range(height):
            parts = [label[y], chart[y] if y < len(chart) else Strip.blank(self.chart_width),
                     gap, stats[y]]
            lines.append(Strip.join(parts).crop(0, width))
        return lines

    def _text_lines(self, part: str, text: Text, width: int, height: int) -> list[Strip]:
        """`text` as Textual draws a widget of this size showing it (a `Readout`)."""
        kept = self._drawn.get(part)
        if kept is not None and kept[0] is text and kept[1] == height:
            return kept[2]
        style = (self.get_visual_style("series-row--label") if part == "label"
                 else self.visual_style)
        lines = text_lines(self, text, width, height, style)
        self._drawn[part] = (text, height, lines)
        return lines


def row_texts(line: DrawnSeries, frame: PanelFrame, height: int, lang: str,
              ) -> tuple[Text, Text]:
    """A row's label and numbers, for a row `height` lines high, as `boxed` cuts them."""
    # The legend: "ref" beside the reference's half (a row one line high has none), and
    # under a summary's label the matrix it shows, where the run's half has a second line.
    overlaid = line.reference is not None and height >= 2
    top = height // 2 if overlaid else height  # the run's half: `Chart.run_height`
    legend = [line.label]
    if line.shows is not None and top >= 2:
        legend.append(short_shown(line.shows))
    elif line.shows is not None:  # one line: the series it shows, marked as max or min
        mark = SUMMARY_MARK.get(line.series.key.rpartition(".")[2], "")  # panels.summary's
        legend = [(mark + short_shown(line.shows))[:LABEL_WIDTH]]
    if overlaid:
        legend += [""] * (top - len(legend)) + [say(lang, "ref")]
    label = boxed(Text("\n".join(legend)))  # a matrix's name is the user's: no markup
    stats = boxed(stats_text(line, frame.cursor is not None, top if overlaid else None))
    return label, stats


def value_text(line: DrawnSeries, value: float | None, style: str = "") -> Text:
    """One value as the panels print it; a NaN or infinity in red with its marker."""
    if value is not None and not math.isfinite(value):
        return Text(f"{nonfinite_mark(value)}{format_number(value, line.lang)}", style="bold red")
    return Text(line.series.format(value, line.lang), style=style)


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
