"""The message catalogs' tooling, with Babel (a development dependency; the game reads the
compiled catalogs with the stdlib, `scenarios/words.py` and `scenarios/translations.py`).

    python tools/words.py             # extract -> update every catalog -> compile each .mo
    python tools/words.py --add fr    # start the catalogs of a new language (then add it to LANGS)
    python tools/words.py --deck DIR  # the same for each break folder of a course deck

Two kinds of catalog. The game's, `scenarios/locale/<lang>/LC_MESSAGES/diagnose.po`: the
sentences of `diagnose/`, `grading/` and `scenarios/`, a break folder's aside, found as the first
string argument after the language of `say(lang, "...")`, `N_("...")` and the other `KEYWORDS`.
Each break's own, `<slug>/locale/<lang>/LC_MESSAGES/break.po`: its break.toml's English texts,
each in the context of its key ("title", "reveal.panels.4"), and the findings its signature.py
says (`sig.said(...)`); so deleting a break's folder leaves no message behind. A break.toml that
still writes its texts in every language inline is first moved to its catalog
(`tools/break_words.py`), and a finding new to a break's catalog starts from the game's
translation of the same sentence, when it has one (a finding moved there from the game's).

An update adds the new messages untranslated, drops the ones nothing says any more (no `#~`
leftovers), keeps the catalog sorted by message and without source locations or dates that
move, so two branches that each add messages merge cleanly; after a merge, run it again and
commit what it writes. It prints, per catalog and language, the messages still to translate
(tests/test_words.py fails while any is).
This module holds the one definition of the extraction (`extract`, `extract_break`, `KEYWORDS`)
that the tests use.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_from_file

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from break_words import (  # noqa: E402
    FIXED_DATE,
    migrate,
    new_catalog,
    read_break_catalog,
    read_catalog_file,
    write_break_catalog,
    write_catalog,
)

from scenarios.catalog import BREAK_FILE, inline_tables, text_context  # noqa: E402
from scenarios.config import CatalogError  # noqa: E402
from scenarios.translations import BREAK_DOMAIN  # noqa: E402
from scenarios.translations import catalog_file as locale_file  # noqa: E402
from scenarios.words import DOMAIN, LANGS, SOURCE_LANG  # noqa: E402

SOURCES = ("diagnose", "grading", "scenarios")
BREAKS = ROOT / "scenarios" / "breaks"  # each folder's words are its own catalog's
# say(lang, message, ...): the message is argument 2; diagnose.phrases.Phrase(message) and
# P_(context, message); diagnose.diagnosis.signatures.said(panel, figure, fig, message, ...)
# say_n(lang, singular, plural, count), Nn_(singular, plural), Pn_(singular, plural, count) and
# said_n(panel, figure, fig, singular, plural): a counted sentence's two English forms;
# say_in(lang, context, message): a message in its context
KEYWORDS = {"say": (2,), "N_": None, "Phrase": None, "P_": ((1, "c"), 2), "said": (4,),
            "say_n": (2, 3), "Nn_": (1, 2), "Pn_": (1, 2), "said_n": (4, 5),
            "say_in": ((2, "c"), 3)}
LOCALE = ROOT / "scenarios" / "locale"
HEADER = """\
# The words of diagnose in {lang}: the msgid is the English text the code says.
# Written by tools/words.py (extract, update, compile): fill each empty msgstr, keep every
# {{placeholder}}, then run it again to compile the .mo."""
TRANSLATED = [lang for lang in LANGS if lang != SOURCE_LANG]


def catalog_file(lang: str, suffix: str = ".po") -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


def _outside_breaks(path: str) -> bool:
    return "__pycache__" not in path and not Path(path).resolve().is_relative_to(BREAKS)


def extract() -> Catalog:
    """Every message the game's sources say, a break folder's aside, as a template catalog."""
    template = Catalog(project=DOMAIN, creation_date=FIXED_DATE, fuzzy=False)
    for source in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
                ROOT / source, method_map=[("**.py", "python")], keywords=KEYWORDS,
                directory_filter=_outside_breaks):
            template.add(message, None, [(f"{source}/{filename}", lineno)],
                         auto_comments=comments, context=context)
    return template


def break_folders(deck: Path | None = None) -> list[Path]:
    """The package's break folders, or those of a course's `deck`."""
    root = BREAKS if deck is None else deck
    return sorted(p for p in root.iterdir() if p.is_dir() and (p / BREAK_FILE).is_file())


def break_texts(folder: Path) -> Iterator[tuple[str, str]]:
    """(context, English) of each text of a break.toml in English alone."""
    data = tomllib.loads((folder / BREAK_FILE).read_text(encoding="utf-8"))
    for table in ("title", "summary"):
        if isinstance(data.get(table), str):
            yield table, data[table].strip()
    reveal = data.get("reveal", {})
    if "reveal" not in inline_tables(data) and isinstance(reveal, dict):
        for key in ("changed", "engine_differs", "real_world"):
            if isinstance(reveal.get(key), str):
                yield text_context(key), reveal[key].strip()
        for number, text in (reveal.get("panels") or {}).items():
            if isinstance(text, str):
                yield text_context("panels", number), text.strip()


def extract_break(folder: Path) -> Catalog:
    """Every message of one break folder: its break.toml's texts and its signature.py's
    findings, as a template catalog."""
    template = Catalog(project=folder.name, creation_date=FIXED_DATE, fuzzy=False)
    for context, english in break_texts(folder):
        template.add(english, None, [(BREAK_FILE, 0)], context=context)
    code = folder / "signature.py"
    if code.is_file():
        for lineno, message, comments, context in extract_from_file(
                "python", str(code), keywords=KEYWORDS):
            template.add(message, None, [(code.name, lineno)], auto_comments=comments,
                         context=context)
    return template


def read_catalog(lang: str) -> Catalog:
    return read_catalog_file(catalog_file(lang), lang, DOMAIN)


def untranslated(catalog: Catalog) -> list[str]:
    """The message ids of `catalog` without a usable translation (empty or fuzzy); a counted
    message (`say_n`) by its singular, untranslated while any of its forms is empty."""
    return sorted(m.id[0] if isinstance(m.id, tuple) else m.id for m in catalog
                  if m.id and (m.fuzzy or not all(m.string if isinstance(m.string, tuple)
                                                  else (m.string,))))


def write(lang: str, catalog: Catalog) -> None:
    write_catalog(catalog_file(lang), lang, catalog, DOMAIN, HEADER.format(lang=lang))


def update(template: Catalog, lang: str) -> list[str]:
    catalog = read_catalog(lang)
    catalog.update(template, update_creation_date=False)
    write(lang, catalog)
    return untranslated(read_catalog(lang))


def update_break(folder: Path, template: Catalog, lang: str, game: Catalog | None) -> list[str]:
    """Update one break's catalog of `lang` from `template`; a message new to it takes the
    game's translation of the same sentence (`game`), when that has one."""
    catalog = read_break_catalog(folder, lang)
    for message in template:
        if not message.id or (message.id, message.context) in _keys(catalog):
            continue
        known = game.get(message.id, message.context) if game is not None else None
        if known is not None and known.string and not known.fuzzy:
            catalog.add(message.id, known.string, context=message.context)
    catalog.update(template, update_creation_date=False)
    write_break_catalog(folder, lang, catalog)
    return untranslated(read_break_catalog(folder, lang))


def _keys(catalog: Catalog) -> set[tuple[object, str | None]]:
    return {(m.id, m.context) for m in catalog if m.id}


def break_catalog_file(folder: Path, lang: str, suffix: str = ".po") -> Path:
    path = locale_file(folder, lang, BREAK_DOMAIN, suffix)
    assert isinstance(path, Path)
    return path


def add(template: Catalog, lang: str) -> None:
    if catalog_file(lang).exists():
        raise SystemExit(f"{catalog_file(lang)}: already there; run without --add to update it")
    catalog = Catalog(locale=lang, domain=DOMAIN, project=DOMAIN, creation_date=FIXED_DATE,
                      fuzzy=False)
    catalog.update(template, update_creation_date=False)
    write(lang, catalog)


def add_break(folder: Path, lang: str) -> None:
    if not break_catalog_file(folder, lang).exists():
        write_break_catalog(folder, lang, new_catalog(lang, BREAK_DOMAIN))


def report(name: str, lang: str, total: int, todo: list[str]) -> None:
    print(f"{name} ({lang}): {total} messages, {len(todo)} to translate")
    for message in todo:
        print(f"  {message!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--add", metavar="LANG", help="start the catalogs of a new language")
    parser.add_argument("--deck", type=Path, metavar="DIR",
                        help="a course's deck: update its break folders' catalogs alone")
    args = parser.parse_args(argv)
    langs = sorted({*TRANSLATED, *([args.add] if args.add else [])})
    folders = break_folders(args.deck)
    for folder in folders:  # the old form first: its texts become the catalog's
        try:
            if inline_tables(tomllib.loads((folder / BREAK_FILE).read_text(encoding="utf-8"))):
                migrate(folder)
                print(f"{folder}: its inline translations moved to locale/ "
                      "(tools/break_words.py)")
        except ValueError as err:  # a break that does not load (CatalogError is one): said
            said = str(err) if isinstance(err, CatalogError) else f"{folder / BREAK_FILE}: {err}"
            print(f"Error: {said}", file=sys.stderr)
            return 1
    missing = 0
    for folder in folders:  # before the game's: a finding moved out keeps its translation
        template = extract_break(folder)
        for lang in langs:
            if args.add:
                add_break(folder, lang)
            game = read_catalog(lang) if catalog_file(lang).exists() else None
            todo = update_break(folder, template, lang, game)
            missing += len(todo)
            if todo:
                report(folder.name, lang, len(template), todo)
    if args.deck is None:
        template = extract()
        if args.add:
            add(template, args.add)
        for lang in langs:
            todo = update(template, lang)
            missing += len(todo)
            report(DOMAIN, lang, len(template), todo)
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
