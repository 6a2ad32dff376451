"""The one escaper for text the program shows: what a terminal, a CSV, HTML or results.json
receives from a file, a name or a header.

`escape` shows every character that would act instead of being read as a visible escape:
C0 controls (ESC starts a terminal sequence, CR rewrites a line), DEL and the C1 controls as
`\\x1b`; the bidirectional controls (U+202A–202E, U+2066–2069, U+200E/F, U+061C, which
reorder what follows, so a name can show as another) as `\\u202e`; and a lone surrogate, what
Python holds for a byte of a file name that is not UTF-8 (`os.fsdecode`), as `\\xff`, any
other as `\\ud800`, so every output can encode the result. Everything else, printable text in
any script, comes back unchanged. `keep` leaves some controls as they are: a multi-line
text keeps its newlines and tabs (`LINES`).

`printable` is the older name (`grading.layout.printable`), kept for its callers: one line, or
lines. `escape_json` escapes every string (and key) of a JSON value.

Not here: styling (the CLI styles after escaping), HTML's own `<&>` quoting (`html.escape`),
a spreadsheet's formula characters (`grading.gradebook`).
"""

from __future__ import annotations

from typing import Any

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")
LINES = "\n\t"  # what a multi-line text keeps


def _shown(char: str, keep: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF or char in BIDI_CONTROLS:
        return f"\\u{code:04x}"
    if (code < 0x20 or 0x7F <= code <= 0x9F) and char not in keep:
        return f"\\x{code:02x}"
    return char


def needs_escape(char: str, keep: str = "") -> bool:
    """Whether `escape` changes `char`."""
    return _shown(char, keep) != char


def escape(text: str, *, keep: str = "") -> str:
    """`text` with every control, bidirectional control and lone surrogate shown as an escape
    (see the module docstring); the controls in `keep` are left as they are."""
    if text.isascii() and text.isprintable():
        return text  # the usual case, in one pass
    return "".join(_shown(c, keep) for c in text)


def printable(text: str, *, one_line: bool = False) -> str:
    """`escape`, keeping newlines and tabs unless `one_line` (a name, a line about one)."""
    return escape(text, keep="" if one_line else LINES)


def escape_json(value: Any, *, keep: str = LINES) -> Any:
    """Every string of a JSON value (keys too) escaped; other values as they are."""
    if isinstance(value, str):
        return escape(value, keep=keep)
    if isinstance(value, dict):
        return {escape(str(k), keep=""): escape_json(v, keep=keep) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [escape_json(v, keep=keep) for v in value]
    return value
