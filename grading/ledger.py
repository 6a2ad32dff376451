"""The instructor's attempts ledger: what a student could delete from a bundle, kept elsewhere.

`attempts.jsonl` lives in the student's bundle: its records are sealed (`attempts.py`), so an
edit shows, but a deleted record, or a deleted file, leaves nothing to check. The ledger is kept
on the instructor's side, in the bundles folder `diagnose deal` wrote (students get copies of
their own bundle only): `<bundles>/.attempts-ledger.json`, rewritten atomically at each class
grading. Per student it holds the number of genuine attempts, a digest of them and the first
one; the whole is sealed with an HMAC under a key derived from the instructor's secret, so an
edited ledger is refused. A bundle whose attempts no longer match it is reported, and the
first attempt the ledger kept still counts. Grading and exports are `gradebook`'s.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from grading.attempts import Attempt, Attempts, digest
from grading.diagnoses import GradeError
from grading.grade import Scenario, history
from grading.layout import ATTEMPTS_FILE
from grading.seal import derive_key
from scenarios.files import atomic_write, loads_json, read_small_text

LEDGER = ".attempts-ledger.json"  # in the bundles folder: the instructor's side
LEDGER_SCHEMA = "diagnose.attempts-ledger/1"
LEDGER_MAX = 16 * 1024 * 1024


@dataclass(frozen=True)
class Kept:
    """A student's attempts as the ledger last saw them."""

    count: int
    digest: str
    first: Attempt | None


def _ledger_mac(students: Mapping, secret: bytes) -> str:
    body = json.dumps(students, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    key = derive_key(secret, b"diagnose attempts ledger")
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def read_ledger(bundles: Path, secret: bytes) -> dict[str, Kept]:
    """What the ledger kept per student; {} before the first class grading."""
    path = Path(bundles) / LEDGER
    if not path.exists():
        return {}
    text = read_small_text(path, "an attempts ledger", LEDGER_MAX, error=GradeError)
    try:
        data = loads_json(text)
        students = data["students"]
        sealed = (data["schema"] == LEDGER_SCHEMA and isinstance(data["mac"], str)
                  and hmac.compare_digest(data["mac"], _ledger_mac(students, secret)))
        kept = {name: Kept(entry["count"], entry["digest"], entry["first"] and
                           Attempt.from_json(entry["first"]))
                for name, entry in students.items()} if sealed else None
    except (ValueError, KeyError, TypeError, AttributeError):
        kept = None
    if kept is None:
        raise GradeError(f"{path}: changed since a grading wrote it, or written with another "
                         "key (its seal does not match)",
                         hint="move it aside to start a new ledger, and look at who edited it")
    return kept


def write_ledger(bundles: Path, secret: bytes, kept: Mapping[str, Kept]) -> None:
    students = {name: {"count": k.count, "digest": k.digest,
                       "first": k.first and k.first.to_json()}
                for name, k in sorted(kept.items())}
    atomic_write(Path(bundles) / LEDGER, json.dumps(
        {"schema": LEDGER_SCHEMA, "students": students, "mac": _ledger_mac(students, secret)},
        ensure_ascii=False, indent=1) + "\n", error=GradeError)


def standing(scenario: Scenario, secret: bytes, kept: Kept | None
             ) -> tuple[Attempts, Kept | None]:
    """A bundle's attempts checked against the ledger, and what the ledger should now keep.

    When the bundle lost or changed records the ledger saw, the ledger's first attempt is put
    back in front (it still counts), the problem is said, and the ledger keeps its evidence."""
    log = history(scenario, secret)
    if kept is None or (len(log.records) >= kept.count
                        and digest(log.records[:kept.count]) == kept.digest):
        first = log.first
        return log, Kept(len(log.records), digest(log.records), first)
    lost = (f"{scenario.path / ATTEMPTS_FILE}: {kept.count} genuine record(s) at the last "
            f"class grading, {len(log.records)} now: records were deleted or replaced; the "
            "first one the ledger kept counts")
    records = log.records if kept.first is None else (
        kept.first, *(r for r in log.records if r != kept.first))
    return replace(log, records=tuple(records), problems=(*log.problems, lost)), kept
