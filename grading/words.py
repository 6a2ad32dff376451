"""Matching a diagnosis's words to the catalog's breaks.

Every break of the catalog lists phrases a diagnosis may use for it, in English and Spanish
(`scenarios/breaks/<slug>/break.toml`, `[words]`); its slug is always one of them. A phrase matches
ignoring case, accents and the separators between words: "sin warm-up", "Sin Warmup" and
"sin_warmup" are the same; "Xavier ×100" and "xavier x100" too. Two rules keep that from
inventing words:

- a match starts and ends on word boundaries ("init" is not found in "initial");
- a phrase's word may be split by the text only when it is 5 letters or longer, or where
  letters meet digits: "warm up" is "warmup" and "x 100" is "x100", but "in it" is not "init".

The longest match wins and matches never overlap, so "máscara causal rota" is one mention of
the break whose phrase it is, not three. Negation is not understood: "not a warmup problem"
mentions the break whose word is "warmup".
The folding itself (`fold`, `folded_words`) is `scenarios.folding`'s, the same function the
catalog uses to refuse a phrase the grader could not read as written.
The cost is linear in the text (a candidate is checked against a map of the characters already
matched, not against every earlier match), so a page of repeated break words reads as fast as
a page of prose. This module knows nothing of Markdown, sections or scores.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from scenarios import Break, Catalog
from scenarios.folding import BARRIER, WORD, fold, fold_table, folded_words, unreadable

__all__ = ["BARRIER", "WORD", "Mention", "Vocabulary", "default_vocabulary", "fold",
           "folded_words"]

SPLIT_MIN = 5  # a phrase word this long may be written in pieces ("warm up" for "warmup")


@dataclass(frozen=True)
class Mention:
    """One place where the text names a break: the words as written, and the break(s) meant.

    `slugs` holds more than one slug only when the catalog gives two breaks the same phrase.
    """

    words: str
    slugs: tuple[str, ...]


@dataclass(frozen=True)
class _Phrase:
    squashed: str  # the phrase's words folded and joined without separators
    pieces: tuple[tuple[int, int], ...]  # each word's (start, end) in `squashed`
    slugs: tuple[str, ...]

    def may_split(self, offset: int, squashed_text: str, at: int) -> bool:
        """Whether the text may have a word boundary `offset` characters into this phrase."""
        for start, end in self.pieces:
            if offset == start:
                return True
            if start < offset < end:
                return (end - start >= SPLIT_MIN
                        or squashed_text[at - 1].isdigit() != squashed_text[at].isdigit())
        return False


class Vocabulary:
    """The catalog's phrases, compiled once; `mentions(text)` finds them in any text."""

    def __init__(self, breaks: Mapping[str, Break]) -> None:
        by_phrase: dict[tuple[str, ...], set[str]] = {}
        for slug, brk in breaks.items():
            for phrase in (slug, *(w for words in brk.words.values() for w in words)):
                if unreadable(phrase):  # the catalog refuses these when it loads
                    raise ValueError(f"{slug}: {phrase!r}: {unreadable(phrase)}")
                words = tuple(folded_words(phrase))
                if words:
                    by_phrase.setdefault(words, set()).add(slug)
        phrases = []
        for words, slugs in by_phrase.items():
            pieces, at = [], 0
            for word in words:
                pieces.append((at, at + len(word)))
                at += len(word)
            phrases.append(_Phrase("".join(words), tuple(pieces), tuple(sorted(slugs))))
        # Longest first, so the greedy choice below keeps "máscara causal rota" whole.
        self.phrases = tuple(sorted(phrases, key=lambda p: (-len(p.squashed), p.squashed)))
        self.slugs = tuple(breaks)

    def mentions_each(self, texts: Sequence[str]) -> tuple[Mention, ...]:
        """`mentions` of each text in turn, found in one pass: the texts are joined with a
        letter no phrase holds, so no mention spans two of them (a section with thousands of
        answer lines costs one search per phrase, not one per line)."""
        return self.mentions(BARRIER.join(texts))

    def mentions(self, text: str) -> tuple[Mention, ...]:
        """Every non-overlapping mention of a break in `text`, in reading order."""
        folded, origin = _fold_with_origin(text)
        spans = [m.span() for m in WORD.finditer(folded)]
        if not spans:
            return ()
        squashed = "".join(folded[s:e] for s, e in spans)
        # Where each text word starts in `squashed`, then its end; and the word at each.
        boundaries = [0, *itertools.accumulate(e - s for s, e in spans)]
        word_at = {b: k for k, b in enumerate(boundaries)}

        # Which characters of `squashed` a match already holds: checking a candidate costs
        # its own length, not the number of matches so far (a page of two slugs repeated
        # has tens of thousands).
        taken = bytearray(len(squashed))
        found: list[tuple[int, int, _Phrase]] = []
        for phrase in self.phrases:
            size = len(phrase.squashed)
            start = squashed.find(phrase.squashed)
            while start != -1:
                end = start + size
                first, last = word_at.get(start), word_at.get(end)
                if (first is not None and last is not None and not any(taken[start:end])
                        and (last - first == 1
                             or all(phrase.may_split(b - start, squashed, b)
                                    for b in boundaries[first + 1:last]))):
                    taken[start:end] = b"\x01" * size
                    found.append((first, last, phrase))
                start = squashed.find(phrase.squashed, start + 1)
        found.sort(key=lambda f: f[0])
        return tuple(
            Mention(text[origin(spans[first][0]):origin(spans[last - 1][1] - 1) + 1],
                    phrase.slugs)
            for first, last, phrase in found)


def _fold_with_origin(text: str) -> tuple[str, Callable[[int], int]]:
    """The folded text, and a function from a folded position to the original one.

    Most characters fold to one character, so positions only shift around the few that fold
    to none (a lone combining accent) or several ("ß" -> "ss"); those are found once and a
    position is mapped by bisecting them, so a page of accents costs no Python loop per letter.
    """
    if text.isascii():
        return text.lower(), lambda i: i
    table = fold_table(text)
    uneven = "".join(chr(c) for c, folded in table.items() if len(folded) != 1)
    if not uneven:
        return text.translate(table), lambda i: i
    starts, expansions, shift = [], [], 0  # folded start, original index, folded length
    for found in re.finditer(f"[{re.escape(uneven)}]", text):
        at, width = found.start(), len(table[ord(found[0])])
        starts.append(at + shift)
        expansions.append((at + shift, at, width))
        shift += width - 1

    def origin(position: int) -> int:
        k = bisect.bisect_right(starts, position) - 1
        if k < 0:
            return position
        start, at, width = expansions[k]
        return at if position < start + width else position - (start + width - at - 1)

    return text.translate(table), origin


def default_vocabulary(level: int = 1) -> Vocabulary:
    """The words of one level's deck: a phrase two levels share is not ambiguous, since a
    scenario deals from one level only (architecture §5)."""
    from scenarios import default_catalog

    return _vocabulary(default_catalog(), level)


@functools.lru_cache(maxsize=64)
def _vocabulary(catalog: Catalog, level: int) -> Vocabulary:
    """Compiled once per catalog (another levels file is another catalog) and level."""
    from scenarios import breaks

    return Vocabulary(breaks(level))
