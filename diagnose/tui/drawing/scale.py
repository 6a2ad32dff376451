"""The arithmetic between a run's values and a terminal's cells: windows, scales, ticks.

Plain functions over plain lists, no Textual, so each is tested on its own. How a series
becomes columns is `diagnose.views.columns`, shared with `diagnose show`; the y range itself is
`diagnose.views.panels.fit_axis`'s and the ticks `diagnose.views.ticks`', both shared with the HTML.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from diagnose.views.columns import Value
from diagnose.views.ticks import linear_ticks, log_ticks

ZOOM_STEPS = 20  # `z` shows steps 0-19: the warmup, where the course's signatures live


def window(extent: int, zoom: bool) -> range:
    """The steps on screen: all of the run's `extent`, or the first ZOOM_STEPS of them."""
    return range(min(ZOOM_STEPS, extent) if zoom else extent)


def windowed(values: Sequence[Value], steps: range) -> list[Value]:
    """`values` over `steps`, padded with None for steps not trained yet (they draw blank)."""
    part = list(values[steps.start:steps.stop])
    return part + [None] * (len(steps) - len(part))


def to_axis(value: float, log: bool) -> float | None:
    """A finite value's height on the axis (log10 on a log axis); None below a log axis."""
    if not log:
        return value
    return math.log10(value) if value > 0 else None


def ticks(value_range: tuple[float, float], log: bool, count: int) -> list[float]:
    """The range's two ends, then about `count` round values inside it: `diagnose.views.ticks`'
    rule,
    the HTML's too (its labelled ticks only: a terminal row has no room for minor lines).

    `value_range` comes from `diagnose.views.panels.fit_axis`, whose ends are round already.
    """
    low, high = value_range
    if log:
        inner = [value for value, labelled in log_ticks(low, high, count) if labelled]
    else:
        inner = linear_ticks(low, high, count)
    return [high, low, *(v for v in inner if low < v < high)]


def row_of(value: float, value_range: tuple[float, float], log: bool, rows: int) -> int:
    """The row (0 at the top of `rows`) where an axis label for `value` goes."""
    low, high, here = (to_axis(v, log) for v in (*value_range, value))
    assert low is not None and high is not None and here is not None
    return round((high - here) / ((high - low) or 1) * (rows - 1))
