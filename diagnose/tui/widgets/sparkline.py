"""`SafeSparkline`: a bar chart of one series, as wide as its box, on a pinned scale, with markers.

A plain `Widget` that draws itself line by line (`render_line`), built only on Textual's public
API. What it draws is a `Chart`, which a dashboard row (`series_row.SeriesRow`) paints too,
between its label and its numbers, with the same styles (`CHART_CLASSES`, `CHART_CSS`).
Textual's own Sparkline raises on NaN, ±inf and numpy arrays, scales every series to its own
minimum and maximum, and has no notion of "not trained yet"; here a diverging run's NaN is
data, a run shares its scale with its reference, and a live run grows from the left. So:

- `data` takes whatever it is given (lists, numpy arrays, numpy scalars, None) and keeps a list
  of Python floats and Nones;
- `plot` takes a run's values over the window (None for steps not trained yet) with the scale
  (log or linear, a shared range), the step cursor and the guide lines (entropy floor, clip),
  and optionally the reference's values, drawn in the lower half (`sparkline--ref-*-color`);
- one value per column (`diagnose.views.columns`, the rule `diagnose show` uses too) becomes a bar
  of
  eighths (`BARS`), coloured along a `Gradient` from the `sparkline--min-color` to the
  `sparkline--max-color` component style; NaN and ±inf columns are marked ×/▲/▼, unmeasured
  columns are blank, the guides a dotted line where no bar covers them, and the cursor's
  columns reversed.

Every cell carries a style, as Textual's monochrome filter (under `NO_COLOR`) requires, and the
marks and the cursor are glyphs and reverse video, never colour alone. The lines are built once
per change and cached, so a key redraws every panel within a frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual.color import Gradient
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from diagnose.tui.drawing.scale import to_axis
from diagnose.views.columns import Value, columns, cursor_columns, nonfinite_mark
from diagnose.views.panels import fit_axis

GUIDE = "┄"
BARS = "▁▂▃▄▅▆▇█"
CELL_HEIGHTS = len(BARS)
SHADES = 32  # colour steps between min and max: a cache of styles, not one per cell

# base, the bar levels' shades, non-finite marks, guides, cursor
Palette = tuple[Style, list[Style], Style, Style, Style]


def as_values(data: Any) -> list[Value]:
    """Any sequence of numbers (numpy too) as Python floats and Nones."""
    if data is None:
        return []
    if hasattr(data, "tolist"):  # numpy arrays and scalars become Python floats
        data = data.tolist()
    return [None if value is None else float(value) for value in data]


# The default colours of a widget that draws a `Chart` (its component classes CHART_CLASSES).
CHART_CSS = """
{widget} > .sparkline--max-color {{
    color: $primary;
}}
{widget} > .sparkline--min-color {{
    color: $primary 30%;
}}
{widget} > .sparkline--ref-max-color {{
    color: $foreground 45%;
}}
{widget} > .sparkline--ref-min-color {{
    color: $foreground 25%;
}}
"""

CHART_CLASSES = {
    "sparkline--min-color", "sparkline--max-color", "sparkline--ref-min-color",
    "sparkline--ref-max-color", "sparkline--nonfinite", "sparkline--guide", "sparkline--cursor"}


class Scale(NamedTuple):
    """How a chart draws its values: on a log axis or not, over `value_range` (None: the
    values' own), with horizontal guides at these values, and `reference`, when overlaid, drawn
    in the lower half under the run."""

    log: bool = False
    value_range: tuple[float, float] | None = None
    guides: tuple[float, ...] = ()
    reference: Sequence[Value] | None = None


class Chart:
    """What a sparkline draws, and its lines, drawn once per change.

    Not a widget: `SafeSparkline` is one chart alone, `SeriesRow` paints one between its label
    and its numbers. Its styles come from the widget that paints it (`palette`), which must
    have the component classes `CHART_CLASSES`.
    """

    def __init__(self) -> None:
        self.data: list[Value] = []
        self.log = False
        self.value_range: tuple[float, float] | None = None
        self.cursor: int | None = None
        self.guides: tuple[float, ...] = ()
        self.reference: list[Value] | None = None  # drawn under the run when overlaid
        self.version = 0  # bumped on every change: the drawn lines are cached per version
        self._lines: tuple[tuple[int, int, int], list[Strip]] | None = None

    def set_data(self, data: Any) -> None:
        self.data = as_values(data)
        self.version += 1

    def plot(self, values: Sequence[Value], width: int, scale: Scale,
             cursor: int | None = None) -> list[int] | None:
        """Take these values, scale and cursor; return the columns to repaint (None: all).

        The same values on the same scale cost nothing: a key redraws every panel, and most
        keys change only some of them (`l` the log panels, the cursor keys only the cursor).
        """
        values = as_values(values)
        scale = scale._replace(guides=tuple(scale.guides), reference=None
                               if scale.reference is None else as_values(scale.reference))
        if (values, scale) == (self.data, (self.log, self.value_range, self.guides,
                                           self.reference)):
            if cursor == self.cursor:
                return []
            moved = {*self.cursor_columns(self.cursor, width),
                     *self.cursor_columns(cursor, width)}
            self.cursor = cursor
            self.version += 1
            return sorted(moved)
        self.log, self.value_range, self.guides, self.reference = scale
        self.cursor = cursor
        self.set_data(values)
        return None

    def run_height(self, height: int) -> int:
        """The lines the run's curve takes of `height`: all, or the upper half when overlaid."""
        return height // 2 if self.reference is not None and height >= 2 else height

    def cursor_columns(self, cursor: int | None, width: int) -> list[int]:
        if cursor is None:
            return []
        return cursor_columns(cursor, len(self.data), width)

    def forget(self) -> None:
        """Draw again on the next call: the styles changed (a theme, a class)."""
        self._lines = None

    def lines(self, width: int, height: int, palette: Callable[[int, str], Palette],
              ) -> list[Strip]:
        """The chart's `height` lines, `width` cells each; `palette(height, kind)` gives the
        styles of a curve of `kind` ("" or "ref-")."""
        key = (width, height, self.version)
        if self._lines is None or self._lines[0] != key:
            self._lines = (key, self._draw(width, height, palette))
        return self._lines[1]

    def _draw(self, width: int, height: int, palette: Callable[[int, str], Palette],
              ) -> list[Strip]:
        if width <= 0 or height <= 0:
            return []
        top = self.run_height(height)
        lines = self._curve(self.data, width, top, palette(top, ""))
        if top < height:
            assert self.reference is not None
            lines += self._curve(self.reference, width, height - top,
                                 palette(height - top, "ref-"))
        return lines

    def _curve(self, data: list[Value], width: int, height: int, styles: Palette,
               ) -> list[Strip]:
        """`height` lines of one curve in these styles."""
        value_range = self.value_range
        if value_range is None:
            axis = fit_axis(data, self.log)
            value_range = (axis.lo, axis.hi)
        low, high = (to_axis(v, self.log) for v in value_range)
        assert low is not None and high is not None  # fit_axis keeps a log range positive
        cells = columns(data, width)
        levels = [self._level(v, low, high, height) for v in cells]
        guides = set()  # the lines a guide crosses
        for value in self.guides:
            on_axis = to_axis(value, self.log)
            level = self._level(value, low, high, height)
            if on_axis is not None and low <= on_axis <= high and level is not None:
                guides.add(height - 1 - level // CELL_HEIGHTS)
        cursor = set(self.cursor_columns(self.cursor, width))
        base, shade, nonfinite, guide, highlight = styles
        lines = []
        for row in range(height):
            floor = (height - 1 - row) * CELL_HEIGHTS  # the lowest level this line draws
            segments = []
            for column, (value, level) in enumerate(zip(cells, levels, strict=True)):
                if value is not None and not math.isfinite(value):
                    cell = Segment(nonfinite_mark(value), nonfinite)
                elif level is None or level < floor:
                    blank = row in guides and value is not None
                    cell = Segment(GUIDE, guide) if blank else Segment(" ", base)
                else:
                    glyph = "█" if level >= floor + CELL_HEIGHTS else BARS[level - floor]
                    cell = Segment(glyph, shade[level])
                if column in cursor:
                    cell = Segment(cell.text, (cell.style or base) + highlight)
                segments.append(cell)
            lines.append(Strip(Segment.simplify(segments), width))
        return lines

    def _level(self, value: Value, low: float, high: float, height: int) -> int | None:
        """A value's bar level (0 .. 8·rows-1), clamped into the range; None: nothing to draw.

        A value at or below zero on a log axis sits on the floor, like the axis's low end.
        """
        if value is None or not math.isfinite(value):
            return None
        height_on_axis = to_axis(value, self.log)
        where = low if height_on_axis is None else min(max(height_on_axis, low), high)
        return int((where - low) / ((high - low) or 1) * (CELL_HEIGHTS * height - 1))


def palette(widget: Widget, height: int, kind: str) -> Palette:
    """Every style a curve of `kind` ("" or "ref-") uses, read from `widget`'s stylesheet."""
    base = widget.rich_style
    return (base, shades(widget, height, base, kind),
            base + widget.get_component_rich_style("sparkline--nonfinite"),
            base + widget.get_component_rich_style("sparkline--guide"),
            widget.get_component_rich_style("sparkline--cursor"))


def shades(widget: Widget, height: int, base: Style, kind: str) -> list[Style]:
    """The style of each bar level: a min→max colour gradient, in SHADES steps."""
    _, background = widget.background_colors
    low = background + widget.get_component_styles(f"sparkline--{kind}min-color").color
    high = background + widget.get_component_styles(f"sparkline--{kind}max-color").color
    gradient = Gradient((0.0, low), (1.0, high), quality=SHADES)
    steps = [base + Style(color=gradient.get_rich_color(i / (SHADES - 1)))
             for i in range(SHADES)]
    top = CELL_HEIGHTS * height - 1 or 1
    return [steps[round(level / top * (SHADES - 1))] for level in range(CELL_HEIGHTS * height)]


class Palettes:
    """A widget's chart styles, read once per (height, kind) until its styles change."""

    def __init__(self, widget: Widget) -> None:
        self.widget = widget
        self._read: dict[tuple[int, str], Palette] = {}

    def __call__(self, height: int, kind: str) -> Palette:
        if (height, kind) not in self._read:
            self._read[height, kind] = palette(self.widget, height, kind)
        return self._read[height, kind]

    def forget(self) -> None:
        self._read = {}


class SafeSparkline(Widget):
    """A chart that accepts any run's values; see the module docstring."""

    COMPONENT_CLASSES: ClassVar[set[str]] = CHART_CLASSES

    DEFAULT_CSS = """
    SafeSparkline {
        height: 1;
    }
    """ + CHART_CSS.format(widget="SafeSparkline")

    LEFT = 0  # columns drawn left of the chart: a subclass's axis (`axes.ScaledSparkline`)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.chart = Chart()
        self.palettes = Palettes(self)

    @property
    def chart_width(self) -> int:
        return max(0, self.size.width - self.LEFT)

    @property
    def data(self) -> list[Value]:
        return self.chart.data

    @data.setter
    def data(self, data: Any) -> None:
        self.chart.set_data(data)
        self.refresh()

    def plot(self, values: Sequence[Value], *, log: bool = False,
             value_range: tuple[float, float] | None = None, cursor: int | None = None,
             guides: Iterable[float] = (), reference: Sequence[Value] | None = None) -> None:
        """Draw `values` (one per step of the window) on this scale, with this cursor; with
        `reference`, the run in the upper half and the reference in the lower half, muted
        (see `Chart.plot`)."""
        moved = self.chart.plot(values, self.chart_width,
                                Scale(log, value_range, tuple(guides), reference), cursor)
        if moved is None:
            self.refresh()
        elif moved:  # only the cursor moved: repaint its columns only
            self.refresh(*(Region(self.LEFT + column, 0, 1, self.size.height)
                           for column in moved))

    @property
    def run_height(self) -> int:
        """The lines the run's curve takes: all, or the upper half when overlaid."""
        return self.chart.run_height(self.size.height)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.chart.forget()  # colours come from the stylesheet (a theme change, a class)
        self.palettes.forget()

    def render_line(self, y: int) -> Strip:
        width, height = self.chart_width, self.size.height
        lines = self.chart.lines(width, height, self.palettes)
        return lines[y] if 0 <= y < len(lines) else Strip.blank(width, self.rich_style)
