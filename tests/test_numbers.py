"""Numbers in each language (`scenarios/numbers.py`, its table `scenarios/cldr.py`): English as
Python writes it, Spanish with a decimal comma, CLDR's grouping and percent; and every Spanish
sentence the game says — the catalogs' messages, the findings' and the breaks' own texts —
written with Spanish numbers and Spanish words.
"""

from __future__ import annotations

import importlib.util
import re
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scenarios.cldr import SYMBOLS
from scenarios.langs import LANGS
from scenarios.numbers import number
from scenarios.words import say, say_n

ROOT = Path(__file__).resolve().parents[1]

# An English number where a Spanish one belongs: "0.509", "1,234.5", "55.2%" — but not a version,
# a file name or a schema name ("diagnose-0.3", "x.md", "v1.2"): a digit-dot-digit run that a
# letter, a dot or a hyphen does not touch, or digits grouped by commas before a decimal point.
# Spanish grouped numbers ("1.234,5", "12.345") are taken out first.
SPANISH_GROUPED = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+(?:,\d+)?(?![\d.])")
# Spanish writes "55,2 %" (a no-break space); "Python 3.11" is a name, not a number.
ENGLISH_NUMBER = re.compile(r"(?<![\w.\-/])(?<!Python )\d+\.\d+(?![\w\-/]|\.\w)"
                            r"|\d,\d{3}(?:,\d{3})*\.\d|\d%")
# An English sentence: two different English function words that Spanish never uses
ENGLISH_WORDS = re.compile(r"\b(?:the|of|and|is|with|to|from|which|this|that|its|are|was|not|at)\b")


def tooling(name: str):
    pytest.importorskip("babel", reason="Babel is in the test extra: pip install -e '.[test]'")
    spec = importlib.util.spec_from_file_location(f"{name}_tool", ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_vendored_table_is_what_babel_says_for_every_language():
    """scenarios/cldr.py is tools/cldr.py's output for today's LANGS (run it and commit)."""
    assert set(SYMBOLS) == set(LANGS)
    assert (ROOT / "scenarios" / "cldr.py").read_text(encoding="utf-8") == tooling("cldr").table()


def test_the_examples_of_the_issue():
    assert number("es", 1234.5) == "1234,5"
    assert number("es", 1234.5, ",") == "1.234,5"
    assert number("es", 0.552, ".1%") == "55,2\u00a0%"
    assert number("es", 0.509, ".3g") == "0,509"
    assert number("es", -3.25, ".2f") == "-3,25"
    assert number("es", 12345678, ",d") == "12.345.678"
    assert number("en", 0.552, ".1%") == "55.2%"
    assert number("es", "x", ">3") == "  x" and number("es", True) == "True"
    assert say("es", "{n:,} parameters", n=1234567) == "1.234.567 parámetros"


SPECS = st.builds(
    lambda align, sign, alt, zero, width, grouping, precision, kind: (
        align + sign + alt + zero + width + grouping + precision + kind),
    st.sampled_from(["", "<", ">", "^", "=", "*>", "_^"]), st.sampled_from(["", "+", "-", " "]),
    st.sampled_from(["", "#"]), st.sampled_from(["", "0"]),
    st.sampled_from(["", "1", "8", "12"]), st.sampled_from(["", ","]),
    st.sampled_from(["", ".0", ".1", ".3"]), st.sampled_from(["", "e", "f", "g", "%", "G"]))
VALUES = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                   st.integers(-10**12, 10**12))


@given(VALUES, SPECS)
def test_english_is_exactly_python_and_spanish_its_symbols_swapped(value, spec):
    try:
        python = format(value, spec)
    except ValueError:  # a spec Python refuses (precision on an int's "d"...): refused alike
        with pytest.raises(ValueError):
            number("en", value, spec)
        return
    assert number("en", value, spec) == python
    spanish = number("es", value, spec)
    back = spanish.replace("\u00a0%", "%").translate(str.maketrans({",": ".", ".": ","}))
    if re.match(r"(.?[<>=^])?[-+ ]?#?0", spec):  # zero padding: Python's width, swapped
        assert back == python
    else:  # padded to the width by the Spanish text's own length
        assert back.strip(" *_") == python.strip(" *_")
        assert len(spanish) >= len(python.strip(" *_"))


def fill(text: str) -> dict[str, object]:
    """Every placeholder of `text` as 1234.5 (an integer where the spec writes integers)."""
    values: dict[str, object] = {}
    for _, name, spec, _ in string.Formatter().parse(text):
        if name is not None:
            values[name] = 1234 if (spec or "g")[-1] in "dxXbo" else 1234.5
    return values


def spanish_faults(text: str) -> list[str]:
    """English numbers and English sentences in a Spanish text (code aside: in backticks, or
    a setting as the config writes it, `lr_max = 0.285`)."""
    code = re.sub(r"`[^`]*`|\b\w+ ?= ?-?\d+(?:\.\d+)?(?:e-?\d+)?", "", text)
    prose = SPANISH_GROUPED.sub("#", code)
    english = sorted(set(ENGLISH_WORDS.findall(re.sub(r"\{[^}]*\}", "", prose))))
    return ENGLISH_NUMBER.findall(prose) + (english if len(english) > 1 else [])


def test_every_spanish_message_writes_spanish_numbers_and_words():
    """Each message of the catalogs, said in Spanish with every placeholder 1234.5 (and each
    counted one with 1 and 2): no English number, no English sentence."""
    words = tooling("words")
    faults = []
    for message in words.extract():
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            values = fill(" ".join(message.id))
            said = [say_n("es", *message.id, n, **values) for n in (1, 2)]
        else:
            said = [say("es", message.id, **fill(message.id)) if fill(message.id) else
                    say("es", message.id)]
        faults += [(message.id, text, spanish_faults(text)) for text in said
                   if spanish_faults(text)]
    assert not faults, faults


def test_counted_sentences_agree_in_both_languages():
    one, many = ("{dead_heads} dead head at the end (the reference: {ref_dead_heads})",
                 "{dead_heads} dead heads at the end (the reference: {ref_dead_heads})")
    assert say_n("es", one, many, 1, dead_heads=1, ref_dead_heads=0) == (
        "1 cabeza muerta al final (la referencia: 0)")
    assert say_n("es", one, many, 2, dead_heads=2, ref_dead_heads=0).startswith(
        "2 cabezas muertas")
    assert say_n("en", one, many, 1.0, dead_heads=1, ref_dead_heads=0).startswith("1 dead head ")


class EveryFigure(dict):
    """Figures where every name is 1234.5: a break's findings quote whichever it names."""

    def __missing__(self, name: str) -> float:
        return 1234.5

    def __contains__(self, name: object) -> bool:
        return True


def test_every_finding_and_every_break_text_in_spanish_writes_spanish_numbers():
    """Each break's findings and the reveal's facts, on figures of 1234.5 (and dead heads of
    1, for the singular), and each break's own Spanish texts: no English number or sentence."""
    import scenarios
    from diagnose.diagnosis.diagnostician import panel_facts
    from diagnose.diagnosis.signatures import load_signature

    header = {"entropy_floor": 1234.5, "vocab_size": 65, "lr_max": 0.001}
    faults = []
    for count in (1.0, 1234.5):
        fig = EveryFigure(dead_heads=count, dead_heads_peak=count)
        found = [f.text for brk in scenarios.breaks(None).values()
                 for f in load_signature(brk).findings(fig, header)]
        found += [f.text for f in panel_facts(fig, header).values()]
        faults += [(text["es"], spanish_faults(text["es"])) for text in found
                   if spanish_faults(text["es"])]
    for brk in scenarios.breaks(None).values():
        texts = [brk.title["es"], brk.summary["es"], *vars(brk.reveal["es"]).values()]
        for text in texts:
            for piece in text.values() if isinstance(text, dict) else [text]:
                if spanish_faults(str(piece)):
                    faults.append((brk.slug, piece, spanish_faults(str(piece))))
    assert not faults, faults
    one = panel_facts(EveryFigure(dead_heads=1.0, dead_heads_peak=1.0), header)["6"].text
    assert one["es"].startswith("hasta 1 cabeza muerta en una evaluación, 1 al final")
    assert one["en"].startswith("up to 1 dead head at an evaluation")


def test_the_spanish_dashboard_writes_spanish_numbers_and_tells_its_script_how():
    """The run's page (legends, ticks, guides, the line under the heading) in Spanish, and
    the symbols its hover readout writes with."""
    import json

    from diagnose.metrics import read_metrics
    from diagnose.views.dashboard import DATA_OPEN, render_dashboard

    run = ROOT / "tests" / "tui" / "data" / "scenario"
    header, records = read_metrics(run / "01" / "metrics.jsonl")
    page = render_dashboard(header, records, reference=read_metrics(run / "reference" /
                                                                    "metrics.jsonl"), lang="es")
    shown = re.sub(r"<(script|style)\b.*?</\1>|<[^>]+>", " ", page, flags=re.S)
    assert not ENGLISH_NUMBER.findall(SPANISH_GROUPED.sub("#", shown))
    payload = json.loads(page.split(DATA_OPEN, 1)[1].split("</script>", 1)[0])
    assert payload["symbols"] == SYMBOLS["es"]
