"""The command line's door and what its commands share: one click group (`cli`), whose
`DiagnoseGroup.invoke` is the one place that turns a `scenarios.errors.UserError` into `Error: ...`
(exit 1, or 2 for a `UsageProblem`), and the printing helpers every command uses. numpy and
textual are imported inside the commands that need them, so `diagnose --help` stays instant.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

import click

from diagnose import __version__
from diagnose.cli.params import JOBS_MAX, Bounded, LevelChoice, LevelOption, PathArg
from grading.layout import DEFAULT_DIR, printable
from scenarios.catalog import DECK_SETTING
from scenarios.config import MAX_STEPS
from scenarios.errors import UsageProblem, UserError
from scenarios.langs import LANGS
from scenarios.level_entries import LEVELS_FILE
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
              "(<slug>/break.toml in English, its translations in <slug>/locale/, and "
              "signature.py) whose breaks join their levels, for every "
              f"command. The {DECK_SETTING} setting does the same.")
def cli(deck: Path | None) -> None:
    """diagnose: learn how training failures look.

    A tiny GPT is trained once healthy and again behind opaque IDs (01 02 03): each holds one
    designed bug from its level's deck (at a level with the healthy decoy, maybe none). Read
    the six dashboard panels, diagnose each run, and get graded. `diagnose breaks` lists the
    levels and their breaks.

    An instructor adds breaks of their own with --deck DIR (or DIAGNOSE_DECK=DIR): each is
    validated as the built-in ones are, and its code runs only on the machine that has it.

    \b
    Example:
      diagnose play          # a fresh scenario, trained live in the terminal
      diagnose --deck course-breaks breaks   # the deck with a course's own breaks
    """
    if deck is not None:  # the one setting every reader of the catalog (and each worker) sees
        os.environ[DECK_SETTING] = str(deck)
        from diagnose.diagnosis.signatures import check_course_deck

        for line in check_course_deck():  # refused here, before any command writes or trains
            _echo(f"Warning: {line}", err=True)
        from scenarios.catalog import default_catalog, inline_translations, undealt

        for brk in undealt(default_catalog()):
            _echo(f"Warning: {brk.slug} ({brk.source}) is dealt by no level; add it to one in "
                  f"{deck / LEVELS_FILE} ([[level]] number = N, add = [\"{brk.slug}\"])",
                  err=True)
        for brk in inline_translations(default_catalog()):
            _echo(f"Warning: {brk.source}: translations inline ([{'], ['.join(brk.inline)}] "
                  "in every language) are read for one more release; move them to the break's "
                  f"catalog: python tools/break_words.py {brk.source.rsplit('/', 1)[0]} "
                  "(docs/course-authors.md)", err=True)


DIR_OPTION = click.option(
    "--dir", "directory", type=PathArg(),
    default=DEFAULT_DIR, show_default=True, help="The scenario's folder (its workspace).")


LEVEL_OPTION = click.option(
    "--level", type=LevelChoice(), default=None, cls=LevelOption,
    help="Deal from this level's deck, one of {levels_and_folders}. Without --dir each level "
         "plays in the folder named here; `diagnose breaks` lists their breaks. Default: the "
         "first level, or the level of the scenario in --dir.")


# The instructor's class, for the commands that read a deal folder with its key.
KEY_OPTION = click.option("--key", "key_file", type=PathArg(), required=True,
                          help="Your instructor key, from `diagnose keygen`.")
BUNDLES_OPTION = click.option("--bundles", type=PathArg(), required=True,
                              help="The folder `diagnose deal` wrote.")


GRADE_STYLES = {"title": {"bold": True}, "right": {"fg": "green", "bold": True},
                "wrong": {"fg": "red", "bold": True}, "score": {"bold": True},
                "note": {"fg": "yellow"}}


# A style is marked while a grading's text is assembled and applied after it is escaped, so a
# student's ESC or bidi control is shown, never obeyed; the marks carry a per-process nonce, so
# no file's text can forge one.
_MARK = f"\ue000{secrets.token_hex(8)}"
_STYLED = re.compile(re.escape(_MARK) + r"(\w+)\ue001(.*?)" + re.escape(_MARK) + "\ue002",
                     re.DOTALL)


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
    from diagnose.views.run_bars import RunBars

    with termination_as_interrupt(), RunBars(labels, steps, title) as bars:
        return make(bars.step)


def _interrupt_exit_code(err: KeyboardInterrupt) -> int:
    """130 for Ctrl-C, 128 + the signal's number for SIGTERM (143) or SIGHUP (129)."""
    return getattr(err, "exit_code", 130)


def _grade_style(text: str, role: str) -> str:
    return f"{_MARK}{role}\ue001{text}{_MARK}\ue002"


def _echo(text: str, err: bool = False) -> None:
    """click.echo of a grading's text: every control and bidi character escaped
    (`scenarios.escape`), then the styles `_grade_style` marked applied."""
    click.echo(_STYLED.sub(lambda m: click.style(m[2], **GRADE_STYLES.get(m[1], {})),
                           printable(text)), err=err)


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


def _what_if_page(run: str, page: Path, lang: str) -> None:
    """A run's what-if written into its dashboard.html, said on stderr."""
    click.echo(say(lang, "What-if for {run}: {page}", run=run, page=page), err=True)


def _what_if_bars(lang: str):
    """`whatif.whatif_results`'s progress: the doses under bars; Ctrl-C keeps none of them."""

    def progress(make, labels, steps, title):
        try:
            return _train_with_bars(make, labels, steps, title)
        except KeyboardInterrupt as err:
            click.echo("\n" + say(lang, "Interrupted: the doses trained so far are not kept."),
                       err=True)
            raise SystemExit(_interrupt_exit_code(err)) from None

    return progress
