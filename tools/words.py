"""The message catalogs' tooling, with Babel (a development dependency; the game reads the
compiled catalogs with the stdlib, `scenarios/words.py`).

    python tools/words.py            # extract -> update every catalog -> compile each .mo
    python tools/words.py --add fr   # start the catalog of a new language (then add it to LANGS)

Extraction reads the sources of `diagnose/`, `grading/` and `scenarios/` for the first string
argument after the language of `say(lang, "...")` and for `N_("...")`. An update adds the new
messages untranslated, drops the ones the code no longer says (no `#~` leftovers), keeps the
catalog sorted by message and without source locations or dates that move, so two branches that
each add messages merge cleanly; after a merge, run it again and commit what it writes. It prints,
per language, the messages still to translate (tests/test_words.py fails while any is).
This module holds the one definition of the extraction (`extract`, `KEYWORDS`) that the tests use.
"""

from __future__ import annotations

import argparse
import datetime
import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scenarios.words import DOMAIN, LANGS, SOURCE_LANG  # noqa: E402

SOURCES = ("diagnose", "grading", "scenarios")
# say(lang, message, ...): the message is argument 2; diagnose.phrases.Phrase(message) and
# P_(context, message); diagnose.diagnosis.signatures.said(panel, figure, fig, message, ...)
# say_n(lang, singular, plural, count), Nn_(singular, plural), Pn_(singular, plural, count) and
# said_n(panel, figure, fig, singular, plural): a counted sentence's two English forms;
# say_in(lang, context, message): a message in its context
KEYWORDS = {"say": (2,), "N_": None, "Phrase": None, "P_": ((1, "c"), 2), "said": (4,),
            "say_n": (2, 3), "Nn_": (1, 2), "Pn_": (1, 2), "said_n": (4, 5),
            "say_in": ((2, "c"), 3)}
LOCALE = ROOT / "scenarios" / "locale"
FIXED_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)  # no churn per run
WIDTH = 100
HEADER = """\
# The words of diagnose in {lang}: the msgid is the English text the code says.
# Written by tools/words.py (extract, update, compile): fill each empty msgstr, keep every
# {{placeholder}}, then run it again to compile the .mo."""


def catalog_file(lang: str, suffix: str = ".po") -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


def extract() -> Catalog:
    """Every message the sources say, as a template catalog (no translations)."""
    template = Catalog(project=DOMAIN, creation_date=FIXED_DATE, fuzzy=False)
    for source in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
                ROOT / source, method_map=[("**.py", "python")], keywords=KEYWORDS,
                directory_filter=lambda path: "__pycache__" not in path):
            template.add(message, None, [(f"{source}/{filename}", lineno)],
                         auto_comments=comments, context=context)
    return template


def read_catalog(lang: str) -> Catalog:
    with catalog_file(lang).open("rb") as po:
        return read_po(po, locale=lang, domain=DOMAIN)


def po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=WIDTH, no_location=True, omit_header=False,
             sort_output=True, ignore_obsolete=True)
    return out.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def untranslated(catalog: Catalog) -> list[str]:
    """The message ids of `catalog` without a usable translation (empty or fuzzy); a counted
    message (`say_n`) by its singular, untranslated while any of its forms is empty."""
    return sorted(m.id[0] if isinstance(m.id, tuple) else m.id for m in catalog
                  if m.id and (m.fuzzy or not all(m.string if isinstance(m.string, tuple)
                                                  else (m.string,))))


def write(lang: str, catalog: Catalog) -> None:
    catalog.project, catalog.version = DOMAIN, "1"
    catalog.header_comment = HEADER.format(lang=lang)
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    catalog_file(lang).parent.mkdir(parents=True, exist_ok=True)
    catalog_file(lang).write_bytes(po_bytes(catalog))
    # compiled from the file just written, exactly as the staleness test compiles it
    catalog_file(lang, ".mo").write_bytes(mo_bytes(read_catalog(lang)))


def update(template: Catalog, lang: str) -> list[str]:
    catalog = read_catalog(lang)
    catalog.update(template, update_creation_date=False)
    write(lang, catalog)
    return untranslated(read_catalog(lang))


def add(template: Catalog, lang: str) -> None:
    if catalog_file(lang).exists():
        raise SystemExit(f"{catalog_file(lang)}: already there; run without --add to update it")
    catalog = Catalog(locale=lang, domain=DOMAIN, project=DOMAIN, creation_date=FIXED_DATE,
                      fuzzy=False)
    catalog.update(template, update_creation_date=False)
    write(lang, catalog)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--add", metavar="LANG", help="start the catalog of a new language")
    args = parser.parse_args(argv)
    template = extract()
    langs = [lang for lang in LANGS if lang != SOURCE_LANG]
    if args.add:
        add(template, args.add)
        langs = sorted({*langs, args.add})
    missing = 0
    for lang in langs:
        todo = update(template, lang)
        missing += len(todo)
        print(f"{lang}: {len(template)} messages, {len(todo)} to translate")
        for message in todo:
            print(f"  {message!r}")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
