"""The catalog refuses, when it loads, what the engine or the grader could not take: a model too
big to train here (one CatalogError line, never a MemoryError later) and a word the grader
cannot read as written (by `scenarios.folding`, the grader's own normalisation)."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import tracemalloc
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import scenarios
from grading.words import Vocabulary
from scenarios import CatalogError, load_catalog
from scenarios.config import (
    CORPUS_LONGEST,
    CORPUS_SYMBOLS,
    FIELDS,
    MAX_PARAMS,
    MAX_STEP_BYTES,
    count_params,
    step_bytes,
)
from scenarios.folding import folded_words, unreadable

PACKAGED = Path(str(resources.files("scenarios")))
SIZES = ("vocab_size", "d_model", "n_heads", "n_layers", "d_ff", "context", "batch_size",
         "n_examples", "probe_examples")


@pytest.fixture(scope="module")
def catalog_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("catalog") / "scenarios"
    shutil.copytree(PACKAGED, root, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return root


def with_values(text: str, values: dict[str, object]) -> str:
    for key, value in values.items():
        text, n = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text)
        assert n == 1, key
    return text


def small(field: str) -> st.SearchStrategy[int]:
    """Sizes the catalog accepts that train one step in a fraction of a second (frozen-block
    freezes two layers: two at least)."""
    return {"vocab_size": st.integers(CORPUS_SYMBOLS, 96),
            "d_model": st.sampled_from([4, 8, 16, 32]),
            "n_heads": st.sampled_from([1, 2, 4]), "n_layers": st.integers(2, 3),
            "d_ff": st.integers(1, 128), "context": st.integers(CORPUS_LONGEST, 48),
            "batch_size": st.integers(1, 48), "n_examples": st.integers(10, 400),
            "probe_examples": st.integers(1, 48)}[field]


def huge(field: str) -> st.SearchStrategy[int]:
    return st.one_of(st.integers(FIELDS[field].metadata["maximum"] + 1, 2**62),
                     st.sampled_from([65536, 10**9]))


@settings(max_examples=24, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_generated_model_is_refused_in_one_line_or_trains_a_step(catalog_dir, data):
    from diagnose.engine.train import train

    oversize = data.draw(st.sampled_from(SIZES).flatmap(lambda f: st.sampled_from(
        [frozenset(), frozenset({f})])), label="oversize")
    sizes = {f: data.draw(huge(f) if f in oversize else small(f), label=f) for f in SIZES}
    if "d_model" not in oversize:  # a whole, even head size, as RoPE needs
        sizes["d_model"] = sizes["n_heads"] * data.draw(st.sampled_from([2, 4, 6, 8]),
                                                        label="head size")
    dtype = data.draw(st.sampled_from(['"float32"', '"float64"']), label="dtype")
    healthy = catalog_dir / "healthy.toml"
    healthy.write_text(with_values((PACKAGED / "healthy.toml").read_text(encoding="utf-8"),
                                   {**sizes, "dtype": dtype}), encoding="utf-8")
    try:
        config = load_catalog(catalog_dir).healthy
    except CatalogError as err:
        text = str(err)
        assert "\n" not in text and text.startswith("scenarios/"), text
        assert re.search(r"\b(" + "|".join(FIELDS) + r")\b", text), text  # names the key
        event("refused")
        return
    event("trained")
    assert count_params(config) <= MAX_PARAMS and step_bytes(config) <= MAX_STEP_BYTES
    tracemalloc.start()
    try:
        record = next(train(config, 0, threads=False))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert record["step"] == 0
    assert peak <= step_bytes(config), (sizes, peak, step_bytes(config))


@pytest.mark.parametrize("values", [
    {"d_model": 65536},
    {"n_layers": 16, "d_ff": 4096},                       # every cap kept, too many parameters
    {"n_examples": 100_000, "batch_size": 1024},          # a step too big for memory
    {"vocab_size": 512, "d_model": 1024, "n_heads": 32},
])
def test_a_model_too_big_is_one_line_naming_file_and_key(catalog_dir, values):
    healthy = catalog_dir / "healthy.toml"
    healthy.write_text(with_values((PACKAGED / "healthy.toml").read_text(encoding="utf-8"),
                                   values), encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        load_catalog(catalog_dir)
    text = str(caught.value)
    assert "\n" not in text and text.startswith("scenarios/healthy.toml: ")
    assert re.match(r"scenarios/healthy\.toml: (\[model\] )?(d_model|batch_size)", text), text


def test_the_corpus_constants_are_the_engines():
    from diagnose.engine.corpus import build_corpus

    corpus = build_corpus(scenarios.healthy_config())
    assert len(corpus.vocab) == CORPUS_SYMBOLS
    assert int(corpus.lengths.max()) == CORPUS_LONGEST


def test_count_params_is_the_engines():
    from diagnose.engine.model import count_params as engine_count

    config = scenarios.healthy_config()
    for change in ({}, {"d_model": 128, "n_heads": 8}, {"n_layers": 5, "d_ff": 77},
                   {"vocab_size": 300}):
        changed = dataclasses.replace(config, **change)
        assert count_params(changed) == engine_count(changed)


ANY_TEXT = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12),
    st.text(st.sampled_from("aZ09 -_.éÑßﬁİǅ×½⑴\u0301\u00adΩжǂ/"), min_size=1, max_size=12))


@given(ANY_TEXT)
def test_a_phrase_the_catalog_accepts_is_found_by_the_grader_as_written(phrase):
    if unreadable(phrase) is not None:
        return
    brk = dataclasses.replace(scenarios.breaks()["bad-init"],
                              words={"en": (phrase.strip(),), "es": ("bad-init",)})
    found = Vocabulary({"bad-init": brk}).mentions(f"| {phrase} |")
    assert any(folded_words(m.words) == folded_words(phrase) for m in found), (phrase, found)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(phrase=ANY_TEXT)
def test_a_phrase_the_grader_cannot_read_is_one_line_naming_file_and_key(catalog_dir, phrase):
    healthy = catalog_dir / "healthy.toml"
    healthy.write_text((PACKAGED / "healthy.toml").read_text(encoding="utf-8"), encoding="utf-8")
    path = catalog_dir / "breaks" / "broken-mask" / "break.toml"
    text = (PACKAGED / "breaks" / "broken-mask" / "break.toml").read_text(encoding="utf-8")
    path.write_text(text.replace('en = ["broken-mask"',
                                 f'en = [{json.dumps(phrase, ensure_ascii=False)}, '
                                 '"broken-mask"', 1), encoding="utf-8")
    try:
        load_catalog(catalog_dir)
    except CatalogError as err:
        message = str(err)
        assert "\n" not in message
        assert message.startswith("scenarios/breaks/broken-mask/break.toml: ")
        assert unreadable(phrase.strip()) is not None or "malformed TOML" in message, message
        if "malformed TOML" not in message:
            assert message.startswith("scenarios/breaks/broken-mask/break.toml: [words] en: ")
    else:
        assert unreadable(phrase.strip()) is None


@pytest.mark.parametrize("phrase", ["x\u01c2", "\u01c2", "½ mask", "⑴ init", "warm\u00adup",
                                    "\u0301init", "\ue000", "∞"])
def test_words_the_grader_cannot_read_are_refused_when_the_catalog_loads(tmp_path, phrase):
    root = tmp_path / "scenarios"
    shutil.copytree(PACKAGED, root, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    path = root / "breaks" / "broken-mask" / "break.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('en = ["broken-mask"',
                                 f'en = ["{phrase}", "broken-mask"', 1), encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        load_catalog(root)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"scenarios/breaks/broken-mask/break.toml: [words] en: {phrase!r} "
                              "cannot be read by the grader: ")


@given(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40))
def test_printable_ascii_is_read_as_written_when_it_holds_a_word(phrase):
    """Every printable ASCII character folds to itself (lowercased), a letter or digit to a
    letter or digit and anything else to no word: only a phrase without a word is refused."""
    assert unreadable("é " + phrase) is None  # not ASCII: every character through the rules
    expected = None if folded_words(phrase) else "it has no letter or digit"
    assert unreadable(phrase) == expected
