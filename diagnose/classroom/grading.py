"""Grading with the instructor's key: the one flow behind `diagnose grade FILE --key` (one file)
and `diagnose grade --key --bundles` (a class).

Each miss is explained with that run's own numbers, quoted only from metrics whose sha256 was
kept at deal time (`grading.dealt.metrics_as_dealt`; the numbers need the engine: hence this
module lives in `diagnose`, over `grading.gradebook`). A file graded with `--key --dir` is
recorded only when `--dir` is exactly `<deal>/<student>/experiments/19-break-it` of a deal
folder whose manifest lists the student (`gradebook.deal_of`): otherwise it is graded,
nothing is recorded, and the result says so. The CLI prints what these return.

Not here: self-study grading (`diagnose.game.self_study`), the grading itself (`grading.grade`,
`grading.gradebook`), and the words around the results.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from diagnose.classroom.answers import student_langs
from diagnose.game.routes import Route, grading_route, hand_in
from grading.dealt import Dealt, metrics_as_dealt, read_digests
from grading.diagnoses import Reading
from grading.feedback import Check, Report
from grading.grade import (
    GradeOptions,
    Scenario,
    check_against,
    grade_reading,
    read_scenario,
)
from grading.gradebook import (
    Graded,
    check_destinations,
    deal_of,
    grade_bundles,
    gradebook_rows,
    parse_deadline,
    refused_rows,
    write_gradebook,
    write_gradescope,
)
from grading.ledger import ledger_path
from grading.lms import write_lms_gradebook
from scenarios.errors import UserError
from scenarios.words import say

if TYPE_CHECKING:
    from diagnose.game.self_study import SelfStudyGrade


def class_options(lang: str) -> GradeOptions:
    """A class grading's feedback in `lang`, each miss with that run's own numbers when its
    metrics are the ones dealt (else none, and a note says why)."""
    digests: dict[Path, dict[str, dict[str, str]] | None] = {}  # read once per grading

    def numbers(dealt: Dealt) -> tuple[Mapping[str, Sequence[str]] | None, str]:
        if dealt.folder not in digests:
            digests[dealt.folder] = read_digests(dealt.folder)
        ok, note = metrics_as_dealt(dealt, ("reference", *dealt.ids), digests[dealt.folder])
        if not ok:
            return None, note
        try:
            from diagnose.diagnosis.reveal import evidence

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
        from diagnose.diagnosis.reveal import feedback_options

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


@dataclass(frozen=True)
class ClassOutputs:
    """What a class grading writes besides the ledger: the gradebook CSV (`gradebook_format`
    "full", private, or an LMS's import: `grading.lms`), Gradescope's results (deprecated), and
    `deadline` (as typed), after which collected files are marked late in the gradebook."""

    gradebook: Path | None = None
    gradescope: Path | None = None
    gradebook_format: str = "full"
    deadline: str | None = None


def grade_class(files: Sequence[Path], bundles: Path, secret: bytes, *, lang: str | None,
                outputs: ClassOutputs = ClassOutputs()) -> ClassGrade:
    """Grade each file for its student of `bundles`, its feedback in the student's language
    (`answers.student_langs`; `lang` when given overrides); then write `outputs`, when asked
    for (both destinations checked first). No files: grade nothing and rebuild the gradebook
    from the ledger."""
    gradebook, gradescope = outputs.gradebook, outputs.gradescope
    gradebook_format = outputs.gradebook_format
    when = parse_deadline(outputs.deadline) if outputs.deadline else None
    check_destinations(gradebook, gradescope)  # before any attempt is recorded
    speaks = student_langs(bundles, lang)
    graded = grade_bundles(files, bundles, secret, lambda student: class_options(
        speaks.get(student.name, lang or "en"))) if files else []
    rows = gradebook_rows(bundles, secret, when) if gradebook or gradescope else []
    written: list[Path] = []
    if gradebook and gradebook_format != "full":
        write_lms_gradebook(rows, bundles, gradebook, gradebook_format)
    elif gradebook:
        write_gradebook(rows + refused_rows(graded), gradebook)
    if gradescope:
        written = write_gradescope(rows, graded, gradescope, lang or "en")
    return ClassGrade(graded, len(rows), written)


def cancel(bundles: Path, secret: bytes, student: str, number: int, why: str) -> str:
    """Mark `student`'s attempt `number` void in the deal folder's ledger (kept, shown in the
    gradebook, never counted); returns the sentence that says so."""
    from grading.attempts import utc_stamp
    from grading.gradebook import check_key, dealt_students
    from grading.ledger import cancel_attempt

    check_key(Path(bundles), secret)
    if student not in {s.name for s in dealt_students(Path(bundles))}:
        raise UserError(f"{student}: not a student of {Path(bundles) / 'manifest.csv'}")
    when = utc_stamp()
    kept = cancel_attempt(Path(bundles), secret, student, number, why=why, when=when)
    attempt = kept.attempts[number - 1]
    return (f"{student}: attempt {number} ({attempt.file}, {attempt.score}/{attempt.max_score}, "
            f"graded {attempt.time}) cancelled: {' '.join(why.split())}. It stays in the ledger "
            "and the gradebook, and never counts.")


# --- `diagnose grade`: one call per form ----------------------------------------------------

@dataclass(frozen=True)
class GradeFileOptions:
    """What `diagnose grade FILE` was asked: the file, the scenario's folder when given (else
    the one next to FILE), the instructor's key file, a check only, and the feedback's
    language (None: with a key, each student's own)."""

    file: Path
    directory: Path | None = None
    key_file: Path | None = None
    check: bool = False
    lang: str | None = None


@dataclass(frozen=True)
class FileGrade:
    """One file graded on its route (`diagnose.game.routes`): the result of that route."""

    route: Route
    check: Check | None = None
    with_key: KeyGrade | None = None
    self_study: SelfStudyGrade | None = None


def grade_file(options: GradeFileOptions,
               before_self_study: Callable[[Scenario], None] = lambda scenario: None
               ) -> FileGrade:
    """Grade one file on the route `grading_route` chooses: a check (no key, no score), with
    the instructor's key, or self-study (then `before_self_study(scenario)` runs first: the
    caller's review and question, which may raise to stop); an instructor's bundle without the
    key is refused with the line saying to check it and hand it in."""
    import grading
    from diagnose.game.self_study import grade_self_study

    file = options.file
    reading = grading.read_diagnoses(file)  # a missing or unreadable FILE is said first
    found = options.directory or grading.find_scenario(file,
                                                       code=next(iter(reading.codes), None))
    if found is None and not options.check:
        raise UserError(f"no scenario found next to {file} or in {grading.DEFAULT_DIR}; pass "
                        "--dir")
    route = grading_route(found, check=options.check, key_given=options.key_file is not None)
    if route is Route.CHECK:
        return FileGrade(route, check=check_against(file, found, lang=options.lang or "en",
                                                    reading=reading))
    assert found is not None  # grading_route refused a missing scenario
    if route is Route.WITH_KEY:
        assert options.key_file is not None
        return FileGrade(route, with_key=grade_with_key(
            file, reading, found, grading.read_key_file(options.key_file), options.lang))
    if route is Route.HAND_IN:
        raise hand_in(file, found)
    before_self_study(read_scenario(found))
    return FileGrade(route, self_study=grade_self_study(file, found, options.lang or "en",
                                                        reading))


@dataclass(frozen=True)
class GradeClassOptions:
    """What `diagnose grade --key KEY --bundles DIR [FILE...]` was asked: files or folders of
    them (an LMS's submission folders), the deal folder, the key file, the feedback's language
    for every student (None: each student's own) and what to write besides the ledger."""

    files: tuple[Path, ...]
    bundles: Path
    key_file: Path
    lang: str | None = None
    outputs: ClassOutputs = ClassOutputs()


def grade_class_files(options: GradeClassOptions) -> ClassGrade:
    """The files in `options.files` (folders expanded) graded for their students, the key read
    from its file, then `grade_class`."""
    from grading.collect import expand
    from grading.seal import read_key_file

    files = tuple(expand(options.files))
    return grade_class(files, options.bundles, read_key_file(options.key_file),
                       lang=options.lang, outputs=options.outputs)
