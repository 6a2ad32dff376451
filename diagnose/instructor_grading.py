"""Grading with the instructor's key: the one flow behind `diagnose grade FILE --key` (one file)
and `diagnose grade --key --bundles` (a class).

Each miss is explained with that run's own numbers (`diagnose.reveal.feedback_options`, which
needs the engine: hence this module lives in `diagnose`, over `grading.gradebook`). A bundle
inside a deal folder is graded through that folder's ledger, as a class is; a bundle outside
one is graded into the bundle only, and the result says so. The CLI prints what these return.

Not here: self-study grading (`diagnose.self_study`), the grading itself (`grading.grade`,
`grading.gradebook`), and the words around the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from diagnose.answers import student_langs
from diagnose.reveal import feedback_options
from grading.diagnoses import Reading
from grading.feedback import Report
from grading.grade import Scenario, grade_reading, record_attempt
from grading.gradebook import (
    Graded,
    check_destinations,
    find_deal,
    grade_bundles,
    gradebook_rows,
    refused_rows,
    write_gradebook,
    write_gradescope,
)
from grading.ledger import ledger_path
from grading.lms import write_lms_gradebook
from scenarios.errors import UserError
from scenarios.words import say


@dataclass(frozen=True)
class KeyGrade:
    """One file graded with the instructor's key."""

    report: Report
    problems: tuple[str, ...]  # what was wrong with the records, or that nothing guards them
    ledger: Path | None        # the deal folder's ledger it was recorded in, if in one


def grade_with_key(file: Path, reading: Reading, scenario: Scenario, secret: bytes,
                   lang: str | None) -> KeyGrade:
    """Grade one file into the deal folder's ledger when its bundle is in one (as a class
    grading does), else into the bundle only, saying so. The feedback speaks the student's
    language (`answers.student_langs`; `lang`, when given, for a student whose row names none,
    and for a bundle outside a deal folder)."""
    deal = find_deal(scenario.path)
    if deal is not None:
        lang = student_langs(deal[0], lang).get(deal[1].name, lang)
    lang = lang or "en"
    options = feedback_options(lang, secret)
    if deal is None:
        report = grade_reading(reading, file, scenario, secret, options)
        record_attempt(report, scenario, secret)
        return KeyGrade(report, (say(
            lang, "Recorded in {path} only: no deal folder above it (a folder with manifest.csv "
            "or deal-settings.json that lists it) keeps a ledger, so its first attempt cannot be "
            "protected there.", path=scenario.path),), None)
    folder, student = deal
    (graded,) = grade_bundles([file], folder, secret, options, student)
    if graded.report is None:
        raise UserError(graded.error)
    return KeyGrade(graded.report, graded.problems, ledger_path(folder))


@dataclass(frozen=True)
class ClassGrade:
    """A class graded: each file's outcome, and what was written besides."""

    graded: list[Graded]
    students: int                 # the gradebook's rows (0 when none was asked for)
    gradescope_files: list[Path]  # each student's results.json, when asked for

    @property
    def failed(self) -> int:
        return sum(g.report is None for g in self.graded)


def grade_class(files: Sequence[Path], bundles: Path, secret: bytes, *, lang: str | None,
                gradebook: Path | None = None, gradescope: Path | None = None,
                gradebook_format: str = "full") -> ClassGrade:
    """Grade each file into its student's bundle under `bundles`; then write the gradebook CSV
    (the full, private one, or an LMS's: `grading.lms`) and Gradescope's results, when asked
    for (both destinations checked first)."""
    check_destinations(gradebook, gradescope)  # before any attempt is recorded
    speaks = student_langs(bundles, lang)
    graded = grade_bundles(files, bundles, secret, lambda student: feedback_options(
        speaks.get(student.name, lang or "en"), secret))
    rows = gradebook_rows(bundles, secret) if gradebook or gradescope else []
    written: list[Path] = []
    if gradebook and gradebook_format != "full":
        write_lms_gradebook(rows, bundles, gradebook, gradebook_format)
    elif gradebook:
        write_gradebook(rows + refused_rows(graded), gradebook)
    if gradescope:
        written = write_gradescope(rows, graded, gradescope, lang or "en")
    return ClassGrade(graded, len(rows), written)
