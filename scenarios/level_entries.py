"""The levels file's entries: `levels.toml` read and validated against the breaks into `Level`
objects, and the one lookup of a level by number.

A level is one entry: its number, its names, its deck (break slugs), whether the healthy decoy
joins it, its deal rule and the suffix of its files' names. `parse_levels` reads one file;
`extend_levels` lays a course deck's `levels.toml` over the package's (a new number adds a
level, a restated one replaces it, `add = [...]` adds breaks to one). The decoy's slug,
`HEALTHY`, is defined here, the lowest module that needs it (`scenarios.catalog` re-exports it).

This module reads no catalog: `scenarios.catalog` calls it while loading one, and
`scenarios.levels` answers "which levels are there now" from the catalog in use. stdlib only.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeGuard

from scenarios.config import CatalogError
from scenarios.errors import UserError
from scenarios.folding import folded_words
from scenarios.langs import LANGS


class Dealt(Protocol):
    """What a level reads of a break (`scenarios.catalog.Break` is one)."""

    @property
    def healthy(self) -> bool: ...

    @property
    def words(self) -> Mapping[str, Sequence[str]]: ...

LEVELS_FILE = "levels.toml"
LEVELS_SETTING = "DIAGNOSE_LEVELS"  # a path: another levels file replaces the package's
DEAL_RULES = ("permutation", "draw")
LEVEL_KEYS = ("number", "name", "deck", "decoy", "deal", "runs", "suffix", "in_title")
ADD = "add"  # in a course deck's levels.toml: breaks added to a level of the package's
ADD_KEYS = ("number", ADD)
NUMBER_MAX = 99
RUNS_MAX = 99   # IDs are two digits
MIN_BREAKS = 3  # a level deals from at least three breaks (the decoy aside)
DRAWN = 3       # deal = "draw": IDs a scenario holds unless `runs` says otherwise
SUFFIX = re.compile(r"^(-[a-z0-9]+)*$")
HEALTHY = "healthy"  # the decoy's slug: a run that holds no break


class LevelError(UserError):
    """A level number that no entry of the levels file has."""


@dataclass(frozen=True)
class Level:
    """One entry of `levels.toml`."""

    number: int
    name: dict[str, str]   # en, es: what the level is
    deck: tuple[str, ...]  # the break slugs it deals, the decoy aside
    decoy: bool            # the healthy decoy is dealt from the deck too
    deal: str              # "permutation" (every slug, in an order) or "draw" (`runs` of them)
    runs: int              # the IDs a scenario of this level holds
    suffix: str            # of its folder's and files' names: "" or "-level-2"
    in_title: bool         # the app's title names the level
    source: str            # the file it was read from, for error lines

    @property
    def slugs(self) -> tuple[str, ...]:
        """What a run of this level may hold: the deck, and the decoy's slug when it joins."""
        return (*self.deck, HEALTHY) if self.decoy else self.deck

    def named(self, stem: str) -> str:
        """`stem` as this level names it: the workspace folder ("19-break-it-level-2"), the
        diagnoses file ("Ana-diagnoses-level-2") and the solutions file all follow this."""
        return stem + self.suffix

    def folder(self, base: Path) -> Path:
        """This level's workspace beside `base` (the course's default or a bundle's folder)."""
        return base.with_name(self.named(base.name))


def _fail(shown: str, where: str, problem: str) -> CatalogError:
    return CatalogError(f"{shown}: {where}: {problem}")


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _names(shown: str, where: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or set(value) != set(LANGS) or not all(
            isinstance(v, str) and v.strip() for v in value.values()):
        raise _fail(shown, where, "name: expected { " + ", ".join(
            f'{lang} = "..."' for lang in LANGS) + " }, non-empty texts")
    return {lang: value[lang].strip() for lang in LANGS}


def _deck(shown: str, where: str, value: Any, breaks: Mapping[str, Dealt]) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise _fail(shown, where, "deck: expected a list of break slugs")
    if len(set(value)) != len(value):
        raise _fail(shown, where, "deck: a slug is listed twice")
    for slug in value:
        if slug not in breaks:
            raise _fail(shown, where, f"deck: {slug!r} is not a break of the catalog")
        if breaks[slug].healthy:
            raise _fail(shown, where, f"deck: {slug!r} is the decoy; say decoy = true instead")
    if len(value) < MIN_BREAKS:
        raise _fail(shown, where, f"deck: expected at least {MIN_BREAKS} breaks, "
                    f"found {len(value)}")
    return tuple(value)


def _flag(shown: str, where: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(shown, where, f"{key}: expected true or false, got {value!r}")
    return value


def _deal(shown: str, where: str, entry: dict[str, Any], slugs: int) -> tuple[str, int]:
    rule = entry.get("deal")
    if rule not in DEAL_RULES:
        raise _fail(shown, where, "deal: expected " + " or ".join(f'"{r}"' for r in DEAL_RULES)
                    + f", got {rule!r}")
    if rule == "permutation":
        if "runs" in entry:
            raise _fail(shown, where, 'runs: a permutation deals every break of the deck; '
                        'runs goes with deal = "draw"')
        if entry.get("decoy", False):
            raise _fail(shown, where, "decoy: a permutation deals every entry, so the decoy "
                        'would be in every scenario; use deal = "draw"')
        if slugs > RUNS_MAX:
            raise _fail(shown, where, f"deck: a permutation deals at most {RUNS_MAX} breaks")
        return rule, slugs
    runs = entry.get("runs", DRAWN)
    if not _whole(runs) or not 1 <= runs <= min(slugs, RUNS_MAX):
        raise _fail(shown, where, f"runs: expected a whole number from 1 to {min(slugs, RUNS_MAX)}"
                    f" (the deck's entries), got {runs!r}")
    return rule, runs


def parse_level(entry: Any, shown: str, breaks: Mapping[str, Dealt]) -> Level:
    """One `[[level]]` table; `breaks` is the whole catalog, by slug."""
    if not isinstance(entry, dict):
        raise CatalogError(f"{shown}: [[level]]: expected a table")
    number = entry.get("number")
    if not _whole(number) or not 1 <= number <= NUMBER_MAX:
        raise CatalogError(f"{shown}: [[level]] number: expected a whole number from 1 to "
                           f"{NUMBER_MAX}, got {number!r}")
    where = f"level {number}"
    for key in entry:
        if key not in LEVEL_KEYS:
            raise _fail(shown, where, f"{key!r}: unknown key, expected one of "
                        + ", ".join(LEVEL_KEYS))
    deck = _deck(shown, where, entry.get("deck"), breaks)
    decoy = _flag(shown, where, "decoy", entry.get("decoy", False))
    if decoy and HEALTHY not in breaks:
        raise _fail(shown, where, f"decoy: the catalog has no healthy decoy ({HEALTHY!r})")
    rule, runs = _deal(shown, where, entry, len(deck) + decoy)
    suffix = entry.get("suffix", f"-level-{number}")
    if not isinstance(suffix, str) or not SUFFIX.match(suffix):
        raise _fail(shown, where, "suffix: expected \"\" or lowercase words each after a hyphen "
                    f"(\"-level-{number}\"), got {suffix!r}")
    level = Level(number=number, name=_names(shown, where, entry.get("name")), deck=deck,
                  decoy=decoy, deal=rule, runs=runs, suffix=suffix,
                  in_title=_flag(shown, where, "in_title", entry.get("in_title", True)),
                  source=shown)
    return level


def refuse_clashing_words(level: Level, breaks: Mapping[str, Dealt]) -> None:
    """A phrase of one break that the grader reads as another break's slug, in one level, is
    refused: the form's answer (the slug) would name two breaks. A general word two mirrors
    share ("init") is allowed: an answer using only it is scored as ambiguous, by design."""
    slug_of = {"".join(folded_words(slug)): slug for slug in level.slugs}
    for slug in level.slugs:
        for lang in LANGS:
            for phrase in breaks[slug].words[lang]:
                other = slug_of.get("".join(folded_words(phrase)), slug)
                if other != slug:
                    raise _fail(level.source, f"level {level.number}",
                                f"{slug}'s word {phrase!r} ({lang}) reads as {other}, another "
                                "break of this level; give it words of its own")


def parse_levels(data: dict[str, Any], shown: str, breaks: Mapping[str, Dealt],
                 words: bool = True, base: Mapping[int, Level] | None = None) -> dict[int, Level]:
    """Every `[[level]]` of a levels file, by number, in number order; `words`: with each
    level's words checked (`refuse_clashing_words`) too.

    With `base` (the package's levels), the file extends them, as a course deck's levels.toml
    does: an entry of a new number adds a level, a whole entry of a number `base` has replaces
    that level (so a full copy of the package's file reads as itself), and an entry of a
    number and `add = [...]` alone adds those breaks to `base`'s level."""
    extra = set(data) - {"level"}
    if extra:
        raise CatalogError(f"{shown}: {sorted(extra)[0]!r}: unknown key, expected [[level]] "
                           "tables only")
    entries = data.get("level")
    if not isinstance(entries, list) or not entries:
        raise CatalogError(f"{shown}: expected at least one [[level]] table")
    found: dict[int, Level] = dict(base or {})
    listed: set[int] = set()
    for entry in entries:
        if base is not None and isinstance(entry, dict) and ADD in entry:
            level = _added_to(entry, shown, breaks, base)
        else:
            level = parse_level(entry, shown, breaks)
        if level.number in listed:
            raise _fail(shown, f"level {level.number}", "number: listed twice")
        listed.add(level.number)
        same = next((other for other in found.values() if other.suffix == level.suffix
                     and other.number != level.number), None)
        if same is not None:
            raise _fail(shown, f"level {level.number}", f"suffix: {level.suffix!r} is level "
                        f"{same.number}'s too; each level needs folders of its own")
        found[level.number] = level
    for level in found.values() if words else ():
        refuse_clashing_words(level, breaks)
    return dict(sorted(found.items()))


def _added_to(entry: dict[str, Any], shown: str, breaks: Mapping[str, Dealt],
              base: Mapping[int, Level]) -> Level:
    """`number = N` and `add = [...]`: level N of `base` with those breaks added to its deck,
    validated as a whole entry is (a permutation then deals every break of the longer deck)."""
    number = entry.get("number")
    where = f"level {number}"
    for key in entry:
        if key not in (ADD_KEYS):
            raise _fail(shown, where, f"{key!r}: an entry that adds breaks holds number and "
                        f"add only; restate the whole level (its {', '.join(LEVEL_KEYS[1:4])}, "
                        "...) to change more")
    if not _whole(number) or number not in base:
        raise CatalogError(f"{shown}: [[level]] number: {number!r} is not a level of "
                           f"{_sources(base)} to add breaks to; a new level is a whole entry "
                           f"({', '.join(LEVEL_KEYS[:3])}, deal)")
    added = entry[ADD]
    if not isinstance(added, list) or not added or not all(isinstance(s, str) for s in added):
        raise _fail(shown, where, "add: expected a list of break slugs")
    level = base[number]
    for slug in added:
        if slug in level.deck:
            raise _fail(shown, where, f"add: {slug!r} is already in the deck of "
                        f"{level.source}")
    whole = {**level_entry(level), "deck": [*level.deck, *added]}
    return replace(parse_level(whole, shown, breaks), source=shown)


def _sources(levels: Mapping[int, Level]) -> str:
    return ", ".join(sorted({level.source for level in levels.values()})) or "the levels"


def level_entry(level: Level) -> dict[str, Any]:
    """The `[[level]]` table that reads back as `level` (`parse_level`)."""
    entry: dict[str, Any] = {"number": level.number, "name": dict(level.name),
                             "deck": list(level.deck), "decoy": level.decoy, "deal": level.deal}
    if level.deal != "permutation":
        entry["runs"] = level.runs
    entry["suffix"] = level.suffix
    entry["in_title"] = level.in_title
    return entry


def levels_toml(levels: Mapping[int, Level]) -> str:
    """A levels file that reads back as `levels` (what the Gradescope zip carries when a course
    deck's levels.toml extends the package's: the levels in use, whole)."""
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)  # a TOML basic string, escapes and all
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"

    tables = ["[[level]]\n" + "".join(f"{key} = {value(v)}\n"
                                      for key, v in level_entry(level).items())
              for level in levels.values()]
    return ("# The levels in use: the package's, as a course deck's levels.toml extends them.\n\n"
            + "\n".join(tables))


def levels_file() -> Path | None:
    """The levels file `DIAGNOSE_LEVELS` names, or None (the package's) when unset or empty."""
    value = os.environ.get(LEVELS_SETTING, "")
    return Path(value) if value.strip() else None


def find_level(levels: Mapping[int, Level], number: object) -> Level:
    """The level `number` of `levels`, or LevelError naming the levels there are."""
    if not isinstance(number, int) or isinstance(number, bool) or number not in levels:
        raise LevelError(f"level {number!r} is not one of the levels "
                         f"({', '.join(map(str, levels))})",
                         hint=f"scenarios/{LEVELS_FILE} lists them; {LEVELS_SETTING} names "
                              "another file")
    return levels[number]
