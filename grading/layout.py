"""The names of a workspace's files (architecture §7), shared by the grader and the app.

stdlib only (and `scenarios.names`, stdlib only too), so the CLI can know its default folder
without loading the grader (or cryptography) just to print `--help`.
"""

import re
from pathlib import Path

from scenarios.names import name_key

DEFAULT_DIR = Path("experiments") / "19-break-it"
DEFAULT_IDS = ("01", "02", "03")
SCENARIO_FILE = "scenario.json"
SCENARIO_SCHEMA = "diagnose.scenario/1"
KEY_FILE = "answer-key.sealed"
REVEAL_FILE = "reveal.json"
ATTEMPTS_FILE = "attempts.jsonl"
def level_dir(level: int, base: Path = DEFAULT_DIR) -> Path:
    """Where a level's self-study scenario lives: level 1 in `base` (the course's folder), a
    higher level in a sibling, `experiments/19-break-it-level-2/`: never inside level 1's
    workspace, so each folder is one workspace and `experiments/` keeps the solutions' layout."""
    return base if level == 1 else base.with_name(f"{base.name}-level-{level}")


RUN_ID = re.compile(r"^\d\d$")
MANIFEST = "manifest.csv"  # a class's bundles folder: one row per dealt student
MAX_STUDENTS = 10_000  # students of one deal: a roster's rows, `deal --count`


# How two student names are compared: `scenarios.names.name_key` (case, accents, width and the
# Cyrillic and Greek letters that look Latin), one definition for the roster and the graders.
student_key = name_key
# Gradescope's visibility settings for a result's tests (its autograder specification)
GRADESCOPE_VISIBILITIES = ("after_published", "after_due_date", "visible", "hidden")
