"""`attempts.jsonl`: one line per grading of a workspace; the first genuine one counts.

Each line is a JSON object (schema `diagnose.attempt/1`):

    {"schema": "diagnose.attempt/1", "time": "2025-03-02T10:15:00Z", "sha256": "<of the file>",
     "file": "borja-diagnoses.md", "score": 2, "max_score": 3, "after_reveal": false,
     "by": "self-study" | "instructor", "answers": {"01": "<slug>", "02": null, ...},
     "correct": ["01", "03"], "n": 1, "mac": "<hex>"}

`n` is the line's place in the file (1 for the first), so a line deleted before others shows.
`mac`, in a bundle dealt by an instructor, is an HMAC-SHA256 of the rest of the record under a
key derived from the instructor's secret and the scenario code (`seal.derive_key`): a student
who edits a score, or copies a line from a classmate's bundle, breaks it. Self-study records
carry none: the student holds that secret anyway.

Reading is never fatal and never trusting: a line that is not JSON (a torn write), not an
attempt, out of range (a score of 99/3, an ID the scenario lacks, a field of the wrong type)
or, in a sealed bundle, unsealed or edited, is skipped and said in `Attempts.problems`. An
append starts on a fresh line, so a torn last line never swallows the next record. A record
deleted from the end, or the whole file, cannot show here: the instructor's ledger
(`ledger.py`) keeps every record of a dealt bundle, is written before the bundle, and restores
it (`rewrite_attempts`). No truth is written; nothing here grades.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from grading.layout import ATTEMPTS_FILE
from grading.seal import SEALERS, derive_key
from scenarios.errors import UserError
from scenarios.files import atomic_write, loads_json, read_small

SCHEMA = "diagnose.attempt/1"
BY = SEALERS
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")  # what `utc_stamp` writes
SHA256 = re.compile(r"^[0-9a-f]{64}$")
MAC_PURPOSE = b"diagnose attempts"


def utc_stamp(when: datetime | None = None) -> str:
    """`when` (now when None; a naive time is taken as UTC) as the records write every time:
    ISO-8601 in UTC to the second (`TIME`)."""
    when = when or datetime.now(UTC)
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")
MAX_BYTES = 16 * 1024 * 1024  # some 40,000 gradings: far more than a workspace ever sees


@dataclass(frozen=True)
class Attempt:
    time: str  # ISO-8601 UTC, "2025-03-02T10:15:00Z"
    sha256: str
    file: str
    score: int
    max_score: int
    after_reveal: bool
    by: str  # a SealedBy value
    answers: dict[str, str | None]
    correct: tuple[str, ...]
    n: int = 0  # the line's place in the file; 0 in records written before it was kept
    mac: str = ""  # the seal of a record in an instructor's bundle
    collected: str = ""  # ISO-8601 UTC: when the file was collected (its mtime); "" unknown

    @property
    def date(self) -> str:
        return self.time[:10]

    def to_json(self) -> dict[str, Any]:
        record = {"schema": SCHEMA, "time": self.time, "sha256": self.sha256, "file": self.file,
                  "score": self.score, "max_score": self.max_score,
                  "after_reveal": self.after_reveal, "by": self.by,
                  "answers": dict(self.answers), "correct": list(self.correct)}
        if self.n:
            record["n"] = self.n
        if self.collected:
            record["collected"] = self.collected
        if self.mac:
            record["mac"] = self.mac
        return record

    @classmethod
    def from_json(cls, data: Any) -> Attempt | None:
        """The attempt a parsed line holds, or None unless every field is of its kind."""
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            return None
        answers, correct = data.get("answers"), data.get("correct")
        n = data.get("n", 0)
        if not (isinstance(data.get("time"), str) and TIME.match(data["time"])
                and isinstance(data.get("sha256"), str) and SHA256.match(data["sha256"])
                and isinstance(data.get("file"), str)
                and all(_count(data.get(k)) for k in ("score", "max_score")) and _count(n)
                and isinstance(data.get("after_reveal"), bool) and data.get("by") in BY
                and isinstance(answers, dict)
                and all(isinstance(v, str | None) for v in answers.values())
                and isinstance(correct, list) and all(isinstance(i, str) for i in correct)
                and isinstance(data.get("mac", ""), str)
                and (data.get("collected", "") == "" or (
                    isinstance(data["collected"], str) and TIME.match(data["collected"])))):
            return None
        return cls(data["time"], data["sha256"], data["file"], data["score"],
                   data["max_score"], data["after_reveal"], data["by"], dict(answers),
                   tuple(correct), n, data.get("mac", ""), data.get("collected", ""))

    def out_of_range(self, ids: Sequence[str] | None) -> str | None:
        """Why this record cannot be a grading of a scenario with `ids`, else None."""
        known = set(self.answers) if ids is None else set(ids)
        if set(self.answers) != known:
            return f"its IDs {', '.join(sorted(self.answers))} are not the scenario's"
        if not set(self.correct) <= known or len(set(self.correct)) != len(self.correct):
            return "its right answers are not among the scenario's IDs"
        if self.max_score != len(known) or self.score != len(self.correct):
            return f"a score of {self.score}/{self.max_score} is not what its answers give"
        return None


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _canonical(attempt: Attempt) -> bytes:
    record = attempt.to_json()
    record.pop("mac", None)
    return json.dumps(record, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":")).encode("utf-8")


def seal_attempt(attempt: Attempt, secret: bytes, code: str) -> str:
    """The `mac` of `attempt` in the bundle of scenario `code`, under the instructor's secret."""
    key = derive_key(secret, MAC_PURPOSE, code)
    return hmac.new(key, _canonical(attempt), hashlib.sha256).hexdigest()


def digest(records: Sequence[Attempt]) -> str:
    """One SHA-256 over records, in order: what the ledger keeps to see them again unchanged."""
    hasher = hashlib.sha256()
    for record in records:
        hasher.update(_canonical(record) + record.mac.encode("ascii", "replace") + b"\n")
    return hasher.hexdigest()


@dataclass(frozen=True)
class Attempts:
    """A workspace's genuine attempts in file order, what was wrong with the other lines, and
    how many lines the file holds (the next record's `n` is one more)."""

    records: tuple[Attempt, ...]
    problems: tuple[str, ...]
    lines: int

    @property
    def first(self) -> Attempt | None:
        return self.records[0] if self.records else None


def load_attempts(workspace: Path, ids: Sequence[str] | None = None, *,
                  secret: bytes | None = None, code: str = "") -> Attempts:
    """Read `attempts.jsonl`: with `ids`, records must grade those IDs; with `secret`, each must
    carry its seal for scenario `code` (an instructor's bundle)."""
    path = Path(workspace) / ATTEMPTS_FILE
    if not path.exists() and not path.is_symlink():
        return Attempts((), (), 0)
    try:
        text = read_small(path, "an attempts file", MAX_BYTES).decode("utf-8", errors="replace")
    except UserError as err:
        return Attempts((), (f"{err}; no attempt read",), 0)
    records, problems = [], []
    lines = [line for line in text.splitlines() if line.strip()]
    for place, line in enumerate(lines, start=1):
        said = f"{path}: line {place}"
        try:
            attempt = Attempt.from_json(loads_json(line))
        except ValueError:
            problems.append(f"{said}: not a whole record (a write cut short?); skipped")
            continue
        if attempt is None:
            problems.append(f"{said}: not an attempt record; skipped")
            continue
        wrong = attempt.out_of_range(ids)
        if wrong:
            problems.append(f"{said}: {wrong}; skipped")
            continue
        if secret is not None:
            if not hmac.compare_digest(attempt.mac, seal_attempt(attempt, secret, code)):
                problems.append(f"{said}: edited, or not written by this course's grading "
                                "(its seal does not match); skipped")
                continue
            if attempt.n != place:
                problems.append(f"{said}: written as line {attempt.n}; lines before it were "
                                "deleted or moved")
        records.append(attempt)
    return Attempts(tuple(records), tuple(problems), len(lines))


def read_attempts(workspace: Path, ids: Sequence[str] | None = None) -> list[Attempt]:
    """The genuine attempts of a workspace, without saying what was skipped."""
    return list(load_attempts(workspace, ids).records)


def numbered(attempt: Attempt, n: int, *, secret: bytes | None = None,
             code: str = "") -> Attempt:
    """`attempt` as line `n` of a file: its place set, and sealed when `secret` is given."""
    record = replace(attempt, n=n, mac="")
    if secret is None:
        return record
    return replace(record, mac=seal_attempt(record, secret, code))


def unrecordable(workspace: Path) -> str | None:
    """Why no attempt can be recorded in `workspace`, or None: checked before any record."""
    path = Path(workspace) / ATTEMPTS_FILE
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return f"{ATTEMPTS_FILE} is not a regular file"  # a FIFO would block the append
    if not os.access(workspace, os.W_OK | os.X_OK) or (
            path.exists() and not os.access(path, os.W_OK)):
        return "not writable"
    return None


def _line(record: Attempt) -> bytes:
    return json.dumps(record.to_json(), ensure_ascii=False).encode("utf-8") + b"\n"


def append_record(workspace: Path, record: Attempt) -> Attempt:
    """Append `record`, already numbered and sealed, as the file's next line. Raises OSError."""
    path = Path(workspace) / ATTEMPTS_FILE
    why = unrecordable(workspace)
    if why:
        raise OSError(why)
    line = _line(record)
    with path.open("a+b") as stream:
        stream.seek(0, 2)
        if stream.tell():
            stream.seek(-1, 2)
            if stream.read(1) != b"\n":  # a torn last line: ours starts on a line of its own
                line = b"\n" + line
        # One write of whole lines: concurrent graders interleave lines, not halves.
        stream.write(line)
    return record


def rewrite_attempts(workspace: Path, records: Sequence[Attempt], *, sync: bool = True) -> None:
    """Replace the file with `records` (a courtesy copy of the instructor's ledger), whole or
    not at all; `sync=False`: not forced to disk first (a copy: the ledger is the record).
    Raises OSError."""
    why = unrecordable(workspace)
    if why:
        raise OSError(why)
    atomic_write(Path(workspace) / ATTEMPTS_FILE, b"".join(map(_line, records)),
                 error=OSError, sync=sync)


def append_attempt(workspace: Path, attempt: Attempt, *, secret: bytes | None = None,
                   code: str = "") -> Attempt:
    """Append `attempt` as the file's next line (sealed when `secret` is given); returns it as
    written. Raises OSError."""
    return append_record(workspace, numbered(attempt, load_attempts(workspace).lines + 1,
                                             secret=secret, code=code))
