"""The instructor's attempts ledger: every attempt of a class, kept on the instructor's side only.

In class mode attempts live here and nowhere else: `<deal>/.attempts-ledger.json`, in the deal
folder `diagnose deal` wrote (students get copies of their own bundle only). Per student it
holds the scenario code and every attempt a grading made, in order (each sealed, numbered and
stamped with when its file was collected), the attempts the instructor cancelled (`void`: kept,
said, never counted), and when the instructor showed the student the answers (`shown`:
`mark_shown`). The whole is sealed with an HMAC under a key derived from the instructor's secret,
and names the fingerprint of that secret, so an edited ledger is refused and a wrong key is
named as one. Nothing is ever copied into it from a bundle: a bundle's `attempts.jsonl` is a
courtesy copy written from it (`gradebook.record`).

Older ledgers still open, mid-semester: format 1 (`diagnose.attempts-ledger/1`, up to commit
279bf2f) kept each student's count, a digest and the first record; format 2 took in records
found in the bundles. An entry such a ledger holds that this course's grading did not seal
(`flagged`) is kept and shown in the gradebook, never counted. Which attempt counts is
`policy`'s; grading and exports are `gradebook`'s.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from grading.attempts import TIME, Attempt, digest
from grading.diagnoses import GradeError
from grading.seal import derive_key
from scenarios.files import LockBusy, atomic_write, exclusive_lock, loads_json, read_small_text

LEDGER = ".attempts-ledger.json"  # in the deal folder: the instructor's side
LOCK = ".attempts-ledger.lock"  # held while a grading reads and writes the ledger; it stays
LEDGER_SCHEMA = "diagnose.attempts-ledger/3"
FORMAT_1 = "diagnose.attempts-ledger/1"  # count, digest, first: written up to commit 279bf2f
FORMAT_2 = "diagnose.attempts-ledger/2"  # took in the bundles' records: up to commit 9d041ff
SCHEMAS = (FORMAT_1, FORMAT_2, LEDGER_SCHEMA)
LEDGER_MAX = 64 * 1024 * 1024  # every record of a class: some 150,000 gradings
FOUND_KEPT = 20  # the latest problems kept per student as evidence


@dataclass(frozen=True)
class Void:
    """An attempt the instructor cancelled: its number (1 for the first), why, and when."""

    n: int
    why: str
    time: str


@dataclass(frozen=True)
class Kept:
    """A student's attempts as the ledger keeps them: every record in order (`records`; None in
    a format-1 ledger, which kept only `count`, `digest` and `first`), the scenario code they
    belong to, problems found (`found`), when the instructor showed this student the answers
    (`shown`, ISO-8601 UTC times in order, with what was shown in `shown_what` and how many
    records the ledger held then in `shown_at`, None when not known), and the cancelled
    attempts (`void`)."""

    count: int
    digest: str
    first: Attempt | None
    records: tuple[Attempt, ...] | None = None
    code: str = ""
    found: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()
    shown_what: tuple[str, ...] = ()
    shown_at: tuple[int | None, ...] = ()
    void: tuple[Void, ...] = ()
    legacy: bool = False  # read from a ledger older than format 3: records may be a bundle's
    taken_in: tuple[int, ...] = ()  # indices found taken in from a bundle (kept in format 3)

    @classmethod
    def of(cls, records: Sequence[Attempt], code: str, found: Sequence[str] = (),
           shown: Sequence[str] = (), shown_what: Sequence[str] = ()) -> Kept:
        records = tuple(records)
        return cls(len(records), digest(records), records[0] if records else None, records,
                   code, tuple(found)[-FOUND_KEPT:], tuple(shown), tuple(shown_what),
                   (None,) * len(tuple(shown)))

    @property
    def attempts(self) -> tuple[Attempt, ...]:
        """The records in order (a format-1 entry: its first, the only one it kept)."""
        if self.records is not None:
            return self.records
        return () if self.first is None else (self.first,)

    @property
    def first_shown(self) -> str | None:
        """When the answers were first shown to this student, or None: no attempt after counts."""
        return min(self.shown) if self.shown else None

    def with_shown(self, when: str, what: str) -> Kept:
        """This entry with one more showing of the answers (kept in time order), marked after
        the records it holds now."""
        at = self.shown_at or (None,) * len(self.shown)
        triples = sorted((*zip(self.shown, self.shown_what, at, strict=True),
                          (when, what, len(self.attempts))),
                         key=lambda t: (t[0], t[1]))
        return replace(self, shown=tuple(t for t, _, _ in triples),
                       shown_what=tuple(w for _, w, _ in triples),
                       shown_at=tuple(n for _, _, n in triples))

    def with_records(self, records: Sequence[Attempt], code: str, secret: bytes) -> Kept:
        """This entry holding `records` (format 3 from now on: what an older ledger took in
        from a bundle stays flagged), the rest kept."""
        records = tuple(records)
        taken_in = tuple(sorted(self.flagged(secret, code)))
        return replace(self, count=len(records), digest=digest(records),
                       first=records[0] if records else None, records=records, code=code,
                       legacy=False, taken_in=taken_in)

    def flagged(self, secret: bytes, code: str) -> frozenset[int]:
        """Indices of records this course's grading did not make: in a ledger older than
        format 3, a record not sealed for scenario `code` (the manifest's) by the instructor's
        key, or not an instructor's grading, came from a bundle under the old rule. Kept,
        said, never counted."""
        if not self.legacy:
            return frozenset(self.taken_in)
        from grading.attempts import seal_attempt

        return frozenset(self.taken_in) | frozenset(
            i for i, r in enumerate(self.attempts)
            if r.by != "instructor" or not hmac.compare_digest(
                r.mac, seal_attempt(r, secret, code)))

    @property
    def voided(self) -> frozenset[int]:
        return frozenset(v.n - 1 for v in self.void)


def _ledger_mac(students: Mapping[str, Any], secret: bytes) -> str:
    body = json.dumps(students, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    key = derive_key(secret, b"diagnose attempts ledger")
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def _record(data: object) -> Attempt:
    attempt = Attempt.from_json(data)
    if attempt is None:
        raise TypeError("not an attempt record")
    return attempt


def _shown(entry: Mapping[str, Any]
           ) -> tuple[tuple[str, ...], tuple[str, ...], tuple[int | None, ...]]:
    """The times the answers were shown, what, and after how many records (none in older
    ledgers)."""
    shown = entry.get("shown", [])
    if not (isinstance(shown, list) and all(
            isinstance(s, dict) and isinstance(s.get("time"), str) and TIME.match(s["time"])
            and isinstance(s.get("what"), str)
            and (s.get("records") is None or _whole(s["records"])) for s in shown)):
        raise TypeError("not a ledger entry")
    return (tuple(s["time"] for s in shown), tuple(s["what"] for s in shown),
            tuple(s.get("records") for s in shown))


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _void(entry: Mapping[str, Any]) -> tuple[Void, ...]:
    void = entry.get("void", [])
    if not (isinstance(void, list) and all(
            isinstance(v, dict) and _whole(v.get("n")) and v["n"] >= 1
            and isinstance(v.get("why"), str) and isinstance(v.get("time"), str)
            for v in void)):
        raise TypeError("not a ledger entry")
    return tuple(Void(v["n"], v["why"], v["time"]) for v in void)


def _entry(schema: str, entry: Mapping[str, Any]) -> Kept:
    shown, what, at = _shown(entry)
    taken_in = entry.get("taken_in", [])
    if not (isinstance(taken_in, list) and all(_whole(i) for i in taken_in)):
        raise TypeError("not a ledger entry")
    extra: dict[str, Any] = {
        "shown": shown, "shown_what": what, "shown_at": at, "void": _void(entry),
        "legacy": schema != LEDGER_SCHEMA or entry.get("legacy") is True,
        "taken_in": tuple(taken_in)}
    if schema == FORMAT_1 or "records" not in entry:  # format 1, or its entry carried over
        first = entry["first"] and _record(entry["first"])
        if not (isinstance(entry["count"], int) and isinstance(entry["digest"], str)):
            raise TypeError("not a ledger entry")
        return Kept(entry["count"], entry["digest"], first or None, code=entry.get("code", ""),
                    **extra)
    if not (isinstance(entry["code"], str) and isinstance(entry["records"], list)
            and isinstance(entry["found"], list)
            and all(isinstance(f, str) for f in entry["found"])):
        raise TypeError("not a ledger entry")
    kept = Kept.of([_record(r) for r in entry["records"]], entry["code"], entry["found"])
    return replace(kept, **extra)


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
    """What the ledger keeps per student; {} before the first instructor grading. GradeError
    when it was written with another key (both fingerprints named) or changed since."""
    from grading.seal import fingerprint

    path = ledger_path(deal)
    if not path.exists():
        return {}
    text = read_small_text(path, "an attempts ledger", LEDGER_MAX, error=GradeError)
    try:
        data = loads_json(text)
        students = data["students"]
        keyed = data.get("key")
        if isinstance(keyed, str) and keyed != fingerprint(secret):
            raise GradeError(f"{path}: written with another key (fingerprint {keyed}; this key is "
                             f"{fingerprint(secret)}); nothing recorded",
                             hint="grade with the key this class was dealt and graded with")
        sealed = (data["schema"] in SCHEMAS and isinstance(data["mac"], str)
                  and hmac.compare_digest(data["mac"], _ledger_mac(students, secret)))
        kept = {name: _entry(data["schema"], entry)
                for name, entry in students.items()} if sealed else None
    except (ValueError, KeyError, TypeError, AttributeError):
        kept = None  # ValueError: JSONDecodeError, and a string a digest cannot be made of
    if kept is None:
        raise GradeError(f"{path}: its seal does not match this key: written with another key "
                         "(a ledger older than this version does not name its key's "
                         "fingerprint), or changed since a grading wrote it; nothing recorded",
                         hint="grade with the key this class was dealt with (deal-settings.json "
                         "names its fingerprint); keep this file: it holds every attempt")
    return kept


def _entry_json(k: Kept) -> dict[str, Any]:
    entry: dict[str, Any] = ({"code": k.code, "records": [r.to_json() for r in k.records],
              "found": list(k.found)} if k.records is not None
             else {"count": k.count, "digest": k.digest,  # format 1's, not reconciled yet
                   "first": k.first and k.first.to_json(), "code": k.code})
    if k.shown:  # absent rather than empty: a ledger nobody was shown anything in reads as before
        at = k.shown_at or (None,) * len(k.shown)
        entry["shown"] = [{"time": t, "what": w, **({"records": n} if n is not None else {})}
                          for t, w, n in zip(k.shown, k.shown_what, at, strict=True)]
    if k.void:
        entry["void"] = [{"n": v.n, "why": v.why, "time": v.time} for v in k.void]
    if k.taken_in:
        entry["taken_in"] = list(k.taken_in)
    if k.legacy:  # an older ledger's entry no grading has rewritten yet: still checked so
        entry["legacy"] = True
    return entry


def write_ledger(deal: Path, secret: bytes, kept: Mapping[str, Kept]) -> None:
    """The ledger, whole and atomically, naming its key's fingerprint. Raises GradeError."""
    from grading.seal import fingerprint

    students = {name: _entry_json(k) for name, k in sorted(kept.items())}
    atomic_write(ledger_path(deal), json.dumps(
        {"schema": LEDGER_SCHEMA, "key": fingerprint(secret), "students": students,
         "mac": _ledger_mac(students, secret)},
        ensure_ascii=False, indent=1) + "\n", error=GradeError)


def mark_shown(deal: Path, secret: bytes, students: Sequence[str], *, when: str,
               what: str) -> None:
    """Record in the ledger that `students` were shown the answers of their scenario at `when`
    (ISO-8601 UTC, "2026-12-04T22:30:00Z"), `what` saying what was shown ("reveal", "answers
    handed back"): under the grading lock, read, added to, written whole and atomically. From
    then on no attempt of theirs graded after this showing counts (`policy.decide`). A
    student the ledger has no entry for yet gets one with no attempts. Raises GradeError (a
    ledger that does not open, another grading holding the lock, a time that is not ISO-8601
    UTC): nothing is recorded then."""
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


def cancel_attempt(deal: Path, secret: bytes, student: str, n: int, *, why: str,
                   when: str) -> Kept:
    """Mark `student`'s attempt `n` (1 for the first) void in the ledger: kept, shown in the
    gradebook, never counted, never deleted. Under the grading lock, written whole and
    atomically; returns the entry. GradeError: no such student or attempt, no reason given,
    already void."""
    if not why.strip():
        raise GradeError("--why is empty: say why the attempt is cancelled (it is kept with it)")
    if not TIME.match(when):
        raise GradeError(f"{when!r}: not a time in ISO-8601 UTC; nothing recorded")
    with one_grading(deal):
        kept = read_ledger(deal, secret)
        entry = kept.get(student)
        if entry is None or not entry.attempts:
            raise GradeError(f"{student}: the ledger keeps no attempt of this student; nothing "
                             "cancelled")
        if not 1 <= n <= len(entry.attempts):
            raise GradeError(f"{student}: no attempt {n} (the ledger keeps "
                             f"{len(entry.attempts)}); nothing cancelled")
        if n - 1 in entry.voided:
            raise GradeError(f"{student}: attempt {n} is already cancelled; nothing changed")
        kept[student] = replace(entry, void=(*entry.void, Void(n, " ".join(why.split()), when)))
        write_ledger(deal, secret, kept)
        return kept[student]
