"""One rule for turning a run's values into a chart's columns, shared by `diagnose show` and
`diagnose play` (and free of Textual and rich, so each is tested on its own).

Values follow `diagnose.views.panels`: `None` is "not measured at this step" (or not trained yet);
NaN and ±inf are data that the charts mark, each with its own glyph (`MARKS`), never drop.

A chart usually has far fewer columns than a run has steps (400 steps in 21 columns), so a
column summarises a bucket of steps: its largest finite value, because the signatures worth
seeing are spikes (a grad-norm burst lasts one step), or its non-finite value if the bucket
holds one, because a NaN must never be averaged away. With fewer steps than columns (zoomed on
the first 20 steps) every column shows exactly one step, and each step gets whole columns (as
many as the others, or one more), none left empty.

Left out: scales and drawing (`diagnose.tui.drawing.scale`, the sparkline widget, `show.sparkline`).
Not used by the HTML dashboard on purpose: it draws every step as a vector path, so it has no
columns to fill, and it names each non-finite value in words at the step where it starts
(`panels.format_number`: "NaN", "+inf", "-inf"), apart as here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Value = float | None

MARKS = {"nan": "×", "+inf": "▲", "-inf": "▼"}


def nonfinite_mark(value: float) -> str:
    """The glyph a chart draws for a NaN, a +inf or a -inf."""
    if math.isnan(value):
        return MARKS["nan"]
    return MARKS["+inf"] if value > 0 else MARKS["-inf"]


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
    if count >= width:
        return [c for c in range(width) if index in bucket(count, width, c)]
    first = -(-index * width // count)  # the columns c with c * count // width == index
    return list(range(first, -(-(index + 1) * width // count)))
