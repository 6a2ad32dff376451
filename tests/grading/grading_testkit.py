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


def dealing_secret(codes, truth: dict[str, str] | None = None, level: int = 1) -> bytes:
    """A fresh instructor key under which `deal` derives `truth` for every scenario code in
    `codes` (or, when `codes` is a dict, each code's own truth): `grading.dealt.assignment`,
    the deal's own HMAC, found by trying keys, as a class grading derives the truth from the
    key and the manifest and never reads it from a bundle. A few thousand tries at most for
    five codes (each matches one arrangement in six)."""
    from grading.dealt import assignment
    from grading.seal import new_secret
    from scenarios.levels import level as entry

    truth = TRUTH if truth is None else truth
    wanted = dict(codes) if isinstance(codes, dict) else dict.fromkeys(codes, truth)
    dealt = entry(level)
    for _ in range(1_000_000):
        secret = new_secret()
        if all(assignment(secret, code, dealt) == want for code, want in wanted.items()):
            return secret
    raise AssertionError("no key deals that truth")
