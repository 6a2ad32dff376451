"""Grading with the instructor's key: the one flow behind `diagnose grade FILE --key` (one file)
and `diagnose grade --key --bundles` (a class).

Each miss is explained with that run's own numbers, quoted only from metrics whose sha256 was
kept at deal time (`grading.dealt.metrics_as_dealt`; the numbers need the engine: hence this
module lives in `diagnose`, over `grading.gradebook`). A file graded with `--key --dir` is
recorded only when `--dir` is exactly `<deal>/<student>/experiments/19-break-it` of a deal
folder whose manifest lists the student (`gradebook.deal_of`): otherwise it is graded,
nothing is recorded, and the result says so. The CLI prints what these return.

Not here: self-study grading (`diagnose.self_study`), the grading itself (`grading.grade`,
`grading.gradebook`), and the words around the results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

from diagnose.answers import student_langs
from grading.dealt import Dealt, metrics_as_dealt
from grading.diagnoses import Reading
from grading.feedback import Report
from grading.grade import GradeOptions, grade_reading, read_scenario
from grading.gradebook import (
    Graded,
    check_destinations,
    deal_of,
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


def class_options(lang: str) -> GradeOptions:
    """A class grading's feedback in `lang`, each miss with that run's own numbers when its
    metrics are the ones dealt (else none, and a note says why)."""
    def numbers(dealt: Dealt) -> tuple[Mapping[str, Sequence[str]] | None, str]:
        ok, note = metrics_as_dealt(dealt, ("reference", *dealt.ids))
        if not ok:
            return None, note
        try:
            from diagnose.reveal import evidence

            found = evidence(dealt.workspace, lang, dict(dealt.truth))
        except Exception:  # noqa: BLE001 - the numbers are a hint: a grade never stops for them
            return None, ""  # none quoted: nothing unchecked to say
        return found, note if found else ""

    return GradeOptions(lang, class_evidence=numbers)


@dataclass(frozen=True)
class KeyGrade:
    """One file graded with the instructor's key."""

    report: Report
    problems: tuple[str, ...]  # what was wrong with the records, or that nothing was recorded
    ledger: Path | None        # the deal folder's ledger it was recorded in, if in one


def grade_with_key(file: Path, reading: Reading, workspace: Path, secret: bytes,
                   lang: str | None) -> KeyGrade:
    """Grade one file: into its deal folder's ledger when `workspace` is exactly a student's
    bundle folder of a deal (as a class grading does), else graded and nothing recorded. The
    feedback speaks the student's language (`answers.student_langs`: `lang`, when given, is for
    a student whose manifest row names none, and for a bundle outside a deal)."""
    deal = deal_of(workspace)
    if deal is not None:
        lang = student_langs(deal[0], lang).get(deal[1].name, lang)
    lang = lang or "en"
    if deal is None:
        from diagnose.reveal import feedback_options

        report = grade_reading(reading, file, read_scenario(workspace), secret,
                               feedback_options(lang, secret))
        report = replace(report, counts=False, first=None, recorded=False)
        return KeyGrade(report, (say(
            lang, "Not recorded: {path} is not a student's folder of a deal "
            "(<deal>/<student>/experiments/19-break-it, no symbolic link on the way, the "
            "student in that deal's manifest.csv); graded from the bundle's own files, nothing "
            "kept.", path=workspace),), None)
    folder, student = deal
    (graded,) = grade_bundles([file], folder, secret, class_options(lang), student)
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


class Outputs(NamedTuple):
    """What a class grading writes besides its records, each None when not asked for."""

    gradebook: Path | None = None
    gradescope: Path | None = None
    gradebook_format: str = "full"  # what `gradebook` holds: `grading.lms.FORMATS`


def grade_class(files: Sequence[Path], bundles: Path, secret: bytes, *, lang: str | None,
                outputs: Outputs | None = None) -> ClassGrade:
    """Grade each file into its student's bundle under `bundles`, its feedback in the student's
    language (`answers.student_langs`); then write the gradebook CSV (the full, private one, or
    an LMS's: `grading.lms`) and Gradescope's results, when asked for (both destinations
    checked first)."""
    gradebook, gradescope, gradebook_format = outputs or Outputs()
    check_destinations(gradebook, gradescope)  # before any attempt is recorded
    speaks = student_langs(bundles, lang)
    graded = grade_bundles(files, bundles, secret, lambda student: class_options(
        speaks.get(student.name, lang or "en")))
    rows = gradebook_rows(bundles, secret) if gradebook or gradescope else []
    written: list[Path] = []
    if gradebook and gradebook_format != "full":
        write_lms_gradebook(rows, bundles, gradebook, gradebook_format)
    elif gradebook:
        write_gradebook(rows + refused_rows(graded), gradebook)
    if gradescope:
        written = write_gradescope(rows, graded, gradescope, lang or "en")
    return ClassGrade(graded, len(rows), written)
