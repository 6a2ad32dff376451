"""Every sentence the game says, in every language it speaks: gettext catalogs, stdlib only.

Code writes the English sentence once, `say(lang, "Saved {path}", path=p)`; the English text is
the message id (gettext's norm), so English needs no catalog and every other language has one,
`scenarios/locale/<lang>/LC_MESSAGES/diagnose.po` with its compiled `.mo` beside it (both
committed, so the grader on Gradescope needs nothing beyond the stdlib). Placeholders are
Python's braces; a message said without values is returned as written (literal braces survive).
Every number filled in is written in the language said, through `scenarios.numbers.number` with
the placeholder's format spec (`{share:.1%}` is "55.2%" in English, "55,2 %" in Spanish); a
sentence whose words follow a count says it with `say_n` (gettext's ngettext: "1 dead head",
"2 dead heads", each language with its own plural rule).
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
from scenarios.numbers import is_number, number, writes_as_python

__all__ = ["DOMAIN", "LANGS", "SOURCE_LANG", "N_", "Nn_", "answers_yes", "catalog_path", "say",
           "say_in", "say_n", "translator", "yes_key"]

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
    return _filled(lang, translator(lang).gettext(message), values)


def say_n(lang: str, singular: str, plural: str, count: int | float, /,
          **values: object) -> str:
    """`say` for a sentence whose words agree with `count` (gettext's ngettext): `singular`
    and `plural` are the English, the language's catalog holds its own forms; `count` is
    filled in as `{count}` unless `values` names it otherwise."""
    text = translator(lang).ngettext(singular, plural, _plural_count(count))
    return _filled(lang, text, {"count": count, **values})


def _plural_count(count: int | float) -> int:
    """gettext picks a form by an integer: 1.0 dead head is one, 2.5 is many."""
    return int(count) if float(count).is_integer() else 2


def say_in(lang: str, context: str, message: str, /, **values: object) -> str:
    """`say`, for `message` in gettext's `context` (msgctxt): the same English, its own
    translation."""
    return _filled(lang, translator(lang).pgettext(context, message), values)


class _Written:
    """A number filled into a sentence: formatted by its placeholder's spec in the language's
    symbols (`str.format` asks `__format__`), so a message needs no parsing of its own."""

    __slots__ = ("lang", "value")

    def __init__(self, lang: str, value: object) -> None:
        self.lang, self.value = lang, value

    def __format__(self, spec: str) -> str:
        return number(self.lang, self.value, spec)

    def __str__(self) -> str:
        return number(self.lang, self.value)

    def __repr__(self) -> str:
        return repr(self.value)


def _filled(lang: str, text: str, values: dict[str, object]) -> str:
    if not values:
        return text
    if not writes_as_python(lang):  # else `number` gives exactly what str.format does
        values = {name: _Written(lang, value) if is_number(value) else value
                  for name, value in values.items()}
    return text.format(**values)


def yes_key(lang: str) -> str:
    """The key that answers yes in `lang`, as a prompt names it ("y"; "s" for sí): a message,
    so each language names its own, and every prompt that names it must take it."""
    return say_in(lang, "key that answers yes", "y")


def answers_yes(lang: str, typed: str) -> bool:
    """`typed` (a line or a key) says yes in `lang`: its key or word, or English's "y"/"yes"."""
    said = typed.strip().casefold()
    return bool(said) and said in {yes_key(lang), say(lang, "yes").casefold(), "y", "yes"}


def N_(message: str) -> str:  # gettext's name for a message marked, not translated
    """`message` unchanged: marks a sentence kept in a table, to be said later with `say`."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:  # N_ for say_n's two forms
    """(`singular`, `plural`) unchanged: marks a counted sentence kept in a table."""
    return singular, plural
