"""Every sentence the game says, in every language it speaks: gettext catalogs, stdlib only.

Code writes the English sentence once, `say(lang, "Saved {path}", path=p)`; the English text is
the message id (gettext's norm), so English needs no catalog and every other language has one,
`scenarios/locale/<lang>/LC_MESSAGES/diagnose.po` with its compiled `.mo` beside it (both
committed, so the grader on Gradescope needs nothing beyond the stdlib). Placeholders are
Python's braces; a message said without values is returned as written (literal braces survive).
A sentence kept in a table and said later is marked where it is written with `N_("...")`, which
returns it unchanged and only tells the extractor it is a message.

Extracting messages, updating the catalogs and compiling them is development work, done with
Babel by `tools/words.py` (docs/architecture.md, "How to add a language"); tests/test_words.py
fails on any message missing from, or obsolete in, a catalog, and on a stale `.mo`. At run time
a message a catalog lacks is said in English. The breaks' own texts are data in each
`break.toml`, not messages here. This module imports nothing from `grading` or `diagnose`.
"""

from __future__ import annotations

import functools
import gettext
from importlib.resources import files
from importlib.resources.abc import Traversable

from scenarios.langs import LANGS

__all__ = ["DOMAIN", "LANGS", "SOURCE_LANG", "N_", "catalog_path", "say", "say_in", "translator"]

DOMAIN = "diagnose"  # the catalogs' file name: diagnose.po, diagnose.mo
SOURCE_LANG = "en"  # the language the code is written in: its text is the message id


def catalog_path(lang: str, suffix: str = ".mo") -> Traversable:
    """The packaged catalog of `lang` (a `.mo` or its `.po`), as an importlib resource."""
    return files("scenarios").joinpath("locale", lang, "LC_MESSAGES", DOMAIN + suffix)


@functools.cache
def translator(lang: str) -> gettext.NullTranslations:
    """The translations of `lang`, read once; KeyError for a language the game does not speak."""
    if lang not in LANGS:
        raise KeyError(lang)
    if lang == SOURCE_LANG:
        return gettext.NullTranslations()
    with catalog_path(lang).open("rb") as compiled:
        return gettext.GNUTranslations(compiled)


def say(lang: str, message: str, /, **values: object) -> str:
    """`message` in `lang`, its `{placeholders}` filled from `values` (none: returned as is)."""
    return _filled(translator(lang).gettext(message), values)


def say_in(lang: str, context: str, message: str, /, **values: object) -> str:
    """`say`, for `message` in gettext's `context` (msgctxt): the same English, its own
    translation."""
    return _filled(translator(lang).pgettext(context, message), values)


def _filled(text: str, values: dict[str, object]) -> str:
    return text.format(**values) if values else text


def N_(message: str) -> str:  # gettext's name for a message marked, not translated
    """`message` unchanged: marks a sentence kept in a table, to be said later with `say`."""
    return message
