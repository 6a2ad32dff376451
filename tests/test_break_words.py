"""A break's words in every language live in its own folder's catalog (issue 36): break.toml in
English, `<slug>/locale/<lang>/LC_MESSAGES/break.po` and `.mo` for the others; the old form,
every language inline, still loads for one release with a warning, and `tools/break_words.py`
moves it, loss-free and as often as it is run.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
import shutil
import sys
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scenarios
from diagnose.cli import cli
from scenarios import CatalogError, load_catalog
from scenarios.catalog import DECK_SETTING
from scenarios.langs import LANGS
from scenarios.translations import BREAK_DOMAIN, Translations

ROOT = Path(__file__).resolve().parents[1]
DECK = ROOT / "tests" / "data" / "course-deck"  # huge-init, in the catalog form
INLINE = ROOT / "tests" / "data" / "huge-init-inline.toml"  # the same break, the old form
SLUG = "huge-init"


@pytest.fixture(scope="module")
def tool():
    pytest.importorskip("babel", reason="Babel is in the test extra: pip install -e '.[test]'")
    spec = importlib.util.spec_from_file_location("break_words_tool",
                                                  ROOT / "tools" / "break_words.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def inline_deck(folder: Path, toml: str | None = None) -> Path:
    """A deck holding huge-init in the old form (`toml`, else the committed one), no catalog."""
    (folder / SLUG).mkdir(parents=True)
    (folder / SLUG / "break.toml").write_text(
        toml if toml is not None else INLINE.read_text(encoding="utf-8"), encoding="utf-8")
    shutil.copy(DECK / SLUG / "signature.py", folder / SLUG / "signature.py")
    return folder


def texts(brk: scenarios.Break) -> dict:
    return {"title": brk.title, "summary": brk.summary,
            "reveal": {lang: dataclasses.asdict(r) for lang, r in brk.reveal.items()}}


def deck_break(deck: Path) -> scenarios.Break:
    return load_catalog(resources.files("scenarios"), deck=deck).breaks[SLUG]


def test_every_built_in_break_writes_english_and_keeps_the_rest_in_its_catalog():
    for slug, brk in scenarios.breaks(None).items():
        assert not brk.inline, (f"{slug}: break.toml writes translations inline: run python "
                                "tools/words.py (it moves them to the break's catalog)")
        for lang in LANGS:
            assert Translations(brk.folder, BREAK_DOMAIN).has(lang), (slug, lang)
        spanish = brk.reveal["es"]
        assert brk.title["es"] != brk.title["en"] and spanish.changed != brk.reveal["en"].changed


def test_the_old_form_loads_the_same_texts_with_a_warning_naming_the_file(tmp_path):
    old = inline_deck(tmp_path / "old")
    before, after = deck_break(old), deck_break(DECK)
    assert before.inline == ("title", "summary", "reveal") and not after.inline
    assert texts(before) == texts(after) and before.words == after.words
    out = CliRunner().invoke(cli, ["--deck", str(old), "breaks", "--lang", "es"],
                             catch_exceptions=False)
    assert out.exit_code == 0
    warning = [line for line in out.output.splitlines() if "inline" in line]
    assert warning == [
        f"Warning: {old}/{SLUG}/break.toml: translations inline ([title], [summary], [reveal] "
        "in every language) are read for one more release; move them to the break's catalog: "
        f"python tools/break_words.py {old}/{SLUG} (docs/course-authors.md)"]
    assert f"  es: {after.title['es']}\n" in out.output
    new = CliRunner().invoke(cli, ["--deck", str(DECK), "breaks"], catch_exceptions=False)
    assert "inline" not in new.output


def test_migrating_a_deck_moves_every_text_and_a_second_run_changes_nothing(tool, tmp_path):
    deck = inline_deck(tmp_path / "deck")
    before = deck_break(deck)
    assert tool.main([str(deck)]) == 0
    folder = deck / SLUG
    after = deck_break(deck)
    assert not after.inline and texts(after) == texts(before)
    def text_entries(folder: Path) -> dict:
        return {(m.context, m.id): m.string for m in tool.read_break_catalog(folder, "es")
                if m.id and m.context}  # the committed one also holds its finding

    assert text_entries(folder) == text_entries(DECK / SLUG) and len(text_entries(folder)) == 7
    assert (folder / "break.toml").read_text(encoding="utf-8").endswith(
        (DECK / SLUG / "break.toml").read_text(encoding="utf-8").split("\n", 1)[1])
    written = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert tool.migrate(folder) is False
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == written


def test_a_break_toml_inline_again_replaces_the_catalogs_texts_and_keeps_the_rest(
        tool, tmp_path):
    """The merge of a branch that edited the old form's texts: its texts win, the catalog's
    other messages (a finding's) stay."""
    folder = tmp_path / "deck" / SLUG
    shutil.copytree(DECK / SLUG, folder)
    catalog = tool.read_break_catalog(folder, "es")
    catalog.add("a finding {x}", "un hallazgo {x}")
    tool.write_break_catalog(folder, "es", catalog)
    edited = INLINE.read_text(encoding="utf-8").replace(
        "Initialisation far too large", "Init far too large").replace(
        "Inicialización mucho más grande", "Init mucho más grande")
    (folder / "break.toml").write_text(edited, encoding="utf-8")
    assert tool.migrate(folder) is True
    brk = deck_break(folder.parent)
    assert brk.title == {"en": "Init far too large", "es": "Init mucho más grande"}
    held = {(m.context, m.id): m.string for m in tool.read_break_catalog(folder, "es") if m.id}
    assert held[(None, "a finding {x}")] == "un hallazgo {x}"
    assert ("title", "Initialisation far too large") not in held


def test_a_text_the_catalog_lacks_is_english_and_a_broken_catalog_one_line(tmp_path):
    deck = tmp_path / "deck"
    shutil.copytree(DECK, deck)
    mo = deck / SLUG / "locale" / "es" / "LC_MESSAGES" / "break.mo"
    mo.unlink()
    brk = deck_break(deck)
    assert brk.title["es"] == brk.title["en"] == "Initialisation far too large"
    mo.write_bytes(b"\x00" * 64)
    with pytest.raises(CatalogError) as caught:
        deck_break(deck)
    assert str(caught.value).startswith(
        f"{deck}/{SLUG}/locale/es/LC_MESSAGES/break.mo: not a compiled message catalog")
    assert "\n" not in str(caught.value)


def test_a_reveal_half_english_half_per_language_and_an_oversized_catalog_are_one_line(
        tmp_path):
    deck = tmp_path / "deck"
    shutil.copytree(DECK, deck)
    toml = deck / SLUG / "break.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '\n[reveal.es]\nchanged = "x"\n',
                    encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        deck_break(deck)
    assert str(caught.value) == (
        f"{deck}/{SLUG}/break.toml: [reveal]: holds English texts and a table per language "
        "([reveal.es]); write the English in [reveal] alone, every other language in the "
        "break's catalog (locale/)")
    shutil.copy(DECK / SLUG / "break.toml", toml)
    mo = deck / SLUG / "locale" / "es" / "LC_MESSAGES" / "break.mo"
    mo.write_bytes(mo.read_bytes() + b"\0" * (1024 * 1024))
    with pytest.raises(CatalogError, match=r"break\.mo: not a compiled message catalog \(over "):
        deck_break(deck)


def test_the_tool_says_a_bad_folder_in_one_error_line(tool, tmp_path, capsys):
    (tmp_path / "deck" / SLUG).mkdir(parents=True)
    (tmp_path / "deck" / SLUG / "break.toml").write_text('slug = "x"\n[title\n')
    assert tool.main([str(tmp_path / "deck")]) == 1
    assert tool.main([str(tmp_path / "nothing")]) == 1
    said = capsys.readouterr().err.splitlines()
    assert said[0].startswith(f"Error: {tmp_path}/deck/{SLUG}/break.toml: cannot be read as "
                              "TOML: ")
    assert said[1:] == [f"Error: {tmp_path}/nothing: no break folder (<slug>/break.toml) there"]


def test_a_rewrite_that_would_lose_a_text_is_refused_and_writes_nothing(tool, tmp_path):
    """A title given as dotted keys (`title.en = ...`) is not a table the line-by-line rewrite
    knows: one line, and the folder as it was."""
    toml = INLINE.read_text(encoding="utf-8").replace(
        '[title]\nen = "Initialisation far too large"\nes = "Inicialización mucho más grande"\n',
        "").replace('slug = "huge-init"', 'slug = "huge-init"\ntitle.en = "T"\ntitle.es = "E"')
    deck = inline_deck(tmp_path / "deck", toml)
    before = {p: p.read_bytes() for p in deck.rglob("*") if p.is_file()}
    with pytest.raises(CatalogError, match="cannot be rewritten line by line"):
        tool.migrate(deck / SLUG)
    assert {p: p.read_bytes() for p in deck.rglob("*") if p.is_file()} == before


def test_a_claims_rewrite_writes_english_to_break_toml_and_spanish_to_the_catalog(tool, tmp_path):
    """bench/deck_texts.py --write: one text changed in both languages, one line of break.toml
    and one entry of the catalog; every other text and the findings as they were."""
    folder = tmp_path / "breaks" / "bad-init"
    shutil.copytree(ROOT / "scenarios" / "breaks" / "bad-init", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = tool.load_break(folder, "x")
    texts = tool.texts_of(before)
    texts["reveal.panels.1"] = {lang: text.replace("212", "213")
                                for lang, text in texts["reveal.panels.1"].items()}
    old_toml = (folder / "break.toml").read_text(encoding="utf-8").splitlines()
    tool.write_texts(folder, texts)
    after = tool.load_break(folder, "x")
    for lang in LANGS:
        assert "213" in after.reveal[lang].panels["1"]
        assert after.reveal[lang].panels["1"] == before.reveal[lang].panels["1"].replace(
            "212", "213")
        assert dataclasses.replace(after.reveal[lang], panels={}) == dataclasses.replace(
            before.reveal[lang], panels={})
    new_toml = (folder / "break.toml").read_text(encoding="utf-8").splitlines()
    assert [i for i, (a, b) in enumerate(zip(old_toml, new_toml, strict=True)) if a != b] == [
        next(i for i, line in enumerate(old_toml) if line.startswith("1 = "))]
    findings = {m.id for m in tool.read_break_catalog(folder, "es") if m.id and not m.context}
    assert findings == {m.id for m in tool.read_break_catalog(
        ROOT / "scenarios" / "breaks" / "bad-init", "es") if m.id and not m.context} != set()


def test_deck_texts_write_puts_a_claims_new_wording_in_break_toml_and_the_catalog(
        tmp_path, monkeypatch):
    """bench/deck_texts.py's rewrite, on a copy of the package's catalog: a claim of bad-init's
    Panel 1 re-measured, its English in break.toml and its Spanish in the break's catalog."""
    pytest.importorskip("babel", reason="Babel is in the test extra: pip install -e '.[test]'")
    spec = importlib.util.spec_from_file_location("deck_texts_words", ROOT / "bench" /
                                                  "deck_texts.py")
    deck_texts = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = deck_texts
    spec.loader.exec_module(deck_texts)
    root = tmp_path / "scenarios"
    shutil.copytree(resources.files("scenarios"), root,
                    ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.setattr(scenarios, "default_catalog", lambda: load_catalog(root))
    monkeypatch.setattr(deck_texts, "claims", lambda: [
        ("bad-init", "panels.1", lang, ["bad-init|loss0|range"]) for lang in LANGS])
    monkeypatch.setattr(deck_texts, "render", lambda claim, figures, lang: figures[lang])
    before = load_catalog(root).breaks["bad-init"]
    was = re.search(r"\d+-\d+(?= at step 0)", before.reveal["en"].panels["1"]).group()
    deck_texts.rewrite({"en": was, "es": was}, {"en": "210-256", "es": "210-256"})
    after = load_catalog(root).breaks["bad-init"]
    for lang in LANGS:
        assert after.reveal[lang].panels["1"] == before.reveal[lang].panels["1"].replace(
            was, "210-256") != before.reveal[lang].panels["1"]
    assert texts(after)["title"] == texts(before)["title"]
    toml = (root / "breaks" / "bad-init" / "break.toml").read_text(encoding="utf-8")
    assert "210-256 at step 0" in toml and "210-256 en el paso 0" not in toml


def test_a_counted_finding_is_a_plural_entry_of_the_breaks_catalog(tmp_path):
    """`sig.said_n` in a deck's signature.py: tools/words.py --deck gives the break's catalog an
    ngettext entry with Spanish's plural forms, and the finding says the form of its count."""
    pytest.importorskip("babel", reason="Babel is in the test extra: pip install -e '.[test]'")
    from diagnose.diagnosis.signatures import load_signature

    spec = importlib.util.spec_from_file_location("words_tool_plural",
                                                  ROOT / "tools" / "words.py")
    words = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = words
    spec.loader.exec_module(words)
    deck = tmp_path / "deck"
    shutil.copytree(DECK, deck, ignore=shutil.ignore_patterns("__pycache__"))
    code = deck / SLUG / "signature.py"
    said = ('said(5, "spectral0_ratio", fig,\n'
            '                     "every matrix starts {spectral0_ratio}x the reference\'s '
            '(course deck)")')
    assert said in code.read_text(encoding="utf-8")
    code.write_text(code.read_text(encoding="utf-8").replace(said, (
        'said_n(6, "dead_heads", fig, "{dead_heads} dead head (course)", '
        '"{dead_heads} dead heads (course)")')).replace("over, said", "over, said_n"),
        encoding="utf-8")
    assert words.main(["--deck", str(deck)]) == 1  # one message to translate
    catalog = words.read_break_catalog(deck / SLUG, "es")
    counted = catalog.get(("{dead_heads} dead head (course)", "{dead_heads} dead heads (course)"))
    assert counted is not None and catalog.num_plurals == 3 and len(counted.string) == 3
    counted.string = ("{dead_heads} cabeza muerta (curso)",
                      *["{dead_heads} cabezas muertas (curso)"] * 2)
    words.write_break_catalog(deck / SLUG, "es", catalog)
    assert words.main(["--deck", str(deck)]) == 0
    signature = load_signature(deck_break(deck))
    for count, spanish, english in ((1, "1 cabeza muerta (curso)", "1 dead head (course)"),
                                    (2, "2 cabezas muertas (curso)",
                                     "2 dead heads (course)")):
        (finding,) = signature.findings({"dead_heads": float(count)}, {})
        assert (finding.text["es"], finding.text["en"]) == (spanish, english)


# --- over generated texts ---------------------------------------------------------------------

ALPHABET = st.one_of(st.characters(blacklist_categories=("Cs", "Cc")),
                     st.sampled_from('"\\\n\t%{}\'#[]=ñ×≈'))
TEXT = st.text(ALPHABET, min_size=1, max_size=40).filter(lambda t: t.strip())
KEYS = ("changed", "engine_differs", "real_world")


STYLES = ("basic", "multiline", "literal")  # how a value is written in break.toml


def toml_text(text: str, style: str = "basic") -> str:
    """`text` as a TOML string: basic, multi-line basic, or literal where it can be one."""
    basic = json.dumps(text, ensure_ascii=False)  # a JSON string is a TOML basic string here
    if style == "multiline":
        return '"""' + basic[1:-1] + '"""'
    if style == "literal" and "'" not in text and "\n" not in text and "\t" not in text:
        return f"'{text}'"
    return basic


def old_form(title: dict, summary: dict, reveal: dict, style: dict) -> str:
    """A huge-init break.toml of the old form with these texts (language -> text), each value
    in `style`'s way (by "table.lang.key"), and a numbered comment above every key and table."""
    lines, notes = [], iter(range(1000))

    def key(table: str, lang: str, name: str, text: str) -> list[str]:
        return [f"# note {next(notes)}",
                f"{name} = {toml_text(text, style.get(f'{table}.{lang}.{name}', 'basic'))}"]

    lines += ['slug = "huge-init"', "signature = [5, 4]", ""]
    for table, by_lang in (("title", title), ("summary", summary)):
        lines += [f"# note {next(notes)}", f"[{table}]"]
        for lang in LANGS:
            lines += key(table, lang, lang, by_lang[lang])
        lines += [""]
    lines += ["[override]", "init_scale = 10.0", "", "[words]",
              'en = ["huge-init"]', 'es = ["inicialización enorme"]', ""]
    for lang in LANGS:
        lines += [f"# note {next(notes)}", f"[reveal.{lang}]"]
        for name in KEYS:
            lines += key("reveal", lang, name, reveal[lang][name])
        lines += ["", f"[reveal.{lang}.panels]"]
        for number, text in reveal[lang]["panels"].items():
            lines += key("panels", lang, number, text)
        lines += [""]
    return "\n".join(lines)


def per_lang(text: st.SearchStrategy) -> st.SearchStrategy:
    return st.fixed_dictionaries({lang: text for lang in LANGS})


REVEAL = st.fixed_dictionaries({
    lang: st.fixed_dictionaries({**{key: TEXT for key in KEYS},
                                 "panels": st.fixed_dictionaries({"4": TEXT, "5": TEXT})})
    for lang in LANGS})
PLACES = [f"{table}.{lang}.{name}" for lang in LANGS for table, names in (
    ("title", LANGS), ("summary", LANGS), ("reveal", KEYS), ("panels", ("4", "5")))
    for name in names]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(title=per_lang(TEXT), summary=per_lang(TEXT), reveal=REVEAL, same=st.booleans(),
       style=st.fixed_dictionaries({place: st.sampled_from(STYLES) for place in PLACES}))
def test_migration_is_loss_free_and_idempotent_over_generated_texts(
        tool, tmp_path_factory, title, summary, reveal, same, style):
    """Quotes, backslashes, newlines, '%', '{}' and any letter, written as basic, multi-line or
    literal strings: every text in every language reads the same after the migration, every
    comment of what stays English is kept in order, and a second run changes nothing; `same`
    gives two texts one English and two readings."""
    if same:
        summary = {**summary, "en": title["en"]}
    toml = old_form(title, summary, reveal, style)
    deck = inline_deck(tmp_path_factory.mktemp("deck"), toml)
    before = deck_break(deck)
    assert tool.migrate(deck / SLUG) is True
    after = deck_break(deck)
    assert texts(after) == texts(before) and not after.inline
    written = {p: p.read_bytes() for p in deck.rglob("*") if p.is_file()}
    assert tool.migrate(deck / SLUG) is False
    assert {p: p.read_bytes() for p in deck.rglob("*") if p.is_file()} == written
    english = (deck / SLUG / "break.toml").read_text(encoding="utf-8")
    kept = [line for line in english.splitlines() if line.startswith("# note")]
    lines = toml.splitlines()
    wanted = [line for at, line in enumerate(lines) if line.startswith("# note")
              and not lines[at + 1].startswith(("es =", "[reveal.es"))
              and not _in_spanish_reveal(lines, at)]
    assert kept == wanted  # each comment about what stays, in its order
    assert "\n# note 0\n# note 1\ntitle = " in english  # the title's comments move with it


def _in_spanish_reveal(lines: list[str], at: int) -> bool:
    """Line `at` lies inside a [reveal.es] or [reveal.es.panels] table."""
    header = next((line for line in reversed(lines[:at]) if line.startswith("[")), "")
    return header.startswith("[reveal.es")


def test_the_deck_setting_reads_the_catalog_form(tmp_path, monkeypatch):
    monkeypatch.setenv(DECK_SETTING, str(DECK))
    brk = scenarios.breaks(None)[SLUG]
    assert brk.course and brk.title["es"] == "Inicialización mucho más grande"
