"""The README's table of levels, drawn from `scenarios/levels.toml` (one row per level: what it
deals, its folder, the diagnoses file). `python tools/levels_table.py` rewrites the block
between the README's `<!-- levels -->` markers; tests/test_levels_as_data.py checks that the
README holds what this prints, so a level added to levels.toml is a row after one command.
"""

from __future__ import annotations

import re
import sys
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grading.layout import DEFAULT_DIR  # noqa: E402
from scenarios.catalog import load_catalog  # noqa: E402

README = ROOT / "README.md"
BLOCK = re.compile(r"(<!-- levels:[^\n]*-->\n)(.*?)(<!-- /levels -->)", re.S)


def table() -> str:
    """The package's levels as a Markdown table (a course deck's are `diagnose breaks`')."""
    catalog = load_catalog(resources.files("scenarios"))
    rows = ["| level | what it deals | folder | your file |", "|---|---|---|---|"]
    for level in catalog.levels.values():
        deck = ", ".join(level.deck) + (", the healthy decoy" if level.decoy else "")
        deals = (f"every one of {deck}, in an order" if level.deal == "permutation"
                 else f"{level.runs} of {deck}")
        rows.append(f"| {level.number} | {level.name['en']}: {deals} | "
                    f"`{level.folder(DEFAULT_DIR).as_posix()}/` | "
                    f"`{level.named('<name>-diagnoses')}.md` |")
    return "\n".join(rows) + "\n"


def rewritten(text: str) -> str:
    """`text` (the README) with its levels block replaced by `table()`."""
    if not BLOCK.search(text):
        raise SystemExit("README.md: no <!-- levels: ... --> ... <!-- /levels --> block")
    return BLOCK.sub(lambda m: m[1] + table() + m[3], text, count=1)


if __name__ == "__main__":
    README.write_text(rewritten(README.read_text(encoding="utf-8")), encoding="utf-8")
    print(table(), end="")
