"""One tick rule (`diagnose.views.ticks`): the terminal's axes and the HTML's charts mark the same
round values on any fitted axis, and the rule itself is Textual-free."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import example, given
from hypothesis import strategies as st

from diagnose.tui.drawing.scale import ticks
from diagnose.views.dashboard.plot import LOG_LABELS, Y_TICKS, axis_ticks
from diagnose.views.panels import fit_axis
from diagnose.views.ticks import linear_ticks, log_ticks, nice_step

VALUES = st.lists(st.floats(-1e6, 1e6, allow_nan=False) | st.floats(1e-8, 1e8), min_size=1,
                  max_size=20)


@given(values=VALUES, log=st.booleans())
def test_the_terminal_and_the_html_label_the_same_round_values(values, log):
    axis = fit_axis(values, log)
    count = LOG_LABELS if log else Y_TICKS
    html = {value for value, label in axis_ticks(axis) if label is not None}
    terminal = ticks((axis.lo, axis.hi), log, count)
    assert terminal[:2] == [axis.hi, axis.lo]
    assert set(terminal[2:]) == {v for v in html if axis.lo < v < axis.hi}


@given(lo=st.floats(-1e6, 0), hi=st.floats(1e-6, 1e6), count=st.integers(1, 12))
def test_linear_ticks_are_multiples_of_one_step_inside_the_range(lo, hi, count):
    """A linear axis holds zero (`panels.fit_axis`): the ranges drawn here."""
    span = hi - lo
    step = nice_step(span, count)
    marks = linear_ticks(lo, hi, count)
    assert all(lo - step * 1e-6 <= v <= hi + step * 1e-6 for v in marks)
    assert len(marks) <= count * 2 + 2
    assert all(abs(v / step - round(v / step)) < 1e-3 for v in marks)


@given(lo=st.floats(1e-12, 1e6), decades=st.floats(0.01, 30), labels=st.integers(1, 12))
@example(lo=1.5, decades=2.75, labels=1)  # two powers, eight 1-2-5s: one label was asked for
def test_a_log_axis_labels_a_few_powers_or_its_1_2_5(lo, decades, labels):
    hi = lo * 10 ** decades
    marks = log_ticks(lo, hi, labels)
    labelled = [v for v, shown in marks if shown]
    assert all(lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9) for v, _ in marks)
    assert len(labelled) <= 3 * labels + 3
    assert labelled or decades < 1  # a decade or more always shows a label


def test_the_rule_imports_neither_textual_nor_numpy():
    code = ("import sys, diagnose.views.ticks, diagnose.tui.drawing.scale\n"
            "print([m for m in ('textual', 'numpy') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
