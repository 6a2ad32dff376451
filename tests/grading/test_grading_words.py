"""Matching words to breaks: case, accents and separators ignored; longest match; no negation."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grading.words import Vocabulary, _fold_with_origin, default_vocabulary, fold
from scenarios import breaks


def slugs(text: str) -> list[str]:
    return [s for m in default_vocabulary().mentions(text) for s in m.slugs]


@pytest.mark.parametrize("text, slug", [
    ("no warmup", "no-warmup"), ("No-Warmup", "no-warmup"), ("NO_WARMUP", "no-warmup"),
    ("nowarmup", "no-warmup"), ("sin warm-up", "no-warmup"), ("Sin Warm Up", "no-warmup"),
    ("missing LR warm-up", "no-warmup"), ("sin calentamiento", "no-warmup"),
    ("bad init", "bad-init"), ("BAD-INIT", "bad-init"), ("Xavier ×100", "bad-init"),
    ("Xavier x100", "bad-init"), ("xavier × 100", "bad-init"), ("mala inicialización", "bad-init"),
    ("MALA INICIALIZACION", "bad-init"), ("pesos demasiado grandes", "bad-init"),
    ("máscara causal rota", "broken-mask"), ("mascara causal rota", "broken-mask"),
    ("MÁSCARA", "broken-mask"), ("look ahead", "broken-mask"), ("lookahead", "broken-mask"),
    ("ve el futuro", "broken-mask"), ("broken_mask", "broken-mask"),
])
def test_each_way_of_writing_a_break_names_it_once(text, slug):
    assert slugs(text) == [slug]


def test_longest_match_is_one_mention():
    (mention,) = default_vocabulary().mentions("Creo que es una máscara causal rota.")
    assert mention.words == "máscara causal rota"
    assert mention.slugs == ("broken-mask",)


def test_mentions_keep_the_words_as_written_and_in_order():
    mentions = default_vocabulary().mentions("Sin Warm-Up, o quizá MÁSCARA rota")
    assert [m.words for m in mentions] == ["Sin Warm-Up", "MÁSCARA rota"]


@pytest.mark.parametrize("text", [
    "the initial loss is 4.2",  # "init" inside a word
    "there is a spike in it",  # "in it" is not "init": short words are not glued
    "masked language model",  # "mask" inside a word
    "warmed up quickly",
    "the learning rate decays by cosine",
    "",
])
def test_words_inside_other_words_name_nothing(text):
    assert slugs(text) == []


def test_negation_is_not_understood():
    # Documented: "not X" names X. The feedback says so when an answer names two breaks.
    assert sorted(slugs("not the mask, it is the warmup")) == ["broken-mask", "no-warmup"]


def test_fold_removes_case_and_accents():
    assert fold("Diagnóstico MÁSCARA ×100") == "diagnostico mascara x100"


def test_a_phrase_two_breaks_share_names_both():
    catalog = breaks()
    shared = {slug: brk for slug, brk in catalog.items()}
    no_warmup = shared["no-warmup"]
    shared["no-warmup"] = type(no_warmup)(**{**no_warmup.__dict__, "words": {
        "en": (*no_warmup.words["en"], "mask"), "es": no_warmup.words["es"]}})
    (mention,) = Vocabulary(shared).mentions("mask")
    assert mention.slugs == ("broken-mask", "no-warmup")


def test_every_slug_is_a_word_of_its_break():
    for slug in breaks():
        assert slugs(slug) == [slug]


@pytest.mark.parametrize(("phrase", "slug"), [
    ("huge initial weights", "bad-init"),
    ("weights initialised too large", "bad-init"),
    ("attention sees future tokens", "broken-mask"),
    ("the model attends to the future", "broken-mask"),
    ("no causal masking", "broken-mask"),
    ("fuga de tokens futuros", "broken-mask"),
    ("atiende al futuro", "broken-mask"),
    ("falta de calentamiento del LR", "no-warmup"),
])
def test_everyday_phrasings_name_their_break(phrase, slug):
    from grading import parse_diagnoses

    answer = parse_diagnoses(f"## 01\nDiagnosis: {phrase}\n").answer("01")
    assert (answer.status, answer.slug) == ("named", slug)


@given(st.text(alphabet="aBé\u0301ßﬁ×Ñ Łİ,x1", max_size=30))
def test_folding_keeps_each_folded_position_pointing_at_its_character(text):
    """Mentions quote the words as written: every folded character maps back to the
    character it came from, also around letters that fold to none or to several."""
    folded, origin = _fold_with_origin(text)
    expected_text, expected_origin = "", []
    for i, char in enumerate(text):
        piece = fold(char)
        expected_text += piece
        expected_origin += [i] * len(piece)
    assert folded == expected_text == fold(text)
    assert [origin(i) for i in range(len(folded))] == expected_origin


def test_a_long_answer_line_is_read_in_linear_time():
    """Checking a candidate against earlier matches once cost the number of matches so far:
    a 285 KB line of "bad-init no-warmup " took ~110 s. 20,000 repeats must take well under
    a second; the worst files' figures are in bench/grade.py."""
    text = "bad-init no-warmup " * 20_000
    start = time.perf_counter()
    mentions = default_vocabulary().mentions(text)
    assert time.perf_counter() - start < 5
    assert [m.slugs[0] for m in mentions[:2]] == ["bad-init", "no-warmup"]
    assert len(mentions) == 40_000
