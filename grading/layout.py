"""The names of a workspace's files (architecture §7), shared by the grader and the app.

stdlib only, so the CLI can know its default folder
without loading the grader (or cryptography) just to print `--help`.
"""

import re
from pathlib import Path

DEFAULT_DIR = Path("experiments") / "19-break-it"
DEFAULT_IDS = ("01", "02", "03")
SCENARIO_FILE = "scenario.json"
SCENARIO_SCHEMA = "diagnose.scenario/1"
KEY_FILE = "answer-key.sealed"
REVEAL_FILE = "reveal.json"
ATTEMPTS_FILE = "attempts.jsonl"
def level_dir(level: int, base: Path = DEFAULT_DIR) -> Path:
    """Where a level's self-study scenario lives: `base` (the course's folder) named as the
    level's entry says (`Level.folder`: level 1 in `base` itself, level 2 in its sibling
    `experiments/19-break-it-level-2/`), never inside another level's workspace, so each folder
    is one workspace and `experiments/` keeps the solutions' layout."""
    from scenarios.levels import level as entry  # not at import: `--help` reads no catalog

    return entry(level).folder(base)



def next_level_dir(directory: Path, level: int) -> Path:
    """The folder of `level` beside `directory`, a level's folder (a bundle's, or the course's
    default): where `diagnose play` goes on to the next level."""
    beside = directory.parent / DEFAULT_DIR.name if directory.name.startswith(
        DEFAULT_DIR.name) else None
    return level_dir(level, beside or DEFAULT_DIR)


RUN_ID = re.compile(r"^\d\d$")
MANIFEST = "manifest.csv"  # a class's bundles folder: one row per dealt student
DEAL_SETTINGS = "deal-settings.json"  # beside the manifest: the settings of the deal
MAX_STUDENTS = 10_000  # students of one deal: a roster's rows, `deal --count`


BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def printable(text: str, *, one_line: bool = False) -> str:
    """`text` as UTF-8 can carry it: a byte of a file name that is not UTF-8 (which Python holds
    as a lone surrogate, os.fsdecode's surrogateescape) is shown as `\\xff`, any other lone
    surrogate as `\\ud800`. Every name a grading writes to a terminal, a CSV or JSON goes
    through here, so no output can fail to encode it; text that is UTF-8 comes back as is.

    `one_line`: also a control character (a newline, a carriage return, an escape that would
    drive the terminal) or a bidirectional override, shown as `\\x0a` or `\\u202e`, so a
    file's name or a line about it is one line that shows what it is."""
    def shown(c: str) -> str:
        if "\udc80" <= c <= "\udcff":
            return f"\\x{ord(c) - 0xDC00:02x}"
        if "\ud800" <= c <= "\udfff" or (one_line and c in BIDI_CONTROLS):
            return f"\\u{ord(c):04x}"
        if one_line and (c < " " or "\x7f" <= c <= "\x9f"):
            return f"\\x{ord(c):02x}"
        return c

    if text.isprintable() if one_line else text.isascii():
        return text
    if not one_line:
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            pass
    return "".join(map(shown, text))


# Gradescope's visibility settings for a result's tests (its autograder specification)
GRADESCOPE_VISIBILITIES = ("after_published", "after_due_date", "visible", "hidden")
