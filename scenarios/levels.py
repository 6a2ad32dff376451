"""The levels of the catalog in use: `all_levels()`, `level(number)`, `first_level()` and
`following_level(number)`, each a `Level` (an entry of `levels.toml`).

Everything that depends on a level asks its `Level`: the CLI's choices, the deal
(`diagnose.game.scenario.assignment`), the folders and file names (`Level.named`, the one naming
rule), grading, progress, `diagnose breaks` and the app's title. No other file lists a level's
breaks or treats a level number specially.

Reading and validating the levels file is `scenarios.level_entries`' (re-exported here): the
catalog loads through it, so this module sits above `scenarios.catalog` and imports it, never
the other way round. `DIAGNOSE_LEVELS` names another levels file (a course's own levels, a
test's level 4): it replaces the package's; a course deck's `levels.toml` extends it. stdlib
only; nothing here deals, trains or grades.
"""

from __future__ import annotations

from scenarios.catalog import default_catalog
from scenarios.level_entries import (
    DEAL_RULES,
    DRAWN,
    HEALTHY,
    LEVEL_KEYS,
    LEVELS_FILE,
    LEVELS_SETTING,
    MIN_BREAKS,
    NUMBER_MAX,
    RUNS_MAX,
    SUFFIX,
    Level,
    LevelError,
    find_level,
    levels_file,
    parse_level,
    parse_levels,
    refuse_clashing_words,
)

__all__ = ["DEAL_RULES", "DRAWN", "HEALTHY", "LEVELS_FILE", "LEVELS_SETTING", "LEVEL_KEYS",
           "MIN_BREAKS", "NUMBER_MAX", "RUNS_MAX", "SUFFIX", "Level", "LevelError",
           "all_levels", "first_level", "following_level", "level", "levels_file",
           "parse_level", "parse_levels", "refuse_clashing_words"]


def all_levels() -> tuple[Level, ...]:
    """Every level, in number order."""
    return tuple(default_catalog().levels.values())


def level(number: int) -> Level:
    """The level `number`, or LevelError naming the levels there are."""
    return find_level(default_catalog().levels, number)


def first_level() -> Level:
    """The level a player starts at, and `play` and `deal` deal without --level."""
    return all_levels()[0]


def following_level(number: int) -> Level | None:
    """The level that follows `number`'s in the file's order; None after the last."""
    return next((lv for lv in all_levels() if lv.number > number), None)
