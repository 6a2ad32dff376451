"""The names of a workspace's files (architecture §7), shared by the grader and the app.

stdlib only, so the CLI can know its default folder
without loading the grader (or cryptography) just to print `--help`.
"""

import re
from pathlib import Path

from scenarios import escape

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


# The one escaper lives in scenarios.escape; these names stay for their importers.
BIDI_CONTROLS = escape.BIDI_CONTROLS
printable = escape.printable


# Gradescope's visibility settings for a result's tests (its autograder specification)
GRADESCOPE_VISIBILITIES = ("after_published", "after_due_date", "visible", "hidden")
