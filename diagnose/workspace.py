"""A scenario's workspace on disk (DESIGN §7): what is in it and how to read it back.

```
scenario.json          code, engine version, steps, IDs: nothing about which break is where
answer-key.sealed      the assignment, sealed (grading.seal)
reference/ 01/ 02/ 03/ metrics.jsonl and dashboard.html each
attempts.jsonl         one line per grading (written by grading)
reveal.json            present once the answers were revealed (by `reveal` or `grade`)
```

The solutions file is written next to `experiments/`: `<workspace>/../../solutions/`.
Making a workspace (training, sealing) is `diagnose.scenario`'s job; this module only reads
and knows the names.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from diagnose.metrics import MetricsError, read_metrics

DEFAULT_DIR = Path("experiments") / "19-break-it"
SCENARIO_FILE = "scenario.json"
SCENARIO_SCHEMA = "diagnose.scenario/1"
KEY_FILE = "answer-key.sealed"
ATTEMPTS_FILE = "attempts.jsonl"
REVEAL_FILE = "reveal.json"
METRICS_FILE = "metrics.jsonl"
DASHBOARD_FILE = "dashboard.html"
REFERENCE = "reference"
SOLUTIONS = Path("solutions") / "03-three-failures-ref.md"
RUN_ID = re.compile(r"^\d\d$")
SCENARIO_MAX_BYTES = 64 * 1024


class WorkspaceError(Exception):
    """A workspace is missing, incomplete or corrupt; one line naming the file."""


@dataclass(frozen=True)
class Workspace:
    path: Path
    code: str
    ids: tuple[str, ...]
    steps: int
    engine_version: str
    key: str  # "self-study" or "instructor": which secret sealed it

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
        try:
            return self.key_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise WorkspaceError(f"{self.key_path}: the answer key is missing") from None
        except (OSError, UnicodeDecodeError) as err:
            raise WorkspaceError(f"{self.key_path}: cannot be read ({err})") from None

    @property
    def attempts_path(self) -> Path:
        return self.path / ATTEMPTS_FILE

    @property
    def solutions_path(self) -> Path:
        return self.path.resolve().parent.parent / SOLUTIONS

    @property
    def revealed(self) -> bool:
        return (self.path / REVEAL_FILE).exists()

    def mark_revealed(self, by: str) -> None:
        """Record that the answers were shown (first time only; later calls keep the first)."""
        marker = self.path / REVEAL_FILE
        if not marker.exists():
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            marker.write_text(json.dumps({"revealed_at": stamp, "by": by}) + "\n",
                              encoding="utf-8")


def is_workspace(path: Path) -> bool:
    return (Path(path) / SCENARIO_FILE).is_file()


def scenario_json(code: str, ids: list[str], steps: int, engine_version: str, key: str) -> str:
    return json.dumps({"schema": SCENARIO_SCHEMA, "code": code, "engine_version": engine_version,
                       "steps": steps, "ids": ids, "key": key}, indent=2) + "\n"


def open_workspace(path: Path) -> Workspace:
    """Read `path/scenario.json`, or raise WorkspaceError saying what is wrong."""
    path = Path(path)
    if not path.exists():
        raise WorkspaceError(f"{path}: no such directory; make a scenario with `diagnose new`")
    if not path.is_dir():
        raise WorkspaceError(f"{path}: not a directory")
    file = path / SCENARIO_FILE
    if not file.is_file():
        raise WorkspaceError(f"{path}: no scenario here ({SCENARIO_FILE} is missing); "
                             "make one with `diagnose new`")
    try:
        if file.stat().st_size > SCENARIO_MAX_BYTES:
            raise WorkspaceError(f"{file}: corrupt (too large to be a scenario file)")
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise WorkspaceError(f"{file}: corrupt ({type(err).__name__})") from None
    ok = (isinstance(data, dict) and data.get("schema") == SCENARIO_SCHEMA
          and isinstance(data.get("code"), str) and data["code"]
          and isinstance(data.get("steps"), int) and data["steps"] > 0
          and isinstance(data.get("ids"), list) and len(data["ids"]) >= 1
          and all(isinstance(i, str) and RUN_ID.match(i) for i in data["ids"])
          and isinstance(data.get("engine_version"), str)
          and data.get("key") in ("self-study", "instructor"))
    if not ok:
        raise WorkspaceError(f"{file}: corrupt (expected schema {SCENARIO_SCHEMA} with code, "
                             "steps, ids, engine_version and key)")
    return Workspace(path=path, code=data["code"], ids=tuple(data["ids"]), steps=data["steps"],
                     engine_version=data["engine_version"], key=data["key"])
