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
a message a catalog lacks is said in English. A break's own words (its texts and findings) are
in its own folder's catalog (`scenarios.translations`, domain `break`), not here; a finding's
`Phrase` says them with `said_by` and the break's catalog, this one behind it. This module
imports nothing from `grading` or `diagnose`.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from importlib.resources import files

from scenarios.langs import LANGS
from scenarios.numbers import is_number, number, writes_as_python
from scenarios.translations import SOURCE_LANG, Translations

__all__ = ["DOMAIN", "GAME", "LANGS", "SOURCE_LANG", "N_", "Nn_", "answers_yes", "say", "say_in",
           "say_n", "said_by", "translator", "yes_key"]

DOMAIN = "diagnose"  # the catalogs' file name: diagnose.po, diagnose.mo
GAME = Translations(files("scenarios"), DOMAIN, shown="scenarios")  # the code's sentences


def translator(lang: str) -> gettext.NullTranslations:
    """The translations of `lang`, read once; KeyError for a language the game does not speak."""
    return GAME.of(lang)


def say(lang: str, message: str, /, **values: object) -> str:
    """`message` in `lang`, its `{placeholders}` filled from `values` (none: returned as is)."""
    return said_by(GAME, lang, message, values=values)


def say_n(lang: str, singular: str, plural: str, count: int | float, /,
          **values: object) -> str:
    """`say` for a sentence whose words agree with `count` (gettext's ngettext): `singular`
    and `plural` are the English, the language's catalog holds its own forms; `count` is
    filled in as `{count}` unless `values` names it otherwise."""
    return said_by(GAME, lang, singular, counted=(plural, count), values=values)


def say_in(lang: str, context: str, message: str, /, **values: object) -> str:
    """`say`, for `message` in gettext's `context` (msgctxt): the same English, its own
    translation."""
    return said_by(GAME, lang, message, context=context, values=values)


def said_by(translations: Translations, lang: str, message: str, *,
            counted: tuple[str, int | float] | None = None, context: str | None = None,
            values: Mapping[str, object] | None = None) -> str:
    """The one way a message is said: `message` (with `counted`, its plural and the count its
    words agree with; or in its `context`) looked up in `translations` (the game's, or a
    break's with the game's behind it), in `lang`, its placeholders filled from `values`."""
    told = translations.of(lang)
    filled = dict(values or {})
    if counted is not None:
        plural, count = counted
        text = told.ngettext(message, plural, _plural_count(count))
        filled = {"count": count, **filled}
    elif context is not None:
        text = told.pgettext(context, message)
    else:
        text = told.gettext(message)
    return _filled(lang, text, filled)


def _plural_count(count: int | float) -> int:
    """gettext picks a form by an integer: 1.0 dead head is one, 2.5 is many."""
    return int(count) if float(count).is_integer() else 2


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
