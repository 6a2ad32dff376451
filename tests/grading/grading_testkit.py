"""What the grader's tests share: workspaces built without training, and a reading's outcome.

A workspace is only scenario.json and a sealed key for the grader, so these take microseconds.
DIAGNOSE_HOME is already private to each test (tests/conftest.py). The module has a name of its
own because tests/grading is no package (it would shadow the real `grading`).
"""

from __future__ import annotations

import json
from pathlib import Path

from grading.diagnoses import NAMED, Reading
from grading.seal import seal

CODE = "7KQ2-M9XF"
TRUTH = {"01": "no-warmup", "02": "broken-mask", "03": "bad-init"}


def make_workspace(path: Path, secret: bytes, code: str = CODE,
                   truth: dict[str, str] | None = None, key: str = "self-study") -> Path:
    truth = TRUTH if truth is None else truth
    path.mkdir(parents=True, exist_ok=True)
    (path / "scenario.json").write_text(json.dumps({
        "schema": "diagnose.scenario/1", "code": code, "engine_version": "test", "steps": 400,
        "ids": sorted(truth), "key": key}, indent=2) + "\n", encoding="utf-8")
    (path / "answer-key.sealed").write_text(seal(code, truth, secret), encoding="utf-8")
    return path


def outcome(reading: Reading) -> dict[str, str]:
    """ID -> the slug read, or the status when no single break was named."""
    return {a.id: a.slug if a.status == NAMED else a.status for a in reading.answers}


def home_secret() -> bytes:
    """The self-study secret of this test's private DIAGNOSE_HOME, made on first use."""
    from diagnose.home import self_study_secret

    return self_study_secret(create=True)
