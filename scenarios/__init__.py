"""The catalog: the healthy config and the breaks, as data (TOML) turned into frozen objects.

`healthy_config()` is the reference run's `Config`; `breaks(level)` maps each slug of a
level's deck (the lab's, level 1, by default) to a `Break` whose `apply(config)` is the broken
config; a level whose entry says `decoy = true` also holds the healthy decoy (`Break.healthy`,
slug "healthy"). `level(number)` is a level's entry of `levels.toml` (`scenarios.levels`).
stdlib only: this package imports neither numpy nor textual, nor anything of `grading` or
`diagnose`.
"""

from scenarios.catalog import (
                               Break,
                               Catalog,
                               Reveal,
                               breaks,
                               default_catalog,
                               healthy_config,
                               load_catalog,
)
from scenarios.config import MAX_STEPS, CatalogError, Config
from scenarios.langs import LANGS
from scenarios.level_entries import HEALTHY
from scenarios.levels import Level, LevelError, all_levels, first_level, following_level, level

__all__ = ["HEALTHY", "LANGS", "MAX_STEPS", "Break", "Catalog", "CatalogError", "Config", "Level",
           "LevelError", "Reveal", "all_levels", "breaks", "default_catalog", "first_level",
           "following_level", "healthy_config", "level", "load_catalog"]
