"""The one form the grader reads words in, and the rule for what it can read.

`fold` lowercases, drops accents, turns compatibility forms into plain ones and reads "×" as
"x"; `folded_words` is a text's words after folding. `grading.words` matches diagnoses with
them and `scenarios.catalog` refuses, when the catalog loads, a phrase they would not read as
written (`unreadable`): one definition, so a word the catalog accepts is a word the grader
finds. stdlib only; nothing here knows about breaks or Markdown.
"""

from __future__ import annotations

import functools
import re
import unicodedata

WORD = re.compile(r"[^\W_]+")
BARRIER = " \u01c2 "  # a word of its own ("ǂ", a click letter) that no phrase of the catalog has


READ_AS = {"×": "x"}  # the multiplication sign of "Xavier ×100"; NFKD leaves it alone
INVISIBLE = {"Cc", "Cf", "Co", "Cn", "Cs"}  # controls, format marks, private or unassigned


@functools.lru_cache(maxsize=4096)
def fold_char(char: str) -> str:
    if char in READ_AS:
        return READ_AS[char]
    decomposed = unicodedata.normalize("NFKD", char)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def fold_table(text: str) -> dict[int, str]:
    """Each distinct character of `text` -> its folded form, for `str.translate`."""
    return {ord(c): fold_char(c) for c in set(text)}


def fold(text: str) -> str:
    """Lowercase, accents removed, × read as x: the form every comparison uses."""
    if text.isascii():
        return text.lower()
    return text.translate(fold_table(text))


def folded_words(text: str) -> list[str]:
    return WORD.findall(fold(text))


def _is_word(text: str) -> bool:
    return WORD.fullmatch(text) is not None


def unreadable(phrase: str) -> str | None:
    """Why the grader would not read `phrase` as written, or None when it would.

    Each character must fold to something of its own kind: a letter or digit to letters or
    digits ("é" to "e", "ß" to "ss"), anything else to no letter or digit (a space, a hyphen),
    "×" to "x" on purpose. Refused: a letter that folds into a separator ("½" to "1⁄2"), a
    symbol that folds into a letter ("⑴" to "(1)"), an accent on no letter, an invisible,
    private or unassigned character, the grader's own barrier letter, a phrase without a word.
    """
    barrier = BARRIER.strip()
    previous = " "
    # Printable ASCII passes every rule below (each character folds to itself, lowercased):
    # only whether it holds a word is left to ask. The catalog's phrases are mostly that.
    for char in "" if phrase.isascii() and phrase.isprintable() else phrase:
        shown = f"{char!r} (U+{ord(char):04X})"
        folded = fold_char(char)
        if char == barrier:
            return f"{shown} is the grader's own separator"
        if unicodedata.category(char) in INVISIBLE:
            return f"{shown} is invisible, private or unassigned"
        if unicodedata.combining(char):
            if not _is_word(previous):
                return f"{shown} is an accent on no letter"
            continue  # folds to nothing, the letter before it stays
        if char in READ_AS:
            pass
        elif _is_word(char) and not _is_word(folded):
            return f"{shown} reads as {folded!r}, not as letters or digits"
        elif not _is_word(char) and WORD.search(folded):
            return f"{shown} reads as {folded!r}, a letter or digit"
        previous = char
    if not folded_words(phrase):
        return "it has no letter or digit"
    return None
