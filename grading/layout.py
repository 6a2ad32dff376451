"""The names of a workspace's files (DESIGN §7), shared by the grader and the app.

stdlib only and nothing else, so the CLI can know its default folder without loading the
grader (or cryptography) just to print `--help`.
"""

import re
from pathlib import Path

DEFAULT_DIR = Path("experiments") / "19-break-it"
DEFAULT_IDS = ("01", "02", "03")
SCENARIO_FILE = "scenario.json"
SCENARIO_SCHEMA = "diagnose.scenario/1"
KEY_FILE = "answer-key.sealed"
REVEAL_FILE = "reveal.json"
RUN_ID = re.compile(r"^\d\d$")
