"""Grading and revealing: `grade` (self-study, one file with the instructor's key, or a class),
`reveal` (self-study, or the instructor's hand-back) and `attempts cancel`. The grading route
is chosen once, in `diagnose.game.routes`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from diagnose.cli.common import (
    DIR_OPTION,
    LANG,
    _echo,
    _echo_json,
    _grade_style,
    _what_if_bars,
    _what_if_page,
    cli,
)
from diagnose.cli.params import (
    PathArg,
)
from scenarios.errors import UserError
from scenarios.words import say

if TYPE_CHECKING:
    from diagnose.classroom.answers import RevealClassOptions
    from diagnose.classroom.grading import (
        ClassGrade,
        ClassOutputs,
        GradeClassOptions,
        GradeFileOptions,
        KeyGrade,
    )
    from diagnose.game.self_study import Revealed, SelfStudyGrade


@cli.command()
@click.argument("students", metavar="[STUDENT...]", nargs=-1)
@DIR_OPTION
@click.option("--json", "as_json", is_flag=True, help='Print {"01": "<slug>", ...} only.')
@click.option("--what-if", "what_if", is_flag=True,
              help="Also retrain each run's break at the other magnitudes its catalog entry "
                   "declares, and add them to the run's dashboard.html.")
@click.option("--lang", type=LANG, default=None,
              help="Language of the solutions file (default en; with --key: each student's "
                   "manifest lang, else this, else the deal's).")
@click.option("--key", "key_file", type=PathArg(),
              help="Instructor: your key file; with --bundles, reveals to your students.")
@click.option("--bundles", type=PathArg(),
              help="Instructor: the folder `diagnose deal` wrote.")
@click.option("--out", type=PathArg(), default=Path("hand-back"), show_default=True,
              help="With --key: the folder for OUT/<student>/<solutions file>, to hand back.")
def reveal(students: tuple[str, ...], directory: Path, as_json: bool, what_if: bool,
           lang: str | None, key_file: Path | None, bundles: Path | None, out: Path) -> None:
    """Reveal which break each ID held, with the evidence from each run's own metrics.

    Writes solutions/03-three-failures-ref.md next to experiments/ and records in the
    workspace that the answers were revealed (later gradings say so). Self-study scenarios
    only: an instructor's bundle opens with the instructor's key.

    An instructor reveals to a class with --key and --bundles: each STUDENT's solutions file
    (every student's when none is named), in their language, goes into OUT/<student>/ to hand
    back, and the ledger records that their answers were shown: from then on no attempt of
    theirs counts. (The answer key alone, recording nothing: diagnose answers.)

    \b
    Example:
      diagnose reveal --dir experiments/19-break-it
      diagnose reveal --json
      diagnose reveal --what-if     # then open 01/dashboard.html
      diagnose reveal --key course.key --bundles bundles --out hand-back
      diagnose reveal --key course.key --bundles bundles carmen david
    """
    import json

    from diagnose.classroom.answers import RevealClassOptions
    from diagnose.game.self_study import RevealOptions, reveal_self_study

    if key_file is not None or bundles is not None or students:
        if key_file is None or bundles is None:
            raise click.UsageError("STUDENT and --key go with --bundles: diagnose reveal --key "
                                   "KEY --bundles DIR [STUDENT...]")
        if as_json or what_if:
            raise click.UsageError("--key reveals to a class: it takes no --json or --what-if.")
        _reveal_class(RevealClassOptions(key_file, bundles, students, out, lang))
        return
    lang = lang or "en"
    revealed = reveal_self_study(RevealOptions(directory, lang, what_if), _what_if_bars(lang),
                                 lambda run, page: _what_if_page(run, page, lang))
    if as_json:
        click.echo(json.dumps(revealed.assignment))
    else:
        _print_revealed(revealed, lang)


def _print_revealed(revealed: Revealed, lang: str) -> None:
    titles = revealed.titles(lang)
    width = max(len(slug) for slug in revealed.assignment.values())
    for rid, slug in revealed.assignment.items():
        click.echo(f"{rid}: {slug:<{max(width, 12)}} {titles[rid]}")
    click.echo(say(lang, "Explained in {path}", path=revealed.solutions))


def _reveal_class(options: RevealClassOptions) -> None:
    from diagnose.classroom.answers import reveal_to_class

    handed = reveal_to_class(options)
    for name, path in handed.files.items():
        _echo(f"{name}: {path} ({handed.langs[name]})")
    _echo(f"Revealed to {len(handed.files)} students; the ledger records that their answers "
          f"were shown (no later attempt of theirs counts). Hand back {options.out}/<student>/.")


def _review_first(file: Path, scenario, lang: str, yes: bool, as_json: bool) -> None:
    """Before a self-study grading records its attempt and shows the answers: the review
    (`diagnose.game.review`, as the app's `g` shows it), then a yes asked at a terminal; elsewhere
    refused. `--yes` grades at once, without either (a script's choice). With --json the
    review goes to stderr."""
    import sys

    import grading
    from diagnose.game.review import render_review, rows_from_reading

    if yes:
        return
    reading = grading.read_diagnoses(file, level=scenario.level)
    for line in render_review(rows_from_reading(scenario.ids, reading, scenario.level, lang),
                              lang):
        _echo(line, err=as_json)
    if not sys.stdin.isatty():
        raise UserError(say(lang, "grading records your first attempt and shows the answers: "
                                  "check the review above, then grade with --yes"))
    if not click.confirm(say(lang, "Grade now (your first grade is the one that counts)?"),
                         default=False, err=as_json):
        _echo(say(lang, "Not graded."), err=as_json)
        raise click.exceptions.Exit(0)


def _grade_one(options: GradeFileOptions, yes: bool, as_json: bool) -> None:
    """Print `classroom.grading.grade_file`'s result, its review and question first."""
    from diagnose.classroom.grading import grade_file

    lang = options.lang or "en"
    graded = grade_file(options, lambda scenario: _review_first(options.file, scenario, lang,
                                                                yes, as_json))
    if graded.check is not None and as_json:
        _echo_json(graded.check.to_json())
    elif graded.check is not None:
        _echo(graded.check.render(_grade_style))
    elif graded.with_key is not None:
        _print_key_grade(graded.with_key, as_json)
    elif graded.self_study is not None:
        _print_self_study(graded.self_study, lang, as_json)


def _print_self_study(graded: SelfStudyGrade, lang: str, as_json: bool) -> None:
    for warning in graded.warnings:
        _echo(f"Warning: {warning}", err=True)
    if as_json:
        _echo_json({**graded.report.to_json(),
                    "solutions": graded.solutions and str(graded.solutions)})
        return
    _echo(graded.report.render(_grade_style))
    if graded.solutions:
        _echo(say(lang, "Solutions: {path}", path=graded.solutions))
    if graded.passed:
        _echo(_grade_style(graded.passed, "right"))


def _print_key_grade(graded: KeyGrade, as_json: bool) -> None:
    """Print `classroom.grading.grade_with_key`'s result."""
    if as_json:
        _echo_json({**graded.report.to_json(), "solutions": None,
                    "ledger": graded.ledger and str(graded.ledger),
                    "records": list(graded.problems)})
    else:
        _echo(graded.report.render(_grade_style))
    for problem in graded.problems:
        _echo(f"Warning: {problem}", err=True)


def _grade_class(options: GradeClassOptions, as_json: bool) -> None:
    """Print `classroom.grading.grade_class_files`'s result."""
    from diagnose.classroom.grading import grade_class_files

    outputs = options.outputs
    result = grade_class_files(options)
    if outputs.gradescope is not None:
        _echo("Warning: --gradescope writes results.json files that Gradescope never reads (it "
              "grades uploads with its own autograder: diagnose gradescope-autograder); it "
              "goes in a later version.", err=True)
    if as_json:
        _echo_json({
            "graded": [{"file": g.file, "student": g.student,
                        **(g.report.to_json() if g.report else {"error": g.error}),
                        **({"records": list(g.problems)} if g.problems else {})}
                       for g in result.graded],
            "gradebook": outputs.gradebook and str(outputs.gradebook),
            "gradescope": [str(p) for p in result.gradescope_files]})
    else:
        _print_class_grade(result, outputs)
    if result.failed:
        raise UserError(f"{result.failed} of {len(result.graded)} files could not be graded")


def _print_class_grade(result: ClassGrade, outputs: ClassOutputs) -> None:
    graded, gradebook, gradescope = result.graded, outputs.gradebook, outputs.gradescope
    width = max((len(g.student or "") for g in graded), default=0)
    for g in graded:
        if g.report:
            r = g.report
            _echo(f"{g.student:<{width}}  {r.score}/{r.max_score}  {g.file}  "
                  f"({r.standing})")
            for problem in g.problems:
                _echo(f"{'':<{width}}  {_grade_style('records', 'wrong')}  {problem}")
        else:
            _echo(f"{g.student or '?':<{width}}  {_grade_style('error', 'wrong')}  "
                  f"{g.error}")
    if gradebook and outputs.gradebook_format == "full":
        _echo(f"Gradebook: {gradebook} ({result.students} students; private: it holds "
              "every scenario's truth. For your LMS: --gradebook-format canvas, moodle or "
              "plain)")
    elif gradebook:
        _echo(f"Gradebook for {outputs.gradebook_format}: {gradebook} ({result.students} "
              "students, one score each)")
    if gradescope:
        _echo(f"Gradescope: {len(result.gradescope_files)} results.json in {gradescope}")


@cli.command()
@click.argument("files", metavar="FILE...", nargs=-1, type=PathArg())
@click.option("--dir", "directory", type=PathArg(), default=None,
              help="The scenario to grade against. Default: the one next to FILE (its folder "
                   "or its experiments/19-break-it), else experiments/19-break-it.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the feedback. With --key, a student's manifest lang comes "
                   "first; this is for the rest (default: the deal's).")
@click.option("--check", is_flag=True,
              help="Only say how FILE reads, without the key: no score, nothing recorded.")
@click.option("--key", "key_file", type=PathArg(),
              help="Instructor: your key file (from `diagnose keygen`).")
@click.option("--bundles", type=PathArg(),
              help="Instructor: the folder `diagnose deal` wrote; each FILE is graded into its "
                   "student's bundle, matched by its scenario comment or its name.")
@click.option("--gradebook", type=PathArg(),
              help="With --bundles: write the class's grades to this CSV file.")
@click.option("--gradescope", type=PathArg(), metavar="DIR", hidden=True,
              help="Deprecated: DIR/<student>/results.json, which Gradescope never reads.")
@click.option("--gradebook-format", "gradebook_format",
              type=click.Choice(("full", "canvas", "moodle", "plain")), default="full",
              show_default=True,
              help="What --gradebook holds: full (private: every answer and every scenario's "
                   "truth), or one score per student for an LMS to import: canvas (Canvas's "
                   "gradebook import), moodle (the assignment's grading worksheet), plain "
                   "(student,email,score,max_score).")
@click.option("--deadline", metavar="WHEN",
              help="With --gradebook: mark files collected (modified) after WHEN late, an "
                   "ISO-8601 date or time (2026-12-04 is that whole day; no zone: UTC).")
@click.option("--yes", is_flag=True,
              help="Self-study: grade at once, without the review and its question (needed "
                   "when not at a terminal).")
def grade(files: tuple[Path, ...], directory: Path | None, as_json: bool, lang: str,
          check: bool, key_file: Path | None, bundles: Path | None, gradebook: Path | None,
          gradescope: Path | None, gradebook_format: str, deadline: str | None,
          yes: bool) -> None:
    """Grade a diagnoses file against its scenario's sealed answer key.

    Prints, per ID, the words read, what they were taken to mean, the truth, and for a miss
    the panels (and this run's numbers) that would have shown it; then the score. The first
    grading of a scenario is the one that counts in self-study. There grading also reveals the
    solutions, so it first prints the review (each ID's answer and its evidence's first line,
    ✗ where it scores 0) and asks; not at a terminal it needs --yes (no review, no question).
    With --key, each student's scenario comes from your key and manifest.csv (never from a
    bundle), the ledger in the deal folder (.attempts-ledger.json) is the only record of
    attempts, and a corrected file handed in later replaces a draft until you show the
    answers; the same file graded again is no new attempt. --bundles with --gradebook and no
    FILE rebuilds the gradebook from the ledger. Exit 0 when graded, whatever the score; 1
    for a problem to fix; 2 for bad usage.

    \b
    Examples:
      diagnose grade borja-diagnoses.md
      diagnose grade borja-diagnoses.md --yes        # in a script: no question
      diagnose grade borja-diagnoses.md --check      # how it reads, no key needed
      diagnose grade borja-diagnoses.md --lang es --json
      diagnose grade borja.md --dir bundles/borja/experiments/19-break-it --key course.key
      diagnose grade --key course.key --bundles bundles downloads/* \\
          --gradebook grades.csv --deadline 2026-12-04T23:59Z
      diagnose grade --key course.key --bundles bundles --gradebook grades.csv  # rebuild
    """
    _grade_usage(click.get_current_context().params)
    from click.core import ParameterSource

    from diagnose.classroom import grading as instructor

    chosen = click.get_current_context().get_parameter_source("lang") != ParameterSource.DEFAULT
    spoken = lang if chosen or key_file is None else None  # with a key: each student's own
    if bundles is not None and key_file is not None:
        _grade_class(instructor.GradeClassOptions(files, bundles, key_file, spoken,
                                                  instructor.ClassOutputs(
                                                      gradebook, gradescope, gradebook_format,
                                                      deadline)), as_json)
    else:
        _grade_one(instructor.GradeFileOptions(files[0], directory, key_file, check, spoken),
                   yes, as_json)


def _grade_usage(given: dict[str, Any]) -> None:
    """Refuse the option combinations `grade` cannot take (its parsed parameters, by name)."""
    files, directory, check = given["files"], given["directory"], given["check"]
    key_file, bundles, deadline = given["key_file"], given["bundles"], given["deadline"]
    gradebook, gradescope = given["gradebook"], given["gradescope"]
    gradebook_format = given["gradebook_format"]
    if not files and not (bundles is not None and gradebook is not None):
        raise click.UsageError("Missing argument 'FILE...'.")
    if deadline is not None and gradebook is None:
        raise click.UsageError("--deadline marks late files in the gradebook: it goes with "
                               "--gradebook.")
    if bundles is not None and key_file is None:
        raise click.UsageError("--bundles needs --key (the instructor's key file).")
    if bundles is not None and (directory is not None or check):
        raise click.UsageError("--bundles finds each file's bundle: it takes no --dir or "
                               "--check.")
    if (gradebook or gradescope) and bundles is None:
        raise click.UsageError("--gradebook and --gradescope go with --bundles.")
    if gradebook_format != "full" and gradebook is None:
        raise click.UsageError("--gradebook-format says what --gradebook holds: give "
                               "--gradebook FILE.")
    if len(files) > 1 and bundles is None:
        raise click.UsageError("several files are graded with --key KEY --bundles DIR.")


@cli.group()
def attempts() -> None:
    """Instructor: the attempts your ledger keeps (cancel one, keeping it on record).

    \b
    Example:
      diagnose attempts cancel ana 2 --why "handed in by mistake" --key course.key \\
          --bundles bundles
    """


@attempts.command("cancel")
@click.argument("student")
@click.argument("number", metavar="N", type=click.IntRange(1, 1_000_000))
@click.option("--why", required=True, help="Why it is cancelled: kept with it in the ledger.")
@click.option("--key", "key_file", type=PathArg(), required=True,
              help="Your key file (from `diagnose keygen`).")
@click.option("--bundles", type=PathArg(), required=True,
              help="The folder `diagnose deal` wrote (its ledger holds the attempts).")
def attempts_cancel(student: str, number: int, why: str, key_file: Path,
                    bundles: Path) -> None:
    """Mark STUDENT's attempt N (1 for the first) void: it stays in the ledger and the
    gradebook, with why, and never counts. Nothing is deleted.

    \b
    Example:
      diagnose attempts cancel ana 2 --why "uploaded a classmate's file by mistake" \\
          --key course.key --bundles bundles
    """
    from diagnose.classroom.grading import cancel
    from grading.seal import read_key_file

    click.echo(cancel(bundles, read_key_file(key_file), student, number, why))
