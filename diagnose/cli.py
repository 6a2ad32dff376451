"""The command line: one click group, each command a short function with an example.

Domain code raises one family of user errors (`scenarios.errors.UserError`, with an optional
hint) where the problem is known; the group's door (`DiagnoseGroup.invoke`) is the one place
that turns them into `Error: ...` with exit 1, or exit 2 for a `UsageProblem`. numpy and
textual are imported inside the commands that need them, so `diagnose --help` stays instant.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from diagnose import __version__
from diagnose.params import (
    COUNT_MAX,
    JOBS_MAX,
    TIMEOUT_MAX,
    Bounded,
    BoundedFloat,
    LevelChoice,
    PathArg,
)
from grading.layout import DEFAULT_DIR, GRADESCOPE_VISIBILITIES, printable
from scenarios.catalog import DECK_SETTING
from scenarios.config import MAX_STEPS
from scenarios.errors import UsageProblem, UserError
from scenarios.langs import LANGS
from scenarios.words import say

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
LANG = click.Choice(LANGS)


class DiagnoseGroup(click.Group):
    """The door: every user error raised below becomes one `Error:` line, here and only here."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except UsageProblem as err:  # printable: a name that is not UTF-8, shown escaped
            raise click.UsageError(printable(str(err))) from None
        except UserError as err:
            raise click.ClickException(printable(str(err))) from None


@click.group(cls=DiagnoseGroup, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="diagnose")
@click.option("--deck", type=PathArg(exists=True, file_okay=False), envvar=DECK_SETTING,
              default=None, help="A course's own deck: a folder of break folders "
              "(<slug>/break.toml and signature.py) whose breaks join their levels, for every "
              f"command. The {DECK_SETTING} setting does the same.")
def cli(deck: Path | None) -> None:
    """diagnose: learn how training failures look.

    A tiny GPT is trained four times, once healthy and three times behind the opaque IDs
    01 02 03: at level 1 each holds one designed bug (bad initialisation, missing warmup,
    broken causal mask); from level 2 on, one may hold none (a healthy decoy). Read the six
    dashboard panels, diagnose each run, and get graded.

    An instructor adds breaks of their own with --deck DIR (or DIAGNOSE_DECK=DIR): each is
    validated as the built-in ones are, and its code runs only on the machine that has it.

    \b
    Example:
      diagnose play          # a fresh scenario, trained live in the terminal
      diagnose --deck course-breaks breaks   # the deck with a course's own breaks
    """
    if deck is not None:  # the one setting every reader of the catalog (and each worker) sees
        os.environ[DECK_SETTING] = str(deck)
        from diagnose.signatures import check_course_deck

        check_course_deck()  # refused here, before any command writes or trains


@cli.command()
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the titles and summaries.")
def breaks(lang: str) -> None:
    """List the deck by level: slug, titles and a one-line summary of each break.

    The levels are scenarios/levels.toml's (DIAGNOSE_LEVELS, or a course deck's levels.toml,
    names another file). Level 1 is the lab's three breaks. Level 2 deals three of a pool of
    subtle breaks (an init too large or too small, a warmup too short, a peak learning rate too
    high, one head that sees the future) and the healthy decoy. Level 3 deals three of five new
    bugs and the decoy. A course's own breaks (diagnose --deck DIR, or DIAGNOSE_DECK) join the
    levels its levels.toml deals them in, each marked with its folder.

    \b
    Example:
      diagnose breaks --lang es
      diagnose --deck course-breaks breaks
    """
    from scenarios import all_levels
    from scenarios import breaks as deck

    for level in all_levels():
        heading = say(lang, "Level {number}: {name}", number=level.number, name=level.name[lang])
        click.echo(click.style(heading, bold=True, underline=True))
        for brk in deck(level.number).values():
            click.echo(click.style(brk.slug, bold=True))
            for code in LANGS:
                click.echo(f"  {code}: {brk.title[code]}")
            click.echo(f"  {brk.summary[lang]}")
            if brk.course:
                click.echo("  " + say(lang, "from the course deck: {folder}", folder=brk.folder))


DIR_OPTION = click.option(
    "--dir", "directory", type=PathArg(),
    default=DEFAULT_DIR, show_default=True, help="The scenario's folder (its workspace).")


LEVEL_OPTION = click.option(
    "--level", type=LevelChoice(), default=None,
    help="Deal from this level's deck, one of `diagnose breaks`' levels (1 the lab's breaks; "
         "2 three of a pool of subtle breaks, their mirrors and a healthy decoy; 3 new bugs and "
         "maybe a healthy decoy). Without --dir, level N>1 lives in "
         "experiments/19-break-it-level-N. Default: the first level, or the level of the "
         "scenario in --dir.")


def _level_dir(directory: Path, level: int | None) -> Path:
    """--dir as given, or, left at its default, the folder of `level` (the first level's when
    none is asked), as its entry names it (grading.layout.level_dir)."""
    from click.core import ParameterSource

    from grading.layout import level_dir
    from scenarios.levels import first_level

    source = click.get_current_context().get_parameter_source("directory")
    if source != ParameterSource.DEFAULT:
        return directory
    return level_dir(first_level().number if level is None else level, directory)


STEPS_OPTION = click.option(
    "--steps", type=Bounded(1, MAX_STEPS), default=None,
    help=f"Training steps per run, 1 to {MAX_STEPS} (default: healthy.toml's).")
JOBS_OPTION = click.option(
    "--jobs", type=Bounded(1, JOBS_MAX), default=2, show_default=True,
    help=f"Runs trained at once, each in its own process (never more processes than runs), "
         f"1 to {JOBS_MAX}.")


def _train_with_bars(make, labels, steps, title):
    """Run `make(on_step)` under one progress bar per run.

    SIGTERM and SIGHUP (a supervisor, a closed SSH session) interrupt it like Ctrl-C: the
    caller's KeyboardInterrupt handler cleans up and exits with `_interrupt_exit_code`.
    """
    from diagnose.platform import termination_as_interrupt
    from diagnose.run_bars import RunBars

    with termination_as_interrupt(), RunBars(labels, steps, title) as bars:
        return make(bars.step)


def _interrupt_exit_code(err: KeyboardInterrupt) -> int:
    """130 for Ctrl-C, 128 + the signal's number for SIGTERM (143) or SIGHUP (129)."""
    return getattr(err, "exit_code", 130)


@cli.command()
@DIR_OPTION
@click.option("--seed", "code", metavar="CODE",
              help="Scenario code: any printable text of 1-64 characters. The same code and "
                   "secret give the same scenario, bit for bit on the same machine (another "
                   "CPU kind: the same deal, values within ~1e-6). Default: a fresh random code.")
@STEPS_OPTION
@JOBS_OPTION
@click.option("--force", is_flag=True, help="Replace a scenario already in --dir.")
@LEVEL_OPTION
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the dashboards' labels.")
def new(directory: Path, code: str | None, steps: int | None, jobs: int, force: bool,
        level: int | None, lang: str) -> None:
    """Make a fresh scenario: deal the breaks behind 01 02 03 and train every run.

    Trains the reference and the three broken runs, then writes the workspace: metrics and a
    dashboard per run, and the sealed answer key. Ctrl-C leaves nothing half-written.

    \b
    Example:
      diagnose new --dir experiments/19-break-it
      diagnose new --seed "week-3 lab" --steps 200 --force
      diagnose new --level 3        # into experiments/19-break-it-level-3
    """
    import time

    from diagnose.home import self_study_secret
    from diagnose.scenario import (
        ScenarioSpec,
        TrainingCallbacks,
        Workers,
        create_scenario,
        planned_runs,
    )

    directory = _level_dir(directory, level)
    spec = ScenarioSpec(code=code, steps=steps, lang=lang, level=level)
    code = spec.code
    started = time.perf_counter()
    try:
        secret = self_study_secret(create=True)
        workspace = _train_with_bars(
            lambda on_step: create_scenario(
                directory, spec, secret=secret, workers=Workers(jobs), force=force,
                callbacks=TrainingCallbacks(on_step=on_step,
                                  on_redeal=lambda msg: click.echo(msg, err=True))),
            planned_runs(level=spec.level), spec.steps, say(lang, "scenario {code}", code=code))
    except KeyboardInterrupt as err:
        import shlex

        again = (f"diagnose new --dir {shlex.quote(str(directory))} --seed {shlex.quote(code)}"
                 + (" --force" if force else "") + (f" --level {level}" if level else ""))
        click.echo("\n" + say(lang, "Interrupted: nothing was written to {folder}. To start "
                                     "again with the same scenario: {command}",
                               folder=directory, command=again), err=True)
        raise SystemExit(_interrupt_exit_code(err)) from None
    seconds = time.perf_counter() - started
    click.echo(say(lang, "Scenario {code} ready in {folder} ({runs} runs x {steps} steps, "
                         "{seconds:.1f} s).", code=workspace.code, folder=workspace.path,
                   runs=len(workspace.runs), steps=workspace.steps, seconds=seconds))
    click.echo(say(lang, "Next: {command}", command=f"diagnose play --dir {workspace.path}")
               + "   " + say(lang, "(or: {command})",
                             command=f"diagnose show 01 --dir {workspace.path}"))


@cli.command()
@DIR_OPTION
@click.option("--json", "as_json", is_flag=True, help='Print {"01": "<slug>", ...} only.')
@click.option("--what-if", "what_if", is_flag=True,
              help="Also retrain each run's break at the other magnitudes its catalog entry "
                   "declares, and add them to the run's dashboard.html.")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the solutions file.")
def reveal(directory: Path, as_json: bool, what_if: bool, lang: str) -> None:
    """Reveal which break each ID held, with the evidence from each run's own metrics.

    Writes solutions/03-three-failures-ref.md next to experiments/ and records in the
    workspace that the answers were revealed (later gradings say so). Self-study scenarios
    only: an instructor's bundle opens with the instructor's key.

    \b
    Example:
      diagnose reveal --dir experiments/19-break-it
      diagnose reveal --json
      diagnose reveal --what-if     # then open 01/dashboard.html
    """
    import json

    from diagnose.reveal import reveal_scenario

    workspace, assignment, path = reveal_scenario(directory, lang)
    if what_if:
        _what_if_dashboards(directory, lang)
    if as_json:
        click.echo(json.dumps(assignment))
        return
    from scenarios import breaks

    catalog = breaks(workspace.level)
    width = max(len(slug) for slug in assignment.values())
    for rid, slug in assignment.items():
        click.echo(f"{rid}: {slug:<{max(width, 12)}} {catalog[slug].title[lang]}")
    click.echo(say(lang, "Explained in {path}", path=path))


@cli.command()
@click.option("--out", type=PathArg(), required=True,
              help="Where to write the key (never overwritten).")
def keygen(out: Path) -> None:
    """Make an instructor key: it seals every bundle you deal, and opens them to grade.

    The file gets mode 0600. Keep it private: a student with it can open their answer key.

    \b
    Example:
      diagnose keygen --out ~/course/diagnose.key
    """
    from grading.seal import fingerprint, new_secret, write_key_file

    secret = new_secret()
    write_key_file(out, secret)
    click.echo(f"Wrote the instructor key {out} (fingerprint {fingerprint(secret)}). "
               "Keep it private; deal with: diagnose deal --key " + str(out))


def _scheduler_syntax(ctx: click.Context, param: click.Parameter,
                      value: str | None) -> str | None:
    """Refuse what cannot be a scheduler's address before anything is read or dialled."""
    if value is None:
        return None
    from diagnose.cluster import check_address

    problem = check_address(value)
    if problem:
        raise click.BadParameter(problem)
    return value


@cli.command()
@click.option("--key", "key_file", type=PathArg(), required=True,
              help="Your instructor key, from `diagnose keygen`.")
@click.option("--out", type=PathArg(), required=True,
              help="Folder for the bundles: OUT/<student>/experiments/19-break-it.")
@click.option("--roster", type=PathArg(),
              help="CSV of students: name, then optional email, level and lang columns "
                   "(lang: the student's feedback language, en or es; a name,email,level,lang "
                   "header is optional; one name per line works too). At most 10,000 rows.")
@click.option("--count", type=Bounded(1, COUNT_MAX),
              help=f"Or: this many numbered students, 1 to {COUNT_MAX:,}.")
@STEPS_OPTION
@JOBS_OPTION
@click.option("--level", type=LevelChoice(), default=None,
              help="The deck dealt to a student whose roster row names no level: one of "
                   "`diagnose breaks`' levels (default: the first).")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the dashboards' labels.")
@click.option("--scheduler", metavar="ADDRESS", callback=_scheduler_syntax,
              help="Train on a Dask cluster instead (tls://HOST:8786, or tcp:// on a private "
                   "network), one task per student; the bundles are written and sealed here. "
                   "Needs the diagnose-training[cluster] extra here and on every worker.")
@click.option("--connect-timeout", type=BoundedFloat(0.1, TIMEOUT_MAX), default=10.0,
              show_default=True, metavar="SECONDS",
              help="With --scheduler: the whole wait to reach the scheduler, handshake included "
                   f"(0.1 to {TIMEOUT_MAX:g} s).")
@click.option("--min-workers", type=Bounded(1, COUNT_MAX), default=1, show_default=True,
              metavar="N", help="With --scheduler: start once N workers of this diagnose have "
                                f"joined (Slurm jobs start late; 1 to {COUNT_MAX}).")
@click.option("--worker-timeout", type=BoundedFloat(0.1, TIMEOUT_MAX), default=60.0,
              show_default=True, metavar="SECONDS",
              help="With --scheduler: how long to wait for --min-workers, or mid-deal for a "
                   f"worker of this diagnose when none is left (0.1 to {TIMEOUT_MAX:g} s).")
@click.option("--tls-ca-file", type=PathArg(exists=True, dir_okay=False),
              help="With a tls:// scheduler: the CA certificate (PEM) the cluster's "
                   "certificates are signed with (else Dask's distributed.comm.tls settings).")
@click.option("--tls-cert", type=PathArg(exists=True, dir_okay=False),
              help="With a tls:// scheduler: this client's certificate (PEM).")
@click.option("--tls-key", type=PathArg(exists=True, dir_okay=False),
              help="With a tls:// scheduler: this client's private key (PEM), unless "
                   "--tls-cert holds it.")
def deal(key_file: Path, out: Path, roster: Path | None, count: int | None,
         steps: int | None, jobs: int, level: int | None, lang: str, scheduler: str | None,
         connect_timeout: float, min_workers: int, worker_timeout: float,
         tls_ca_file: Path | None, tls_cert: Path | None, tls_key: Path | None) -> None:
    """Deal a class: one different, sealed scenario per student, trained here.

    Writes OUT/<student>/experiments/19-break-it for each student, OUT/manifest.csv
    (student, code, email, level, lang: every student ever dealt there, in roster order) and
    OUT/deal-settings.json. A student whose bundle was deleted is dealt again under the
    manifest's code: the same scenario.
    Bundles are sealed with your key: students cannot open their answers. An interrupted deal
    resumes: run the same command again. A later deal into OUT must use the same --steps,
    --lang and key, and deal each student already there the same level; it adds students,
    never drops them. A roster's level column (1, 2, 3) picks each student's deck. With
    --scheduler the training runs on a Dask cluster's workers (same bundles, byte for byte, at
    every level); your key stays here, and only workers of this diagnose version get tasks
    (any other is named in a warning). A course's own breaks join the levels they name with
    diagnose --deck DIR deal ... (or DIAGNOSE_DECK=DIR); their code runs here only, and the
    bundles carry their scenario's data and sealed key, never that code.

    \b
    Example:
      diagnose deal --key course.key --out bundles --roster roster.txt
      diagnose deal --key course.key --out bundles --count 30 --jobs 2
      diagnose deal --key course.key --out bundles-l2 --count 30 --level 2
      diagnose deal --key course.key --out bundles --roster roster.txt \\
          --scheduler tls://10.0.0.5:8786 --tls-ca-file ca.pem --tls-cert me.pem \\
          --tls-key me.key --min-workers 32 --worker-timeout 600
    """
    import time

    from diagnose import classroom
    from diagnose.scenario import TrainingCallbacks
    from grading.seal import read_key_file

    if (roster is None) == (count is None):
        raise click.UsageError("give exactly one of --roster FILE or --count N")
    started = time.perf_counter()
    client = None
    try:
        secret = read_key_file(key_file)
        students = (classroom.read_roster(roster) if roster is not None
                    else classroom.numbered_students(count))
        plan = classroom.plan_deal(out, students, secret, steps=steps, lang=lang,
                                   level=level)  # every refusal before anything is trained
        if scheduler is not None:
            from diagnose.cluster import TLSFiles, connect, quiet_dask_logs

            quiet_dask_logs()  # our account of a failure is the one Error line, not Dask's
            if (tls_ca_file is None) != (tls_cert is None) or (tls_key and not tls_cert):
                raise click.UsageError("--tls-ca-file and --tls-cert go together (with "
                                       "--tls-key unless the cert holds the key)")
            tls = None if tls_ca_file is None else TLSFiles(tls_ca_file, tls_cert, tls_key)
            client = connect(scheduler, connect_timeout, min_workers=min_workers,
                             worker_timeout=worker_timeout, tls=tls,
                             on_warning=lambda message: click.echo(f"Warning: {message}",
                                                                   err=True))

        def on_student(student: str, code: str, resumed: bool) -> None:
            note = "kept (already dealt)" if resumed else "sealed"
            click.echo(f"{student}: {code} {note}", err=True)

        rows = _train_with_bars(
            lambda on_step: classroom.carry_out(
                plan, secret, jobs=jobs, on_student=on_student, client=client,
                callbacks=TrainingCallbacks(
                    on_step, on_redeal=lambda msg: click.echo(msg, err=True))),
            [], plan.steps, f"dealing {len(students)} scenarios")
    except KeyboardInterrupt as err:
        click.echo(f"\nInterrupted: the bundles sealed so far are kept in {out}; run the same "
                   "command again to deal the rest.", err=True)
        raise SystemExit(_interrupt_exit_code(err)) from None
    finally:
        if client is not None:
            client.close()
    seconds = time.perf_counter() - started
    click.echo(f"Dealt {len(rows)} bundles into {out} in {seconds:.1f} s; "
               f"manifest: {out / classroom.MANIFEST}")


def _steps_syntax(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuse a malformed --steps before any file is read (its range is checked later)."""
    from diagnose.show import StepsError, parse_steps

    try:
        parse_steps(value)
    except StepsError as err:
        raise click.BadParameter(str(err)) from None
    return value


@cli.command()
@click.argument("run_id", metavar="ID")
@DIR_OPTION
@click.option("--steps", metavar="A:B", callback=_steps_syntax,
              help="Only steps A to B-1, like a slice: 0:50 is the first fifty; 300: and :20 "
                   "leave an end open.")
@click.option("--what-if", "what_if", is_flag=True,
              help="After the reveal: retrain ID's break at the other magnitudes its catalog "
                   "entry declares and print one row per magnitude (cached in the workspace).")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the panel titles.")
def show(run_id: str, directory: Path, steps: str | None, what_if: bool, lang: str) -> None:
    """Print the six panels of one run: a sparkline per series with first/last/min/max.

    ID is 01, 02, 03 or reference (also ref), or the path of a run of your own (its
    metrics.jsonl, or its folder with a /). NaN/inf is marked with the step it started.
    Piped into a file or another program, the output is plain text without colours.

    \b
    Example:
      diagnose show 01
      diagnose show reference --steps 0:50 --lang es | less
      diagnose show 02 --what-if          # after the reveal
      diagnose show runs/lr-test/         # a run you recorded (diagnose.record)
    """
    from diagnose.show import StepsError, show_run

    if what_if:
        if steps is not None:
            raise click.UsageError("--what-if shows every step; it takes no --steps.")
        _show_what_if(directory, run_id, lang)
        return
    try:
        show_run(directory, run_id, steps=steps, lang=lang)
    except StepsError as err:
        raise click.BadParameter(str(err), param_hint="'--steps'") from None


def _what_if_dashboards(directory: Path, lang: str) -> None:
    """After the reveal: each run with a magnitude gets its what-if in its dashboard.html."""
    from diagnose.whatif import write_whatif_dashboards
    from diagnose.workspace import open_workspace

    workspace = open_workspace(directory)
    for run, page in write_whatif_dashboards(
            workspace, lang, lambda plan: _what_if_results(workspace, plan, lang)):
        click.echo(say(lang, "What-if for {run}: {page}", run=run, page=page), err=True)


def _what_if_results(workspace, plan, lang):
    """Every dose's records, training the missing ones under progress bars."""
    from diagnose.whatif import ready, run_whatif, to_train

    trained = [d.label(plan.field) for d in to_train(plan, ready(workspace, plan))]
    if not trained:
        return run_whatif(workspace, plan)
    try:
        return _train_with_bars(lambda on_step: run_whatif(workspace, plan, on_step=on_step),
                                trained, workspace.steps,
                                say(lang, "what-if {run}", run=plan.run))
    except KeyboardInterrupt as err:
        click.echo("\n" + say(lang, "Interrupted: the doses trained so far are not kept."),
                   err=True)
        raise SystemExit(_interrupt_exit_code(err)) from None


def _show_what_if(directory: Path, run_id: str, lang: str) -> None:
    from rich.console import Console

    from diagnose.show import resolve_run
    from diagnose.whatif import plan_whatif, render_whatif
    from diagnose.workspace import open_workspace

    workspace = open_workspace(directory)
    plan = plan_whatif(workspace, resolve_run(run_id, workspace.runs), lang=lang)
    results = _what_if_results(workspace, plan, lang)
    console = Console()
    for line in render_whatif(plan, results, lang, console.width):
        console.print(line, highlight=False, no_wrap=True, overflow="ellipsis")


GRADE_STYLES = {"title": {"bold": True}, "right": {"fg": "green", "bold": True},
                "wrong": {"fg": "red", "bold": True}, "score": {"bold": True},
                "note": {"fg": "yellow"}}


def _grade_style(text: str, role: str) -> str:
    return click.style(text, **GRADE_STYLES.get(role, {}))


def _echo(text: str, err: bool = False) -> None:
    """click.echo of a grading's text: names that are not UTF-8 are shown escaped."""
    click.echo(printable(text), err=err)


def _echo_json(data: object) -> None:
    """A grading's result as JSON, each string escaped as `_echo` does before it is quoted."""
    import json

    def escaped(value: object) -> object:
        if isinstance(value, str):
            return printable(value)
        if isinstance(value, dict):
            return {escaped(k): escaped(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [escaped(v) for v in value]
        return value

    click.echo(json.dumps(escaped(data), ensure_ascii=False, indent=2))


def _review_first(file: Path, scenario, lang: str, yes: bool, as_json: bool) -> None:
    """Before a self-study grading records its attempt and shows the answers: the review
    (`diagnose.review`, as the app's `g` shows it), then a yes asked at a terminal; elsewhere
    refused. `--yes` grades at once, without either (a script's choice). With --json the
    review goes to stderr."""
    import sys

    import grading
    from diagnose.review import render_review, rows_from_reading

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


def _grade_one(file: Path, directory: Path | None, key_file: Path | None, check: bool,
               lang: str, as_json: bool) -> None:
    import grading

    reading = grading.read_diagnoses(file)  # a missing or unreadable FILE is said first
    found = directory or grading.find_scenario(file, code=next(iter(reading.codes), None))
    if check:
        from grading.grade import check_against

        result = check_against(file, found, lang=lang, reading=reading)
        if as_json:
            _echo_json(result.to_json())
        else:
            _echo(result.render(_grade_style))
        return
    if found is None:
        raise UserError(f"no scenario found next to {file} or in "
                                   f"{grading.DEFAULT_DIR}; pass --dir")
    if key_file is not None:
        _grade_with_key(file, reading, grading.read_scenario(found),
                        grading.read_key_file(key_file), lang, as_json)
        return
    from diagnose.self_study import grade_self_study

    scenario = grading.read_scenario(found)
    if scenario.key == "self-study":  # --yes: `grade`'s own flag
        _review_first(file, scenario, lang, click.get_current_context().params["yes"], as_json)
    graded = grade_self_study(file, found, lang, reading)
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


def _grade_with_key(file: Path, reading, scenario, secret: bytes, lang: str,
                    as_json: bool) -> None:
    """Print `instructor_grading.grade_with_key`'s result."""
    from diagnose.instructor_grading import grade_with_key

    graded = grade_with_key(file, reading, scenario, secret, lang)
    if as_json:
        _echo_json({**graded.report.to_json(), "solutions": None,
                    "ledger": graded.ledger and str(graded.ledger),
                    "records": list(graded.problems)})
    else:
        _echo(graded.report.render(_grade_style))
    for problem in graded.problems:
        _echo(f"Warning: {problem}", err=True)


def _grade_class(files: tuple[Path, ...], bundles: Path, key_file: Path, lang: str,
                 as_json: bool, destinations: tuple[Path | None, Path | None]) -> None:
    """Print `instructor_grading.grade_class`'s result; `destinations`: the gradebook CSV and
    the Gradescope folder, each None when not asked for."""
    import grading
    from diagnose.instructor_grading import grade_class

    gradebook, gradescope = destinations
    result = grade_class(files, bundles, grading.read_key_file(key_file), lang=lang,
                         gradebook=gradebook, gradescope=gradescope)
    graded = result.graded
    if as_json:
        _echo_json({
            "graded": [{"file": g.file, "student": g.student,
                        **(g.report.to_json() if g.report else {"error": g.error}),
                        **({"records": list(g.problems)} if g.problems else {})}
                       for g in graded],
            "gradebook": gradebook and str(gradebook),
            "gradescope": [str(p) for p in result.gradescope_files]})
    else:
        width = max(len(g.student or "") for g in graded)
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
        if gradebook:
            _echo(f"Gradebook: {gradebook} ({result.students} students)")
        if gradescope:
            _echo(f"Gradescope: {len(result.gradescope_files)} results.json in {gradescope}")
    if result.failed:
        raise UserError(f"{result.failed} of {len(graded)} files could not be graded")


@cli.command()
@click.argument("files", metavar="FILE...", nargs=-1, type=PathArg())
@click.option("--dir", "directory", type=PathArg(), default=None,
              help="The scenario to grade against. Default: the one next to FILE (its folder "
                   "or its experiments/19-break-it), else experiments/19-break-it.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the feedback.")
@click.option("--check", is_flag=True,
              help="Only say how FILE reads, without the key: no score, nothing recorded.")
@click.option("--key", "key_file", type=PathArg(),
              help="Instructor: your key file (from `diagnose keygen`).")
@click.option("--bundles", type=PathArg(),
              help="Instructor: the folder `diagnose deal` wrote; each FILE is graded into its "
                   "student's bundle, matched by its scenario comment or its name.")
@click.option("--gradebook", type=PathArg(),
              help="With --bundles: write the class's grades to this CSV file.")
@click.option("--gradescope", type=PathArg(), metavar="DIR",
              help="With --bundles: write DIR/<student>/results.json for Gradescope.")
@click.option("--yes", is_flag=True,
              help="Self-study: grade at once, without the review and its question (needed "
                   "when not at a terminal).")
def grade(files: tuple[Path, ...], directory: Path | None, as_json: bool, lang: str,
          check: bool, key_file: Path | None, bundles: Path | None, gradebook: Path | None,
          gradescope: Path | None, yes: bool) -> None:
    """Grade a diagnoses file against its scenario's sealed answer key.

    Prints, per ID, the words read, what they were taken to mean, the truth, and for a miss
    the panels (and this run's numbers) that would have shown it; then the score. The first
    grading of a scenario is the one that counts. In self-study, grading also reveals the
    solutions, so it first prints the review (each ID's answer and its evidence's first line,
    ✗ where it scores 0) and asks; not at a terminal it needs --yes (no review, no question).
    With --key, the instructor's ledger in the deal folder (.attempts-ledger.json) records the
    attempt first and is the truth; a bundle whose code is not the one
    manifest.csv deals its student is not graded. Exit 0 when graded, whatever the score; 1
    for a problem to fix; 2 for bad usage.

    \b
    Examples:
      diagnose grade borja-diagnoses.md
      diagnose grade borja-diagnoses.md --yes        # in a script: no question
      diagnose grade borja-diagnoses.md --check      # how it reads, no key needed
      diagnose grade borja-diagnoses.md --lang es --json
      diagnose grade borja.md --dir bundles/borja/experiments/19-break-it --key course.key
      diagnose grade --key course.key --bundles bundles submissions/*.md \\
          --gradebook grades.csv --gradescope gradescope/
    """
    if not files:
        raise click.UsageError("Missing argument 'FILE...'.")
    if bundles is not None and key_file is None:
        raise click.UsageError("--bundles needs --key (the instructor's key file).")
    if bundles is not None and (directory is not None or check):
        raise click.UsageError("--bundles finds each file's bundle: it takes no --dir or "
                               "--check.")
    if (gradebook or gradescope) and bundles is None:
        raise click.UsageError("--gradebook and --gradescope go with --bundles.")
    if len(files) > 1 and bundles is None:
        raise click.UsageError("several files are graded with --key KEY --bundles DIR.")
    if bundles is not None:
        _grade_class(files, bundles, key_file, lang, as_json, (gradebook, gradescope))
    else:
        _grade_one(files[0], directory, key_file, check, lang, as_json)


@cli.command("gradescope-autograder")
@click.option("--key", "key_file", type=PathArg(), required=True,
              help="Your key file (from `diagnose keygen`); it stays here, out of the zip.")
@click.option("--bundles", type=PathArg(), required=True,
              help="The folder `diagnose deal` wrote (its manifest.csv lists the class).")
@click.option("--out", type=PathArg(), default=Path("autograder.zip"),
              show_default=True, help="The zip to write (replaced whole if it exists).")
@click.option("--visibility", type=click.Choice(GRADESCOPE_VISIBILITIES),
              default="after_published", show_default=True,
              help="When students see their per-ID results (Gradescope's setting); a hidden "
                   "result hides its summary too.")
@click.option("--lang", type=LANG, default=None,
              help="Feedback language for students whose manifest row names none (default: "
                   "the deal's --lang, from deal-settings.json).")
def gradescope_autograder(key_file: Path, bundles: Path, out: Path, visibility: str,
                          lang: str | None) -> None:
    """Write the zip for Gradescope's "Upload autograder": grading without you, offline.

    Students upload their diagnoses file; Gradescope matches them to their bundle by email or
    name, grades it against their sealed key and counts the first graded upload. The zip
    holds setup.sh, run_autograder, the grader (this installation's own grading and scenarios
    packages), the manifest, each bundle's scenario.json and sealed key, one key per scenario
    (derived from yours, which is never packed) and each run's feedback numbers. Keep the zip
    as private as the bundles' answers. A bundle that holds another scenario than the
    manifest deals its student is named and left out.

    \b
    Example:
      diagnose gradescope-autograder --key course.key --bundles bundles --out autograder.zip
      diagnose gradescope-autograder --key course.key --bundles bundles --lang es \\
          --visibility after_due_date
    """
    from diagnose.gradescope import build_autograder
    from grading.seal import read_key_file

    secret = read_key_file(key_file)
    packed = build_autograder(out, bundles, secret, visibility=visibility, lang=lang)
    for line in packed.left_out:
        click.echo(f"Left out: {line}; restore or re-deal that bundle, then build again.",
                   err=True)
    click.echo(f"Wrote {out} for {packed.students} students. Upload it in Gradescope: the "
               "assignment's Configure Autograder, Zip file upload; set its points to the "
               "number of IDs.")


@cli.command()
@click.option("--out", type=PathArg(), default=Path("."), show_default=True,
              help="The folder to write the wheel into (made if missing).")
def wheel(out: Path) -> None:
    """Write this installed diagnose as a wheel, to install the same version elsewhere.

    Nothing is published on the package index: Dask workers install the wheel this writes,
    diagnose_training-<version>-py3-none-any.whl, from this installation's own files (an
    ordinary or an editable install; no build tools needed).

    \b
    Example:
      diagnose wheel --out dist
      pip install "dist/diagnose_training-0.1.0-py3-none-any.whl[cluster]"   # on a worker
    """
    from diagnose.wheel import write_wheel

    path = write_wheel(out)
    click.echo(f"Wrote {path}. Install it elsewhere with: pip install \"{path}[cluster]\" "
               "(or without [cluster] to play).")


@cli.command()
@DIR_OPTION
@click.option("--seed", "code", metavar="CODE",
              help="Code of the scenario to make when --dir holds none (default: a fresh "
                   "random code).")
@click.option("--name", help="Your name, for <name>-diagnoses.md: kept in your data folder "
                             "(DIAGNOSE_HOME) for every level; without it, the one kept, else "
                             "asked once, on the first save (u in the app changes it).")
@STEPS_OPTION
@LEVEL_OPTION
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the screen and of the diagnoses file.")
def play(directory: Path, code: str | None, name: str | None, steps: int | None,
         level: int | None, lang: str) -> None:
    """Play: read each run's six panels, diagnose 01 02 03, save and grade, in the terminal.

    With a scenario in --dir (your own, or an instructor's bundle) it opens at once; with none
    it makes a fresh one there and the runs train live on screen. Your diagnoses are kept as a
    draft at every keystroke. Ctrl+S saves <name>-diagnoses.md in the folder that holds
    experiments/ (else in the current directory), g grades it, ? explains every panel.

    Levels: it opens the first level not passed yet and says which; a level is passed with
    every ID right on a scenario's first grading, and the grade then offers the next (n).
    --level N goes to any level at once; each lives in its own folder
    (experiments/19-break-it-level-N). When that folder holds a scenario graded and failed,
    it offers a fresh one and keeps the old in previous/<code> beside it. A --dir scenario
    (an instructor's bundle) keeps its own level. `diagnose progress` shows them.
    --steps trains a fresh scenario shorter (a quick try; a scenario in --dir keeps its own).

    \b
    Example:
      diagnose play
      diagnose play --level 2 --steps 60
      diagnose play --dir bundle-ana --name "Ana García" --lang es
    """
    directory, level = _level_to_play(directory, level, lang)
    while directory is not None:
        directory, level = _play_once(directory, code, name, steps, level, lang)
        code = name = None  # the next level deals a fresh scenario; the name is kept


def _level_to_play(directory: Path, level: int | None,
                   lang: str) -> tuple[Path, int | None]:
    """`play`'s folder and level: --dir as given (a bundle keeps its own level); else the
    level asked for, or the first not yet passed, said on stderr. A scenario of that level
    graded and failed is offered to be kept under previous/<code> for a fresh one (asked at a
    terminal only; elsewhere it opens as it is)."""
    import sys

    from click.core import ParameterSource

    from diagnose.levels import failed_scenario, keep_as_previous, level_to_play, load_progress

    if click.get_current_context().get_parameter_source("directory") != ParameterSource.DEFAULT:
        return directory, level
    progress, _ = load_progress()  # its warnings are `diagnose progress`'s to show
    if level is None:
        level = level_to_play(progress)
        said = (say(lang, "Level {level} (the first not passed yet; --level N plays another).",
                    level=level) if not progress[level].passed else
                say(lang, "Level {level} (every level is passed; --level N plays another).",
                    level=level))
        click.echo(said, err=True)
    folder = _level_dir(directory, level)
    failed = failed_scenario(folder, level, progress)
    if failed is not None:
        code, score = failed
        question = say(lang, "{folder} holds scenario {code}, graded {score}. Deal a fresh one "
                             "(the old one is kept in previous/{code})?", folder=folder,
                       code=code, score=score)
        if sys.stdin.isatty() and click.confirm(question, default=True, err=True):
            kept = keep_as_previous(folder, code)
            click.echo(say(lang, "Kept in {path}.", path=kept), err=True)
    return folder, level


def _play_once(directory: Path, code: str | None, name: str | None, steps: int | None,
               level: int | None, lang: str) -> tuple[Path | None, int | None]:
    """One game; the folder and level to play next when the player asked for the next level."""
    from diagnose.scenario import check_playable

    check_playable(directory, code, level)
    from diagnose.tui.app import PlayApp
    from diagnose.tui.training import FreshScenario

    app = PlayApp(directory, name=name, lang=lang,
                  fresh=FreshScenario(code=code, steps=steps, level=level))
    app.run()
    if app.error:
        raise UserError(app.error)
    if app.return_code:  # Textual printed the traceback above; the exit code must say so too
        raise click.ClickException("diagnose play stopped on an unexpected error (the "
                                   "traceback is above); your drafts are kept.")
    if app.note:
        click.echo(app.note, err=True)
    if app.next_level is None:
        return None, None
    from grading.layout import next_level_dir

    return next_level_dir(directory, app.next_level), app.next_level


@cli.command()
@click.option("--reset", is_flag=True, help="Erase the progress of every level (asks first).")
@click.option("--yes", is_flag=True, help="With --reset: do not ask.")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the summary.")
def progress(reset: bool, yes: bool, lang: str) -> None:
    """Show each level: scenarios played, first-attempt scores, best score, what is next.

    Every self-study grading (`diagnose grade`, g in `diagnose play`) is recorded in
    progress.json in your data folder (DIAGNOSE_HOME). A level is passed with 3/3 on a
    scenario's first grading.

    \b
    Example:
      diagnose progress
      diagnose progress --lang es
      diagnose progress --reset --yes
    """
    from diagnose.levels import erase_progress, load_progress, progress_path, render

    if yes and not reset:
        raise click.UsageError("--yes goes with --reset.")
    path = progress_path()
    if reset:
        if not path.exists():
            click.echo(say(lang, "No progress to erase."))
            return
        if not yes:
            click.confirm(say(lang, "Erase the progress of every level ({path})?", path=path),
                          abort=True)
        erase_progress(path)
        click.echo(say(lang, "Progress erased."))
        return
    levels, warnings = load_progress(path)
    for warning in warnings:
        click.echo(f"Warning: {warning}", err=True)
    click.echo(render(levels, lang), nl=False)


@cli.command()
@click.argument("run", metavar="RUN", type=PathArg())
@click.option("--reference", type=PathArg(), default=None, metavar="REF",
              help="A healthy run of the same model and data, drawn under yours.")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the panels.")
def watch(run: Path, reference: Path | None, lang: str) -> None:
    """Open the game's six panels on your own run while it trains.

    RUN is a metrics.jsonl written by diagnose.record.Recorder (or its folder); the panels
    grow as your loop appends steps. No IDs, no grading. The keys are the game's: 0 the
    reference, 1 your run, l log/linear, r the reference under the run, z the first steps,
    left/right a step cursor, tab and enter a panel's detail view, q quit.

    \b
    Example:
      diagnose watch runs/lr-test --reference runs/baseline
    """
    from diagnose.check import metrics_path, same_model
    from diagnose.metrics import read_metrics
    from diagnose.tui.watch_app import WatchApp

    run_file = metrics_path(run)
    ref = None
    if reference is not None:
        ref = read_metrics(metrics_path(reference))
    app = WatchApp(run_file, ref, lang=lang)
    if ref is not None:
        same_model(app.store.header, ref[0], (str(run_file), str(metrics_path(reference))),
                   lang)
    app.run()
    if app.problem:
        raise UserError(app.problem)


@cli.command()
@click.argument("run", metavar="RUN", type=PathArg())
@click.option("--reference", type=PathArg(), default=None, metavar="REF",
              help="A healthy run of the same model and data (its metrics.jsonl or folder).")
@click.option("--json", "as_json", is_flag=True, help="Print the reading as JSON, for scripts.")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the reading.")
def check(run: Path, reference: Path | None, as_json: bool, lang: str) -> None:
    """Read your own run as the diagnostician would, against a healthy reference.

    RUN is a metrics.jsonl (recorded with diagnose.record.Recorder) or its folder; it may
    still be training. Prints which break of the catalog the panels resemble, how sure the
    reading is, and each sign with the run's number beside the reference's. A reading, not
    a verdict; two breaks the panels cannot tell apart are printed as a tie.

    \b
    Example:
      diagnose check runs/lr-test --reference runs/baseline
      diagnose check runs/lr-test/metrics.jsonl --reference runs/baseline --json
    """
    import json

    from diagnose.check import check_run

    reading = check_run(run, reference, lang)
    if as_json:
        click.echo(printable(json.dumps(reading.as_json(), ensure_ascii=False, indent=2)))
        return
    click.echo("\n".join(printable(line) for line in reading.lines(lang)))


def main() -> None:
    cli(prog_name="diagnose")


if __name__ == "__main__":  # python -m diagnose.cli, as the console script does
    main()
