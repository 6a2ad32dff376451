"""The arithmetic between a run's values and a terminal's cells: windows, columns, scales, ticks.

Plain functions over plain lists, no Textual, so each is tested on its own. Values follow
`diagnose.panels`: `None` is "not measured at this step" (or not trained yet), NaN and ±inf are
data that the views mark, never drop.

The y range itself is `diagnose.panels.fit_axis`'s, shared with the HTML dashboard.

A sparkline has far fewer columns than a run has steps (400 steps, 25 columns at 80×24), so a
column summarises a bucket of steps: its largest finite value, because the signatures worth
seeing are spikes (a grad-norm burst lasts one step), or the non-finite value if the bucket
holds one, because a NaN must never be averaged away. With fewer steps than columns (zoomed on
the first 20 steps) a step spreads over several columns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from diagnose.panels import nice_step

Value = float | None

ZOOM_STEPS = 20  # `z` shows steps 0-19: the warmup, where the course's signatures live


def held(values: Sequence[Value]) -> list[Value]:
    """Carry each measured value forward over the unmeasured steps that follow it.

    Validation loss and the dead-unit probes are measured every `eval_every` steps; drawn as a
    step function they line up with the train loss instead of leaving gaps.
    """
    out: list[Value] = []
    last: Value = None
    for value in values:
        if value is not None:
            last = value
        out.append(last)
    return out


def window(extent: int, zoom: bool) -> range:
    """The steps on screen: all of the run's `extent`, or the first ZOOM_STEPS of them."""
    return range(min(ZOOM_STEPS, extent) if zoom else extent)


def windowed(values: Sequence[Value], steps: range) -> list[Value]:
    """`values` over `steps`, padded with None for steps not trained yet (they draw blank)."""
    part = list(values[steps.start:steps.stop])
    return part + [None] * (len(steps) - len(part))


def bucket(count: int, width: int, column: int) -> range:
    """The indices (of `count`) that column `column` of `width` summarises; never empty."""
    low = column * count // width
    return range(low, max(low + 1, (column + 1) * count // width))


def summarise(values: Sequence[Value]) -> Value:
    """One column's value: the first non-finite one (NaN before ±inf), else the largest."""
    measured = [v for v in values if v is not None]
    odd = [v for v in measured if not math.isfinite(v)]
    if odd:
        return next((v for v in odd if math.isnan(v)), odd[0])
    return max(measured) if measured else None


def columns(values: Sequence[Value], width: int) -> list[Value]:
    """`values` summarised into `width` columns (None: nothing measured in that bucket)."""
    if width <= 0 or not values:
        return [None] * max(width, 0)
    return [summarise([values[i] for i in bucket(len(values), width, c)]) for c in range(width)]


def cursor_columns(index: int, count: int, width: int) -> list[int]:
    """The columns that show value `index` of `count` (several when zoomed in)."""
    if not 0 <= index < count or width <= 0:
        return []
    return [c for c in range(width) if index in bucket(count, width, c)]


def to_axis(value: float, log: bool) -> float | None:
    """A finite value's height on the axis (log10 on a log axis); None below a log axis."""
    if not log:
        return value
    return math.log10(value) if value > 0 else None


def from_axis(height: float, log: bool) -> float:
    return 10.0 ** height if log else height


def ticks(value_range: tuple[float, float], log: bool, count: int) -> list[float]:
    """The range's two ends, then about `count` round values inside it (decades on a log axis).

    `value_range` comes from `diagnose.panels.fit_axis`, whose ends are round already.
    """
    low, high = value_range
    if log:
        decades = range(math.ceil(math.log10(low) - 1e-9), math.floor(math.log10(high) + 1e-9) + 1)
        inner = [10.0 ** k for k in decades[::max(1, math.ceil(len(decades) / max(count, 1)))]]
    else:
        step = nice_step(high - low, max(count, 1))
        inner = [low + i * step for i in range(1, int((high - low) / step + 1e-9))]
    return [high, low, *(v for v in inner if low < v < high)]


def row_of(value: float, value_range: tuple[float, float], log: bool, rows: int) -> int:
    """The row (0 at the top of `rows`) where an axis label for `value` goes."""
    low, high, here = (to_axis(v, log) for v in (*value_range, value))
    assert low is not None and high is not None and here is not None
    return round((high - here) / ((high - low) or 1) * (rows - 1))
