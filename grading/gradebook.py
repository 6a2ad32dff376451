"""Grading a class: many submissions, one bundle each, a CSV gradebook and Gradescope results.

A bundles folder is what `diagnose deal` writes: `<bundles>/<student>/experiments/19-break-it/`
per student and `<bundles>/manifest.csv` (student, code). A submission is matched to its student
by its scenario comment, else by its file name (`borja-diagnoses.md`, `borja.md`, or
`borja/diagnoses.md` -> borja); when both point somewhere they must agree, so a file copied from
a classmate is refused rather than graded as theirs. Each file is graded into its bundle
(`grade_reading`), so the attempt is recorded there and the first one counts. A file that cannot
be graded is reported and the rest go on.

The gradebook has a row per student of the roster with the attempt that counts, read back from
each bundle's `attempts.jsonl`, so grading in several sessions gives one gradebook.
"""

from __future__ import annotations

import contextlib
import csv
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from grading.attempts import Attempt, read_attempts
from grading.diagnoses import GradeError, read_diagnoses
from grading.feedback import Report
from grading.grade import DEFAULT_DIR, grade_reading, open_key, read_scenario, same_code
from grading.layout import MANIFEST
from grading.texts import say
from grading.words import fold

NAME_SUFFIXES = ("diagnoses", "diagnosis", "diagnosticos")  # folded, "-"/"_" before them
VISIBILITY = "after_published"  # a test's output tells the truth: shown when grades are

Evidence = Callable[[Path], Mapping[str, Sequence[str]] | None]


@dataclass(frozen=True)
class Student:
    name: str
    code: str  # from the bundle's scenario.json, else the manifest's
    workspace: Path


@dataclass(frozen=True)
class Graded:
    """One submission: graded into a student's bundle, or why it could not be."""

    file: str
    student: str | None
    report: Report | None
    error: str = ""


def read_roster(bundles: Path) -> list[Student]:
    """The students of `manifest.csv` (or every bundle folder when there is no manifest)."""
    bundles = Path(bundles)
    if not bundles.is_dir():
        raise GradeError(f"{bundles}: no such directory of bundles")
    manifest = bundles / MANIFEST
    if manifest.is_file():
        try:
            with manifest.open(newline="", encoding="utf-8-sig") as stream:
                rows = [r for r in csv.reader(stream) if r and r[0].strip()]
        except (OSError, UnicodeDecodeError, csv.Error) as err:
            raise GradeError(f"{manifest}: cannot be read ({type(err).__name__})") from None
        if rows and rows[0][0].strip().lower() == "student":
            rows = rows[1:]
        listed = [(r[0].strip(), r[1].strip() if len(r) > 1 else "") for r in rows]
    else:
        listed = [(d.name, "") for d in sorted(bundles.iterdir())
                  if (d / DEFAULT_DIR / "scenario.json").is_file()]
    if not listed:
        raise GradeError(f"{bundles}: no bundles here (no {MANIFEST} and no "
                         f"<student>/{DEFAULT_DIR.as_posix()})")
    roster = []
    for name, code in listed:
        workspace = bundles / name / DEFAULT_DIR
        with contextlib.suppress(GradeError):  # reported when that student's file is graded
            code = read_scenario(workspace).code
        roster.append(Student(name, code, workspace))
    return roster


def _student_by_name(file: Path, roster: Sequence[Student]) -> Student | None:
    stem = fold(file.stem)
    for suffix in NAME_SUFFIXES:
        for joint in ("-", "_", " ", "."):
            stem = stem.removesuffix(joint + suffix)
    if stem in NAME_SUFFIXES or not stem:  # "borja/diagnoses.md"
        stem = fold(file.parent.name)
    return next((s for s in roster if fold(s.name) == stem), None)


def match(file: Path, codes: Sequence[str], roster: Sequence[Student]) -> Student:
    """Whose submission `file` is, by its scenario comment(s) and its name."""
    by_name = _student_by_name(file, roster)
    if not codes:
        if by_name is None:
            raise GradeError(f"{file}: no scenario comment, and its name matches no student "
                             "of the roster")
        return by_name
    by_code = next((s for s in roster if any(same_code(c, s.code) for c in codes)), None)
    if by_code is None:
        raise GradeError(f"{file}: written for scenario {codes[0]}, which no bundle holds")
    if by_name is not None and by_name != by_code:
        raise GradeError(f"{file}: named for {by_name.name}, but written for {by_code.name}'s "
                         f"scenario {by_code.code}")
    return by_code


def grade_bundles(files: Iterable[Path], bundles: Path, secret: bytes, *, lang: str = "en",
                  evidence: Evidence | None = None, now: datetime | None = None
                  ) -> list[Graded]:
    """Grade each submission into its student's bundle; errors are kept, not raised."""
    roster = read_roster(Path(bundles))
    graded = []
    for file in map(Path, files):
        student = None
        try:
            reading = read_diagnoses(file)
            student = match(file, reading.codes, roster)
            scenario = read_scenario(student.workspace)
            report = grade_reading(reading, file, scenario, secret, lang=lang, now=now,
                                   evidence=evidence(student.workspace) if evidence else None)
        except GradeError as err:
            graded.append(Graded(str(file), student and student.name, None, str(err)))
            continue
        graded.append(Graded(str(file), student.name, report))
    return graded


@dataclass(frozen=True)
class Row:
    """A student's line of the gradebook: the attempt that counts, and the truth."""

    student: str
    code: str
    first: Attempt | None
    attempts: int
    truth: dict[str, str]
    error: str = ""


def gradebook_rows(bundles: Path, secret: bytes) -> list[Row]:
    rows = []
    for student in read_roster(Path(bundles)):
        try:
            scenario = read_scenario(student.workspace)
            truth = open_key(scenario, secret)
        except GradeError as err:
            rows.append(Row(student.name, student.code, None, 0, {}, str(err)))
            continue
        attempts = read_attempts(scenario.path)
        rows.append(Row(student.name, scenario.code, attempts[0] if attempts else None,
                        len(attempts), truth))
    return rows


def write_gradebook(rows: Sequence[Row], path: Path) -> None:
    """CSV: student, code, score, max_score, first_attempt, attempts, file, then per ID its
    answer and truth, then a note when the bundle could not be read."""
    ids = sorted({i for row in rows for i in row.truth})
    header = ["student", "code", "score", "max_score", "first_attempt", "attempts", "file"]
    header += [f"{kind}_{i}" for i in ids for kind in ("answer", "truth")] + ["note"]
    with Path(path).open("w", newline="", encoding="utf-8") as stream:
        out = csv.writer(stream)
        out.writerow(header)
        for row in rows:
            first = row.first
            line = [row.student, row.code, first.score if first else "",
                    first.max_score if first else "", first.time if first else "",
                    row.attempts, first.file if first else ""]
            for i in ids:
                line += [(first.answers.get(i) or "") if first else "", row.truth.get(i, "")]
            out.writerow(line + [row.error or ("" if first else "no submission graded")])


def write_gradescope(rows: Sequence[Row], graded: Sequence[Graded], out: Path,
                     lang: str = "en") -> list[Path]:
    """A Gradescope `results.json` per graded student, in `out/<student>/`. A test per ID;
    its output is this session's feedback when the counting file is the one graded now."""
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
        output = [say(lang, "score", score=row.first.score, max=row.first.max_score),
                  f"{row.code} · {row.first.file} · {row.first.time}"]
        if report is not None and not same:
            output.append(report.standing)
        folder = Path(out) / row.student
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "results.json"
        path.write_text(json.dumps({"score": row.first.score, "output": "\n".join(output),
                                    "tests": tests}, ensure_ascii=False, indent=2) + "\n",
                        encoding="utf-8")
        written.append(path)
    return written
