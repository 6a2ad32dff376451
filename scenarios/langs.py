"""The game's languages: one list.

Every text the game shows exists in each of `LANGS`; the catalog refuses a break without all of
them, every language but English has a message catalog (`scenarios.words`, checked by
tests/test_words.py), and the CLI's `--lang` offers exactly these.
"""

from __future__ import annotations

LANGS = ("en", "es")
