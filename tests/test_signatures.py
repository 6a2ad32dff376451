"""The shared parts of a break's signature (diagnose/signatures.py): the one sentence builder."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnose import signatures as sig

numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-10**6, 10**6)


@given(run=numbers, ref=numbers, floor=st.floats(allow_nan=True), vocab=st.integers(1, 10**6))
def test_a_sentence_quotes_each_number_as_fmt_writes_it(run, ref, floor, vocab):
    fig = {"clip_share": run, "ref_clip_share": ref}
    found = sig.said(3, "clip_share", fig, "{clip_share} {ref_clip_share_pct} {entropy_floor}",
                     "{vocab_size}: {clip_share_pct}", {"entropy_floor": floor,
                                                        "vocab_size": vocab})
    assert found == sig.Finding(3, "clip_share", run, {
        "en": f"{sig.fmt(run)} {sig.fmt(ref * 100)} {sig.fmt(floor)}",
        "es": f"{vocab}: {sig.fmt(run * 100)}"})


def test_a_sentence_quoting_a_figure_no_run_has_fails_loudly():
    with pytest.raises(KeyError):
        sig.said(1, "final_val", {"final_val": 1.0}, "{final_vall}", "{final_val}")
