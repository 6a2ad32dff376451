"""The shared parts of a break's signature (diagnose/diagnosis/signatures.py): the one sentence
builder."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnose.diagnosis import signatures as sig
from scenarios.langs import LANGS

numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-10**6, 10**6)


@given(run=numbers, ref=numbers, floor=st.floats(allow_nan=True), vocab=st.integers(1, 10**6))
def test_a_sentence_quotes_each_number_as_fmt_writes_it(run, ref, floor, vocab):
    fig = {"clip_share": run, "ref_clip_share": ref}
    found = sig.said(3, "clip_share", fig, "{clip_share} {ref_clip_share_pct} {entropy_floor} "
                     "{vocab_size}", {"entropy_floor": floor, "vocab_size": vocab})
    assert (found.panel, found.name, found.value) == (3, "clip_share", run)
    for lang in LANGS:  # no catalog holds this message: each language writes its numbers
        quoted = (f"{sig.fmt(run, lang)} {sig.fmt(ref * 100, lang)} {sig.fmt(floor, lang)} "
                  f"{vocab}")
        assert found.text[lang] == quoted


def test_a_sentence_quoting_a_figure_no_run_has_fails_loudly():
    with pytest.raises(KeyError):
        sig.said(1, "final_val", {"final_val": 1.0}, "{final_vall}")


class EveryFigure(dict):
    """Figures whatever their name: 0.123456 each."""

    def __missing__(self, name: str) -> float:
        return 0.123456

    def __contains__(self, name: object) -> bool:
        return True


def test_every_breaks_sentence_is_the_catalogs_and_quotes_the_same_figures_in_every_language():
    """Each finding of the package's breaks, on made-up figures, is said in every language
    with the same numbers, each in its language's symbols: its message is in the catalogs,
    its placeholders intact."""
    import scenarios
    from diagnose.diagnosis.diagnostician import panel_facts

    fig, header = EveryFigure(), {"entropy_floor": 0.25, "ln_vocab": 4.16, "vocab_size": 64}
    found = [f for slug in scenarios.breaks(None)
             for f in sig.signature(slug).findings(fig, header)]
    found += panel_facts(fig, header).values()
    for finding in found:
        text = dict(finding.text)
        assert set(text) == set(LANGS) and "{" not in "".join(text.values()), text
        assert text["es"] != text["en"], f"not translated: {text['en']}"
        written = {lang: sig.fmt(0.123456, lang) for lang in LANGS}  # "0.123", "0,123"
        assert all(text[lang].count(written[lang]) == text["en"].count(written["en"])
                   for lang in LANGS), text
