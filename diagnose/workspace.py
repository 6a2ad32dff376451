"""A scenario's workspace on disk (architecture §7): what is in it and how to read it back.

```
scenario.json          code, engine version, steps, IDs: nothing about which break is where
answer-key.sealed      the assignment, sealed (grading.seal)
reference/ 01/ 02/ 03/ metrics.jsonl and dashboard.html each
attempts.jsonl         one line per grading (written by grading)
reveal.json            present once the answers were revealed (by `reveal` or `grade`)
```

The solutions file is written next to `experiments/` (`<workspace>/../../solutions/`), or in
the current directory when the workspace is not inside an `experiments/` folder.
`scenario.json` is read and written by `grading.grade`, whose grader reads it on a bare server.
Making a workspace (training, sealing) is `diagnose.game.scenario`'s job; this module only reads
and knows the names.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from diagnose.metrics import MetricsError, read_metrics
from grading.grade import GradeError, Scenario, read_scenario
from grading.layout import ATTEMPTS_FILE, DEFAULT_DIR, KEY_FILE, REVEAL_FILE, SCENARIO_FILE
from scenarios.errors import UserError
from scenarios.files import atomic_write, read_small_text

__all__ = ["ATTEMPTS_FILE", "DASHBOARD_FILE", "DEFAULT_DIR", "KEY_FILE", "METRICS_FILE",
           "REFERENCE", "REVEAL_FILE", "SCENARIO_FILE", "SOLUTIONS", "Workspace",
           "WorkspaceError", "course_dir", "is_workspace", "open_workspace"]

METRICS_FILE = "metrics.jsonl"
DASHBOARD_FILE = "dashboard.html"
REFERENCE = "reference"
SOLUTIONS = Path("solutions") / "03-three-failures-ref.md"  # the course's name, for three runs
COUNT_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
KEY_TEXT_MAX = 64 * 1024  # a sealed key is under 1 KiB


class WorkspaceError(UserError):
    """A workspace is missing, incomplete or corrupt; one line naming the file."""


@dataclass(frozen=True)
class Workspace(Scenario):
    """A scenario on disk: what `scenario.json` says (`grading.grade.Scenario`, its one
    definition) and the app's ways to read the runs, the key and the student's files."""

    @property
    def runs(self) -> tuple[str, ...]:
        """Every run folder in display order: the reference, then the IDs."""
        return (REFERENCE, *self.ids)

    def run_dir(self, run: str) -> Path:
        return self.path / run

    def metrics_path(self, run: str) -> Path:
        return self.path / run / METRICS_FILE

    def dashboard_path(self, run: str) -> Path:
        return self.path / run / DASHBOARD_FILE

    def read_run(self, run: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        try:
            return read_metrics(self.metrics_path(run))
        except MetricsError as err:
            raise WorkspaceError(str(err)) from None

    @property
    def key_path(self) -> Path:
        return self.path / KEY_FILE

    def sealed_text(self) -> str:
        return read_small_text(self.key_path, "an answer key", KEY_TEXT_MAX,
                               error=WorkspaceError, missing="the answer key is missing")

    @property
    def attempts_path(self) -> Path:
        return self.path / ATTEMPTS_FILE

    @property
    def solutions_path(self) -> Path:
        """The course's file, named as the scenario's level names its files (`Level.named`:
        level 1's is `03-three-failures-ref.md`, level 2's `...-ref-level-2.md` beside it),
        with the level's own count of runs (a level of four: `03-four-failures-ref-...`)."""
        from scenarios.levels import level

        runs = len(self.ids)
        count = COUNT_WORDS[runs - 1] if runs <= len(COUNT_WORDS) else str(runs)
        stem = SOLUTIONS.stem.replace("three", count, 1)
        return course_dir(self.path) / SOLUTIONS.with_stem(level(self.level).named(stem))

    @property
    def revealed(self) -> bool:
        return (self.path / REVEAL_FILE).exists()

    def mark_revealed(self, by: str) -> None:
        """Record that the answers were shown (first time only; later calls keep the first)."""
        marker = self.path / REVEAL_FILE
        if not marker.exists():
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            atomic_write(marker, json.dumps({"revealed_at": stamp, "by": by}) + "\n",
                         error=WorkspaceError)


def course_dir(workspace: Path, cwd: Path | None = None) -> Path:
    """Where the student's own files go (diagnoses, solutions): the folder that holds
    `experiments/` in the course's layout, else the current directory."""
    folder = Path(workspace).resolve().parent
    if folder.name == "experiments":
        return folder.parent
    return Path.cwd() if cwd is None else cwd


def is_workspace(path: Path) -> bool:
    return (Path(path) / SCENARIO_FILE).is_file()


def open_workspace(path: Path) -> Workspace:
    """Read `path/scenario.json`, or raise WorkspaceError saying what is wrong."""
    try:
        scenario = read_scenario(Path(path))
    except GradeError as err:
        message = str(err)
        if message.endswith("no such directory"):
            message += "; make a scenario with `diagnose new`"
        elif message.endswith("is missing)"):
            message += "; make one with `diagnose new`"
        raise WorkspaceError(message) from None
    return Workspace(**{f.name: getattr(scenario, f.name) for f in fields(scenario)})
