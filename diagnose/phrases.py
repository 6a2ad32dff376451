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
What it leaves out: choosing a language (the views do) and the words themselves (the catalogs).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from scenarios.langs import LANGS
from scenarios.words import say, say_in


class Phrase(Mapping[str, str]):
    """`message` (English, the catalogs' message id) with its `values`, in every language."""

    __slots__ = ("context", "message", "values")

    def __init__(self, message: str, /, **values: object) -> None:
        self.message, self.values, self.context = message, values, None

    def __getitem__(self, lang: str) -> str:
        if lang not in LANGS:
            raise KeyError(lang)
        values = {name: value[lang] if isinstance(value, Mapping) else value
                  for name, value in self.values.items()}
        if self.context is None:
            return say(lang, self.message, **values)
        return say_in(lang, self.context, self.message, **values)

    def __iter__(self) -> Iterator[str]:
        return iter(LANGS)

    def __len__(self) -> int:
        return len(LANGS)

    def __repr__(self) -> str:
        return f"Phrase({self.message!r}, context={self.context!r}, **{self.values!r})"


def P_(context: str, message: str, /) -> Phrase:
    """`message` said in `context` (gettext's msgctxt): the same English, its own translation."""
    phrase = Phrase(message)
    phrase.context = context
    return phrase
