"""`attempts.jsonl`: one line per grading of a workspace; the first one is the one that counts.

Each line is a JSON object (schema `diagnose.attempt/1`):

    {"schema": "diagnose.attempt/1", "time": "2025-03-02T10:15:00Z", "sha256": "<of the file>",
     "file": "borja-diagnoses.md", "score": 2, "max_score": 3, "after_reveal": false,
     "by": "self-study" | "instructor", "answers": {"01": "no-warmup", "02": null, ...},
     "correct": ["01", "03"]}

No truth is written: the workspace is the student's, and the key stays sealed. A line that is
not an attempt (a truncated write, a hand edit) is skipped, never fatal. Nothing here grades.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from grading.layout import ATTEMPTS_FILE

SCHEMA = "diagnose.attempt/1"


@dataclass(frozen=True)
class Attempt:
    time: str  # ISO-8601 UTC, "2025-03-02T10:15:00Z"
    sha256: str
    file: str
    score: int
    max_score: int
    after_reveal: bool
    by: str  # "self-study" or "instructor"
    answers: dict[str, str | None]
    correct: tuple[str, ...]

    @property
    def date(self) -> str:
        return self.time[:10]

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, **asdict(self), "correct": list(self.correct)}

    @classmethod
    def from_json(cls, data: Any) -> Attempt | None:
        try:
            if data["schema"] != SCHEMA:
                return None
            answers = {str(k): (v if isinstance(v, str) else None)
                       for k, v in dict(data["answers"]).items()}
            attempt = cls(str(data["time"]), str(data["sha256"]), str(data["file"]),
                          int(data["score"]), int(data["max_score"]), bool(data["after_reveal"]),
                          str(data["by"]), answers, tuple(str(i) for i in data["correct"]))
        except (KeyError, TypeError, ValueError):
            return None
        return attempt


def read_attempts(workspace: Path) -> list[Attempt]:
    path = Path(workspace) / ATTEMPTS_FILE
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    found = []
    for line in text.splitlines():
        try:
            attempt = Attempt.from_json(json.loads(line))
        except json.JSONDecodeError:
            continue
        if attempt is not None:
            found.append(attempt)
    return found


def append_attempt(workspace: Path, attempt: Attempt) -> None:
    # One write of one line: concurrent graders interleave whole lines, not halves.
    line = json.dumps(attempt.to_json(), ensure_ascii=False) + "\n"
    with (Path(workspace) / ATTEMPTS_FILE).open("a", encoding="utf-8") as stream:
        stream.write(line)
