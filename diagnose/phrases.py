"""`Phrase`: one message of the catalogs in every language, translated when it is read.

Data that is built once and shown in whichever language a view speaks (a panel's title, a
series' name, a finding's sentence) holds a `Phrase` instead of a sentence per language:
`phrase[lang]` is `scenarios.words.say(lang, message, **values)`, and a value that is itself a
phrase is read in the same language, so sentences compose ("{title} · not recorded"). It is a
read-only mapping from each language of `LANGS` to its text, so `dict(phrase)` is the sentence
in every language (for JSON) and a plain `{"en": ..., "es": ...}` dict serves wherever a
`Phrase` does (a course deck's own sentences, which the game's catalogs do not hold).

The extractor (`tools/words.py`) reads `Phrase("...")`'s first argument as a message, and
`P_("context", "...")`'s second with its context: a short label whose English is another
message's ("train") but whose translation is not ("entr." against "entrenamiento").
`Pn_(singular, plural, count)` is a phrase whose words agree with a count (ngettext), and a
`Figure` a number each language writes with its own symbols.
A break's finding is said from the break's own catalog (`within`), the game's behind it.
What it leaves out: choosing a language (the views do) and the words themselves (the catalogs).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from scenarios.langs import LANGS
from scenarios.numbers import number
from scenarios.translations import Translations
from scenarios.words import GAME, said_by


class Phrase(Mapping[str, str]):
    """`message` (English, the catalogs' message id) with its `values`, in every language."""

    __slots__ = ("context", "count", "message", "plural", "translations", "values")

    def __init__(self, message: str, /, **values: object) -> None:
        self.message, self.values, self.context = message, values, None
        self.plural: str | None = None  # with `count`: say_n's plural (Pn_)
        self.count: float = 0
        self.translations: Translations = GAME  # a break's finding: its catalog (`within`)

    def __getitem__(self, lang: str) -> str:
        if lang not in LANGS:
            raise KeyError(lang)
        values = {name: value[lang] if isinstance(value, Mapping) else value
                  for name, value in self.values.items()}
        counted = (self.plural, self.count) if self.plural is not None else None
        return said_by(self.translations, lang, self.message, counted=counted,
                       context=self.context, values=values)

    def within(self, translations: Translations) -> Phrase:
        """This phrase said from `translations` (a break's catalog, the game's behind it)."""
        phrase = Phrase(self.message)
        phrase.values, phrase.context = self.values, self.context
        phrase.plural, phrase.count, phrase.translations = self.plural, self.count, translations
        return phrase

    def __iter__(self) -> Iterator[str]:
        return iter(LANGS)

    def __len__(self) -> int:
        return len(LANGS)

    def __repr__(self) -> str:
        return f"Phrase({self.message!r}, context={self.context!r}, **{self.values!r})"


def Pn_(singular: str, plural: str, count: float, /, **values: object) -> Phrase:
    """A `Phrase` whose words agree with `count` (`say_n`): "1 dead head", "2 dead heads"."""
    phrase = Phrase(singular)
    phrase.values, phrase.plural, phrase.count = values, plural, count
    return phrase


class Figure(Mapping[str, str]):
    """A number as each language writes it, by one format spec (`scenarios.numbers.number`): a
    value a `Phrase` quotes already shaped ("0.509" in English, "0,509" in Spanish)."""

    __slots__ = ("spec", "value")

    def __init__(self, value: float, spec: str = "") -> None:
        self.value, self.spec = value, spec

    def __getitem__(self, lang: str) -> str:
        return number(lang, self.value, self.spec)

    def __iter__(self) -> Iterator[str]:
        return iter(LANGS)

    def __len__(self) -> int:
        return len(LANGS)

    def __repr__(self) -> str:
        return f"Figure({self.value!r}, {self.spec!r})"


def P_(context: str, message: str, /) -> Phrase:
    """`message` said in `context` (gettext's msgctxt): the same English, its own translation."""
    phrase = Phrase(message)
    phrase.context = context
    return phrase
