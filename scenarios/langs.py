"""The game's languages: one list.

Every text the game shows exists in each of `LANGS`: English is written in the code and in each
break.toml, every other language has a message catalog, the game's (`scenarios.words`) and each
break's (`<slug>/locale/`, `scenarios.translations`), all checked by tests/test_words.py; a
break's `[words]` has a list for each; and the CLI's `--lang` offers exactly these.
"""

from __future__ import annotations

LANGS = ("en", "es")
