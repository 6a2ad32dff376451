"""Properties: any bytes parse or are refused with DiagnosesError, always the same way; and
whatever the TUI writes with `format_diagnoses` reads back exactly."""

from __future__ import annotations

import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grading.diagnoses import DiagnosesError, normalise_evidence, parse_diagnoses
from grading.feedback import describe
from grading.writer import format_diagnoses
from scenarios import breaks

SLUGS = sorted(breaks())
# Pieces of Markdown the parser reacts to, so random text reaches every branch.
PIECES = st.sampled_from([
    "## 01", "# ", "### Experiment 2", "01:", "2.", "**03**", "Run 1 —", "| 01 | x |", "|---|",
    "| ID | Diagnosis |", "Diagnosis:", "**Diagnóstico:**", "Evidence:", "Fallo: ", "<!--",
    "-->", "<!-- scenario: AB-12 -->", "```", "~~~", "~~", "\\", "\n", "\r\n", "\r", " ", "\t",
    "- ", "> ", "no warmup", "máscara causal rota", "Xavier ×100", "not sure", "?", "\ufeff",
])
MARKDOWNISH = st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=40).map("".join)
SETTINGS = settings(max_examples=examples(300), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def parse_or_refuse(data):
    try:
        return parse_diagnoses(data)
    except DiagnosesError as err:
        return str(err)


@SETTINGS
@given(st.one_of(st.binary(max_size=2000), MARKDOWNISH.map(str.encode),
                 st.text().map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_any_bytes_parse_or_are_refused_the_same_way_every_time(data):
    assert parse_or_refuse(data) == parse_or_refuse(bytes(data))


@SETTINGS
@given(st.one_of(st.text(), MARKDOWNISH))
def test_any_text_parses_the_same_way_every_time(text):
    first = parse_or_refuse(text)
    assert first == parse_or_refuse(text)
    if not isinstance(first, str):
        assert all(a.status != "named" or a.slug in SLUGS for a in first.answers)
        for answer in first.answers:  # every reading has a sentence, in both languages
            assert describe(answer, "en") and describe(answer, "es")


RUN_IDS = st.integers(1, 99).map(lambda n: f"{n:02d}")
EVIDENCE = st.one_of(st.text(), MARKDOWNISH)
ANSWERS = st.dictionaries(RUN_IDS, st.tuples(st.one_of(st.none(), st.sampled_from(SLUGS)),
                                             EVIDENCE), max_size=4)
CODES = st.text(min_size=1, max_size=64).filter(
    lambda c: c.strip() and c.isprintable() and "-->" not in c)


@SETTINGS
@given(st.text(), CODES, ANSWERS, st.sampled_from(["en", "es"]))
def test_what_the_writer_writes_reads_back_exactly(name, code, answers, lang):
    text = format_diagnoses(name, code, answers, lang)
    reading = parse_diagnoses(text.encode("utf-8"))
    assert reading.ids == tuple(sorted(answers))
    assert reading.codes == (code.strip(),)
    for run_id, (slug, evidence) in answers.items():
        answer = reading.answer(run_id)
        assert (answer.slug, answer.status) == (slug, "named" if slug else "unsure")
        assert answer.evidence == normalise_evidence(evidence)


@SETTINGS
@given(EVIDENCE)
def test_normalising_evidence_is_idempotent(text):
    once = normalise_evidence(text)
    assert normalise_evidence(once) == once


def test_the_writer_follows_the_design_format():
    text = format_diagnoses("Borja", "7KQ2-M9XF", {
        "02": ("broken-mask", "Loss below the floor.\n## 03 is next"),
        "01": ("no-warmup", "Panel 2 starts at lr_max; the loss jumps at step 2 and recovers."),
        "03": (None, "")}, "en")
    assert text == """# Diagnoses — Borja
<!-- scenario: 7KQ2-M9XF -->

## 01
Diagnosis: no-warmup
Evidence: Panel 2 starts at lr_max; the loss jumps at step 2 and recovers.

## 02
Diagnosis: broken-mask
Evidence: Loss below the floor.
\\## 03 is next

## 03
Diagnosis: not sure
Evidence:
"""
    spanish = format_diagnoses("Ana", "X", {"01": (None, "nada")}, "es")
    assert "# Diagnósticos — Ana\n" in spanish
    assert "Diagnóstico: no lo sé\nEvidencia: nada\n" in spanish


@pytest.mark.parametrize("args, message", [
    (("A", "C", {"01": ("bad-init", "")}, "fr"), "language 'fr'"),
    (("A", "C", {"1": ("bad-init", "")}, "en"), "ID '1'"),
    (("A", "C", {"00": ("bad-init", "")}, "en"), "ID '00'"),
    (("A", "C", {"01": ("healthy", "")}, "en"), "'healthy' is not a break"),
    (("A", "a-->b", {}, "en"), "cannot be written in a comment"),
    (("A", " ", {}, "en"), "cannot be written in a comment"),
])
def test_the_writer_refuses_what_it_cannot_write(args, message):
    with pytest.raises(ValueError, match=message):
        format_diagnoses(*args)


# --- the section rule (issue 23): a rule over generated shapes, not a list of shapes ----------

LEVEL1 = breaks()
PHRASES = sorted({(slug, b.title[lang]) for slug, b in LEVEL1.items() for lang in ("en", "es")}
                 | {(slug, slug) for slug in LEVEL1})
BULLET = st.sampled_from(["", "- ", "* ", "+ ", "• ", "> ", "> - ", "  - "])
CHECK = st.sampled_from(["", "[ ] ", "[x] ", "[X] "])
ID_WORD = st.sampled_from(["", "Run ", "Experiment ", "Experimento ", "ID ", "ID: ", "Ejecución ",
                           "Exp. ", "Caso ", "Test ", "run #", "#"])
PUNCT = st.sampled_from([":", " :", " —", " –", " -", " →", ")", ".", "]", " ->", " =", "："])
EMPH = st.sampled_from(["", "**", "__"])
SECTIONS = settings(max_examples=examples(120), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def section_lines(draw):
    """A line that opens an ID's section, and the break it names."""
    number = draw(st.integers(1, 9))
    word, punct = draw(ID_WORD), draw(PUNCT)
    run = f"{number:02d}" if not word or draw(st.booleans()) else str(number)
    bracket = draw(st.sampled_from(["", "[", "("])) if punct in ("]", ")") else ""
    if punct == "]" and bracket != "(":
        bracket = "[" if bracket else ""
    if punct == ")" and bracket == "[":
        bracket = "("
    emph = draw(EMPH)
    slug, phrase = draw(st.sampled_from(PHRASES))
    head = f"{emph}{bracket}{word}{run}{punct.strip() if emph else punct}{emph}"
    label = draw(st.sampled_from(["", "Diagnosis: ", "Fallo: ", "**Diagnóstico:** "]))
    return f"{draw(BULLET)}{draw(CHECK)}{head} {label}{phrase}", f"{number:02d}", slug


@SECTIONS
@given(st.lists(section_lines(), min_size=1, max_size=4, unique_by=lambda x: x[1]),
       st.sampled_from(["", "# Diagnoses — Ana\n", "## Notas\nresumen\n"]))
def test_a_line_whose_first_token_is_an_id_set_apart_opens_its_section(lines, preamble):
    text = preamble + "\n".join(line for line, _, _ in lines) + "\n"
    reading = parse_diagnoses(text)
    assert {a.id: a.slug for a in reading.answers} == {run: slug for _, run, slug in lines}, text


NEUTRAL = st.sampled_from([
    "the loss starts at 230", "grad norm 40 at step 2", "Panel 3 is flat", "Run 3 looks the same",
    "la pérdida baja lento", "it recovers by step 50", "see the reference", "σ is 3x at step 0"])
MARKER = st.sampled_from(["{n}. ", "{n}) ", "({n}) ", "- {n}. ", "[{n}] "])


@SECTIONS
@given(st.sampled_from(PHRASES), st.lists(st.tuples(MARKER, st.integers(1, 9), NEUTRAL),
                                          min_size=1, max_size=5),
       st.sampled_from(["## 01\nDiagnosis: {p}\n", "Run 1: {p}\nEvidence:\n",
                        "### Experimento 01\nFallo: {p}\n"]))
def test_numbered_lines_inside_a_section_are_evidence(answer, items, opening):
    slug, phrase = answer
    evidence = "\n".join(marker.format(n=n) + words for marker, n, words in items)
    reading = parse_diagnoses(opening.format(p=phrase) + evidence + "\n")
    assert reading.ids == ("01",)
    assert reading.answer("01").slug == slug
    assert all(words in reading.answer("01").evidence for _, _, words in items)


@SECTIONS
@given(st.sampled_from(PHRASES), st.sampled_from(PHRASES), st.integers(2, 9),
       st.sampled_from(["{n}. ", "{n}) ", "({n}) "]),
       st.sampled_from(["", "Fallo: ", "Diagnosis: ", "**Respuesta:** "]))
def test_a_numbered_line_with_an_answer_or_a_break_opens_a_new_section(first, second, number,
                                                                       marker, label):
    text = f"## 01\nDiagnosis: {first[1]}\n{marker.format(n=number)}{label}{second[1]}\n"
    reading = parse_diagnoses(text)
    assert {a.id: a.slug for a in reading.answers} == {"01": first[0],
                                                       f"{number:02d}": second[0]}


@SECTIONS
@given(st.sampled_from(["Step", "Panel", "Figure", "Paso", "Capa", "Layer", "step", "x"]),
       st.integers(1, 9), PUNCT, st.sampled_from(PHRASES))
def test_a_number_after_a_word_outside_the_closed_list_opens_nothing(word, number, punct, phrase):
    text = f"## 01\nDiagnosis: {phrase[1]}\n{word} {number}{punct} {phrase[1]}\n"
    assert parse_diagnoses(text).ids == ("01",)
