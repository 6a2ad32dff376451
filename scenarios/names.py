"""When two student names are one student: the key every roster, manifest and grader compares.

`name_key` folds what does not tell two people apart: compatibility forms (full-width
`ＪＯＳＥ`), accents (`José`), case, and the Cyrillic and Greek letters drawn exactly like Latin
ones (Cyrillic `Аna` is Latin `Ana`): a subset of Unicode's confusables (UTS #39), the
letters of the three scripts a class roster mixes up. The package index has no well-kept
UTS #39 skeleton in pure Python, so a name that mixes Latin with Cyrillic or Greek letters is
refused where names are written down (`mixed_scripts`, used by the roster), and what is left
to compare is single-script names, where the table below is the whole of the risk.

stdlib only: the grader places a submission file by name with the same key.
"""

from __future__ import annotations

import unicodedata

SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")

# Cyrillic and Greek letters whose glyph is a Latin letter's (UTS #39 confusables.txt,
# restricted to single letters between these three scripts).
LOOKS_LATIN = str.maketrans({
    # Cyrillic capitals and small letters
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I",
    "Ѵ": "V", "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s",
    "і": "i", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y", "ѵ": "v",
    # Greek capitals and small letters
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "α": "a", "ν": "v", "ι": "i",
    "ρ": "p", "υ": "u", "γ": "y",
})


def name_key(name: str) -> str:
    """The form two student names are compared in: `José`, `jose`, `ＪＯＳＥ`, `Jose` and a
    Cyrillic-lettered `Јоsе` are one.

    NFKC (full-width and compatibility forms to plain ones), accents dropped, look-alike
    Cyrillic and Greek letters read as the Latin ones (before case folding: a capital Greek
    `Ν` is an `N`, a small `ν` a `v`), then case folded. A roster refuses two names with one
    key; a file name is matched to a student by its key.
    """
    composed = unicodedata.normalize("NFKC", name)
    bare = "".join(c for c in unicodedata.normalize("NFD", composed)
                   if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare.translate(LOOKS_LATIN)).casefold()


def script(char: str) -> str | None:
    """LATIN, CYRILLIC or GREEK for a letter of one of them, else None (digits, marks, ...)."""
    if not char.isalpha():
        return None
    first = unicodedata.name(char, "").split(" ", 1)[0]
    return first if first in SCRIPTS else None


def mixed_scripts(name: str) -> tuple[str, ...]:
    """The scripts of `name`'s letters, in order of appearance, when it mixes Latin, Cyrillic
    and Greek (`Аna`: Cyrillic then Latin); () when it does not."""
    found = tuple(dict.fromkeys(s for s in map(script, name) if s is not None))
    return found if len(found) > 1 else ()
