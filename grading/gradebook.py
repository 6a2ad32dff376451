"""Grading a class: many submissions, one bundle each, a CSV gradebook and Gradescope results.

A bundles folder is what `diagnose deal` writes: `<bundles>/<student>/experiments/19-break-it/`
per student and `<bundles>/manifest.csv` (student, code). A submission is placed by the name
the instructor collected it under (`borja-diagnoses.md`, `borja.md`, or `borja/diagnoses.md` ->
borja, compared by `scenarios.names.name_key`), or the name Canvas, Moodle or Gradescope's
export gave it (`collect.py`); what is inside is only cross-checked, never trusted
alone: a title `# Diagnoses — Name` naming another student of the roster, or a scenario comment
that is not that student's code, is a mismatch. The instructor's side is the truth: the
manifest binds each student to the code dealt, and a bundle holding another scenario (swapped
or copied from a classmate) is refused, not graded. A mismatch, a file whose name matches
nobody (whatever its inside says), is not UTF-8 text, or cannot be read is reported (the row
names the student its name places) and records nothing for anyone; the rest go on.

Check, then record: every file and every bundle is checked first; then the instructor's ledger
(`ledger.py`, `<bundles>/.attempts-ledger.json`) is written, atomically, and only then are the
records copied into the bundles' `attempts.jsonl`, so the ledger and the bundles change
together or the ledger alone holds the truth (a bundle is restored from it at the next
grading). The first attempt counts. One file graded with `--key --dir` inside a deal folder
(`find_deal`) goes the same way.

The gradebook has a row per student of the roster with the attempt that counts (the ledger's
first), so grading in several sessions gives one gradebook; a row per refused file; and a
column for problems with the records. Every text is printable (`layout.printable`); cells a
spreadsheet would evaluate are neutralised.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from grading.attempts import Attempt, append_record, numbered, rewrite_attempts, unrecordable
from grading.collect import place, placed
from grading.diagnoses import GradeError, Reading, read_diagnoses
from grading.feedback import SCORE, Report
from grading.grade import (
    DEFAULT_DIR,
    GradeOptions,
    Scenario,
    attempt_of,
    code_key,
    grade_reading,
    open_key,
    read_scenario,
    refuse_unprintable,
    same_code,
    sealing,
)
from grading.layout import DEAL_SETTINGS, MANIFEST, SCENARIO_FILE, printable
from grading.ledger import (
    Kept,
    Standing,
    ledger_path,
    one_grading,
    read_ledger,
    standing,
    write_ledger,
)
from grading.manifest import manifest_path, read_manifest
from scenarios.errors import UserError
from scenarios.files import atomic_write
from scenarios.names import name_key
from scenarios.words import say

VISIBILITY = "after_published"  # a test's output tells the truth: shown when grades are
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # OWASP: what a spreadsheet may evaluate

def one_line(text: str) -> str:
    """A name, or a sentence about one, as one printable line (`layout.printable`)."""
    return printable(text, one_line=True)


@dataclass(frozen=True)
class Student:
    name: str
    code: str  # the manifest's: what was dealt to them (the bundle's only with no manifest)
    workspace: Path


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


class Roster(tuple):
    """The students of a class, in manifest order, found by name key or by scenario code in
    constant time (a class of 1,000 is matched in linear time)."""

    def __new__(cls, students: Iterable[Student]) -> Roster:
        roster = super().__new__(cls, students)
        roster.by_key = {name_key(s.name): s for s in roster}
        roster.by_code = {code_key(s.code): s for s in roster}
        return roster

    def named(self, name: str) -> Student | None:
        return self.by_key.get(name_key(name))

    def owner(self, code: str) -> Student | None:
        return self.by_code.get(code_key(code))


def dealt_students(bundles: Path) -> Roster:
    """The students of the deal folder's manifest with the codes it deals them (or every bundle
    folder, with its own code, when there is no manifest)."""
    bundles = Path(bundles)
    if not bundles.is_dir():
        raise GradeError(f"{bundles}: no such directory of bundles")
    if manifest_path(bundles).is_file():
        listed = [(row.student, row.code) for row in read_manifest(bundles)]
    else:
        listed = [(d.name, "") for d in sorted(bundles.iterdir())
                  if (d / DEFAULT_DIR / SCENARIO_FILE).is_file()]
    if not listed:
        raise GradeError(f"{bundles}: no bundles here (no {MANIFEST} and no "
                         f"<student>/{DEFAULT_DIR.as_posix()})")
    students = []
    for name, code in listed:
        workspace = bundles / name / DEFAULT_DIR
        if not code:
            with contextlib.suppress(UserError):  # said when that student's file is graded
                code = read_scenario(workspace).code
        students.append(Student(name, code, workspace))
    return Roster(students)


def open_bundle(student: Student) -> Scenario:
    """The student's bundle, if it holds the scenario the manifest deals them: the instructor's
    side is the truth, so a bundle swapped or copied from a classmate is refused whole."""
    scenario = read_scenario(student.workspace)
    if student.code and not same_code(scenario.code, student.code):
        raise GradeError(f"{student.workspace}: holds scenario {scenario.code}, but {MANIFEST} "
                         f"deals {student.name} scenario {student.code} (a bundle swapped or "
                         "copied from another student); not graded, nothing recorded")
    return scenario


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


def find_deal(workspace: Path) -> tuple[Path, Student] | None:
    """The deal folder holding a bundle, and its student: walking up from the bundle, the first
    folder with a manifest or deal settings whose roster has this bundle as a student's (the
    same folder, however the path reached it). None when no folder above holds it (a copy
    elsewhere). GradeError when that folder deals the student another scenario."""
    workspace = Path(workspace).resolve()
    for deal in workspace.parents:
        if not ((deal / MANIFEST).is_file() or (deal / DEAL_SETTINGS).is_file()):
            continue
        student = next((s for s in dealt_students(deal) if _same_folder(s.workspace, workspace)),
                       None)
        if student is not None:
            open_bundle(student)
            return deal, student
    return None


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # a bundle the roster lists but that is not there
        return False


def grade_bundles(files: Iterable[Path], bundles: Path, secret: bytes,
                  options: GradeOptions | Callable[[Student], GradeOptions] | None = None,
                  student: Student | None = None) -> list[Graded]:
    """Grade each submission into its student's bundle; errors are kept, not raised.

    Check, then record: every file is read, placed and scored and every bundle it goes to is
    checked before anything is written; then the ledger is written (the truth, atomically),
    then the new records are copied into the bundles, which are restored from the ledger when
    they lack records it keeps. A bundle that cannot be written is said in its problems: the
    ledger holds its records and the next grading copies them. `student`: grade the files into
    that student's bundle (one file graded with --key --dir), and reconcile only theirs; else
    each file is placed by its name and every bundle of the roster is reconciled. One grading of
    a deal folder at a time (`ledger.one_grading`): a second waits for the first, then reads
    the ledger it wrote."""
    with one_grading(Path(bundles)):
        return _grade_bundles(files, Path(bundles), secret, options, student)


def _grade_bundles(files: Iterable[Path], bundles: Path, secret: bytes,
                   options: GradeOptions | Callable[[Student], GradeOptions] | None,
                   student: Student | None) -> list[Graded]:
    roster = dealt_students(bundles)
    ledger = read_ledger(bundles, secret)
    if not os.access(bundles, os.W_OK | os.X_OK):
        raise GradeError(f"{ledger_path(bundles)}: cannot be written (folder {bundles} is not "
                         "writable); nothing recorded")
    states: dict[str, Standing] = {}
    new: dict[str, list[Attempt]] = {}
    graded = []
    for file in map(Path, files):
        placed = student
        try:
            placed = placed or named_student(file, roster)  # who a refused file's row names
            refuse_unprintable(file)
            reading = read_diagnoses(file)
            placed = student or match(file, reading, roster)
            scenario = open_bundle(placed)
            why = unrecordable(scenario.path)
            if why:
                raise GradeError(f"{scenario.path}: cannot record the attempt ({why}); "
                                 "nothing recorded")
            if placed.name not in states:
                states[placed.name] = standing(scenario, secret, ledger.get(placed.name))
            state, before = states[placed.name], tuple(new.get(placed.name, ()))
            previous = replace(state.attempts, records=state.attempts.records + before)
            report = grade_reading(reading, file, scenario, secret,
                                   options(placed) if callable(options) else options, previous)
        except UserError as err:
            graded.append(Graded(one_line(str(file)), placed and placed.name, None,
                                 one_line(str(err))))
            continue
        new.setdefault(placed.name, []).append(attempt_of(report, scenario))
        graded.append(Graded(one_line(str(file)), placed.name, report,
                             problems=tuple(map(one_line, state.attempts.problems))))
    for other in () if student else roster:
        if other.name not in states:
            with contextlib.suppress(UserError):  # unreadable: the ledger keeps what it had
                states[other.name] = standing(open_bundle(other), secret,
                                              ledger.get(other.name))
    failed = record(bundles, secret, ledger, states, new)
    return [replace(g, problems=(*g.problems, failed[g.student]))
            if g.report is not None and g.student in failed else g for g in graded]


def record(bundles: Path, secret: bytes, ledger: dict[str, Kept],
           states: Mapping[str, Standing], new: Mapping[str, Sequence[Attempt]]
           ) -> dict[str, str]:
    """Record `new` attempts per student: the ledger first (the truth, whole and atomically;
    GradeError, and nothing recorded, when it cannot be written), then each bundle's copy,
    appended, or rewritten from the ledger when it lacked records. Returns, per student whose
    bundle could not be written, what to say: the next grading copies the records there."""
    copies = {}
    for name, state in states.items():
        records = state.attempts.records
        lines = len(records) if state.restore else state.attempts.lines
        sealed = sealing(state.scenario, secret)
        added = [numbered(a, lines + i, **sealed) for i, a in enumerate(new.get(name, ()), 1)]
        ledger[name] = replace(Kept.of((*records, *added), state.kept.code, state.kept.found),
                               shown=state.kept.shown, shown_what=state.kept.shown_what)
        copies[name] = (state, records, added)
    write_ledger(bundles, secret, ledger)
    failed = {}
    for name, (state, records, added) in copies.items():
        workspace = state.scenario.path
        try:
            if state.restore:
                rewrite_attempts(workspace, (*records, *added))
            else:
                for attempt in added:
                    append_record(workspace, attempt)
        except OSError as err:
            failed[name] = one_line(
                f"{workspace}: could not be written ({err.strerror or err}); the ledger "
                "keeps its records and the next grading copies them there")
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
    level: int | None = None  # the deck the bundle was dealt from (None: unreadable)


def gradebook_rows(bundles: Path, secret: bytes) -> list[Row]:
    bundles = Path(bundles)
    ledger = read_ledger(bundles, secret)
    rows = []
    for student in dealt_students(bundles):
        try:
            scenario = open_bundle(student)
            truth = open_key(scenario, secret)
            attempts = standing(scenario, secret, ledger.get(student.name)).attempts
        except UserError as err:
            rows.append(Row(student.name, student.code, None, 0, {}, one_line(str(err))))
            continue
        rows.append(Row(student.name, scenario.code, attempts.first, len(attempts.records),
                        truth, problems=attempts.problems, level=scenario.level))
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
    """CSV: student, code, score, max_score, first_attempt, attempts, file, then per ID its
    answer and truth, a note when the bundle or the file could not be read, the problems
    found in the records, and the level dealt. Written whole or not at all."""
    ids = sorted({i for row in rows for i in row.truth})
    header = ["student", "code", "score", "max_score", "first_attempt", "attempts", "file"]
    header += [f"{kind}_{i}" for i in ids for kind in ("answer", "truth")]
    header += ["note", "records", "level"]
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
                                "" if row.level is None else row.level]])
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
        feedback = {r.id: r.feedback for r in report.results} if same else {}
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
