"""Grading a class: many submissions, one student each, a CSV gradebook and Gradescope results.

The trust boundary (docs/instructors.md, "What a student can and cannot change"): a grading's inputs
are the instructor's key, the deal folder's `manifest.csv`, `deal-settings.json`,
`deal-digests.json` and attempts ledger, and the files handed in. A student's scenario is derived
from the key and the manifest's row (`grading.dealt`); the bundle is the student's copy, compared
and reported when it disagrees, never read to decide. A submission is placed by the name the
instructor collected it under (`borja-diagnoses.md`, `borja.md`, or `borja/diagnoses.md` -> borja,
compared by `scenarios.names.same_student`; a name matching two students of an older manifest is
refused naming both) or the name Canvas, Moodle or Gradescope's export gave it (`collect.py`); what
is inside is only cross-checked: a title naming another student of the roster, or a scenario comment
that is not that student's code, is a mismatch, reported, and records nothing for anyone; the rest
go on.

Attempts live in the ledger only (`ledger.py`): check, then record (every file is read, placed
and scored first; then the ledger is written, atomically); each graded student's bundle then
gets a courtesy copy of their records (`attempts.jsonl`, written from the ledger). Which
attempt counts is `policy.decide`'s: in a class the last one before the answers were shown.
Files of one student are taken in the order they were collected (their modification times);
the same bytes graded again are no new attempt.

The gradebook has a row per student of the roster with the attempt that counts, so grading in
several sessions gives one gradebook (`gradebook_rows` rebuilds it from the ledger alone); a
row per refused file; and a column for what was found with the records. Every text is printable
(`layout.printable`); cells a spreadsheet would evaluate are neutralised.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from grading.attempts import Attempt, numbered, rewrite_attempts, utc_stamp
from grading.collect import place, placed
from grading.dealt import (
    Dealt,
    deck_changed,
    derive,
    disagreements,
    no_symlink_between,
    read_redeals,
    read_settings,
    row_level,
)
from grading.diagnoses import GradeError, Reading, read_diagnoses
from grading.feedback import SCORE, Report
from grading.grade import (
    Against,
    GradeOptions,
    Past,
    attempt_of,
    refuse_unprintable,
    same_code,
    score_file,
)
from grading.layout import DEFAULT_DIR, MANIFEST, printable
from grading.ledger import Kept, ledger_path, one_grading, read_ledger, write_ledger
from grading.manifest import ManifestRow, manifest_path, read_manifest
from grading.policy import SHOWS_NOTHING, decide, shown_index
from grading.roster import Roster, Student
from grading.seal import fingerprint
from scenarios.errors import UserError
from scenarios.files import atomic_write
from scenarios.levels import level as entry
from scenarios.words import say

VISIBILITY = "after_published"  # a test's output tells the truth: shown when grades are
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # OWASP: what a spreadsheet may evaluate

def one_line(text: str) -> str:
    """A name, or a sentence about one, as one printable line (`layout.printable`)."""
    return printable(text, one_line=True)


@dataclass(frozen=True)
class Graded:
    """One submission: graded into a student's bundle, or why it could not be (then nothing
    was recorded for anyone; `student` is who its name places, if anyone). `problems`: what
    was wrong with that bundle's records. Every text here is printable (`layout.printable`)."""

    file: str
    student: str | None
    report: Report | None
    error: str = ""
    problems: tuple[str, ...] = ()


def dealt_students(bundles: Path) -> Roster:
    """The students of the deal folder's manifest with the codes it deals them. GradeError
    without a manifest: the bundles never say who was dealt what."""
    bundles = Path(bundles)
    if not bundles.is_dir():
        raise GradeError(f"{bundles}: no such directory of bundles")
    if not manifest_path(bundles).is_file():
        raise GradeError(f"{bundles}: no {MANIFEST} here; pass the folder `diagnose deal` wrote "
                         "(its manifest says who was dealt which scenario)")
    rows = read_manifest(bundles)
    if not rows:
        raise GradeError(f"{manifest_path(bundles)}: lists no students")
    return Roster(Student(row.student, row.code, bundles / row.student / DEFAULT_DIR, row)
                  for row in rows)


def dealt_scenario(student: Student, bundles: Path, secret: bytes) -> Dealt:
    """The student's scenario as the key and their manifest row derive it."""
    row = student.row or ManifestRow(student.name, student.code)
    return derive(secret, row, bundles)


def check_key(bundles: Path, secret: bytes) -> None:
    """GradeError naming both fingerprints when `secret` is not the key the class was dealt
    with (`deal-settings.json` names it), before anything is read with it."""
    settings = read_settings(bundles)
    recorded = (settings or {}).get("key")
    if isinstance(recorded, str) and recorded != fingerprint(secret):
        raise GradeError(f"{bundles}: dealt with another key (fingerprint {recorded}; this key is "
                         f"{fingerprint(secret)}); nothing graded, nothing recorded",
                         hint="grade with the key this class was dealt with")


def named_student(file: Path, roster: Roster) -> Student | None:
    """The one student a file's path places it on, as the LMSs name files too (`collect`)."""
    return placed(file, roster)


def match(file: Path, reading: Reading, roster: Roster) -> Student:
    """Whose submission `file` is: the student its name names, if what it holds agrees."""
    student = place(file, roster, reading.name)
    titled = reading.name and roster.named(reading.name)
    if titled and titled != student:
        raise GradeError(f"{file}: named for {student.name}, but its title names "
                         f"{titled.name}; nothing recorded")
    other = next((c for c in reading.codes if not same_code(c, student.code)), None)
    if other is not None:
        owner = roster.owner(other)
        whose = f"{owner.name}'s scenario {owner.code}" if owner else f"scenario {other}"
        raise GradeError(f"{file}: named for {student.name}, but written for {whose}; "
                         "nothing recorded")
    return student


def deal_of(workspace: Path) -> tuple[Path, Student] | None:
    """The deal folder and student a bundle folder is, or None: only a folder that is exactly
    `<deal>/<student>/experiments/19-break-it` (or that level's `-level-N` folder), with no
    symbolic link from `<deal>` down, `<deal>` holding a manifest that lists `<student>`, and
    `<deal>` not inside another deal's bundle (`<other deal>/<student>/experiments/...`)."""
    path = Path(os.path.abspath(workspace))
    experiments, name = path.parent, path.name
    if experiments.name != DEFAULT_DIR.parent.name or len(path.parts) < 5:
        return None
    folder, deal = experiments.parent, experiments.parent.parent
    if not ((deal / MANIFEST).is_file() and not (deal / MANIFEST).is_symlink()
            and no_symlink_between(deal, path)):
        return None
    if any((above / MANIFEST).exists() and deal.relative_to(above).parts[1:2] == ("experiments",)
           for above in deal.parents):
        return None  # a deal folder planted inside another deal's bundle: never a record
    try:
        roster = dealt_students(deal)
    except UserError:
        return None
    student = next((s for s in roster if s.name == folder.name), None)
    if student is None:
        return None
    try:
        level = row_level(student.row) if student.row else 1
        folders = {DEFAULT_DIR.name, entry(level).named(DEFAULT_DIR.name)}
    except UserError:
        folders = {DEFAULT_DIR.name}
    return (deal, student) if name in folders else None


def collection_time(file: Path) -> str:
    """When a file was collected: its modification time, ISO-8601 UTC ("" when unknown)."""
    try:
        stamp = Path(file).stat().st_mtime
        return utc_stamp(datetime.fromtimestamp(stamp, UTC))
    except (OSError, ValueError, OverflowError):
        return ""


def collection_order(files: Iterable[Path]) -> list[Path]:
    """Files in the order they were collected (modification time, then name): several files
    of one student are graded in that order, so the latest handed in is the latest attempt."""
    def key(file: Path) -> tuple[float, str]:
        try:
            return Path(file).stat().st_mtime, str(file)
        except (OSError, ValueError):
            return float("inf"), str(file)

    return sorted(map(Path, files), key=key)


def grade_bundles(files: Iterable[Path], bundles: Path, secret: bytes,
                  options: GradeOptions | Callable[[Student], GradeOptions] | None = None,
                  student: Student | None = None) -> list[Graded]:
    """Grade each submission for its student; errors are kept, not raised.

    Check, then record: every file is read, placed and scored first (in the order they were
    collected); then the ledger is written (the truth, atomically), then each graded student's
    bundle gets a courtesy copy of their records. `student`: grade the files as that student's
    (one file graded with --key --dir). One grading of a deal folder at a time
    (`ledger.one_grading`): a second waits for the first, then reads the ledger it wrote."""
    with one_grading(Path(bundles)):
        return _grade_bundles(files, Path(bundles), secret, options, student)


def standing_of(kept: Kept | None, secret: bytes, code: str
                ) -> tuple[tuple[Attempt, ...], int | None, frozenset[int]]:
    """A student's records as the ledger keeps them, where the answers were first shown
    (`policy.shown_index`), and the records that never count (cancelled, or taken in from a
    bundle under the old rule)."""
    if kept is None:
        return (), None, frozenset()
    records = kept.attempts
    shown_from = shown_index(records, kept.shown, kept.shown_at)
    return records, shown_from, kept.voided | kept.flagged(secret, code)


def _grade_bundles(files: Iterable[Path], bundles: Path, secret: bytes,
                   options: GradeOptions | Callable[[Student], GradeOptions] | None,
                   student: Student | None) -> list[Graded]:
    check_key(bundles, secret)
    roster = dealt_students(bundles)
    ledger = read_ledger(bundles, secret)
    if not os.access(bundles, os.W_OK | os.X_OK):
        raise GradeError(f"{ledger_path(bundles)}: cannot be written (folder {bundles} is not "
                         "writable); nothing recorded")
    options = options or GradeOptions()
    deck = deck_changed(read_settings(bundles))
    new: dict[str, list[Attempt]] = {}
    dealt_of: dict[str, Dealt] = {}
    differs: dict[str, list[str]] = {}  # how each graded student's bundle disagrees
    graded = []
    for file in collection_order(files):
        placed = student
        try:
            placed = placed or named_student(file, roster)  # who a refused file's row names
            refuse_unprintable(file)
            reading = read_diagnoses(file)
            placed = student or match(file, reading, roster)
            dealt = dealt_of.get(placed.name) or dealt_scenario(placed, bundles, secret)
            dealt_of[placed.name] = dealt
            if placed.name not in differs:
                differs[placed.name] = disagreements(dealt, secret)
            kept = ledger.get(placed.name)
            if kept is not None and kept.code and not same_code(kept.code, dealt.code):
                raise GradeError(f"{placed.name}: the ledger keeps records for scenario "
                                 f"{kept.code}, but {MANIFEST} deals {dealt.code}; nothing "
                                 "recorded")
            records, shown_from, void = standing_of(kept, secret, dealt.code)
            records = (*records, *new.get(placed.name, ()))
            chosen = options(placed) if callable(options) else options  # their language
            evidence, said = (chosen.class_evidence(dealt) if chosen.class_evidence
                              else (None, ""))
            report = score_file(reading, file,
                                Against(dealt.code, dealt.level, dealt.truth, evidence), chosen,
                                Past(records, SHOWS_NOTHING, shown_from, void))
        except UserError as err:
            graded.append(Graded(one_line(str(file)), placed.name if placed else None, None,
                                 one_line(str(err))))
            continue
        if not report.repeat:
            new.setdefault(placed.name, []).append(
                attempt_of(report, by="instructor", collected=collection_time(file)))
        problems = [*differs[placed.name], *([said] if said else []),
                    *([deck] if deck else [])]
        graded.append(Graded(one_line(str(file)), placed.name, report,
                             problems=tuple(map(one_line, problems))))
    failed = record(bundles, secret, ledger, dealt_of, new, differs)
    return [replace(g, problems=(*g.problems, failed[g.student]))
            if g.report is not None and g.student in failed else g for g in graded]


def record(bundles: Path, secret: bytes, ledger: dict[str, Kept], dealt: Mapping[str, Dealt],
           new: Mapping[str, Sequence[Attempt]],
           differs: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Record `new` attempts per student: the ledger (the truth, whole and atomically;
    GradeError, and nothing recorded, when it cannot be written), then each graded student's
    bundle a courtesy copy of the ledger's records, when the bundle is the scenario dealt.
    Returns, per student whose copy could not be written, what to say."""
    if not any(new.values()):
        return {}
    for name, added in new.items():
        if not added:
            continue
        kept = ledger.get(name) or Kept.of((), dealt[name].code)
        before = kept.attempts
        numbered_new = [numbered(a, len(before) + i, secret=secret, code=dealt[name].code)
                        for i, a in enumerate(added, 1)]
        ledger[name] = kept.with_records((*before, *numbered_new), dealt[name].code, secret)
    write_ledger(bundles, secret, ledger)
    failed = {}
    for name, added in new.items():
        if not added or differs.get(name):
            continue  # a bundle that is not the scenario dealt gets no copy
        workspace = dealt[name].workspace
        if not no_symlink_between(bundles, workspace):
            continue  # a link on the way: the copy would be written wherever it points
        try:
            rewrite_attempts(workspace, ledger[name].attempts, sync=False)
        except OSError as err:
            failed[name] = one_line(
                f"{workspace}: its courtesy copy of the attempts could not be written "
                f"({err.strerror or err}); the ledger keeps them")
    return failed


@dataclass(frozen=True)
class Row:
    """A line of the gradebook: a student's attempt that counts and the truth, or a refused
    file (the student its name places, if any; its `file` and why in `error`)."""

    student: str
    code: str
    first: Attempt | None
    attempts: int
    truth: dict[str, str]
    error: str = ""
    problems: tuple[str, ...] = ()  # what was wrong with the student's records
    file: str = ""  # for a refused file
    level: int | None = None  # the level dealt (None: unknown)
    counted_n: int = 0  # the number of the attempt that counts (0: none)
    late: bool = False  # the counted file was collected after the deadline


def parse_deadline(text: str) -> str:
    """A deadline as ISO-8601 UTC ("2026-12-04T23:59:00Z"): an ISO date and time, with a zone
    or in UTC; a date alone is the end of that day (UTC). GradeError otherwise."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise GradeError(f"--deadline {text!r}: not an ISO-8601 date or time (2026-12-04 or "
                         "2026-12-04T23:59:00Z)") from None
    if len(text.strip()) == 10:  # a date alone: its whole day
        when = when.replace(hour=23, minute=59, second=59)
    return utc_stamp(when)


def gradebook_rows(bundles: Path, secret: bytes, deadline: str | None = None) -> list[Row]:
    """A row per student of the manifest, from the key, the manifest and the ledger alone
    (grading nothing: this is also how a gradebook is rebuilt). `deadline` (ISO-8601 UTC,
    `parse_deadline`): files collected after it are marked late."""
    bundles = Path(bundles)
    check_key(bundles, secret)
    ledger = read_ledger(bundles, secret)
    redeals = read_redeals(bundles)
    rows = []
    for student in dealt_students(bundles):
        try:
            dealt = dealt_scenario(student, bundles, secret)
        except UserError as err:
            rows.append(Row(student.name, student.code, None, 0, {}, one_line(str(err))))
            continue
        kept = ledger.get(student.name)
        records, shown_from, void = standing_of(kept, secret, dealt.code)
        decision = decide(records, rule=SHOWS_NOTHING, shown_from=shown_from, void=void)
        counted = records[decision.counted] if decision.counted is not None else None
        problems = list(kept.found) if kept else []
        flagged = kept.flagged(secret, dealt.code) if kept else frozenset()
        problems += [f"attempt {i + 1} came from the bundle under the old rule (not sealed by "
                     "this course's grading): kept, not counted" for i in sorted(flagged)]
        problems += [f"attempt {v.n} cancelled on {v.time[:10]}: {v.why}"
                     for v in (kept.void if kept else ())]
        if kept is not None and kept.records is None and kept.count > 1:
            problems.append(f"an older ledger kept only the first of {kept.count} attempts")
        problems += [f"bundle dealt again on {t[:10]} (the same scenario, lost and re-dealt)"
                     for t in redeals.get(student.name, ())]
        problems += [f"answers shown on {t[:10]} ({w})"
                     for t, w in zip(kept.shown, kept.shown_what, strict=True)] if kept else []
        late = [i for i, r in enumerate(records)
                if deadline is not None and (r.collected or r.time) > deadline]
        problems += [f"attempt {i + 1} collected after the deadline "
                     f"({records[i].collected or records[i].time})" for i in late]
        rows.append(Row(student.name, dealt.code, counted, len(records), dealt.truth,
                        problems=tuple(map(one_line, problems)), level=dealt.level,
                        counted_n=(decision.counted or 0) + 1 if counted else 0,
                        late=decision.counted in late))
    return rows


def refused_rows(graded: Iterable[Graded]) -> list[Row]:
    """A gradebook row per file that recorded nothing, saying why."""
    return [Row(g.student or "", "", None, 0, {}, g.error, file=one_line(Path(g.file).name))
            for g in graded if g.report is None]


def spreadsheet_safe(value: object) -> object:
    """A cell a spreadsheet shows as text: one starting like a formula gets a leading `'`."""
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def check_destinations(gradebook: Path | None, gradescope: Path | None) -> None:
    """GradeError unless both outputs can be written: checked before any attempt is recorded."""
    def writable_folder(folder: Path, what: Path) -> None:
        if not folder.is_dir():
            raise GradeError(f"{what}: cannot be written (no folder {folder})")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise GradeError(f"{what}: cannot be written (folder {folder} is not writable)")

    if gradebook is not None:
        gradebook = Path(gradebook)
        if gradebook.is_dir():
            raise GradeError(f"{gradebook}: is a directory; --gradebook is the CSV file to write")
        writable_folder(gradebook.parent, gradebook)
    if gradescope is not None:
        gradescope = Path(gradescope)
        if gradescope.exists() and not gradescope.is_dir():
            raise GradeError(f"{gradescope}: not a directory; --gradescope is the folder to "
                             "write results.json files in")
        writable_folder(gradescope if gradescope.is_dir() else gradescope.parent, gradescope)


def write_gradebook(rows: Sequence[Row], path: Path) -> None:
    """CSV: student, code, score, max_score, first_attempt (when the attempt that counts was
    graded), attempts, file, then per ID its answer and truth, a note when the file could not
    be read, what the records say (cancelled, flagged, late, answers shown), the level dealt,
    the number of the attempt that counts, when its file was collected, and whether that was
    after the deadline. Written whole or not at all."""
    ids = sorted({i for row in rows for i in row.truth})
    header = ["student", "code", "score", "max_score", "first_attempt", "attempts", "file"]
    header += [f"{kind}_{i}" for i in ids for kind in ("answer", "truth")]
    header += ["note", "records", "level", "counted_attempt", "collected", "late"]
    stream = io.StringIO()
    out = csv.writer(stream)
    out.writerow(header)
    for row in rows:
        first = row.first
        line = [row.student, row.code, first.score if first else "",
                first.max_score if first else "", first.time if first else "",
                row.attempts, first.file if first else row.file]
        for i in ids:
            line += [(first.answers.get(i) or "") if first else "", row.truth.get(i, "")]
        note = row.error or ("" if first else "no submission graded")
        out.writerow([spreadsheet_safe(one_line(c) if isinstance(c, str) else c)
                      for c in [*line, note, "; ".join(row.problems),
                                "" if row.level is None else row.level,
                                row.counted_n or "", first.collected if first else "",
                                "late" if row.late else ""]])
    atomic_write(Path(path), stream.getvalue(), error=GradeError)


def write_gradescope(rows: Sequence[Row], graded: Sequence[Graded], out: Path,
                     lang: str = "en") -> list[Path]:
    """A Gradescope `results.json` per graded student, in `out/<student>/`. A test per ID;
    its output is this session's feedback when the counting file is the one graded now. The
    whole result, score and overall output included, is hidden until grades are published,
    like its tests; every output is plain text (file names are the students' choice)."""
    reports = {g.student: g.report for g in graded if g.report is not None}
    written = []
    for row in rows:
        if row.first is None:
            continue
        report = reports.get(row.student)
        same = report is not None and report.sha256 == row.first.sha256
        feedback = {r.id: r.feedback for r in report.results} if same and report else {}
        tests = []
        for run_id in sorted(row.truth):
            right = run_id in row.first.correct
            answer = row.first.answers.get(run_id) or "—"
            tests.append({
                "name": run_id, "score": int(right), "max_score": 1,
                "status": "passed" if right else "failed",
                "output": feedback.get(run_id) or f"{answer} → {row.truth[run_id]}",
                "visibility": VISIBILITY})
        output = [say(lang, SCORE, score=row.first.score, max=row.first.max_score),
                  f"{row.code} · {row.first.file} · {row.first.time}"]
        if report is not None and not same:
            output.append(report.standing)
        folder = Path(out) / row.student
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise GradeError(f"{folder}: cannot be written ({err.strerror or err})") from None
        written.append(atomic_write(folder / "results.json", json.dumps({
            "score": row.first.score, "output": printable("\n".join(output)),
            "output_format": "text",
            "test_output_format": "text", "visibility": VISIBILITY, "tests": tests},
            ensure_ascii=False, indent=2) + "\n", error=GradeError, sync=False))
    return written
