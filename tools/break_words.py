"""A break's words in every language, in its own folder: move a break.toml's inline translations
into the break's gettext catalog (Babel, a development dependency; the game reads the compiled
catalogs with the stdlib, `scenarios/translations.py`).

    python tools/break_words.py scenarios/breaks/bad-init     # one break folder
    python tools/break_words.py course-breaks                 # every break folder of a deck

A break.toml of the old form writes each text in every language inline (`[title] en = ...
es = ...`, `[reveal.en]`, `[reveal.es]`). This writes every language but English into
`<slug>/locale/<lang>/LC_MESSAGES/break.po` and its compiled `break.mo` (the message id is the
English, the context its key in break.toml: "title", "summary", "reveal.changed",
"reveal.panels.4", ...; a finding's message there, from signature.py, stays as it is) and
rewrites break.toml in English alone (`title = "..."`, `summary = "..."`, `[reveal]`,
`[reveal.panels]`), line by line, so its comments and order stay. `[words]` stays inline: its
lists are each language's own accepted answers, not translations of each other.

It checks, then records: the migration is made in a scratch copy first, and written only when
the break loaded from the copy says every text in every language exactly as before. Re-run
it at will: a folder already in English alone is left as it is, and a break.toml that writes
its texts inline again (a merge of a branch that edited them) replaces the catalog's texts
with its own, the findings' messages kept.
This module also holds the one writer of a catalog file (`write_catalog`, `po_bytes`,
`mo_bytes`) that tools/words.py uses.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import io
import re
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scenarios.catalog import (  # noqa: E402
    BREAK_FILE,
    Break,
    inline_tables,
    parse_break,
)
from scenarios.config import CatalogError  # noqa: E402
from scenarios.files import atomic_write  # noqa: E402
from scenarios.langs import LANGS  # noqa: E402
from scenarios.translations import (  # noqa: E402
    BREAK_DOMAIN,
    SOURCE_LANG,
    Translations,
    catalog_file,
)

FIXED_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)  # no churn per run
WIDTH = 100
BREAK_HEADER = """\
# The words of the break {slug} in {lang}: each msgid is English, a text of its break.toml (its
# key there in msgctxt) or a finding its signature.py says.
# Written by tools/words.py (extract, update, compile): fill each empty msgstr, keep every
# {{placeholder}}, then run it again to compile the .mo."""
TRANSLATED = tuple(lang for lang in LANGS if lang != SOURCE_LANG)
REVEAL_TEXTS = ("changed", "engine_differs", "real_world")


# --- writing a catalog ---------------------------------------------------------------------

def po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=WIDTH, no_location=True, omit_header=False,
             sort_output=True, ignore_obsolete=True)
    return out.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def read_catalog_file(po: Path, lang: str, domain: str) -> Catalog:
    with po.open("rb") as stream:
        return read_po(stream, locale=lang, domain=domain)


def new_catalog(lang: str, domain: str) -> Catalog:
    return Catalog(locale=lang, domain=domain, project=domain, creation_date=FIXED_DATE,
                   fuzzy=False)


def write_catalog(po: Path, lang: str, catalog: Catalog, project: str, header: str) -> None:
    """`catalog` as `po` and, compiled from the file just written (exactly as the staleness
    test compiles it), the `.mo` beside it; each file written only when its bytes change."""
    catalog.project, catalog.version = project, "1"
    catalog.header_comment = header
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    po.parent.mkdir(parents=True, exist_ok=True)
    _write_changed(po, po_bytes(catalog))
    _write_changed(po.with_suffix(".mo"),
                   mo_bytes(read_catalog_file(po, lang, catalog.domain or project)))


def _write_changed(path: Path, data: bytes) -> None:
    if not path.is_file() or path.read_bytes() != data:
        atomic_write(path, data)


def break_po(folder: Path, lang: str) -> Path:
    path = catalog_file(folder, lang, BREAK_DOMAIN, ".po")
    assert isinstance(path, Path)
    return path


def read_break_catalog(folder: Path, lang: str) -> Catalog:
    """The break's catalog of `lang` as its `.po` holds it, or an empty one."""
    po = break_po(folder, lang)
    return (read_catalog_file(po, lang, BREAK_DOMAIN) if po.is_file()
            else new_catalog(lang, BREAK_DOMAIN))


def write_break_catalog(folder: Path, lang: str, catalog: Catalog) -> None:
    write_catalog(break_po(folder, lang), lang, catalog, folder.name,
                  BREAK_HEADER.format(slug=folder.name, lang=lang))


# --- the texts of a break.toml, by their catalog context ------------------------------------

def text_table(context: str) -> str:
    """The break.toml table a text's context belongs to: "reveal.panels.4" -> "reveal"."""
    return context.split(".", 1)[0]


def inline_texts(data: dict[str, Any]) -> dict[str, dict[str, str]]:
    """context -> language -> text, for each table `data` writes inline (stripped, as the
    catalog reads them)."""
    texts: dict[str, dict[str, str]] = {}
    for table in inline_tables(data):
        for lang, value in data[table].items():
            if table != "reveal":
                texts.setdefault(table, {})[lang] = value.strip()
                continue
            for key in REVEAL_TEXTS:
                texts.setdefault(f"reveal.{key}", {})[lang] = value[key].strip()
            for number, text in value["panels"].items():
                texts.setdefault(f"reveal.panels.{number}", {})[lang] = text.strip()
    return texts


def with_texts(catalog: Catalog, texts: dict[str, dict[str, str]], tables: tuple[str, ...],
               lang: str) -> Catalog:
    """`catalog` with the texts of `tables` replaced by `texts`' (English id, `lang` string);
    every other message (a finding's, another table's text) kept as it is."""
    for message in list(catalog):
        if message.id and message.context and text_table(message.context) in tables:
            catalog.delete(message.id, context=message.context)
    for context, by_lang in texts.items():
        if lang in by_lang:
            catalog.add(by_lang[SOURCE_LANG], by_lang[lang], context=context)
    return catalog


# --- rewriting break.toml in English, line by line -----------------------------------------

@dataclasses.dataclass
class Statement:
    """Lines of a TOML file that make one thing: a blank line, a comment, a table's header
    (its `path`), or a key and its whole value (`path`: the key; `value`: what it holds)."""

    kind: str
    lines: list[str]
    path: tuple[str, ...] = ()
    value: Any = None


def statements(text: str) -> list[Statement]:
    """`text` (valid TOML) cut into statements; a value over several lines is one."""
    lines, found, at = text.splitlines(keepends=True), [], 0
    while at < len(lines):
        line, stripped = lines[at], lines[at].strip()
        if not stripped:
            found.append(Statement("blank", [line]))
        elif stripped.startswith("#"):
            found.append(Statement("comment", [line]))
        elif stripped.startswith("["):
            parsed = tomllib.loads(line)
            path: list[str] = []
            while isinstance(parsed, dict) and len(parsed) == 1:
                name, parsed = next(iter(parsed.items()))
                path.append(name)
                parsed = parsed[0] if isinstance(parsed, list) else parsed
            found.append(Statement("header", [line], tuple(path)))
        else:
            end = at + 1
            while True:
                try:
                    parsed = tomllib.loads("".join(lines[at:end]))
                    break
                except tomllib.TOMLDecodeError:
                    if end >= len(lines):
                        raise
                    end += 1
            (name, value), = parsed.items()
            found.append(Statement("key", lines[at:end], (name,), value))
            at = end - 1
        at += 1
    return found


@dataclasses.dataclass
class Section:
    """A table: the comments just above its header, the header (None: the file's top-level
    keys) and what follows until the next section."""

    above: list[Statement]
    header: Statement | None
    body: list[Statement]


def sections(found: list[Statement]) -> list[Section]:
    cut = [Section([], None, [])]
    for statement in found:
        if statement.kind != "header":
            cut[-1].body.append(statement)
            continue
        above: list[Statement] = []  # the comments right above a header are that table's
        while cut[-1].body and cut[-1].body[-1].kind == "comment":
            above.insert(0, cut[-1].body.pop())
        cut.append(Section(above, statement, []))
    return cut


def toml_string(text: str) -> str:
    """`text` as a TOML basic string."""
    escaped = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    return '"' + "".join(escaped.get(c, f"\\u{ord(c):04x}" if ord(c) < 32 or c == "\x7f"
                                     else c) for c in text) + '"'


def _renamed(lines: list[str], old: str, new: str) -> list[str]:
    """A key statement's lines with its key `old` (bare or quoted) written `new`."""
    first = re.sub(rf'^(\s*)(?:{re.escape(old)}|"{re.escape(old)}"|\'{re.escape(old)}\')(\s*=)',
                   rf"\g<1>{new}\g<2>", lines[0], count=1)
    return [first, *lines[1:]]


def english_only(text: str, tables: tuple[str, ...]) -> str:
    """break.toml's `text` with the inline `tables` written in English alone: `[title]`'s and
    `[summary]`'s English becomes a top-level key after the last one there, `[reveal.en]` and
    `[reveal.en.panels]` become `[reveal]` and `[reveal.panels]`, every other language's
    table goes; comments and order stay (a comment above a dropped language's key, or inside
    its table, goes with it)."""
    cut = sections(statements(text))
    top, moved, kept = cut[0], [], [cut[0]]
    for index, statement in enumerate(top.body):  # `title = { en = "...", es = "..." }`
        if (statement.kind == "key" and statement.path[0] in tables
                and isinstance(statement.value, dict) and set(statement.value) == set(LANGS)):
            line = f"{statement.path[0]} = {toml_string(statement.value[SOURCE_LANG])}\n"
            top.body[index] = Statement("key", [line], statement.path, line)
    for section in cut[1:]:
        assert section.header is not None
        path = section.header.path
        if path and path[0] in tables and path[0] != "reveal" and len(path) == 1:
            moved += [s.lines for s in section.above]
            above_key: list[list[str]] = []  # a comment is about the key below it
            for statement in section.body:
                if statement.kind == "comment":
                    above_key.append(statement.lines)
                elif statement.kind == "key":
                    if statement.path[0] == SOURCE_LANG:
                        moved += [*above_key,
                                  _renamed(statement.lines, SOURCE_LANG, path[0])]
                    above_key = []
            kept += _tail(section)
            continue
        if path[:1] == ("reveal",) and "reveal" in tables and len(path) >= 2:
            if path[1] != SOURCE_LANG:
                kept += _tail(section)
                continue  # another language's reveal: now in the catalog
            header = "[" + ".".join(("reveal", *path[2:])) + "]"
            line = section.header.lines[0]
            comment = line[line.index("]") + 1:].strip() if "#" in line else ""
            section.header = Statement("header", [header + (f"  {comment}" if comment else "")
                                                  + "\n"], ("reveal", *path[2:]))
        kept.append(section)
    last_key = max((i for i, s in enumerate(top.body) if s.kind == "key"), default=-1)
    top.body[last_key + 1:last_key + 1] = [Statement("moved", lines) for lines in moved]
    out = []
    for section in kept:
        for statement in [*section.above, *([section.header] if section.header else []),
                          *section.body]:
            out += statement.lines
    written = "".join(out)
    return written if written.endswith("\n") else written + "\n"


def _tail(section: Section) -> list[Section]:
    """What stays of a table that goes: the comments after its last key (about what follows,
    set apart by a blank line), with the blank lines among them."""
    keys = [i for i, s in enumerate(section.body) if s.kind == "key"]
    tail = section.body[keys[-1] + 1 if keys else 0:]
    while tail and tail[0].kind == "blank":  # the table before it ends in a blank line
        tail = tail[1:]
    return [Section([], None, tail)] if any(s.kind == "comment" for s in tail) else []


def english_data(data: dict[str, Any], tables: tuple[str, ...]) -> dict[str, Any]:
    """What break.toml holds once the inline `tables` are in English alone."""
    return {key: (value[SOURCE_LANG] if key in tables else value) for key, value in data.items()}


# --- rewriting a break's texts in every language ---------------------------------------------

def texts_of(brk: Break) -> dict[str, dict[str, str]]:
    """context -> language -> text, of every text of a loaded break."""
    texts = {"title": dict(brk.title), "summary": dict(brk.summary)}
    for lang, reveal in brk.reveal.items():
        for key in REVEAL_TEXTS:
            texts.setdefault(f"reveal.{key}", {})[lang] = getattr(reveal, key)
        for number, text in reveal.panels.items():
            texts.setdefault(f"reveal.panels.{number}", {})[lang] = text
    return texts


def _place(context: str) -> tuple[tuple[str, ...], str]:
    """Where a text's English stands in break.toml: (its table's path, its key)."""
    if context in ("title", "summary"):
        return (), context
    table, _, key = context.rpartition(".")
    return tuple(table.split(".")), key


def write_texts(folder: Path, texts: dict[str, dict[str, str]]) -> None:
    """Write every text of the break in `folder` (in English alone already): a changed English
    into its line of break.toml, each other language into its catalog, the message id the
    new English; checked before anything is written, as the migration is."""
    shown = str(folder / BREAK_FILE)
    text = (folder / BREAK_FILE).read_text(encoding="utf-8")
    data = tomllib.loads(text)
    if inline_tables(data):
        raise CatalogError(f"{shown}: writes its texts inline; run tools/break_words.py first")
    cut = sections(statements(text))
    expected = tomllib.loads(text)
    for context, by_lang in texts.items():
        table, key = _place(context)
        section = next((s for s in cut if (s.header.path if s.header else ()) == table), None)
        found = [i for i, st in enumerate(section.body if section else [])
                 if st.kind == "key" and st.path == (key,)]
        if section is None or len(found) != 1:
            raise CatalogError(f"{shown}: no {key} in [{'.'.join(table)}]")
        statement = section.body[found[0]]
        if statement.value.strip() != by_lang[SOURCE_LANG]:
            section.body[found[0]] = Statement(
                "key", [f"{key} = {toml_string(by_lang[SOURCE_LANG])}\n"], (key,))
            place = expected
            for name in table:
                place = place[name]
            place[key] = by_lang[SOURCE_LANG]
    written = "".join(line for section in cut for st in [
        *section.above, *([section.header] if section.header else []), *section.body]
        for line in st.lines)
    if tomllib.loads(written) != expected:
        raise CatalogError(f"{shown}: cannot be rewritten line by line")
    for lang in TRANSLATED:
        write_break_catalog(folder, lang, with_texts(read_break_catalog(folder, lang), texts,
                                                     ("title", "summary", "reveal"), lang))
    _write_changed(folder / BREAK_FILE, written.encode("utf-8"))


# --- the migration --------------------------------------------------------------------------

def healthy() -> Any:
    import scenarios

    return scenarios.healthy_config()


def load_break(folder: Path, shown: str) -> Break:
    """The break of `folder` as the catalog reads it (its own catalog for its texts)."""
    from scenarios.files import loads_toml

    try:
        data = loads_toml((folder / BREAK_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:  # not UTF-8, malformed TOML, unreadable
        raise CatalogError(f"{shown}: cannot be read as TOML: {err}") from None
    return parse_break(data, shown, healthy(),
                       Translations(folder, BREAK_DOMAIN, shown=str(folder)))


def said(brk: Break) -> dict[str, Any]:
    """Every text of a break in every language, to compare two loadings."""
    return {"title": brk.title, "summary": brk.summary,
            "reveal": {lang: dataclasses.asdict(r) for lang, r in brk.reveal.items()}}


def migrate(folder: Path) -> bool:
    """Move `folder`'s inline translations into its catalog and its break.toml to English
    alone; False when it writes none inline (nothing to do). A CatalogError when the break
    does not load, or would not say the same texts afterwards."""
    shown = str(folder / BREAK_FILE)
    before = load_break(folder, shown)  # refused here, as the game would refuse it
    text = (folder / BREAK_FILE).read_text(encoding="utf-8")
    data = tomllib.loads(text)
    tables = inline_tables(data)
    if not tables:
        return False
    english = english_only(text, tables)
    try:
        rewritten = tomllib.loads(english)
    except tomllib.TOMLDecodeError as err:
        rewritten = {"not TOML": str(err)}
    if rewritten != english_data(data, tables):
        raise CatalogError(f"{shown}: cannot be rewritten line by line in English alone; "
                           "write title, summary and [reveal] by hand (docs/course-authors.md)")
    texts = inline_texts(data)
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / folder.name
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("__pycache__"))
        (copy / BREAK_FILE).write_text(english, encoding="utf-8")
        for lang in TRANSLATED:
            write_break_catalog(copy, lang,
                                with_texts(read_break_catalog(copy, lang), texts, tables, lang))
        after = load_break(copy, shown)
        if said(after) != said(before):
            raise CatalogError(f"{shown}: its catalog would not say the same texts; nothing "
                               "was written")
        for lang in TRANSLATED:  # the catalogs first: a break.toml in English is the last step
            for suffix in (".po", ".mo"):
                written = break_po(copy, lang).with_suffix(suffix)
                target = break_po(folder, lang).with_suffix(suffix)
                target.parent.mkdir(parents=True, exist_ok=True)
                _write_changed(target, written.read_bytes())
        atomic_write(folder / BREAK_FILE, english)
    return True


def break_folders(folder: Path) -> list[Path]:
    """`folder` itself when it holds a break.toml, else its break folders (a deck)."""
    if (folder / BREAK_FILE).is_file():
        return [folder]
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and not p.name.startswith((".", "_"))
                  and (p / BREAK_FILE).is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, metavar="FOLDER",
                        help="a break folder (<slug>/break.toml) or a deck of them")
    args = parser.parse_args(argv)
    for given in args.folders:
        folders = break_folders(given) if given.is_dir() else []
        if not folders:
            print(f"Error: {given}: no break folder (<slug>/{BREAK_FILE}) there",
                  file=sys.stderr)
            return 1
        for folder in folders:
            try:
                moved = migrate(folder)
            except CatalogError as err:
                print(f"Error: {err}", file=sys.stderr)
                return 1
            print(f"{folder}: " + ("its translations moved to locale/; break.toml in English"
                                   if moved else "already in English alone, nothing to do"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
