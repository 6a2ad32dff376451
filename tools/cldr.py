"""Regenerates `scenarios/cldr.py`, the number symbols of each language of `LANGS`, from Babel's
CLDR data (a development dependency: the game and the grader read the vendored table with the
stdlib, `scenarios/numbers.py`).

    python tools/cldr.py          # rewrite scenarios/cldr.py from the installed Babel

tests/test_numbers.py fails when the table differs from what this writes (a language added to
`LANGS`, or a Babel whose CLDR changed): run it and commit the file. This module holds the one
definition of the table (`table`) that the test uses.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel import Locale

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scenarios.langs import LANGS  # noqa: E402

TARGET = ROOT / "scenarios" / "cldr.py"
HEADER = '''"""The number symbols of each language the game speaks, from CLDR (through Babel).

Written by tools/cldr.py: do not edit; run it again after changing `scenarios.langs.LANGS`.
Per language: the decimal and grouping separators, the minus sign, and the text a percentage's
digits sit between (CLDR's percent pattern: "#,##0%" in English; in Spanish "#,##0 %", its
space a no-break one).
`scenarios.numbers` reads it; it is data only, so the grader imports nothing to have it.
"""

'''


def symbols(lang: str) -> dict[str, str]:
    locale = Locale.parse(lang)
    signs = locale.number_symbols.get("latn", locale.number_symbols)
    percent = locale.percent_formats[None]
    return {"decimal": signs["decimal"], "group": signs["group"], "minus": signs["minusSign"],
            "percent_prefix": percent.prefix[0], "percent_suffix": percent.suffix[0]}


def table() -> str:
    """The text of scenarios/cldr.py for the installed Babel and today's LANGS."""
    rows = "".join(f"    {lang!r}: {{\n" + "".join(f"        {k!r}: {v!r},\n"
                                               for k, v in sorted(symbols(lang).items()))
                   + "    },\n" for lang in LANGS)
    return HEADER + "SYMBOLS: dict[str, dict[str, str]] = {\n" + rows + "}\n"


def main() -> int:
    TARGET.write_text(table(), encoding="utf-8")
    print(f"{TARGET.relative_to(ROOT)}: {', '.join(LANGS)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
