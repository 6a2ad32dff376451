"""`diagnose.phrases.Phrase`: a message of the catalogs in every language, read when shown.

The panels, `check`'s signs and the findings hold phrases instead of per-language tables; these
tests check that a phrase says what `say` says, composes in one language, refuses a language the
game does not speak, and that every phrase the views can be given (any model's panels, summarised
or not, and a run that recorded little) is a message the catalogs hold.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnose.phrases import P_, Phrase
from diagnose.runs.watch import own_panels
from diagnose.views.panels import build_panels, envelope, per_layer
from scenarios.langs import LANGS
from scenarios.words import say

ROOT = Path(__file__).resolve().parents[1]
names = st.from_regex(r"[a-z]{1,8}", fullmatch=True)


@given(st.dictionaries(names, st.text(max_size=20) | st.integers(), min_size=1, max_size=4),
       st.sampled_from(LANGS))
def test_a_phrase_says_what_say_says(values, lang):
    message = "(not a message) " + " ".join(f"<{{{name}}}>" for name in values)
    assert Phrase(message, **values)[lang] == say(lang, message, **values)


@given(st.sampled_from(["Loss", "train", "Dead units", "entropy floor"]), names)
def test_a_phrase_inside_a_phrase_is_read_in_the_same_language(inner, layer):
    outer = Phrase("{scope} largest", scope=Phrase(inner))
    assert {lang: outer[lang] for lang in LANGS} == {
        lang: say(lang, "{scope} largest", scope=say(lang, inner)) for lang in LANGS}
    assert Phrase("{scope} largest", scope=dict.fromkeys(LANGS, layer))["en"] == f"{layer} largest"


def test_a_phrase_is_a_mapping_of_every_language_and_nothing_else():
    loss = Phrase("Loss")
    assert tuple(loss) == LANGS and len(loss) == len(LANGS)
    assert dict(loss) == {lang: say(lang, "Loss") for lang in LANGS} and loss["es"] == "Pérdida"
    with pytest.raises(KeyError):
        loss["fr"]


def test_a_context_tells_a_short_label_from_the_same_english_word():
    assert Phrase("train")["es"] == "entrenamiento" and P_("short label", "train")["es"] == "entr."


def phrases_in(text: Mapping[str, str]) -> list[Phrase]:
    """`text` and the phrases it quotes, if it is a phrase (a name is a plain mapping)."""
    if not isinstance(text, Phrase):
        return []
    return [text, *(p for value in text.values.values() if isinstance(value, Mapping)
                    for p in phrases_in(value))]


def view_texts(n_layers: int, heads: int, neurons: int) -> list[Mapping[str, str]]:
    """Every title, axis label and series or guide name a view of such a model can show."""
    out = []
    for panel in build_panels(n_layers, heads, neurons):
        out += [panel.title, panel.y_label, *(g.label for g in panel.guides)]
        out += [s.label for s in (*panel.series, *per_layer(panel), *envelope(panel))]
    for recorded in (["lr", "train_loss"], ["lr", "train_loss", "dead_heads",
                                            "dead_neurons_frac"]):
        panels = own_panels({"recorded": recorded}, None)  # no totals, little recorded
        out += [p.title for p in panels] + [s.label for p in panels for s in p.series]
    return out


@pytest.fixture(scope="module")
def catalog_messages() -> set[tuple[str | None, str]]:
    pytest.importorskip("babel", reason="Babel is in the test extra: pip install -e '.[test]'")
    spec = importlib.util.spec_from_file_location("words_tool", ROOT / "tools" / "words.py")
    tooling = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tooling)
    return {(m.context, m.id) for m in tooling.read_catalog("es") if m.id and m.string}


@given(st.integers(1, 12), st.integers(0, 96), st.integers(0, 4096))
def test_every_text_a_view_can_show_is_a_message_of_the_catalogs(catalog_messages, n_layers,
                                                                   heads, neurons):
    unknown = {(p.context, p.message) for text in view_texts(n_layers, heads, neurons)
               for p in phrases_in(text)} - catalog_messages
    assert not unknown, f"not in the catalogs (a message built at run time?): {unknown}"


def test_no_table_of_words_per_language_is_left_in_the_code():
    """A sentence is said once, in English, and translated by the catalogs: a dict keyed by
    language codes or a `lang == "es"` choice in the code is a table the catalogs cannot see
    (a new language would miss it). Data keyed by language (break.toml, levels.toml) is read,
    never written, here."""
    found = []
    for package in ("diagnose", "grading", "scenarios"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "scenarios" / "cldr.py":  # CLDR's number symbols: data, no words
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                keys = ({k.value for k in node.keys if isinstance(k, ast.Constant)}
                        if isinstance(node, ast.Dict) else set())
                chosen = isinstance(node, ast.Compare) and any(
                    isinstance(c, ast.Constant) and c.value in LANGS for c in node.comparators)
                if len(keys & set(LANGS)) > 1 or chosen:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"words chosen by language outside the catalogs: {found}"
