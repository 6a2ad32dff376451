"""Reading diagnoses files as students write them, in English and Spanish, in many shapes.

Each case is a whole hand-written file and what each ID must be read as: a slug, or the
status when no single break is named (`ambiguous`, `unsure`, `empty`, `nothing`).
"""

from __future__ import annotations

import pytest
from grading_testkit import outcome

from grading import diagnoses as d
from grading.diagnoses import DiagnosesError, parse_diagnoses, read_diagnoses

W, I, M = "no-warmup", "bad-init", "broken-mask"

FILES = {
    "design example": ("""# Diagnoses — Borja
<!-- scenario: 7KQ2-M9XF -->

## 01
Diagnosis: no-warmup
Evidence: Panel 2 starts at lr_max; the loss jumps at step 2 and recovers.

## 02
Diagnosis: broken-mask
Evidence: loss far below the floor, unlike bad init.

## 03
Diagnosis: bad-init
Evidence: Panel 4 is huge at step 0 although the warmup looks fine.
""", {"01": W, "02": M, "03": I}),

    "bold labels, run headings": ("""# My diagnoses

## Run 01
**Diagnosis**: Missing warmup
**Evidence**: the LR (panel 2) starts at max instead of near zero. Not a mask problem.

## Run 02
**Diagnosis:** bad initialization
**Evidence:** loss ~230 at step 0.

## Run 03
*Diagnosis*: causal mask
""", {"01": W, "02": I, "03": M}),

    "answer in the heading": ("""# Break-it lab

## 01 — bad init
Loss at step 0 is 230 and the activations are 10^4 times the reference.

## 02 - no warmup
The LR starts at lr_max. Could the init be off? No, activations look sane.

## 03: broken mask
Val loss is below the entropy floor.
""", {"01": I, "02": W, "03": M}),

    "colon lines": ("""01: bad init (loss starts at 220)
02: causal mask is broken — loss below floor
03: no LR warmup
""", {"01": I, "02": M, "03": W}),

    "bulleted colon lines": ("""Diagnoses:
- 01: no warmup
- 02: Xavier x100
* 03: future leak
""", {"01": W, "02": I, "03": M}),

    "bold IDs": ("""**01** Bad initialization. Activations huge at step 0.

**02** — look-ahead: the model sees the future.

**Run 03:** learning-rate warmup missing
""", {"01": I, "02": M, "03": W}),

    "table with a diagnosis column": ("""| ID | Diagnosis | Evidence |
|----|-----------|----------|
| 01 | no warmup | LR starts at max, unlike bad init |
| 02 | **bad init** | loss 230 at step 0 |
| 03 | mask | below the floor; not the warmup |
""", {"01": W, "02": I, "03": M}),

    "table without pipes at the edges": ("""Run | Answer
--- | ---
1 | no warmup
2 | bad init
3 | broken mask
""", {"01": W, "02": I, "03": M}),

    "label on the next line and sub-headings": ("""## 01
**Diagnosis:**
broken mask

**Evidence:**
1. train and val both below the floor
2. bad init would start at 220, it does not

## 02
### Diagnosis
Bad init
### Evidence
- Panel 4 is 10^4x the reference
### Panel 3
grad norm spikes, a warmup problem would not

## 03
### Diagnosis
- no warmup
""", {"01": M, "02": I, "03": W}),

    "only a numbered list": ("""1. no warmup
2. bad init
3. broken mask
""", {"01": W, "02": I, "03": M}),

    "run lines with dashes": ("""Run 1: no warmup
Run 2 - bad init
Run 3 — broken mask
""", {"01": W, "02": I, "03": M}),

    "headings without leading zeros": ("""## 1
Answer: warm-up
## 2
Answer: init
## 3
Answer: attention mask
""", {"01": W, "02": I, "03": M}),

    "strike, comments and a template": ("""<!-- Write one of: bad-init, no-warmup, broken-mask -->
## 01
Diagnosis: ~~bad init~~ no warmup
## 02
Diagnosis: <!-- bad-init | no-warmup | broken-mask --> broken-mask
## 03
<!--
Diagnosis: no-warmup
-->
Diagnosis: bad-init
""", {"01": W, "02": M, "03": I}),

    "code fence in the evidence": ("""## 01
Diagnosis: broken-mask
```python
# the mask should be np.tril; with bad init the loss would be huge
mask = np.ones((T, T))
## 02
```
## 02
Diagnosis: bad init
## 03
Diagnosis: no warmup
""", {"01": M, "02": I, "03": W}),

    "summary and notes outside the sections": ("""# Diagnoses
The three breaks were bad init, no warmup and a broken mask.

## 01
Diagnosis: no warmup
## 02
Diagnosis: broken mask
## 03
Diagnosis: bad init

## Notes
Unlike the mask run, the warmup run recovers; bad init never does.
""", {"01": W, "02": M, "03": I}),

    "blockquote and odd heading forms": ("""> **01**: no warmup

### Experiment #2 (the odd one)
Break: Look-ahead / future leak

#### ID: 03
Verdict: weights too large
""", {"01": W, "02": M, "03": I}),

    "free text only": ("""## 01
The learning rate starts at its peak, so there is no warmup.

## 02
Everything is huge from step 0: Xavier ×100.

## 03
Val loss below the entropy floor: it sees the future.
""", {"01": W, "02": I, "03": M}),

    "statuses": ("""## 01
Diagnosis: not sure
It could be the warmup or the mask.

## 02
Diagnosis: no-warmup (not bad-init)

## 03
The learning rate starts at its peak: no warmup. It is not the mask.
""", {"01": "unsure", "02": d.AMBIGUOUS, "03": d.AMBIGUOUS}),

    "empty, nothing, question mark": ("""## 01
Diagnosis:
Evidence: I ran out of time

## 02
Diagnosis: healthy, looks like the reference

## 03
Diagnosis: ?
""", {"01": "empty", "02": "nothing", "03": "unsure"}),

    "Spanish, TUI-like": ("""# Diagnósticos — Ana
<!-- scenario: 7KQ2-M9XF -->

## 01
Diagnóstico: sin warmup
Evidencia: el LR empieza en el máximo.

## 02
Diagnóstico: mala inicialización
Evidencia: la pérdida empieza en 230.

## 03
Diagnóstico: máscara causal rota
""", {"01": W, "02": I, "03": M}),

    "Spanish experiments, bold labels": ("""## Experimento 01
**Diagnóstico:** sin warm-up
**Evidencia:** el panel 2 arranca en lr_max, no es la máscara

### Experimento 02
**Fallo**: pesos demasiado grandes

## Experimento 03 — máscara rota
El panel 1 cae por debajo del suelo.
""", {"01": W, "02": I, "03": M}),

    "Spanish without accents": ("""01: mala inicializacion
02: sin warmup
03: mascara rota
""", {"01": I, "02": W, "03": M}),

    "Spanish ejecuciones and respuesta": ("""### Ejecución 1
Respuesta: ve el futuro
### Ejecución 2
Diagnostico: sin calentamiento
### Ejecución 3
Diagnóstico: Mala init (Xavier x100)
""", {"01": M, "02": W, "03": I}),

    "Spanish statuses": ("""## 01
Diagnóstico: no lo sé
Puede ser el warmup.

## 02
Creo que es la máscara, no el warmup.

## 03
Fallo: la máscara causal está rota
""", {"01": "unsure", "02": d.AMBIGUOUS, "03": M}),

    "Spanish table": ("""| Ejecución | Diagnóstico | Evidencia |
|:---:|:---|:---|
| 1 | sin warmup | el LR empieza alto |
| 2 | máscara | pérdida bajo el suelo |
| 3 | mala inicialización | activaciones enormes |
""", {"01": W, "02": M, "03": I}),

    "Spanish bullets with bold experiments": ("""- **Experimento 1**: sin warmup
- **Experimento 2**: mala inicialización
- **Experimento 3**: sin máscara
""", {"01": W, "02": I, "03": M}),

    "bulleted and quoted labels": ("""## 01
- Diagnosis: bad init
- Evidence: loss 230 at step 0
## 02
> **Respuesta:** sin warmup
## 03
* _Break_ — future leak
""", {"01": I, "02": W, "03": M}),

    "mixed languages": ("""## Run 01
Diagnóstico: no warmup
## Experimento 02
Diagnosis: máscara rota
## 03
Fallo: bad init
""", {"01": W, "02": M, "03": I}),
}


@pytest.mark.parametrize("name", FILES)
def test_hand_written_files(name):
    text, expected = FILES[name]
    assert outcome(parse_diagnoses(text)) == expected


@pytest.mark.parametrize("name", ["design example", "Spanish, TUI-like", "table with a "
                                  "diagnosis column", "free text only"])
def test_line_endings_and_bom_do_not_matter(name):
    text, expected = FILES[name]
    for data in (text.replace("\n", "\r\n").encode(), b"\xef\xbb\xbf" + text.encode(),
                 text.replace("\n", "\r").encode("utf-8-sig")):
        assert outcome(parse_diagnoses(data)) == expected


def test_the_answer_line_wins_over_the_evidence():
    text = "## 01\nDiagnosis: bad init\nEvidence: no warmup, no mask"
    answer = parse_diagnoses(text).answer("01")
    assert (answer.slug, answer.source, answer.label) == ("bad-init", d.FROM_LABEL, "Diagnosis")
    assert answer.evidence == "no warmup, no mask"


def test_the_heading_wins_over_the_free_text_but_not_over_an_answer_line():
    reading = parse_diagnoses("## 01 — no warmup\nnot bad init\n## 02 — no warmup\n"
                              "Fallo: bad init")
    assert reading.answer("01").source == d.FROM_HEADING
    assert outcome(reading) == {"01": "no-warmup", "02": "bad-init"}


def test_a_heading_that_names_nothing_falls_back_to_the_text():
    answer = parse_diagnoses("## Run 01 (the odd one)\nIt has no warmup.").answer("01")
    assert (answer.slug, answer.source) == ("no-warmup", d.FROM_TEXT)


def test_a_diagnosis_heading_only_titles_its_section():
    reading = parse_diagnoses("## Diagnóstico 01\nEl panel 2 empieza alto.\nsin warmup\n"
                              "Diagnosis 02: bad init\n")
    assert outcome(reading) == {"01": "no-warmup", "02": "bad-init"}


def test_evidence_lines_that_look_like_ids_start_nothing():
    reading = parse_diagnoses("""## 01
Diagnosis: bad init
1. the loss starts at 220
2. Run 3 looks the same at step 0
Step 2: the grad norm spikes
Panel 3: clipped
### Panel 2
flat
""")
    assert reading.ids == ("01",)


def test_a_table_of_numbers_in_the_evidence_starts_nothing():
    answer = parse_diagnoses("""## 01
Diagnosis: bad init
| step | loss |
|------|------|
| 0    | 230  |
| 1    | 180  |
""").answer("01")
    assert parse_diagnoses(answer.evidence).answers == ()
    assert answer.evidence.splitlines() == ["| step | loss |", "| 0    | 230  |",
                                            "| 1    | 180  |"]


def test_a_second_section_for_an_id_is_read_with_the_first():
    reading = parse_diagnoses("## 01\nDiagnosis: bad init\n## 02\nDiagnosis: mask\n"
                              "## 01 (revisited)\nDiagnosis: no warmup\n")
    assert reading.duplicates == ("01",)
    assert outcome(reading) == {"01": d.AMBIGUOUS, "02": "broken-mask"}
    assert reading.answer("01").read == "bad init / no warmup"


def test_unknown_and_missing_ids():
    reading = parse_diagnoses("## 04\nDiagnosis: bad init\n## 99\nno warmup\n")
    assert reading.ids == ("04", "99")
    assert reading.answer("01").status == d.MISSING


def test_empty_and_blank_files_have_no_sections():
    for data in (b"", b"   \n\n", "\ufeff".encode(), b"# Diagnoses\n\nnothing yet\n"):
        assert parse_diagnoses(data).answers == ()


def test_scenario_comments():
    reading = parse_diagnoses("<!-- scenario: 7KQ2-M9XF -->\n<!--escenario:ABCD-->\n"
                              "<!-- scenario: 7KQ2-M9XF -->\n<!-- a note -->\n")
    assert reading.codes == ("7KQ2-M9XF", "ABCD")


def test_the_same_bytes_give_the_same_reading_and_hash():
    text, _ = FILES["statuses"]
    assert parse_diagnoses(text) == parse_diagnoses(text.encode())
    assert parse_diagnoses(text).sha256 != parse_diagnoses(text + " ").sha256


@pytest.mark.parametrize("data, message", [
    (b"## 01\x00\x01binary", "diagnoses: binary content, not a Markdown text file"),
    ("## 01\nDiagnóstico: máscara".encode("latin-1"),
     "diagnoses: not UTF-8 text; save it as UTF-8"),
    ("## 01\nno warmup".encode("utf-16"), "diagnoses: UTF-16 text; save it as UTF-8"),
    (b"x" * (d.MAX_BYTES + 1), "diagnoses: not a diagnoses file (over 1 MiB)"),
])
def test_refusals(data, message):
    with pytest.raises(DiagnosesError) as err:
        parse_diagnoses(data)
    assert str(err.value) == message


def test_reading_files(tmp_path):
    (tmp_path / "a.md").write_text(FILES["design example"][0], encoding="utf-8")
    assert outcome(read_diagnoses(tmp_path / "a.md"))["01"] == "no-warmup"
    cases = {tmp_path / "missing.md": "no such file",
             tmp_path: "is a directory, not a diagnoses file"}
    for path, message in cases.items():
        with pytest.raises(DiagnosesError, match=message):
            read_diagnoses(path)


def test_a_huge_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    big = tmp_path / "big.md"
    with big.open("wb") as stream:  # sparse: 2 GiB on paper, nothing on disk
        stream.truncate(2 * 1024 ** 3)
    monkeypatch.setattr("pathlib.Path.open", lambda *a, **k: pytest.fail("read a huge file"))
    with pytest.raises(DiagnosesError, match="not a diagnoses file \\(over 1 MiB\\)"):
        read_diagnoses(big)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_catalogs_titles_read_as_their_break(lang):
    # The TUI shows the titles; students copy them into hand-written files.
    from scenarios import breaks

    for slug, brk in breaks().items():
        reading = parse_diagnoses(f"## 01\nDiagnosis: {brk.title[lang]}\n")
        assert outcome(reading) == {"01": slug}, brk.title[lang]


@pytest.mark.parametrize("text, expected", [
    # The file of issue 13: numbered answers after a `##` section start their own sections.
    ("## 01\nDiagnóstico: sin warmup\n\n2) Fallo: mala inicialización\n3) Fallo: máscara rota\n",
     {"01": W, "02": I, "03": M}),
    ("# Notas\n## Resumen\ntodo bien\n1) Fallo: sin warmup\n2. Break: bad init\n",
     {"01": W, "02": I}),
    ("- 1) Diagnosis: no warmup\n- 2) **Diagnóstico:** máscara rota\n", {"01": W, "02": M}),
    ("Run 1\nDiagnosis: no warmup\nRun #2: bad init\nID 03 — broken mask\n",
     {"01": W, "02": I, "03": M}),
    ("### Experimento #2\nDiagnóstico: sin warmup\nExperimento #3: mala inicialización\n",
     {"02": W, "03": I}),
    ("| Run | Fallo |\n|---|---|\n| Run 1 | sin warmup |\n| #2 | bad init |\n",
     {"01": W, "02": I}),
])
def test_the_common_hand_written_shapes_start_sections(text, expected):
    assert outcome(parse_diagnoses(text)) == expected


def test_a_numbered_evidence_list_without_a_label_still_starts_nothing():
    text = ("## 01\nDiagnosis: no warmup\nEvidence:\n1. the loss spikes, bad init?\n"
            "2) grad norm 40\n## 03\nbroken mask\n")
    assert outcome(parse_diagnoses(text)) == {"01": W, "03": M}


@pytest.mark.parametrize("lang, start", [
    ("en", 'No section for 02, 03. A section starts with a heading ("## 01"'),
    ("es", "Ninguna sección para 02, 03. Una sección empieza con un título («## 01»"),
])
def test_a_missing_section_shows_the_shapes_the_grader_reads(lang, start):
    from grading.feedback import notes

    (said,) = notes(parse_diagnoses("## 01\nbad init\n"), ("01", "02", "03"), lang)
    assert said.startswith(start)
    assert ("1) Diagnosis:" if lang == "en" else "1) Fallo:") in said


def test_a_file_is_parsed_once_at_any_level(tmp_path, monkeypatch):
    """Issue 20: levels 2-3 read every file twice. The Markdown is classified once; a level
    only reads the classified sections with its own words."""
    from grading import markdown as md

    calls = {"visible_lines": 0, "classify": 0}
    for name in calls:
        real = getattr(md, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(md, name, counted)
    file = tmp_path / "ana-diagnoses.md"
    file.write_text(FILES["Spanish experiments, bold labels"][0], encoding="utf-8")
    reading = read_diagnoses(file)
    seen = dict(calls)
    assert seen["visible_lines"] == 1 and seen["classify"] > 0
    level3 = reading.at_level(3)
    assert level3.ids == ("01", "02", "03") and level3.level == 3
    assert outcome(level3) != outcome(reading)  # level 1's words are not level 3's
    assert outcome(reading.at_level(1)) == FILES["Spanish experiments, bold labels"][1]
    assert calls == seen
