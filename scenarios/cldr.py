"""The number symbols of each language the game speaks, from CLDR (through Babel).

Written by tools/cldr.py: do not edit; run it again after changing `scenarios.langs.LANGS`.
Per language: the decimal and grouping separators, the minus sign, and the text a percentage's
digits sit between (CLDR's percent pattern: "#,##0%" in English; in Spanish "#,##0 %", its
space a no-break one).
`scenarios.numbers` reads it; it is data only, so the grader imports nothing to have it.
"""

SYMBOLS: dict[str, dict[str, str]] = {
    'en': {
        'decimal': '.',
        'group': ',',
        'minus': '-',
        'percent_prefix': '',
        'percent_suffix': '%',
    },
    'es': {
        'decimal': ',',
        'group': '.',
        'minus': '-',
        'percent_prefix': '',
        'percent_suffix': '\xa0%',
    },
}
