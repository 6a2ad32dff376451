"""Reading the catalog: `healthy.toml`, one folder per break and `levels.toml`, validated into
frozen objects.

A break is a folder, `breaks/<slug>/`: its data in `break.toml` (read here, its texts in
English), its words in every other language in its own catalog, `locale/` (read here through
`scenarios.translations`, each text in every language on the `Break`), the measured figures
its texts quote in `claims.toml` and `figures.json` (`scenarios.claims`; the claims are
validated here, the figures only `bench/deck_texts.py` reads) and its own code in
`signature.py` beside it (its fidelity checks and diagnostician evidence, which only `diagnose`
loads: `diagnose/diagnosis/signatures.py`). The catalog is found by walking `breaks/`; nothing else
names
a slug. Which breaks a level deals is `levels.toml`'s alone (`scenarios.level_entries`): a break
file names no level. The files ship inside this package and are read with `importlib.resources`, so
an editable install and a wheel behave alike. `load_catalog(root)` reads any folder of the same
shape (the tests use it for broken catalogs); a course's own deck (`DIAGNOSE_DECK`, a folder of
break folders and a `levels.toml` that extends the package's levels) joins the built-in one
through the same loader and bounds, a clash of slugs or words refused; `DIAGNOSE_LEVELS` names
another levels file, which replaces the package's. Every problem is one `CatalogError` line
naming the file, the key and what was expected. Nothing here trains, grades or runs a break's
code.
"""

from __future__ import annotations

import dataclasses
import functools
import gettext
import os
import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from scenarios.claims import CLAIMS_FILE, Claims, parse_claims
from scenarios.config import (
    FIELDS,
    SECTIONS,
    SHAPE_KEYS,
    SHAPE_SECTIONS,
    CatalogError,
    Config,
    check_consistency,
    validate_value,
)
from scenarios.files import loads_toml, read_small, read_small_text
from scenarios.folding import fold, unreadable
from scenarios.langs import LANGS
from scenarios.level_entries import (
    HEALTHY,
    LEVELS_FILE,
    Level,
    find_level,
    levels_file,
    levels_toml,
    parse_levels,
    refuse_clashing_words,
)
from scenarios.promises import PromiseSpec, parse_promises
from scenarios.translations import BREAK_DOMAIN, LOCALE_DIR, SOURCE_LANG, Translations

SLUG = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
SLUG_MAX = 64  # characters: a sealed key keeps this much room per ID (grading.seal's padding)
REVEAL_KEYS = ("changed", "panels", "engine_differs", "real_world")
PANELS = tuple(str(n) for n in range(1, 7))
CATALOG_FILE_MAX = 256 * 1024  # bytes of one TOML file; ours are under 8 KiB


@dataclass(frozen=True)
class Reveal:
    """What the reveal says of a break in one language."""

    changed: str
    panels: dict[str, str]  # "1".."6" -> how that panel shows the break, and why
    engine_differs: str
    real_world: str


@dataclass(frozen=True)
class Break:
    """One designed bug: a named override of the healthy config, with its texts.

    The healthy decoy (`healthy = true`, slug "healthy") is one too: an empty override, no
    signature, and the words that answer "this run holds no break".
    """

    slug: str
    title: dict[str, str]
    summary: dict[str, str]
    override: dict[str, Any]
    words: dict[str, tuple[str, ...]]
    signature: tuple[str, ...]  # the panels ("1".."6") that show it, the clearest first
    reveal: dict[str, Reveal]
    source: str
    levels: tuple[int, ...] = ()  # the levels whose deck holds it: levels.toml's, filled in
    healthy: bool = False       # the decoy: nothing is broken
    whatif: WhatIf | None = None  # the magnitudes the what-if retrains, when it has one
    # breaks/<slug>/: break.toml and the signature.py that only `diagnose` loads
    folder: Traversable | None = dataclasses.field(default=None, compare=False, repr=False)
    course: bool = False        # from a course's own deck (DIAGNOSE_DECK), not the package's
    promises: tuple[PromiseSpec, ...] = ()  # [[promises]]: its fidelity promises, in order
    # the text tables break.toml still writes in every language (the old form, warned about)
    inline: tuple[str, ...] = dataclasses.field(default=(), compare=False)
    # its folder's catalog (locale/<lang>/LC_MESSAGES/break.mo): its texts' and findings' words
    translations: Translations | None = dataclasses.field(default=None, compare=False,
                                                          repr=False)
    # claims.toml beside break.toml: text -> the measured figures it quotes (scenarios.claims)
    claims: Claims = dataclasses.field(default_factory=Claims, compare=False, repr=False)

    def apply(self, config: Config) -> Config:
        return dataclasses.replace(config, **self.override)


@dataclass(frozen=True)
class WhatIf:
    """`[whatif]`: after the reveal, the break retrained at each of `doses` of one field;
    `show`, the series its signature lives in (a panel's series key: "val_loss", "act.0",
    "h.0.attn.c_attn"), drawn first and in that order (empty: each signature panel's first)."""

    field: str
    doses: tuple[Any, ...]
    show: tuple[str, ...] = ()

    def configs(self, config: Config) -> list[tuple[Any, Config]]:
        return [(dose, dataclasses.replace(config, **{self.field: dose})) for dose in self.doses]


WHATIF_MAX = 6  # doses: each is a full training run
# The series a what-if may show (diagnose.views.panels' keys), a block's by its index: "{i}"
WHATIF_SERIES = ("train_loss", "val_loss", "lr", "grad_norm_preclip", "grad_norm_postclip",
                 "act.{i}", "act.ln_f", "wte", "h.{i}.attn.c_attn", "h.{i}.attn.c_proj",
                 "h.{i}.mlp.c_fc", "h.{i}.mlp.c_proj", "dead_heads", "dead_neurons")
WHATIF_SHOWN_MAX = 8  # charts a what-if draws first


def parse_whatif_show(shown: str, table: Any, n_layers: int) -> tuple[str, ...]:
    """`[whatif] show`: series keys of the panels, each known and of a block the model has."""
    known = {pattern.format(i=i) for pattern in WHATIF_SERIES for i in range(n_layers)}
    if (not isinstance(table, list) or not 1 <= len(table) <= WHATIF_SHOWN_MAX
            or not all(isinstance(key, str) for key in table)):
        raise _fail(shown, f"[whatif] show: expected a list of 1 to {WHATIF_SHOWN_MAX} series "
                    'names ("val_loss", "act.0", "h.0.attn.c_attn")')
    unknown = [key for key in table if key not in known]
    if unknown:
        raise _fail(shown, f"[whatif] show: {unknown[0][:60]!r} is not a series of a "
                    f"{n_layers}-block model (expected one of {', '.join(WHATIF_SERIES)}, "
                    f"{{i}} below {n_layers})")
    if len(set(table)) != len(table):
        raise _fail(shown, "[whatif] show: a series is repeated")
    return tuple(table)


def _refuse_shape(shown: str, where: str, key: str) -> None:
    """A break may not override the run's length, evaluations or the model's shape
    (`scenarios.config.SHAPE_KEYS`, `SHAPE_SECTIONS`): one line naming the file and key."""
    if key in SHAPE_KEYS or FIELDS[key].metadata["section"] in SHAPE_SECTIONS:
        raise _fail(shown, f"{where} {key}: a break changes how the model learns, never the "
                    "run's length, evaluations or model shape (every run of a scenario writes "
                    "files of one size)")


def parse_whatif(shown: str, table: Any, override: dict[str, Any], healthy: Config
                 ) -> WhatIf | None:
    if table is None:
        return None
    if not isinstance(table, dict) or not {"field", "doses"} <= set(table) <= {
            "field", "doses", "show"}:
        raise _fail(shown, "[whatif]: expected field = \"<a key of healthy.toml>\" and "
                    "doses = [...] (and show = [...], the series to draw first)")
    field_name, doses = table["field"], table["doses"]
    if field_name not in FIELDS:
        raise _fail(shown, f"[whatif] field: expected a key of healthy.toml, got "
                    f"{field_name!r}")
    _refuse_shape(shown, "[whatif] field:", field_name)
    if not isinstance(doses, list) or not 2 <= len(doses) <= WHATIF_MAX:
        raise _fail(shown, f"[whatif] doses: expected a list of 2 to {WHATIF_MAX} values")
    checked = []
    for dose in doses:
        try:
            value = validate_value(field_name, dose)
            check_consistency(dataclasses.replace(healthy, **{**override, field_name: value}))
        except CatalogError as err:
            raise _fail(shown, f"[whatif] doses: {err}") from None
        checked.append(value)
    if len(set(checked)) != len(checked):
        raise _fail(shown, "[whatif] doses: a dose is repeated")
    show = (parse_whatif_show(shown, table["show"], healthy.n_layers) if "show" in table
            else ())
    return WhatIf(field_name, tuple(checked), show)


@dataclass(frozen=True, eq=False)  # one object per loading: caches key on its identity
class Catalog:
    healthy: Config
    breaks: dict[str, Break]
    levels: dict[int, Level] = dataclasses.field(default_factory=dict)  # by number, in order


def _read_toml(path: Traversable, shown: str) -> dict[str, Any]:
    text = read_small_text(path, "a catalog file", CATALOG_FILE_MAX, error=CatalogError,
                           shown=shown)
    try:
        return loads_toml(text)
    except ValueError as err:
        raise CatalogError(f"{shown}: malformed TOML: {err}") from None


def _fail(shown: str, problem: str) -> CatalogError:
    return CatalogError(f"{shown}: {problem}")


def _name(key: str) -> str:
    """A key as written, or quoted when it holds characters that would garble the line."""
    return key if re.fullmatch(r"[A-Za-z0-9_.-]+", key) else repr(key)


def parse_healthy(data: dict[str, Any], shown: str) -> Config:
    values: dict[str, Any] = {}
    for section, table in data.items():
        if section not in SECTIONS:
            raise _fail(shown, f"[{_name(section)}]: unknown table, expected one of "
                        + ", ".join(SECTIONS))
        if not isinstance(table, dict):
            raise _fail(shown, f"{section}: expected a table [{section}], got a value")
        for key, value in table.items():
            if key not in FIELDS:
                raise _fail(shown, f"[{section}] {_name(key)}: unknown key")
            home = FIELDS[key].metadata["section"]
            if home != section:
                raise _fail(shown, f"[{section}] {key}: belongs in table [{home}]")
            try:
                values[key] = validate_value(key, value)
            except CatalogError as err:
                raise _fail(shown, f"[{section}] {err}") from None
    missing = [name for name in FIELDS if name not in values]
    if missing:
        name = missing[0]
        raise _fail(shown, f"[{FIELDS[name].metadata['section']}] {name}: missing")
    config = Config(**values)
    try:
        check_consistency(config)
    except CatalogError as err:
        raise _fail(shown, str(err)) from None
    return config


def _text(shown: str, where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(shown, f"{where}: expected non-empty text")
    return value.strip()


def _per_lang(shown: str, data: dict[str, Any], table: str) -> dict[str, Any]:
    section = data.get(table)
    if not isinstance(section, dict):
        raise _fail(shown, f"[{table}]: missing, expected a table with keys "
                    + " and ".join(LANGS))
    extra = set(section) - set(LANGS)
    if extra:
        raise _fail(shown, f"[{table}] {_name(sorted(extra)[0])}: unknown key, expected "
                    + " or ".join(LANGS))
    for lang in LANGS:
        if lang not in section:
            raise _fail(shown, f"[{table}] {lang}: missing")
    return section


def _reveal(shown: str, where: str, table: Any) -> Reveal:
    """One language's reveal, `where` its table as said in a message ("[reveal]")."""
    if not isinstance(table, dict):
        raise _fail(shown, f"{where}: expected a table")
    for key in table:
        if key not in REVEAL_KEYS:
            raise _fail(shown, f"{where} {_name(key)}: unknown key, expected one of "
                        + ", ".join(REVEAL_KEYS))
    for key in REVEAL_KEYS:
        if key not in table:
            raise _fail(shown, f"{where} {key}: missing")
    panels = table["panels"]
    if not isinstance(panels, dict) or not panels:
        raise _fail(shown, f"{where} panels: expected a table of panel numbers 1-6")
    for number, text in panels.items():
        if number not in PANELS:
            raise _fail(shown, f"{where} panels.{_name(number)}: expected a panel number 1-6")
        _text(shown, f"{where} panels.{number}", text)
    return Reveal(
        changed=_text(shown, f"{where} changed", table["changed"]),
        panels={n: panels[n].strip() for n in PANELS if n in panels},
        engine_differs=_text(shown, f"{where} engine_differs", table["engine_differs"]),
        real_world=_text(shown, f"{where} real_world", table["real_world"]),
    )


# A break's texts: English in break.toml (`title = "..."`, `[reveal]`, `[reveal.panels]`),
# every other language in its folder's catalog (scenarios.translations, domain "break"),
# each message in the context of its key: "title", "summary", "reveal.changed",
# "reveal.panels.1", ... (two texts with the same English may read differently elsewhere).
# The old form, every language inline ([title] en/es, [reveal.en], [reveal.es]), still loads
# for one release (`Break.inline`, warned about by the CLI); tools/break_words.py moves it.
TEXT_TABLES = ("title", "summary", "reveal")


def text_context(key: str, panel: str | None = None) -> str:
    """The catalog context of a break's text: its key in break.toml ("reveal.panels.4")."""
    if key in ("changed", "engine_differs", "real_world"):
        return f"reveal.{key}"
    return f"reveal.panels.{panel}" if key == "panels" else key


def inline_tables(data: dict[str, Any]) -> tuple[str, ...]:
    """The text tables of a break.toml written in the old form, a table of languages
    (`[title] en = ... es = ...`, `[reveal.en]`), in `TEXT_TABLES`' order."""
    return tuple(table for table in TEXT_TABLES if isinstance(data.get(table), dict)
                 and bool(set(data[table]) & set(LANGS)))


def _texts(data: dict[str, Any], shown: str, translations: Translations | None
           ) -> tuple[dict[str, str], dict[str, str], dict[str, Reveal], tuple[str, ...]]:
    """The title, summary and reveal in every language, and the tables given inline."""
    inline = inline_tables(data)
    if "reveal" in inline and set(data["reveal"]) - set(LANGS):
        raise _fail(shown, "[reveal]: holds English texts and a table per language "
                    f"([reveal.{sorted(set(data['reveal']) & set(LANGS))[0]}]); write the "
                    "English in [reveal] alone, every other language in the break's catalog "
                    f"({LOCALE_DIR}/)")
    said = {lang: (translations.of(lang) if translations is not None
                   else gettext.NullTranslations()) for lang in LANGS}

    def one_line(table: str) -> dict[str, str]:
        if table in inline:
            return {lang: _text(shown, f"[{table}] {lang}", v)
                    for lang, v in _per_lang(shown, data, table).items()}
        if table not in data:
            raise _fail(shown, f'{table}: missing, expected {table} = "<English text>"')
        english = _text(shown, table, data[table])
        return {lang: said[lang].pgettext(table, english).strip() for lang in LANGS}

    title, summary = one_line("title"), one_line("summary")
    if "reveal" in inline:
        reveal_table = _per_lang(shown, data, "reveal")
        reveal = {lang: _reveal(shown, f"[reveal.{lang}]", reveal_table[lang])
                  for lang in LANGS}
    else:
        if not isinstance(data.get("reveal"), dict):
            raise _fail(shown, "[reveal]: missing, expected a table with changed, panels, "
                        "engine_differs and real_world (in English)")
        english = _reveal(shown, "[reveal]", data["reveal"])
        reveal = {lang: _translated(english, said[lang]) for lang in LANGS}
    return title, summary, reveal, inline


def _translated(english: Reveal, said: gettext.NullTranslations) -> Reveal:
    def tr(key: str, text: str, panel: str | None = None) -> str:
        return said.pgettext(text_context(key, panel), text).strip()

    return Reveal(changed=tr("changed", english.changed),
                  panels={n: tr("panels", text, n) for n, text in english.panels.items()},
                  engine_differs=tr("engine_differs", english.engine_differs),
                  real_world=tr("real_world", english.real_world))


BREAK_KEYS = ("slug", "healthy", "title", "summary", "override", "words", "signature",
              "reveal", "whatif", "promises")


def parse_break(data: dict[str, Any], shown: str, healthy: Config,
                translations: Translations | None = None) -> Break:
    """One break.toml's table, each key checked in the file's order of importance (the first
    problem is the one said); `shown` names the file in every message. Its texts' other
    languages come from `translations` (its folder's catalog; none: English alone)."""
    for key in data:
        if key == "level":
            raise _fail(shown, f"level: a break names no level; {LEVELS_FILE} lists each "
                        "level's breaks (its deck)")
        if key not in BREAK_KEYS:
            raise _fail(shown, f"{_name(key)}: unknown key, expected one of "
                        + ", ".join(BREAK_KEYS))
    decoy = data.get("healthy", False)
    if not isinstance(decoy, bool):
        raise _fail(shown, f"healthy: expected true or false, got {decoy!r}")
    slug = _slug(data, shown, decoy)
    title, summary, reveal, inline = _texts(data, shown, translations)
    override = _override(data, shown, decoy, healthy)
    words = _words(data, shown)
    signature = _signature(data, shown, decoy, reveal, "reveal" in inline)
    whatif = parse_whatif(shown, data.get("whatif"), override, healthy)
    return Break(slug=slug, title=title, summary=summary, override=override, words=words,
                 signature=signature, reveal=reveal, source=shown, healthy=decoy,
                 whatif=whatif, promises=parse_promises(shown, data.get("promises")),
                 inline=inline, translations=translations)


def _slug(data: dict[str, Any], shown: str, decoy: bool) -> str:
    slug = data.get("slug")
    if not isinstance(slug, str) or not SLUG.match(slug):
        raise _fail(shown, f"slug: expected lowercase words joined by hyphens, got {slug!r}")
    if len(slug) > SLUG_MAX:
        raise _fail(shown, f"slug: at most {SLUG_MAX} characters, got {len(slug)}")
    if (slug == HEALTHY) != decoy:
        raise _fail(shown, f'slug: "{HEALTHY}" is the slug of the healthy decoy '
                    "(healthy = true) and of nothing else")
    return slug


def _override(data: dict[str, Any], shown: str, decoy: bool, healthy: Config
              ) -> dict[str, Any]:
    """The [override] table: keys of healthy.toml, each value valid, together consistent,
    and changing something (the decoy's: nothing)."""
    override_table = data.get("override")
    if decoy:
        if override_table not in (None, {}):
            raise _fail(shown, "[override]: the healthy decoy changes nothing, expected none")
        override_table = {}
    elif not isinstance(override_table, dict) or not override_table:
        raise _fail(shown, "[override]: expected a table with at least one key of healthy.toml")
    override: dict[str, Any] = {}
    for key, value in override_table.items():
        if key not in FIELDS:
            raise _fail(shown, f"[override] {_name(key)}: not a key of healthy.toml")
        _refuse_shape(shown, "[override]", key)
        try:
            override[key] = validate_value(key, value)
        except CatalogError as err:
            raise _fail(shown, f"[override] {err}") from None
    if not decoy and all(getattr(healthy, k) == v for k, v in override.items()):
        raise _fail(shown, "[override]: changes nothing, every value equals healthy.toml's")
    try:
        check_consistency(dataclasses.replace(healthy, **override))
    except CatalogError as err:
        raise _fail(shown, f"[override] {err}") from None
    return override


def _words(data: dict[str, Any], shown: str) -> dict[str, tuple[str, ...]]:
    """The [words] table: per language, the phrases that name the break, each readable."""
    words: dict[str, tuple[str, ...]] = {}
    for lang, listed in _per_lang(shown, data, "words").items():
        if (not isinstance(listed, list) or not listed
                or not all(isinstance(w, str) and w.strip() for w in listed)):
            raise _fail(shown, f"[words] {lang}: expected a list of non-empty phrases")
        words[lang] = tuple(w.strip() for w in listed)
        for phrase in words[lang]:
            problem = unreadable(phrase)
            if problem:
                raise _fail(shown, f"[words] {lang}: {phrase!r} cannot be read by the grader: "
                            f"{problem}")
    return words


def _signature(data: dict[str, Any], shown: str, decoy: bool,
               reveal: dict[str, Reveal], inline: bool) -> tuple[str, ...]:
    """The signature: distinct panel numbers, the clearest first, each with a reveal text (in
    every language, when they are written inline)."""
    listed = data.get("signature", [] if decoy else None)
    if (not isinstance(listed, list) or (not listed and not decoy)
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in listed)
            or len(set(listed)) != len(listed)):
        raise _fail(shown, "signature: expected a list of distinct panel numbers 1-6, "
                    "the clearest first")
    signature = tuple(str(n) for n in listed)
    for number in signature:
        if number not in PANELS:
            raise _fail(shown, f"signature: {number} is not a panel number 1-6")
        for lang in LANGS if inline else (SOURCE_LANG,):
            if number not in reveal[lang].panels:
                table = f"reveal.{lang}.panels" if inline else "reveal.panels"
                raise _fail(shown, f"signature: panel {number} has no text in [{table}]")
    return signature


BREAK_FILE = "break.toml"  # a break folder's data; its code is signature.py beside it
DECK_SETTING = "DIAGNOSE_DECK"  # a course's own deck: a folder of break folders


def read_breaks(folder: Traversable | Path, shown_folder: str, healthy: Config,
                course: bool = False) -> list[Break]:
    """Every break folder of `folder` (`<slug>/break.toml`), in folder-name order.

    A folder is named after its slug; a loose `.toml` (the old one-file layout) is refused with
    where it goes, and hidden entries and `__pycache__` are not breaks.
    """
    if not folder.is_dir():
        return []
    found = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        name = entry.name
        if name.startswith((".", "_")):
            continue
        shown = f"{shown_folder}/{name}"
        if not entry.is_dir():
            if name.endswith(".toml") and name != LEVELS_FILE:  # a course deck's levels
                raise CatalogError(f"{shown}: a break is a folder: move it to "
                                   f"{shown_folder}/{name[:-len('.toml')]}/{BREAK_FILE}")
            continue
        data_file = entry / BREAK_FILE
        if not data_file.is_file():
            raise CatalogError(f"{shown}/{BREAK_FILE}: missing (a break folder holds its "
                               f"{BREAK_FILE} and signature.py)")
        shown_file = f"{shown}/{BREAK_FILE}"
        brk = parse_break(_read_toml(data_file, shown_file), shown_file, healthy,
                          Translations(entry, BREAK_DOMAIN, shown=shown))
        if brk.slug != name:
            raise _fail(shown_file, f"slug: {brk.slug!r} differs from its folder's name {name!r}"
                        "; a break's folder is named after its slug")
        found.append(dataclasses.replace(brk, folder=entry, course=course,
                                         claims=read_claims(entry, shown, brk)))
    return found


def is_break_data(inner: str) -> bool:
    """A break folder's file (its path inside the folder, "/"-separated) that is data, which
    every reader of the catalog needs (the Gradescope zip carries these): its break.toml and
    its catalogs (locale/), never its code (signature.py runs on the machine that has it)."""
    return inner == BREAK_FILE or inner.split("/", 1)[0] == LOCALE_DIR


def break_data(folder: Path) -> list[tuple[str, Path]]:
    """(path inside the folder, file) of each data file of a break folder on disk."""
    return [(path.relative_to(folder).as_posix(), path) for path in sorted(folder.rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts
            and is_break_data(path.relative_to(folder).as_posix())]

def read_claims(folder: Traversable | Path, shown: str, brk: Break) -> Claims:
    """The break's `claims.toml` (`scenarios.claims`), none when it has no such file."""
    path = folder / CLAIMS_FILE
    if not path.is_file():
        return Claims()
    panels = set.intersection(*(set(brk.reveal[lang].panels) for lang in LANGS))
    return parse_claims(_read_toml(path, f"{shown}/{CLAIMS_FILE}"), f"{shown}/{CLAIMS_FILE}",
                        panels)


def refuse_word_clashes(found: dict[str, Break]) -> None:
    """A course break brings its own words: a phrase (folded as the grader folds) that already
    names another break of a deck it joins would make an answer ambiguous. Run once the levels
    each break joins are known."""
    for added in (b for b in found.values() if b.course):
        for other in found.values():
            if other is added or not set(added.levels) & set(other.levels):
                continue
            for lang in LANGS:
                theirs = {fold(w) for w in other.words[lang]}
                clash = next((w for w in added.words[lang] if fold(w) in theirs), None)
                if clash is not None:
                    raise _fail(added.source, f"[words] {lang}: {clash!r} already names "
                                f"{other.slug} ({other.source}) in a deck this break joins")


def load_catalog(root: Traversable | Path, shown_root: str = "scenarios",
                 deck: Path | None = None, levels: Path | None = None) -> Catalog:
    """Read and validate `root/healthy.toml`, every `root/breaks/<slug>/break.toml`, when
    given a course's own deck (`deck/<slug>/break.toml`, validated by the same rules), and the
    levels: the file `levels` (`DIAGNOSE_LEVELS`) alone, else `root/levels.toml` as the deck's
    `levels.toml`, when it has one, extends it (`scenarios.level_entries.parse_levels`)."""
    root = Path(root) if isinstance(root, str) else root
    healthy_path = root / "healthy.toml"
    if not healthy_path.is_file():
        raise CatalogError(f"{shown_root}/healthy.toml: missing")
    healthy = parse_healthy(_read_toml(healthy_path, f"{shown_root}/healthy.toml"),
                            f"{shown_root}/healthy.toml")
    listed = read_breaks(root / "breaks", f"{shown_root}/breaks", healthy)
    if deck is not None:
        if not deck.is_dir():
            raise CatalogError(f"{DECK_SETTING}: {deck} is not a folder (a course deck is a "
                               "folder of break folders, <slug>/break.toml)")
        course = read_breaks(deck, str(deck), healthy, course=True)
        if not course:
            raise CatalogError(f"{DECK_SETTING}: {deck} holds no break folder "
                               f"(<slug>/{BREAK_FILE})")
        listed += course
    found: dict[str, Break] = {}
    for brk in listed:
        if brk.slug in found:
            raise _fail(brk.source, f"slug: {brk.slug!r} is already used by "
                        f"{found[brk.slug].source}")
        found[brk.slug] = brk
    decks = read_levels(root, shown_root, levels, found)
    if levels is None and deck is not None and (deck / LEVELS_FILE).is_file():
        extension = deck / LEVELS_FILE
        decks = parse_levels(_read_toml(extension, str(extension)), str(extension), found,
                             words=False, base=decks)
    breaks = with_levels(found, decks)
    # a course break no level deals is listed apart, with a warning (`undealt`), never refused
    refuse_word_clashes(breaks)  # a course break's own words first: the clearer line
    for level in decks.values():
        refuse_clashing_words(level, breaks)
    return Catalog(healthy=healthy, breaks=breaks, levels=decks)


def read_levels(root: Traversable | Path, shown_root: str, levels: Path | None,
                found: dict[str, Break]) -> dict[int, Level]:
    """The levels file (`levels`, else the catalog's own), validated against `found`."""
    if levels is None:
        path, shown = root / LEVELS_FILE, f"{shown_root}/{LEVELS_FILE}"
    else:
        path, shown = levels, str(levels)
    if not path.is_file():
        raise CatalogError(f"{shown}: missing (the levels and the breaks each deals)")
    return parse_levels(_read_toml(path, shown), shown, found, words=False)


def with_levels(found: dict[str, Break], levels: dict[int, Level]) -> dict[str, Break]:
    """Each break with the levels whose deck holds it (`Break.levels`), read from the levels."""
    return {slug: dataclasses.replace(brk, levels=tuple(
        n for n, level in levels.items() if slug in level.slugs)) for slug, brk in found.items()}


def course_deck() -> Path | None:
    """The course deck named by `DIAGNOSE_DECK`, or None when it is unset or empty."""
    value = os.environ.get(DECK_SETTING, "")
    return Path(value) if value.strip() else None


def levels_file_in_use() -> bytes | None:
    """The levels file the Gradescope zip carries instead of the package's: `DIAGNOSE_LEVELS`'s
    bytes, else the levels in use written whole when a course deck's `levels.toml` extends the
    package's (`levels_toml`); None when the package's own file is in use."""
    named = levels_file()
    if named is not None:
        return read_small(named, "a levels file", CATALOG_FILE_MAX, error=CatalogError)
    deck = course_deck()
    if deck is None or not (deck / LEVELS_FILE).is_file():
        return None
    return levels_toml(default_catalog().levels).encode("utf-8")


def inline_translations(catalog: Catalog) -> tuple[Break, ...]:
    """The breaks of `catalog` whose break.toml still writes its texts in every language
    inline (`{"en": ..., "es": ...}`): read for one more release, with a warning."""
    return tuple(b for b in catalog.breaks.values() if b.inline)


def undealt(catalog: Catalog) -> tuple[Break, ...]:
    """The breaks of `catalog` that no level deals (a course break its deck's levels.toml does
    not add), the healthy decoy aside: loaded and checked, but never in a scenario."""
    return tuple(b for b in catalog.breaks.values() if not b.levels and not b.healthy)


def default_catalog() -> Catalog:
    """The package's catalog, with the course deck of `DIAGNOSE_DECK` (its levels.toml
    extending the package's) and the levels file of `DIAGNOSE_LEVELS` when they name one."""
    deck, levels = course_deck(), levels_file()
    return _catalog_with(str(deck) if deck is not None else None,
                         str(levels) if levels is not None else None)


@functools.cache
def _catalog_with(deck: str | None, levels: str | None) -> Catalog:
    return load_catalog(resources.files("scenarios"), deck=Path(deck) if deck else None,
                        levels=Path(levels) if levels else None)


def healthy_config() -> Config:
    """The healthy config of `scenarios/healthy.toml`."""
    return default_catalog().healthy


def breaks(level: int | None = 1) -> dict[str, Break]:
    """One level's deck, by slug, in file-name order: the lab's (level 1) unless asked; with
    the healthy decoy when the level's entry says `decoy = true`. `level=None` gives every
    entry of the catalog. An unknown level is a `LevelError`."""
    catalog = default_catalog()
    if level is None:
        return dict(catalog.breaks)
    slugs = find_level(catalog.levels, level).slugs
    return {slug: brk for slug, brk in catalog.breaks.items() if slug in slugs}
