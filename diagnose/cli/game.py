"""The student's commands: `play`, `new`, `show`, `progress` and `breaks` (the game, in
self-study or in a class bundle). Each parses its options and calls the domain."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from diagnose.cli.common import (
    DIR_OPTION,
    JOBS_OPTION,
    LANG,
    LEVEL_OPTION,
    STEPS_OPTION,
    _interrupt_exit_code,
    _level_dir,
    _train_with_bars,
    _what_if_bars,
    cli,
)
from scenarios.errors import UserError
from scenarios.langs import LANGS
from scenarios.words import answers_yes, say, yes_key

if TYPE_CHECKING:
    from scenarios.catalog import Break


@cli.command()
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the titles and summaries.")
def breaks(lang: str) -> None:
    """List the deck by level: slug, titles and a one-line summary of each break.

    The levels are scenarios/levels.toml's, each with its name and the breaks it deals
    (DIAGNOSE_LEVELS names another file). A course deck's levels.toml extends them: it adds
    levels, adds breaks to a level (add = [...]) or restates one. A course's own breaks
    (diagnose --deck DIR, or DIAGNOSE_DECK) join the levels it deals them in, each marked with
    its folder; a break no level deals is listed last, with a warning.

    \b
    Example:
      diagnose breaks --lang es
      diagnose --deck course-breaks breaks
    """
    from scenarios import all_levels, default_catalog
    from scenarios import breaks as deck
    from scenarios.catalog import undealt

    def listed(heading: str, breaks: Iterable[Break]) -> None:
        click.echo(click.style(heading, bold=True, underline=True))
        for brk in breaks:
            click.echo(click.style(brk.slug, bold=True))
            for code in LANGS:
                click.echo(f"  {code}: {brk.title[code]}")
            click.echo(f"  {brk.summary[lang]}")
            if brk.course:
                click.echo("  " + say(lang, "from the course deck: {folder}", folder=brk.folder))

    for level in all_levels():
        listed(say(lang, "Level {number}: {name}", number=level.number, name=level.name[lang]),
               deck(level.number).values())
    left = undealt(default_catalog())
    if left:
        listed(say(lang, "Dealt by no level (a levels file's deck lists none of these)"), left)


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
    from diagnose.game.scenario import ScenarioSpec
    from diagnose.game.self_study import NewOptions, new_scenario

    directory = _level_dir(directory, level)
    spec = ScenarioSpec(code=code, steps=steps, lang=lang, level=level)
    try:
        made = new_scenario(NewOptions(directory, spec, jobs, force), _train_with_bars,
                            on_redeal=lambda message: click.echo(message, err=True))
    except KeyboardInterrupt as err:
        _new_interrupted(directory, str(spec.code), force, level, lang)
        raise SystemExit(_interrupt_exit_code(err)) from None
    workspace = made.workspace
    click.echo(say(lang, "Scenario {code} ready in {folder} ({runs} runs x {steps} steps, "
                         "{seconds:.1f} s).", code=workspace.code, folder=workspace.path,
                   runs=len(workspace.runs), steps=workspace.steps, seconds=made.seconds))
    click.echo(say(lang, "Next: {command}", command=f"diagnose play --dir {workspace.path}")
               + "   " + say(lang, "(or: {command})",
                             command=f"diagnose show 01 --dir {workspace.path}"))


def _new_interrupted(directory: Path, code: str, force: bool, level: int | None,
                     lang: str) -> None:
    """Say that nothing was written, and the command that makes the same scenario again."""
    import shlex

    again = (f"diagnose new --dir {shlex.quote(str(directory))} --seed {shlex.quote(code)}"
             + (" --force" if force else "") + (f" --level {level}" if level else ""))
    click.echo("\n" + say(lang, "Interrupted: nothing was written to {folder}. To start "
                                 "again with the same scenario: {command}",
                           folder=directory, command=again), err=True)


def _steps_syntax(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuse a malformed --steps before any file is read (its range is checked later)."""
    from diagnose.runs.show import StepsError, parse_steps

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
      diagnose show runs/lr-test/         # a run you recorded (diagnose.runs.record)
    """
    from diagnose.runs.show import StepsError, show_run

    if what_if:
        if steps is not None:
            raise click.UsageError("--what-if shows every step; it takes no --steps.")
        _show_what_if(directory, run_id, lang)
        return
    try:
        show_run(directory, run_id, steps=steps, lang=lang)
    except StepsError as err:
        raise click.BadParameter(str(err), param_hint="'--steps'") from None


def _show_what_if(directory: Path, run_id: str, lang: str) -> None:
    from rich.console import Console

    from diagnose.game.whatif import plan_whatif, render_whatif, whatif_results
    from diagnose.runs.show import resolve_run
    from diagnose.workspace import open_workspace

    workspace = open_workspace(directory)
    plan = plan_whatif(workspace, resolve_run(run_id, workspace.runs), lang=lang)
    results = whatif_results(workspace, plan, lang, _what_if_bars(lang))
    console = Console()
    for line in render_whatif(plan, results, lang, console.width):
        console.print(line, highlight=False, no_wrap=True, overflow="ellipsis")


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

    from diagnose.game.progress import choose_level_to_play

    if click.get_current_context().get_parameter_source("directory") != ParameterSource.DEFAULT:
        return directory, level
    return choose_level_to_play(
        directory, level, lang, tell=lambda line: click.echo(line, err=True),
        fresh_wanted=lambda question: sys.stdin.isatty() and click.confirm(
            question, default=True, err=True))


def _play_once(directory: Path, code: str | None, name: str | None, steps: int | None,
               level: int | None, lang: str) -> tuple[Path | None, int | None]:
    """One game; the folder and level to play next when the player asked for the next level."""
    from diagnose.game.scenario import check_playable

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
    from diagnose.game.progress import erase_progress, load_progress, progress_path, render

    if yes and not reset:
        raise click.UsageError("--yes goes with --reset.")
    path = progress_path()
    if reset:
        if not path.exists():
            click.echo(say(lang, "No progress to erase."))
            return
        question = say(lang, "Erase the progress of every level ({path})?", path=path)
        if not yes and not answers_yes(lang, click.prompt(  # "s" in Spanish, as it says
                f"{question} [{yes_key(lang)}/N]", default="", show_default=False)):
            raise click.Abort
        erase_progress(path)
        click.echo(say(lang, "Progress erased."))
        return
    levels, warnings = load_progress(path)
    for warning in warnings:
        click.echo(f"Warning: {warning}", err=True)
    click.echo(render(levels, lang), nl=False)
