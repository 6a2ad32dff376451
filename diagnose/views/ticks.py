"""Where an axis puts its ticks: one rule for the terminal's axes (`diagnose.tui.drawing.scale`) and
the HTML's charts (`diagnose.views.dashboard.plot`), so both mark the same round values.

Plain arithmetic over plain floats: no Textual, no markup. Each face says how many labels it
has room for and writes the labels itself (a terminal cell is not an SVG glyph).

- Linear: the multiples of a 1-2-2.5-5 step (`nice_step`) inside the range.
- Log: the powers of ten inside the range, labelled, thinned to about `labels` of them (the
  exponents divisible by one stride, so at least one); when fewer than three fit and the 1s,
  2s and 5s inside are at most `labels` + 2 (or no power fits at all), 2 and 5 of each decade
  are labelled too, so a short axis still reads; over six decades or fewer, every other whole
  mantissa is an unlabelled minor tick.
"""

from __future__ import annotations

import math
from typing import NamedTuple

EPSILON = 1e-9  # a value a rounding error away from a boundary is on it


class Tick(NamedTuple):
    value: float
    labelled: bool  # False: a minor grid line, drawn without a label


def nice_step(span: float, count: int) -> float:
    """A 1-2-2.5-5 step that cuts `span` into about `count` pieces."""
    raw = span / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    for mantissa in (1, 2, 2.5, 5, 10):
        if mantissa * power >= raw:
            return mantissa * power
    return 10 * power


def linear_ticks(lo: float, hi: float, count: int) -> list[float]:
    """The multiples of `nice_step(hi - lo, count)` from `lo` to `hi`, both included."""
    step = nice_step(hi - lo, count)
    first = math.ceil(lo / step - EPSILON)
    return [round(k * step, 12) for k in range(first, math.floor(hi / step + EPSILON) + 1)]


def log_ticks(lo: float, hi: float, labels: int) -> list[Tick]:
    """The ticks of a log axis from `lo` to `hi` (both > 0), about `labels` of them labelled;
    see the module docstring."""
    first = math.floor(math.log10(lo) + EPSILON)
    last = math.ceil(math.log10(hi) - EPSILON)
    decades = last - first

    def inside(value: float) -> bool:
        return lo * (1 - EPSILON) <= value <= hi * (1 + EPSILON)

    def count(mantissas: tuple[int, ...]) -> int:
        return sum(inside(m * 10.0 ** e) for e in range(first, last + 1) for m in mantissas)

    powers = count((1,))
    short = powers == 0 or (powers < 3 and count((1, 2, 5)) <= labels + 2)
    labelled = (1, 2, 5) if short else (1,)
    every = max(1, math.ceil(powers / max(labels, 1)))  # one power in `every` is labelled
    ticks = []
    for exponent in range(first, last + 1):
        for mantissa in range(1, 10):
            value = mantissa * 10.0 ** exponent
            if not inside(value):
                continue
            if mantissa in labelled and (mantissa != 1 or exponent % every == 0):
                ticks.append(Tick(value, True))
            elif decades <= 6:
                ticks.append(Tick(value, False))
    return ticks
