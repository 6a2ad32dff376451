"""How a number is written in each language: one formatter, `number(lang, value, spec)`.

The shape of a number (how many digits, fixed or exponent, a percentage, grouped or not) is
Python's format spec, as the code has always written it (`.3g`, `.1%`, `,`); the symbols are
the language's, from CLDR: `scenarios/cldr.py`, a small table written from Babel's data by
`tools/cldr.py` and vendored, because the grader runs where only the stdlib (and
`cryptography`) is installed. English's symbols are Python's, so an English number is exactly
`format(value, spec)`; Spanish writes "1.234,5", "55,2 %" (a no-break space), "0,509".

`scenarios.words.say` sends every number it fills in through `number`, so a message's
`{share:.1%}` is written in the language it is said in. Exponents stay as Python writes them
("1,2e-05"), the form both languages' papers print. Not here: the rules for how many digits a
view shows (`diagnose.views.panels.format_number`, `diagnose.diagnosis.signatures.fmt`), which call
this one.
"""

from __future__ import annotations

import functools
import numbers
import re

from scenarios.cldr import SYMBOLS

__all__ = ["SYMBOLS", "is_number", "number", "percent", "writes_as_python"]

# Python's format spec mini-language, whole: [[fill]align][sign][z][#][0][width][grouping]
# [.precision][type]
_SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>#)?"
                   r"(?P<zero>0)?(?P<width>[0-9]+)?(?P<grouping>[,_])?"
                   r"(?:\.(?P<precision>[0-9]+))?(?P<type>[bcdeEfFgGnosxX%])?", re.DOTALL)
_NOT_DECIMAL = frozenset("bcoxXns")  # binary, characters, octal, hex, locale, str: as Python


def is_number(value: object) -> bool:
    """A real number that a sentence writes with digits (a bool is a word, not a number)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def number(lang: str, value: object, spec: str = "") -> str:
    """`value` shaped by the format spec `spec`, written with `lang`'s symbols (KeyError for a
    language the game does not speak); anything but a real number is `format(value, spec)`."""
    symbols = SYMBOLS[lang]
    shape = _shape(spec)
    if shape is None or not is_number(value):
        return format(value, spec)
    python_spec, percent_type, fill, align, width, zero_padded = shape
    written = format(value, python_spec)
    if percent_type:
        written = written[:-1]  # Python's "%" suffix; the language's pattern goes around
    sign = written[:1] if written[:1] in "+- " else ""
    digits = written[len(sign):].translate(_symbols_of(lang))
    if sign == "-":
        sign = symbols["minus"]
    if percent_type:
        digits = percent(lang, digits)
    if zero_padded or len(sign) + len(digits) >= width:
        return sign + digits
    pad = fill * (width - len(sign) - len(digits))
    if align == "=":
        return sign + pad + digits
    if align == "<":
        return sign + digits + pad
    if align == "^":
        half = len(pad) // 2
        return pad[:half] + sign + digits + pad[half:]
    return pad + sign + digits


@functools.lru_cache(maxsize=256)
def _shape(spec: str) -> tuple[str, bool, str, str | None, int, bool] | None:
    """What `number` does with `spec`, read once: the spec Python formats the digits with
    (no width but a zero padding's), whether it is a percentage, and the padding to apply;
    None for a spec that is not a decimal number's (Python then writes it as is)."""
    parts = _SPEC.fullmatch(spec)
    if parts is None or (parts["type"] or "") in _NOT_DECIMAL:
        return None
    align, width = parts["align"], int(parts["width"] or 0)
    zero_padded = parts["zero"] is not None and (align is None or (
        align == "=" and parts["fill"] is None))  # Python pads with grouped zeros then
    fill = parts["fill"] or ("0" if parts["zero"] else " ")
    shape = ("=" if zero_padded and align else "") + "".join(
        parts[k] or "" for k in ("sign", "z", "alt"))
    shape += (("0" + parts["width"]) if zero_padded and parts["width"] else "")
    shape += (parts["grouping"] or "") + (f".{parts['precision']}" if parts["precision"] else "")
    return shape + (parts["type"] or ""), parts["type"] == "%", fill, align, width, zero_padded


PYTHON = {"decimal": ".", "group": ",", "minus": "-", "percent_prefix": "", "percent_suffix": "%"}


def writes_as_python(lang: str) -> bool:
    """`lang` writes numbers with Python's own symbols (English): `number` is then exactly
    `format(value, spec)` (tests/test_numbers.py), so a caller may use `str.format`."""
    return lang in _AS_PYTHON


_AS_PYTHON = frozenset(lang for lang, symbols in SYMBOLS.items() if symbols == PYTHON)


def percent(lang: str, written: str) -> str:
    """A percentage whose digits `number` already wrote (`written`, "55,2"), in `lang`'s
    pattern: "55.2%" in English, "55,2 %" in Spanish."""
    symbols = SYMBOLS[lang]
    return symbols["percent_prefix"] + written + symbols["percent_suffix"]


_TABLES: dict[str, dict[int, str]] = {}


def _symbols_of(lang: str) -> dict[int, str]:
    """Python's separators -> `lang`'s, as one `str.translate` table (both at once: a swap)."""
    if lang not in _TABLES:
        symbols = SYMBOLS[lang]
        _TABLES[lang] = str.maketrans({".": symbols["decimal"], ",": symbols["group"],
                                       "-": symbols["minus"]})
    return _TABLES[lang]
