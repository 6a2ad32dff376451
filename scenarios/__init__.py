"""The catalog: the healthy config and the breaks, as data (TOML) turned into frozen objects.

`healthy_config()` is the reference run's `Config`; `breaks()` maps each slug to a `Break`
whose `apply(config)` is the broken config. stdlib only: this package imports neither numpy
nor textual, nor anything of `grading` or `diagnose`.
"""

from scenarios.catalog import (
                               LANGS,
                               Break,
                               Catalog,
                               Reveal,
                               breaks,
                               default_catalog,
                               healthy_config,
                               load_catalog,
)
from scenarios.config import MAX_STEPS, CatalogError, Config

__all__ = ["LANGS", "MAX_STEPS", "Break", "Catalog", "CatalogError", "Config", "Reveal", "breaks",
           "default_catalog", "healthy_config", "load_catalog"]
