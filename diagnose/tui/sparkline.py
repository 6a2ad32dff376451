"""`SafeSparkline`: Textual's Sparkline, fed only clean data, on a pinned scale, with markers.

Textual's Sparkline raises on NaN, ±inf and numpy arrays, scales every series to its own
minimum and maximum, and has no notion of "not trained yet". A diverging run's NaN is data
here, a run must share its scale with its reference, and a live run grows from the left. So:

- `validate_data` turns whatever it is given (lists, numpy arrays, numpy scalars, None) into a
  list of Python floats and Nones before anything reads it;
- `plot` takes a run's values over the window (None for steps not trained yet) with the scale
  (log or linear, a shared range), the step cursor and the guide lines (entropy floor, clip);
- the bars are Textual's (`BARS`, and its `bar level = int(ratio · (8·rows − 1))`), coloured
  between the widget's `sparkline--min-color` and `sparkline--max-color` as Textual does, but
  drawn here line by line (`render_line`) from one value per column (`scale.columns`): NaN and
  ±inf columns as red ×/▲/▼, unmeasured columns blank, the guides as a dotted line where no bar
  covers them, and the cursor's columns highlighted. Drawing them here rather than through
  Textual's renderable is what lets a key redraw every panel within a frame: the lines are
  built once per change and cached.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.renderables._blend_colors import blend_colors
from textual.renderables.sparkline import Sparkline as SparklineRenderable
from textual.strip import Strip
from textual.widgets import Sparkline

from diagnose.panels import fit_axis
from diagnose.tui.scale import Value, columns, cursor_columns, to_axis

MARKS = {"nan": "×", "+inf": "▲", "-inf": "▼"}
GUIDE = "┄"
BARS = SparklineRenderable.BARS
LEVELS = len(BARS)
SHADES = 32  # colour steps between min and max: a cache of styles, not one per cell


def nonfinite_mark(value: float) -> str:
    if math.isnan(value):
        return MARKS["nan"]
    return MARKS["+inf"] if value > 0 else MARKS["-inf"]


class SafeSparkline(Sparkline):
    """A Sparkline that accepts any run's values; see the module docstring."""

    COMPONENT_CLASSES: ClassVar[set[str]] = Sparkline.COMPONENT_CLASSES | {
        "sparkline--nonfinite", "sparkline--guide", "sparkline--cursor"}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        self._log = False
        self._range: tuple[float, float] | None = None
        self._cursor: int | None = None
        self._guides: tuple[float, ...] = ()
        self._version = 0  # bumped on every change: the drawn lines are cached per version
        self._lines: tuple[tuple[int, int, int], list[Strip]] | None = None
        super().__init__(None, summary_function=max, id=id, classes=classes)

    def validate_data(self, data: Any) -> list[Value]:
        if data is None:
            return []
        if hasattr(data, "tolist"):  # numpy arrays and scalars become Python floats
            data = data.tolist()
        return [None if value is None else float(value) for value in data]

    def plot(self, values: Sequence[Value], *, log: bool = False,
             value_range: tuple[float, float] | None = None, cursor: int | None = None,
             guides: Iterable[float] = ()) -> None:
        """Draw `values` (one per step of the window) on this scale, with this cursor."""
        self._log, self._range, self._cursor = log, value_range, cursor
        self._guides = tuple(guides)
        self._version += 1  # the scale or cursor may have changed while the data did not
        self.data = values
        self.refresh()

    def watch_data(self) -> None:
        self._version += 1

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines = None  # colours come from the stylesheet (a theme change, a class)

    def render_line(self, y: int) -> Strip:
        width, height = self.size
        key = (width, height, self._version)
        if self._lines is None or self._lines[0] != key:
            self._lines = (key, self._draw(width, height))
        lines = self._lines[1]
        return lines[y] if 0 <= y < len(lines) else Strip.blank(width)

    def _draw(self, width: int, height: int) -> list[Strip]:
        if width <= 0 or height <= 0:
            return []
        data: list[Value] = self.data or []
        if self._range is None:
            axis = fit_axis(data, self._log)
            self._range = (axis.lo, axis.hi)
        low, high = (to_axis(v, self._log) for v in self._range)
        assert low is not None and high is not None  # fit_axis keeps a log range positive
        cells = columns(data, width)
        levels = [self._level(v, low, high, height) for v in cells]
        guides = set()  # the lines a guide crosses
        for value in self._guides:
            on_axis = to_axis(value, self._log)
            level = self._level(value, low, high, height)
            if on_axis is not None and low <= on_axis <= high and level is not None:
                guides.add(height - 1 - level // LEVELS)
        cursor = set(cursor_columns(self._cursor, len(data), width)
                     if self._cursor is not None else ())
        shade = self._shades(height)
        nonfinite = self.get_component_rich_style("sparkline--nonfinite")
        guide = self.get_component_rich_style("sparkline--guide")
        highlight = self.get_component_rich_style("sparkline--cursor")
        lines = []
        for row in range(height):
            floor = (height - 1 - row) * LEVELS  # the lowest level this line draws
            segments = []
            for column, (value, level) in enumerate(zip(cells, levels, strict=True)):
                if value is not None and not math.isfinite(value):
                    cell = Segment(nonfinite_mark(value), nonfinite)
                elif level is None or level < floor:
                    blank = row in guides and value is not None
                    cell = Segment(GUIDE, guide) if blank else Segment(" ")
                else:
                    glyph = "█" if level >= floor + LEVELS else BARS[level - floor]
                    cell = Segment(glyph, shade[level])
                if column in cursor:
                    cell = Segment(cell.text, (cell.style or Style()) + highlight)
                segments.append(cell)
            lines.append(Strip(Segment.simplify(segments), width))
        return lines

    def _level(self, value: Value, low: float, high: float, height: int) -> int | None:
        """A value's bar level (0 .. 8·rows-1), clamped into the range; None: nothing to draw.

        A value at or below zero on a log axis sits on the floor, like the axis's low end.
        """
        if value is None or not math.isfinite(value):
            return None
        height_on_axis = to_axis(value, self._log)
        where = low if height_on_axis is None else min(max(height_on_axis, low), high)
        return int((where - low) / ((high - low) or 1) * (LEVELS * height - 1))

    def _shades(self, height: int) -> list[Style]:
        """The style of each bar level: Textual's min→max colour blend, in SHADES steps."""
        _, base = self.background_colors
        low = (base + self.get_component_styles("sparkline--min-color").color).rich_color
        high = (base + self.get_component_styles("sparkline--max-color").color).rich_color
        steps = [Style.from_color(blend_colors(low, high, i / (SHADES - 1)))
                 for i in range(SHADES)]
        top = LEVELS * height - 1 or 1
        return [steps[round(level / top * (SHADES - 1))] for level in range(LEVELS * height)]
