"""The gettext catalogs of one folder, read with the stdlib: `Translations`.

A folder that speaks every language of `LANGS` keeps, for each language but English (whose
text is the message id), `<folder>/locale/<lang>/LC_MESSAGES/<domain>.mo` compiled from the
`.po` beside it. Two kinds of folder do: the package's own (`scenarios/`, domain `diagnose`:
every sentence the code says, `scenarios.words`) and each break's (`<slug>/`, domain `break`:
its title, summary and reveal, keyed by where they stand in break.toml, and the findings its
signature.py says). A break's catalog may fall back on the game's (`behind`), so a finding that
quotes a shared sentence is translated there; a message no catalog holds is said in English.

Each `.mo` is read once per language, bounded in size, and a broken one is one `CatalogError`
line naming it. Writing catalogs (extract, update, compile) is development work with Babel:
tools/words.py. What it leaves out: filling placeholders and choosing the language (the callers).
"""

from __future__ import annotations

import gettext
import io
import struct
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from scenarios.config import CatalogError
from scenarios.files import read_small
from scenarios.langs import LANGS

SOURCE_LANG = "en"  # the language the texts are written in: its text is the message id
BREAK_DOMAIN = "break"  # a break folder's catalogs: <slug>/locale/<lang>/LC_MESSAGES/break.mo
LOCALE_DIR = "locale"
MO_MAX = 1024 * 1024  # bytes of one compiled catalog; the game's is under 100 KiB


def catalog_file(folder: Traversable | Path, lang: str, domain: str,
                 suffix: str = ".mo") -> Traversable | Path:
    """Where `folder` keeps its catalog of `lang` (a `.mo`, or its `.po`)."""
    return folder / LOCALE_DIR / lang / "LC_MESSAGES" / (domain + suffix)


class Translations:
    """The catalogs of `folder` in domain `domain`, each language read when first asked; a
    message they lack is looked up in `fallback`'s, then said in English. `shown` names the
    folder in an error (`folder` itself when not given)."""

    __slots__ = ("_read", "domain", "fallback", "folder", "shown")

    def __init__(self, folder: Traversable | Path | None, domain: str, *,
                 fallback: Translations | None = None, shown: str | None = None) -> None:
        self.folder, self.domain, self.fallback = folder, domain, fallback
        self.shown = shown if shown is not None else str(folder)
        self._read: dict[str, gettext.NullTranslations] = {}

    def behind(self, fallback: Translations) -> Translations:
        """These catalogs with `fallback`'s behind them, for a message they lack."""
        return Translations(self.folder, self.domain, fallback=fallback, shown=self.shown)

    def of(self, lang: str) -> gettext.NullTranslations:
        """The translations of `lang`; KeyError for a language the game does not speak."""
        if lang not in LANGS:
            raise KeyError(lang)
        if lang not in self._read:
            self._read[lang] = self._load(lang)
        return self._read[lang]

    def has(self, lang: str) -> bool:
        """This folder holds a compiled catalog of `lang` (English needs none)."""
        return (lang == SOURCE_LANG or self.folder is not None
                and catalog_file(self.folder, lang, self.domain).is_file())

    def _load(self, lang: str) -> gettext.NullTranslations:
        translations: gettext.NullTranslations = gettext.NullTranslations()
        if lang != SOURCE_LANG and self.has(lang):
            assert self.folder is not None
            shown = (f"{self.shown}/{LOCALE_DIR}/{lang}/LC_MESSAGES/{self.domain}.mo")
            data = read_small(catalog_file(self.folder, lang, self.domain),
                              "a compiled message catalog", MO_MAX, error=CatalogError,
                              shown=shown)
            try:
                translations = gettext.GNUTranslations(io.BytesIO(data))
            except (OSError, ValueError, LookupError, SyntaxError, IndexError, struct.error
                    ) as err:
                raise CatalogError(f"{shown}: not a compiled message catalog ({err}); "
                                   "compile its .po again (tools/words.py)") from None
        if self.fallback is not None:
            translations.add_fallback(self.fallback.of(lang))
        return translations

    def __getstate__(self) -> dict[str, Any]:  # a compiled plural rule does not pickle
        return {"folder": self.folder, "domain": self.domain, "fallback": self.fallback,
                "shown": self.shown}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._read = {}

    def __repr__(self) -> str:
        return f"Translations({self.shown!r}, {self.domain!r})"
