"""The game's languages: one list, and one lookup that never falls back silently.

Every text the game shows exists in each of `LANGS`; the catalog refuses a break without all of
them, every language but English has a message catalog (`scenarios.words`, checked by
tests/test_words.py), and the CLI's `--lang` offers exactly these. `pick` reads a per-language
tuple or mapping and raises on a language it lacks, where a `[lang == "es"]` index would have
shown English instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")

LANGS = ("en", "es")


def pick(values: Sequence[T] | Mapping[str, T], lang: str) -> T:
    """`values[lang]` for a mapping, or the item in `LANGS` order for a sequence (one per
    language, no more, no fewer); KeyError for a language the game does not speak."""
    if isinstance(values, Mapping):
        return values[lang]
    if len(values) != len(LANGS):
        raise ValueError(f"expected one value per language {LANGS}, got {len(values)}")
    if lang not in LANGS:
        raise KeyError(lang)
    return values[LANGS.index(lang)]
