"""The instructor's attempts ledger: the truth about each student's attempts, kept on their side.

`attempts.jsonl` lives in the student's bundle: its records are sealed (`attempts.py`), so an
edit shows, but a deleted record, or a deleted file, leaves nothing to check there. The ledger
is kept on the instructor's side, in the deal folder `diagnose deal` wrote (students get copies
of their own bundle only): `<deal>/.attempts-ledger.json`. Per student it holds the scenario
code and every genuine attempt record in order, and the problems found with the bundle's
records (the evidence, kept); the whole is sealed with an HMAC under a key derived from the
instructor's secret, so an edited ledger is refused.

The ledger is the truth and is written first: an instructor grading (`gradebook.grade_bundles`)
writes the new ledger atomically, then copies the new records into the bundles. A bundle that
lacks records the ledger keeps (deleted by the student, or a grading stopped between the two
writes) is reported and restored from the ledger at the next grading; the first attempt the
ledger kept counts whatever the bundle says. Genuine records the ledger never saw (graded
before this ledger existed) are taken in after the ledger's own.

Per student the ledger also keeps when the instructor showed that student the answers of their
scenario (`Kept.shown`, ISO-8601 UTC times, and what was shown: `mark_shown`): the attempt
policy counts no attempt made after it. Ledgers written before it was kept read with none.

Format 1 (`diagnose.attempts-ledger/1`, diagnose up to commit 279bf2f) kept only each student's
count, a digest and the first record: it is still read, and rewritten as format 2 at the next
grading. Grading and exports are `gradebook`'s.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from grading.attempts import TIME, Attempt, Attempts, digest
from grading.diagnoses import GradeError
from grading.grade import Scenario, history, same_code
from grading.layout import ATTEMPTS_FILE
from grading.seal import derive_key
from scenarios.files import LockBusy, atomic_write, exclusive_lock, loads_json, read_small_text

LEDGER = ".attempts-ledger.json"  # in the deal folder: the instructor's side
LOCK = ".attempts-ledger.lock"  # held while a grading reads and writes the ledger; it stays
LEDGER_SCHEMA = "diagnose.attempts-ledger/2"
FORMAT_1 = "diagnose.attempts-ledger/1"  # count, digest, first: written up to commit 279bf2f
LEDGER_MAX = 64 * 1024 * 1024  # every record of a class: some 150,000 gradings
FOUND_KEPT = 20  # the latest problems kept per student as evidence


@dataclass(frozen=True)
class Kept:
    """A student's attempts as the ledger keeps them: every genuine record in order (`records`;
    None in a format-1 ledger, which kept only `count`, `digest` and `first`), the scenario
    code they belong to, the problems found with the bundle's copy, and when the instructor
    showed this student the answers (`shown`, ISO-8601 UTC times in order, with what was shown
    beside each in `shown_what`)."""

    count: int
    digest: str
    first: Attempt | None
    records: tuple[Attempt, ...] | None = None
    code: str = ""
    found: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()
    shown_what: tuple[str, ...] = ()

    @classmethod
    def of(cls, records: Sequence[Attempt], code: str, found: Sequence[str] = (),
           shown: Sequence[str] = (), shown_what: Sequence[str] = ()) -> Kept:
        records = tuple(records)
        return cls(len(records), digest(records), records[0] if records else None, records,
                   code, tuple(found)[-FOUND_KEPT:], tuple(shown), tuple(shown_what))

    @property
    def first_shown(self) -> str | None:
        """When the answers were first shown to this student, or None: no attempt after counts."""
        return min(self.shown) if self.shown else None

    def with_shown(self, when: str, what: str) -> Kept:
        """This entry with one more showing of the answers (kept in time order)."""
        pairs = sorted((*zip(self.shown, self.shown_what, strict=True), (when, what)))
        return replace(self, shown=tuple(t for t, _ in pairs),
                       shown_what=tuple(w for _, w in pairs))


@dataclass(frozen=True)
class Standing:
    """One student's attempts in their bundle's `scenario`, as a grading must take them:
    `attempts`, the truth (the records that count, in order, and every problem found); `kept`,
    what the ledger keeps now; `restore`, whether the bundle's `attempts.jsonl` must be
    rewritten from the ledger's records."""

    scenario: Scenario
    attempts: Attempts
    kept: Kept
    restore: bool = False


def _ledger_mac(students: Mapping, secret: bytes) -> str:
    body = json.dumps(students, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    key = derive_key(secret, b"diagnose attempts ledger")
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def _record(data: object) -> Attempt:
    attempt = Attempt.from_json(data)
    if attempt is None:
        raise TypeError("not an attempt record")
    return attempt


def _shown(entry: Mapping) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The times the answers were shown, and what, of an entry (none in older ledgers)."""
    shown = entry.get("shown", [])
    if not (isinstance(shown, list) and all(
            isinstance(s, dict) and isinstance(s.get("time"), str) and TIME.match(s["time"])
            and isinstance(s.get("what"), str) for s in shown)):
        raise TypeError("not a ledger entry")
    return tuple(s["time"] for s in shown), tuple(s["what"] for s in shown)


def _entry(schema: str, entry: Mapping) -> Kept:
    shown, what = _shown(entry)
    if schema == FORMAT_1 or "records" not in entry:  # format 1, or its entry carried over
        first = entry["first"] and _record(entry["first"])
        if not (isinstance(entry["count"], int) and isinstance(entry["digest"], str)):
            raise TypeError("not a ledger entry")
        return Kept(entry["count"], entry["digest"], first or None, shown=shown,
                    shown_what=what)
    if not (isinstance(entry["code"], str) and isinstance(entry["records"], list)
            and isinstance(entry["found"], list)
            and all(isinstance(f, str) for f in entry["found"])):
        raise TypeError("not a ledger entry")
    return Kept.of([_record(r) for r in entry["records"]], entry["code"], entry["found"],
                   shown, what)


GRADING_WAIT = 30.0  # seconds a grading waits for another one of the same deal folder


@contextlib.contextmanager
def one_grading(deal: Path, *, wait: float | None = None) -> Iterator[None]:
    """Hold the deal folder's grading lock (`.attempts-ledger.lock`) for the block: a ledger is
    read, added to and written whole, so two gradings at once would each write what the other
    never read. A second grading waits up to `wait` seconds (`GRADING_WAIT`), then GradeError,
    nothing recorded.
    A folder where the lock cannot be created is not writable: the grading refuses it itself."""
    try:
        release = exclusive_lock(Path(deal) / LOCK, wait=GRADING_WAIT if wait is None else wait,
                                 keep=True)  # others wait for it: its file stays
    except LockBusy:
        raise GradeError(f"{deal}: another grading of this class is recording right now (it "
                         f"holds {Path(deal) / LOCK}); nothing recorded",
                         hint="run this again when it has ended") from None
    except OSError:
        yield  # cannot be written: the grading says so in its own words
        return
    try:
        yield
    finally:
        release()


def ledger_path(deal: Path) -> Path:
    return Path(deal) / LEDGER


def read_ledger(deal: Path, secret: bytes) -> dict[str, Kept]:
    """What the ledger keeps per student; {} before the first instructor grading."""
    path = ledger_path(deal)
    if not path.exists():
        return {}
    text = read_small_text(path, "an attempts ledger", LEDGER_MAX, error=GradeError)
    try:
        data = loads_json(text)
        students = data["students"]
        sealed = (data["schema"] in (FORMAT_1, LEDGER_SCHEMA) and isinstance(data["mac"], str)
                  and hmac.compare_digest(data["mac"], _ledger_mac(students, secret)))
        kept = {name: _entry(data["schema"], entry)
                for name, entry in students.items()} if sealed else None
    except (ValueError, KeyError, TypeError, AttributeError):
        kept = None  # ValueError: JSONDecodeError, and a string a digest cannot be made of
    if kept is None:
        raise GradeError(f"{path}: changed since a grading wrote it, or written with another "
                         "key (its seal does not match)",
                         hint="move it aside to start a new ledger, and look at who edited it")
    return kept


def _entry_json(k: Kept) -> dict:
    entry = ({"code": k.code, "records": [r.to_json() for r in k.records],
              "found": list(k.found)} if k.records is not None
             else {"count": k.count, "digest": k.digest,  # format 1's, not reconciled yet
                   "first": k.first and k.first.to_json()})
    if k.shown:  # absent rather than empty: a ledger nobody was shown anything in reads as before
        entry["shown"] = [{"time": t, "what": w}
                          for t, w in zip(k.shown, k.shown_what, strict=True)]
    return entry


def write_ledger(deal: Path, secret: bytes, kept: Mapping[str, Kept]) -> None:
    """The ledger, whole and atomically (format 2; an entry of format 1 that no grading has
    reconciled yet is carried over as it was). Raises GradeError."""
    students = {name: _entry_json(k) for name, k in sorted(kept.items())}
    atomic_write(ledger_path(deal), json.dumps(
        {"schema": LEDGER_SCHEMA, "students": students, "mac": _ledger_mac(students, secret)},
        ensure_ascii=False, indent=1) + "\n", error=GradeError)


def mark_shown(deal: Path, secret: bytes, students: Sequence[str], *, when: str,
               what: str) -> None:
    """Record in the ledger that `students` were shown the answers of their scenario at `when`
    (ISO-8601 UTC, "2026-12-04T22:30:00Z"), `what` saying what was shown ("reveal", "answers
    handed back"): under the grading lock, read, added to, written whole and atomically. From
    then on no attempt of theirs made after `when` counts. A student the ledger has no entry
    for yet gets one with no attempts. Raises GradeError (a ledger that does not open, another
    grading holding the lock, a time that is not ISO-8601 UTC): nothing is recorded then."""
    if not TIME.match(when):
        raise GradeError(f"{when!r}: not a time in ISO-8601 UTC (2026-12-04T22:30:00Z); "
                         "nothing recorded")
    names = list(dict.fromkeys(students))
    if not all(isinstance(n, str) and n for n in names):
        raise GradeError("a student without a name; nothing recorded")
    with one_grading(deal):
        kept = read_ledger(deal, secret)
        for name in names:
            kept[name] = kept.get(name, Kept.of((), "")).with_shown(when, what)
        write_ledger(deal, secret, kept)


def standing(scenario: Scenario, secret: bytes, kept: Kept | None) -> Standing:
    """A bundle's attempts checked against the ledger: what counts, and what the ledger keeps.

    The ledger's records come first and its first attempt counts; genuine records of the bundle
    the ledger never saw follow them. A bundle that lost or changed records the ledger kept is
    reported (and the report kept in the ledger as evidence) and marked for restoring.
    GradeError when the ledger keeps the student's records for another scenario: with no
    manifest to bind them, the ledger does."""
    if kept is not None and kept.code and not same_code(kept.code, scenario.code):
        raise GradeError(f"{scenario.path}: holds scenario {scenario.code}, but the ledger keeps "
                         f"this student's records for scenario {kept.code} (a bundle swapped "
                         "or copied from another student); not graded, nothing recorded")
    log = history(scenario, secret)
    if kept is None:
        return Standing(scenario, log, Kept.of(log.records, scenario.code))
    if kept.records is not None:
        theirs = kept.records
        whole = log.records[:len(theirs)] == theirs
    else:
        whole = (len(log.records) >= kept.count
                 and digest(log.records[:kept.count]) == kept.digest)
        theirs = () if kept.first is None else (kept.first,)
    if whole:
        records, lost = log.records, ()
    else:
        records = (*theirs, *(r for r in log.records if r not in theirs))
        lost = (f"{scenario.path / ATTEMPTS_FILE}: {kept.count} genuine record(s) at the last "
                f"grading, {len(log.records)} now: records were deleted or replaced (or a "
                "grading stopped before copying them there); the first one the ledger kept "
                "counts",)
    found = (*kept.found, *lost)
    problems = (*log.problems, *found)
    return Standing(scenario, replace(log, records=tuple(records), problems=problems),
                    Kept.of(records, scenario.code, found, kept.shown, kept.shown_what),
                    restore=not whole)
