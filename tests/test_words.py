"""The message catalogs (`scenarios/words.py`, `tools/words.py`): every sentence the code says is
in every language's catalog, translated, with the same placeholders, and compiled; the same of
each break folder's own catalog (its break.toml's texts and its signature.py's findings), whose
messages the game's catalog no longer holds.

A failure names the messages: run `python tools/words.py` (it updates the catalogs and lists what
is left to translate), translate, run it again, commit. Needs Babel (the `test` extra).
"""

from __future__ import annotations

import ast
import importlib.util
import string
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scenarios.words import LANGS, N_, SOURCE_LANG, say, say_n, translator

ROOT = Path(__file__).resolve().parents[1]
TRANSLATED = [lang for lang in LANGS if lang != SOURCE_LANG]
# every built-in break folder, and the test deck's (a course author's example)
BREAK_FOLDERS = sorted((ROOT / "scenarios" / "breaks").iterdir()) + [
    ROOT / "tests" / "data" / "course-deck" / "huge-init"]
BREAK_FOLDERS = [f for f in BREAK_FOLDERS if (f / "break.toml").is_file()]


@pytest.fixture(scope="module")
def tooling():
    pytest.importorskip("babel", reason="Babel is in the test extra: pip install -e '.[test]'")
    spec = importlib.util.spec_from_file_location("words_tool", ROOT / "tools" / "words.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def template(tooling):
    return tooling.extract()


def forms(text: str | tuple[str, ...]) -> tuple[str, ...]:
    """A message's forms: itself, or a counted message's singular and plurals (`say_n`)."""
    return tuple(text) if isinstance(text, tuple | list) else (text,)


def fields(text: str | tuple[str, ...]) -> set[str]:
    """The placeholders of a message: `{path}` and `{score:.1f}` give {"path", "score"} (a
    counted message: those of all its forms)."""
    return {name for form in forms(text) for _, name, _, _ in string.Formatter().parse(form)
            if name is not None}


def said_as(lang: str, message: str | tuple[str, ...], count: float = 2, /,
            **values: object) -> str:
    """A message of the catalogs said in `lang`: `say`, or `say_n` for a counted one."""
    if isinstance(message, tuple):
        return say_n(lang, message[0], message[1], count, **values)
    return say(lang, message, **values)


def dummy(text: str | tuple[str, ...]) -> dict[str, object]:
    """A value for each placeholder of `text` that its format spec accepts."""
    values: dict[str, object] = {}
    for _, name, spec, _ in (part for form in forms(text)
                             for part in string.Formatter().parse(form)):
        if name is not None:
            kind = (spec or "s")[-1]
            values[name] = 1.5 if kind in "eEfFgG%" else 7 if kind in "dxXbon,_" else "x"
    return values


def test_say_fills_placeholders_and_leaves_braces_alone_without_values():
    assert say("en", "Saved {path}", path="a.md") == "Saved a.md"
    assert say("en", "a {literal} brace") == "a {literal} brace"
    assert N_("Saved {path}") == "Saved {path}"


@given(st.text(max_size=60), st.sampled_from(LANGS))
def test_a_sentence_no_catalog_has_comes_back_as_written_without_values(text, lang):
    """No values, no formatting (braces and percent signs survive); no message, English."""
    message = "(not a message) " + text
    assert say(lang, message) == message


@given(st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), st.text(max_size=20),
                       min_size=1, max_size=4), st.sampled_from(LANGS))
def test_values_are_put_in_as_given_never_formatted_again(values, lang):
    message = " ".join(f"<{{{name}}}>" for name in values)
    said = say(lang, message, **values)
    assert said == " ".join(f"<{value}>" for value in values.values())


def test_an_unknown_language_is_an_error_not_english():
    with pytest.raises(KeyError):
        say("xx", "Saved {path}", path="a.md")
    with pytest.raises(KeyError):
        translator("EN")


def test_a_message_no_catalog_has_is_said_in_english():
    for lang in LANGS:
        assert say(lang, "No catalog has this {n}", n=3) == "No catalog has this 3"
        assert translator(lang) is translator(lang)  # read once


def test_the_catalogs_hold_exactly_the_messages_the_sources_say(tooling, template):
    said = {(message.context, message.id) for message in template if message.id}
    assert said, "the extraction found no message: check tools/words.py's KEYWORDS"
    for lang in TRANSLATED:
        held = {(message.context, message.id) for message in tooling.read_catalog(lang)
                if message.id}
        missing, obsolete = sorted(said - held), sorted(held - said)
        assert not missing, f"{lang}: not in the catalog (run tools/words.py): {missing}"
        assert not obsolete, f"{lang}: no longer said by the code (run tools/words.py): {obsolete}"


def test_every_message_is_translated_with_the_same_placeholders(tooling):
    for lang in TRANSLATED:
        catalog = tooling.read_catalog(lang)
        assert not tooling.untranslated(catalog), (
            f"{lang}: untranslated or fuzzy: {tooling.untranslated(catalog)}")
        changed = [(m.id, form) for m in catalog if m.id for form in forms(m.string)
                   if fields(m.id) != fields(form)]
        assert not changed, f"{lang}: placeholders differ from the English: {changed}"


def test_every_compiled_catalog_is_its_po_compiled(tooling):
    from babel.messages.mofile import read_mo

    for lang in TRANSLATED:
        with tooling.catalog_file(lang, ".mo").open("rb") as compiled:
            committed = {(m.context, forms(m.id)): forms(m.string)
                         for m in read_mo(compiled) if m.id}
        source = {(m.context, forms(m.id)): forms(m.string) for m in tooling.read_catalog(lang)
                  if m.id and m.string and not m.fuzzy}
        assert committed == source, f"{lang}: diagnose.mo is stale: run tools/words.py"


# --- each break's own catalog -----------------------------------------------------------------

@pytest.mark.parametrize("folder", BREAK_FOLDERS, ids=lambda folder: folder.name)
def test_each_break_catalog_holds_exactly_its_messages_translated_and_compiled(tooling, folder):
    """Its break.toml's texts and its signature.py's findings: none missing, none obsolete,
    each translated with the English's placeholders, the `.mo` its `.po` compiled."""
    from babel.messages.mofile import read_mo

    said = {(m.context, m.id) for m in tooling.extract_break(folder) if m.id}
    assert said, f"{folder.name}: no message found (break.toml's texts?)"
    for lang in TRANSLATED:
        catalog = tooling.read_break_catalog(folder, lang)
        held = {(m.context, m.id) for m in catalog if m.id}
        missing, obsolete = sorted(said - held, key=str), sorted(held - said, key=str)
        assert not missing, (f"{folder.name} ({lang}): not in its catalog (run tools/words.py):"
                             f" {missing}")
        assert not obsolete, (f"{folder.name} ({lang}): no longer said by the break (run "
                              f"tools/words.py): {obsolete}")
        assert not tooling.untranslated(catalog), (
            f"{folder.name} ({lang}): untranslated or fuzzy: {tooling.untranslated(catalog)}")
        changed = [(m.id, form) for m in catalog if m.id for form in forms(m.string)
                   if fields(m.id) != fields(form)]
        assert not changed, f"{folder.name} ({lang}): placeholders lost or added: {changed}"
        with tooling.break_catalog_file(folder, lang, ".mo").open("rb") as compiled:
            committed = {(m.context, forms(m.id)): forms(m.string)
                         for m in read_mo(compiled) if m.id}
        source = {(m.context, forms(m.id)): forms(m.string) for m in catalog
                  if m.id and m.string and not m.fuzzy}
        assert committed == source, f"{folder.name} ({lang}): break.mo is stale: run tools/words.py"


def test_a_built_in_breaks_texts_are_never_english_at_run_time_in_another_language(tooling):
    """What the catalog loads is its catalog's translation, text by text."""
    import scenarios
    from scenarios.catalog import text_context

    for slug, brk in scenarios.breaks(None).items():
        folder = ROOT / "scenarios" / "breaks" / slug
        for lang in TRANSLATED:
            held = {(m.context, m.id): m.string for m in tooling.read_break_catalog(folder, lang)
                    if m.id}
            loaded = {"title": brk.title[lang], "summary": brk.summary[lang],
                      **{text_context(key): getattr(brk.reveal[lang], key)
                         for key in ("changed", "engine_differs", "real_world")},
                      **{text_context("panels", n): text
                         for n, text in brk.reveal[lang].panels.items()}}
            for context, english in tooling.break_texts(folder):
                assert loaded[context] == held[(context, english)], (slug, lang, context)


def test_the_game_catalog_holds_no_message_only_a_break_says(tooling):
    """Deleting a break's folder leaves nothing behind in scenarios/locale/."""
    game = {(m.context, m.id) for m in tooling.extract() if m.id}
    for folder in tooling.break_folders():
        own = {(m.context, m.id) for m in tooling.extract_break(folder) if m.id}
        for lang in TRANSLATED:
            held = {(m.context, m.id) for m in tooling.read_catalog(lang) if m.id}
            assert not (own - game) & held, (folder.name, sorted((own - game) & held, key=str))


def test_a_finding_is_said_from_its_breaks_catalog(tooling):
    """`sig.said` in a break's signature.py: its Spanish is the break's catalog's."""
    from diagnose.diagnosis.signatures import Finding, Signature
    from diagnose.phrases import Phrase
    from scenarios import breaks

    brk = breaks(None)["bad-init"]
    message = "step-0 activations {act0_ratio}x the reference's, before any update"
    found = [Finding(4, "act0_ratio", 2.5, Phrase(message, act0_ratio="2.5"))]

    class Probe(Signature):
        def findings(self, fig, header):
            return found

    (said,) = Probe(brk).findings({}, {})
    spanish = {m.id: m.string for m in tooling.read_break_catalog(brk.folder, "es")}[message]
    assert said.text["es"] == spanish.format(act0_ratio="2.5") != said.text["en"]
    assert found[0].text["es"] == said.text["en"]  # the game's catalog no longer holds it


def test_every_message_formats_in_every_language(template):
    for message in template:
        if not message.id:
            continue
        values = dummy(message.id)
        for lang in LANGS:
            for count in (1, 2):
                assert said_as(lang, message.id, count, **values), (lang, message.id)


def test_the_messages_format_with_keywords_only(template):
    """`say` passes keywords: a positional `{}` or `{0}` would raise at run time."""
    positional = [m.id for m in template if m.id
                  and any(name == "" or name.isdigit() for name in fields(m.id))]
    assert not positional, f"name each placeholder: {positional}"


def message_position(spec) -> int:
    """Where a keyword's message is among its call's arguments (Babel's keyword spec: None for
    the first, else 1-based positions, a context one as (n, "c"))."""
    return 0 if spec is None else next(n for n in spec if isinstance(n, int)) - 1


def said_in_sources(tooling) -> list[tuple[str, ast.expr]]:
    """(where, message argument) of every call to an extraction keyword (`say(lang, message)`,
    `N_(message)`, ...) in the sources, found by the parser, which also sees calls inside
    f-strings' braces."""
    positions = {name: message_position(spec) for name, spec in tooling.KEYWORDS.items()}
    calls = []
    for source in tooling.SOURCES:
        for file in sorted((ROOT / source).rglob("*.py")):
            for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                position = positions.get(name)
                if position is not None and len(node.args) > position:
                    where = f"{file.relative_to(ROOT)}:{node.lineno}"
                    calls.append((where, node.args[position]))
    return calls


def test_every_literal_message_in_the_sources_is_extracted(tooling, template):
    """Babel's extractor does not look inside an f-string's braces (Python 3.11), nor can an
    f-string be a message: every literal a keyword's call receives must be in the template
    (a break folder's in that break's)."""
    def firsts(catalog) -> set[str]:
        return {forms(message.id)[0] for message in catalog if message.id}

    extracted = firsts(template)
    per_break = {f"scenarios/breaks/{folder.name}/": firsts(tooling.extract_break(folder))
                 for folder in tooling.break_folders()}
    unseen, formatted = [], []
    for where, argument in said_in_sources(tooling):
        held = next((said for folder, said in per_break.items() if where.startswith(folder)),
                    extracted)
        if isinstance(argument, ast.JoinedStr):
            formatted.append(where)
        elif (isinstance(argument, ast.Constant) and isinstance(argument.value, str)
              and argument.value not in held):
            unseen.append(f"{where}: {argument.value!r}")
    assert not formatted, f"an f-string as a message (use placeholders): {formatted}"
    assert not unseen, f"not extracted (a call inside an f-string?): {unseen}"


def test_a_new_language_starts_as_a_catalog_listing_every_message_to_translate(
        tooling, template, tmp_path, monkeypatch):
    """`tools/words.py --add fr`, in a scratch folder: every message, none translated; and once
    one is translated, the compiled catalog says it (the stdlib reads what Babel wrote)."""
    import gettext

    monkeypatch.setattr(tooling, "LOCALE", tmp_path)
    tooling.add(template, "fr")
    said = {m.id for m in template if m.id}
    assert set(tooling.update(template, "fr")) == {forms(m)[0] for m in said}
    catalog = tooling.read_catalog("fr")
    message = sorted(m for m in said if isinstance(m, str))[0]
    catalog[message].string = "(fr) " + message
    tooling.write("fr", catalog)
    assert set(tooling.update(template, "fr")) == {forms(m)[0] for m in said} - {message}
    with tooling.catalog_file("fr", ".mo").open("rb") as compiled:
        assert gettext.GNUTranslations(compiled).gettext(message) == "(fr) " + message


def test_the_command_line_speaks_the_catalog(tmp_path, monkeypatch):
    """`diagnose breaks` and `diagnose progress` in Spanish: headings, notes and every title."""
    from click.testing import CliRunner

    from diagnose.cli import cli
    from scenarios import all_levels, breaks

    monkeypatch.setenv("DIAGNOSE_HOME", str(tmp_path))
    shown = CliRunner().invoke(cli, ["breaks", "--lang", "es"], catch_exceptions=False)
    assert shown.exit_code == 0
    for level in all_levels():
        assert f"Nivel {level.number}: {level.name['es']}\n" in shown.output
        for brk in breaks(level.number).values():
            assert all(f"  {lang}: {brk.title[lang]}\n" in shown.output for lang in LANGS)
    erased = CliRunner().invoke(cli, ["progress", "--reset", "--yes", "--lang", "es"],
                                catch_exceptions=False)
    assert (erased.exit_code, erased.output) == (0, "No hay progreso que borrar.\n")
