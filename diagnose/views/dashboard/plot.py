"""One panel as an inline SVG chart: axes fitted to the data, ticks, curves, guides, NaN marks.

`panel_svg` draws any panel of `diagnose.views.panels` from its spec; there is no per-panel code.
Coordinates live in a fixed viewBox (`WIDTH` × `HEIGHT`); the page scales it with CSS. Colours
and line styles are CSS classes (`g0`..`g4` for a series' colour family, `v1` for its dashed
variant, `ref` for the reference run), so the markup holds geometry and words only.

Left out: the page around the charts, the legend and the hover script (`diagnose.views.dashboard`),
and any knowledge of what a run holds: every run's chart has the same elements in the same
order, only their coordinates and tick labels differ.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from diagnose.views.panels import (
    Axis,
    Guide,
    Panel,
    Series,
    first_nonfinite,
    format_number,
    panel_axis,
)
from diagnose.views.ticks import linear_ticks, log_ticks
from scenarios.numbers import number

WIDTH, HEIGHT = 600, 250
LEFT, RIGHT, TOP, BOTTOM = 60, 590, 14, 218  # the plot area inside the viewBox
GLYPH_WIDTH = 5.6  # average advance of a guide label's glyph, in viewBox units
Y_TICKS, STEP_TICKS, LOG_LABELS = 5, 8, 8  # about how many labels each axis has room for
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")

Values = list[float | None]


def axis_ticks(axis: Axis, lang: str = "en") -> list[tuple[float, str | None]]:
    """(value, label) pairs (`diagnose.views.ticks`' rule); a None label is a minor grid line. The
    labels are written in `lang` (a decimal comma in Spanish)."""
    if axis.log:
        return [(value, _log_label(value, lang) if labelled else None)
                for value, labelled in log_ticks(axis.lo, axis.hi, LOG_LABELS)]
    return [(v, _plain(v, lang)) for v in linear_ticks(axis.lo, axis.hi, Y_TICKS)]


def _plain(value: float, lang: str) -> str:
    return number(lang, value, "g") if abs(value) < 1e5 else format_number(value, lang)


def _log_label(value: float, lang: str) -> str:
    if 1e-3 <= value < 1e4:
        return number(lang, value, "g")
    exponent = math.floor(math.log10(value) + 1e-9)
    mantissa = round(value / 10 ** exponent)
    power = "10" + str(exponent).translate(SUPERSCRIPT)
    return power if mantissa == 1 else f"{mantissa}·{power}"


def _num(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


class Frame:
    """Maps (step, value) to viewBox coordinates for one panel."""

    def __init__(self, first_step: int, last_step: int, axis: Axis) -> None:
        self.first_step, self.last_step = first_step, max(last_step, first_step + 1)
        self.axis = axis

    def x(self, step: float) -> float:
        return LEFT + (step - self.first_step) / (self.last_step - self.first_step) * (
            RIGHT - LEFT)

    def y(self, value: float | None) -> float | None:
        fraction = self.axis.fraction(value)
        return None if fraction is None else BOTTOM - fraction * (BOTTOM - TOP)


def _tenths(value: float) -> int:
    return round(value * 10)


def _compact(tenths: int) -> str:
    """A coordinate in tenths as short as SVG allows: 12.0 -> "12", 0.5 -> ".5", -0.5 -> "-.5"."""
    whole, tenth = divmod(abs(tenths), 10)
    text = (str(whole) if whole else "") + (f".{tenth}" if tenth else "") or "0"
    return "-" + text if tenths < 0 else text


def curve_path(frame: Frame, steps: Sequence[int], values: Values) -> str:
    """Path data: steps without a measurement are skipped; a value that cannot be drawn (NaN,
    ±inf, ≤ 0 on a log axis) breaks the line. Each piece is an absolute move, then relative
    line-tos between points rounded to a tenth (differences of rounded positions, so the
    rounding never accumulates): a third of the bytes of absolute pairs."""
    parts: list[str] = []
    previous: tuple[int, int] | None = None
    moved = False  # the last part is a move: the next point opens the relative line-tos
    for step, value in zip(steps, values, strict=True):
        if value is None:
            continue
        y = frame.y(value)
        if y is None:
            previous = None
            continue
        point = (_tenths(frame.x(step)), _tenths(y))
        if previous is None:
            parts.append(f"M{_compact(point[0])} {_compact(point[1])}")
            moved = True
        else:
            for delta in (point[0] - previous[0], point[1] - previous[1]):
                text = _compact(delta)
                # A minus sign separates numbers by itself; anything else needs a space.
                parts.append(("l" if moved else "" if text.startswith("-") else " ") + text)
                moved = False
        previous = point
    return "".join(parts)


def dots_path(frame: Frame, steps: Sequence[int], values: Values) -> str:
    """Zero-length segments with round caps: a dot at every measured point of a sparse series."""
    return "".join(f"M{_num(frame.x(s))} {_num(y)}h0" for s, v in zip(steps, values, strict=True)
                   if v is not None and (y := frame.y(v)) is not None)


def _series_markup(frame: Frame, series: Series, steps: Sequence[int], values: Values,
                   extra: str) -> str:
    plotted = [None if v is None else series.plotted(v) for v in values]
    cls = f"line g{series.group} v{series.variant}{extra}"
    markup = f'<path class="{cls}" d="{curve_path(frame, steps, plotted)}"/>'
    if series.sparse:
        markup += (f'<path class="dots g{series.group}{extra}" '
                   f'd="{dots_path(frame, steps, plotted)}"/>')
    return markup


def _curves(frame: Frame, panel: Panel, steps: Sequence[int], run: Sequence[Values],
            extra: str) -> str:
    # Later series are drawn first: a panel's first series is its main one (train loss, the
    # pre-clip norm) and stays on top where two coincide.
    pairs = list(zip(panel.series, run, strict=True))
    return "".join(_series_markup(frame, s, steps, v, extra) for s, v in reversed(pairs))


def _label_place(y: float, text: str, points: Sequence[tuple[float, float]]
                 ) -> tuple[float, float, str]:
    """Where a guide's label covers the least data: at the right or left end of its line,
    above or below it. Returns (x, baseline y, text-anchor); ties keep the right, above."""
    width = GLYPH_WIDTH * len(text)
    best: tuple[float, float, float, str] | None = None
    for x, x_lo, x_hi, anchor in ((RIGHT - 4, RIGHT - 4 - width, RIGHT - 4, "end"),
                                  (LEFT + 4, LEFT + 4, LEFT + 4 + width, "start")):
        for top, bottom, baseline in ((y - 13, y - 2, y - 4), (y + 2, y + 13, y + 11)):
            if top < TOP or bottom > BOTTOM:
                continue
            clearance = min((0.0 if top <= py <= bottom else min(abs(py - top), abs(py - bottom))
                             for px, py in points if x_lo <= px <= x_hi), default=math.inf)
            if best is None or clearance > best[0] + 1e-9:
                best = (clearance, x, baseline, anchor)
    if best is None:  # a line hugging both edges of a flat axis: keep the label inside
        return RIGHT - 4, max(y - 4, TOP + 10), "end"
    return best[1], best[2], best[3]


def _nonfinite_marks(frame: Frame, steps: Sequence[int],
                     run: Sequence[Values]) -> str:
    """A red line where each series first stops being finite, labelled with its value."""
    starts: dict[int, str] = {}
    for values in run:
        index = first_nonfinite(values)
        if index is not None:
            starts.setdefault(steps[index], format_number(values[index]))
    out = []
    # Labels stack downwards, so two series that break a few steps apart stay readable.
    for row, (step, value) in enumerate(sorted(starts.items())):
        x = _num(frame.x(step))
        anchor = "end" if frame.x(step) > (LEFT + RIGHT) / 2 else "start"
        dx = -3 if anchor == "end" else 3
        y = TOP + 11 + 12 * row
        out.append(f'<line class="nf" x1="{x}" x2="{x}" y1="{TOP}" y2="{BOTTOM}"/>'
                   f'<text class="nf-label" x="{_num(frame.x(step) + dx)}" y="{y}" '
                   f'text-anchor="{anchor}">{escape(value)} @ {step}</text>')
    return f'<g class="marks">{"".join(out)}</g>'


@dataclass(frozen=True)
class RunData:
    """One run's values for one panel: `values` holds a list per series of the panel, aligned
    with `steps` (raw values, as `Series.read` gives them)."""

    steps: Sequence[int]
    values: Sequence[Values]

    def upto(self, last_step: int) -> RunData:
        """The steps up to `last_step` (inclusive): what a zoomed chart draws."""
        keep = sum(1 for step in self.steps if step <= last_step)
        return RunData(self.steps[:keep], [v[:keep] for v in self.values])


@dataclass(frozen=True)
class Chart:
    """What one chart of a panel draws: the run, and the reference's curves beneath it (None
    on the reference's own page)."""

    run: RunData
    reference: RunData | None = None

    def upto(self, last_step: int | None) -> Chart:
        """The steps up to `last_step` (inclusive; every step when None)."""
        if last_step is None:
            return self
        return Chart(self.run.upto(last_step),
                     None if self.reference is None else self.reference.upto(last_step))


def _axes(frame: Frame, x_label: str, y_label: str, lang: str = "en") -> str:
    """The grid, the frame, the tick labels (`axis_ticks`, and the steps below) and the two
    axis labels."""
    grid, labels = [], []
    for value, label in axis_ticks(frame.axis, lang):
        y = _num(frame.y(value))
        kind = "gridline" if label else "gridline minor"
        grid.append(f'<line class="{kind}" x1="{LEFT}" x2="{RIGHT}" y1="{y}" y2="{y}"/>')
        if label:
            labels.append(f'<text class="tick" x="{LEFT - 5}" y="{y}" text-anchor="end" '
                          f'dy="0.35em">{escape(label)}</text>')
    for step in linear_ticks(frame.first_step, frame.last_step, STEP_TICKS):
        x = _num(frame.x(step))
        grid.append(f'<line class="gridline" x1="{x}" x2="{x}" y1="{TOP}" y2="{BOTTOM}"/>')
        labels.append(f'<text class="tick" x="{x}" y="{BOTTOM + 15}" '
                      f'text-anchor="middle">{step:g}</text>')
    y_mid = (TOP + BOTTOM) / 2
    return (f'<g class="axes">{"".join(grid)}'
            f'<rect class="frame" x="{LEFT}" y="{TOP}" width="{RIGHT - LEFT}" '
            f'height="{BOTTOM - TOP}"/>{"".join(labels)}'
            f'<text class="axis-label" x="{(LEFT + RIGHT) / 2:g}" y="{HEIGHT - 4}" '
            f'text-anchor="middle">{escape(x_label)}</text>'
            f'<text class="axis-label" transform="translate(13 {y_mid:g}) rotate(-90)" '
            f'text-anchor="middle">{escape(y_label)}</text></g>')


def panel_svg(panel: Panel, lang: str, chart: Chart, guides: Sequence[tuple[Guide, float]],
              x_label: str, view: str) -> str:
    """The chart of one panel, its y axis fitted to what it draws. `view` names the chart
    among a panel's charts (a CSS class); its step range is the data's."""
    run, reference = chart.run, chart.reference
    steps, ref_steps = run.steps, reference.steps if reference else ()
    ref_values = reference.values if reference else None
    axis = panel_axis(panel, [run.values] if ref_values is None else [run.values, ref_values],
                      [value for _, value in guides])
    last_step = max([*steps[-1:], *ref_steps[-1:]], default=0)
    frame = Frame(steps[0] if steps else 0, last_step, axis)

    points = [(frame.x(step), y) for curve_steps, values in
              [(steps, run.values), *([(ref_steps, ref_values)] if ref_values else [])]
              for s, vals in zip(panel.series, values, strict=True)
              for step, v in zip(curve_steps, vals, strict=True)
              if v is not None and (y := frame.y(s.plotted(v))) is not None]
    guide_markup = []
    for guide, value in guides:
        y = frame.y(value)
        text = f"{guide.label[lang]} {format_number(value, lang)}"
        x, baseline, anchor = _label_place(y, text, points)
        guide_markup.append(
            f'<line class="guide" x1="{LEFT}" x2="{RIGHT}" y1="{_num(y)}" y2="{_num(y)}"/>'
            f'<text class="guide-label" x="{_num(x)}" y="{_num(baseline)}" '
            f'text-anchor="{anchor}">{escape(text)}</text>')

    ref_curves = _curves(frame, panel, ref_steps, ref_values, " ref") if ref_values else ""
    curves = _curves(frame, panel, steps, run.values, "")
    return (
        f'<svg class="plot {view}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(panel.title_in(lang))}" data-panel="{panel.number}" '
        f'data-first="{frame.first_step}" data-last="{frame.last_step}">'
        f"{_axes(frame, x_label, panel.y_label[lang], lang)}"
        f'<g class="guides">{"".join(guide_markup)}</g>'
        f'<g class="ref-curves">{ref_curves}</g>'
        f'<g class="curves">{curves}</g>'
        f"{_nonfinite_marks(frame, steps, run.values)}"
        f'<line class="cursor" x1="0" x2="0" y1="{TOP}" y2="{BOTTOM}" visibility="hidden"/>'
        f"</svg>")
