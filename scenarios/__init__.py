"""The catalog: the healthy config and the breaks, as data (TOML) turned into frozen objects.

`healthy_config()` is the reference run's `Config`; `breaks(level)` maps each slug of a
level's deck (the lab's, level 1, by default) to a `Break` whose `apply(config)` is the broken
config; the decks of levels 2 and 3 also hold the healthy decoy (`Break.healthy`, slug "healthy").
stdlib only: this package imports neither numpy nor textual, nor anything of `grading` or
`diagnose`.
"""

from scenarios.catalog import (
                               HEALTHY,
                               LANGS,
                               LEVELS,
                               Break,
                               Catalog,
                               Reveal,
                               breaks,
                               default_catalog,
                               healthy_config,
                               load_catalog,
)
from scenarios.config import MAX_STEPS, CatalogError, Config

__all__ = ["HEALTHY", "LANGS", "LEVELS", "MAX_STEPS", "Break", "Catalog", "CatalogError", "Config",
           "Reveal", "breaks", "default_catalog", "healthy_config", "load_catalog"]
