"""The command line: one click group, each command a short function with an example.

Domain code raises its own exceptions; only this module turns them into `click.ClickException`
(exit 1, a fixable problem) or `click.UsageError` (exit 2, bad usage). numpy and textual are
imported inside the commands that need them, so `diagnose --help` stays instant.
"""

from __future__ import annotations

from pathlib import Path

import click

from diagnose import __version__
from diagnose.workspace import DEFAULT_DIR

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
LANG = click.Choice(["en", "es"])


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="diagnose")
def cli() -> None:
    """diagnose: learn how training failures look.

    A tiny GPT is trained four times, once healthy and three times with one designed bug
    each (bad initialisation, missing warmup, broken causal mask), behind the opaque IDs
    01 02 03. Read the six dashboard panels, diagnose each run, and get graded.

    \b
    Example:
      diagnose play          # a fresh scenario, trained live in the terminal
    """


@cli.command()
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the titles and summaries.")
def breaks(lang: str) -> None:
    """List the catalog's breaks: slug, titles and a one-line summary.

    \b
    Example:
      diagnose breaks --lang es
    """
    from scenarios import CatalogError, default_catalog

    try:
        catalog = default_catalog()
    except CatalogError as err:
        raise click.ClickException(str(err)) from None
    for brk in catalog.breaks.values():
        click.echo(click.style(brk.slug, bold=True))
        click.echo(f"  en: {brk.title['en']}")
        click.echo(f"  es: {brk.title['es']}")
        click.echo(f"  {brk.summary[lang]}")


DIR_OPTION = click.option(
    "--dir", "directory", type=click.Path(path_type=Path, file_okay=True),
    default=DEFAULT_DIR, show_default=True, help="The scenario's folder (its workspace).")


def _train_with_bars(make, labels, steps, title):
    """Run `make(on_step)` under one progress bar per run; Ctrl-C exits 130 with a hint."""
    from diagnose.progress import RunBars

    with RunBars(labels, steps, title) as bars:
        return make(bars.step)


@cli.command()
@DIR_OPTION
@click.option("--seed", "code", metavar="CODE",
              help="Scenario code: any printable text of 1-64 characters. The same code and "
                   "secret give the same scenario, bit for bit. Default: a fresh random code.")
@click.option("--steps", type=click.IntRange(min=1), default=None,
              help="Training steps per run (default: healthy.toml's).")
@click.option("--jobs", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Runs trained at once, each in its own process.")
@click.option("--force", is_flag=True, help="Replace a scenario already in --dir.")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the dashboards' labels.")
def new(directory: Path, code: str | None, steps: int | None, jobs: int, force: bool,
        lang: str) -> None:
    """Make a fresh scenario: deal the breaks behind 01 02 03 and train every run.

    Trains the reference and the three broken runs, then writes the workspace: metrics and a
    dashboard per run, and the sealed answer key. Ctrl-C leaves nothing half-written.

    \b
    Example:
      diagnose new --dir experiments/19-break-it
      diagnose new --seed "week-3 lab" --steps 200 --force
    """
    import time

    from diagnose.home import HomeError, self_study_secret
    from diagnose.scenario import ScenarioError, create_scenario, new_code
    from scenarios import healthy_config

    code = code if code is not None else new_code()
    steps_shown = steps or healthy_config().steps
    started = time.perf_counter()
    try:
        secret = self_study_secret(create=True)
        workspace = _train_with_bars(
            lambda on_step: create_scenario(
                directory, secret=secret, code=code, steps=steps, jobs=jobs, force=force,
                lang=lang, on_step=on_step, on_redeal=lambda msg: click.echo(msg, err=True)),
            ["reference", "01", "02", "03"], steps_shown, f"scenario {code}")
    except (HomeError, ScenarioError) as err:
        raise click.ClickException(str(err)) from None
    except KeyboardInterrupt:
        click.echo(f"\nInterrupted: nothing was written to {directory}. To start again with "
                   f"the same scenario: diagnose new --dir {directory} --seed {code!r}"
                   + (" --force" if force else ""), err=True)
        raise SystemExit(130) from None
    seconds = time.perf_counter() - started
    click.echo(f"Scenario {workspace.code} ready in {workspace.path} "
               f"({len(workspace.runs)} runs x {workspace.steps} steps, {seconds:.1f} s).")
    click.echo(f"Next: diagnose play --dir {workspace.path}   "
               f"(or: diagnose show 01 --dir {workspace.path})")


@cli.command()
@DIR_OPTION
@click.option("--json", "as_json", is_flag=True, help='Print {"01": "<slug>", ...} only.')
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the solutions file.")
def reveal(directory: Path, as_json: bool, lang: str) -> None:
    """Reveal which break each ID held, with the evidence from each run's own metrics.

    Writes solutions/03-three-failures-ref.md next to experiments/ and records in the
    workspace that the answers were revealed (later gradings say so). Self-study scenarios
    only: an instructor's bundle opens with the instructor's key.

    \b
    Example:
      diagnose reveal --dir experiments/19-break-it
      diagnose reveal --json
    """
    import json

    from diagnose.home import HomeError
    from diagnose.reveal import open_assignment, write_solutions
    from diagnose.workspace import WorkspaceError, open_workspace
    from grading.seal import SealError

    try:
        workspace = open_workspace(directory)
        if workspace.key == "instructor":
            raise click.ClickException(
                f"{directory}: this scenario was dealt by an instructor; its answers open with "
                "the instructor's key (hand in your diagnoses file)")
        assignment = open_assignment(workspace)
        path = write_solutions(workspace, lang, assignment=assignment)
    except (WorkspaceError, HomeError, SealError) as err:
        raise click.ClickException(str(err)) from None
    if as_json:
        click.echo(json.dumps(assignment))
        return
    from scenarios import breaks

    catalog = breaks()
    for rid, slug in assignment.items():
        click.echo(f"{rid}: {slug:<12} {catalog[slug].title[lang]}")
    click.echo(f"Explained in {path}")


@cli.command()
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Where to write the key (never overwritten).")
def keygen(out: Path) -> None:
    """Make an instructor key: it seals every bundle you deal, and opens them to grade.

    The file gets mode 0600. Keep it private: a student with it can open their answer key.

    \b
    Example:
      diagnose keygen --out ~/course/diagnose.key
    """
    from grading.seal import SealError, fingerprint, new_secret, write_key_file

    secret = new_secret()
    try:
        write_key_file(out, secret)
    except SealError as err:
        raise click.ClickException(str(err)) from None
    click.echo(f"Wrote the instructor key {out} (fingerprint {fingerprint(secret)}). "
               "Keep it private; deal with: diagnose deal --key " + str(out))


@cli.command()
@click.option("--key", "key_file", type=click.Path(path_type=Path), required=True,
              help="Your instructor key, from `diagnose keygen`.")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Folder for the bundles: OUT/<student>/experiments/19-break-it.")
@click.option("--roster", type=click.Path(path_type=Path),
              help="Student names, one per line (blank lines and # comments skipped).")
@click.option("--count", type=click.IntRange(min=1), help="Or: this many numbered students.")
@click.option("--steps", type=click.IntRange(min=1), default=None,
              help="Training steps per run (default: healthy.toml's).")
@click.option("--jobs", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Runs trained at once, each in its own process.")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the dashboards' labels.")
def deal(key_file: Path, out: Path, roster: Path | None, count: int | None,
         steps: int | None, jobs: int, lang: str) -> None:
    """Deal a class: one different, sealed scenario per student, trained here.

    Writes OUT/<student>/experiments/19-break-it for each student and OUT/manifest.csv
    (student, code). Bundles are sealed with your key: students cannot open their answers.
    An interrupted deal resumes: run the same command again.

    \b
    Example:
      diagnose deal --key course.key --out bundles --roster roster.txt
      diagnose deal --key course.key --out bundles --count 30 --jobs 2
    """
    import time

    from diagnose import classroom
    from diagnose.scenario import ScenarioError
    from grading.seal import SealError, read_key_file
    from scenarios import healthy_config

    if (roster is None) == (count is None):
        raise click.UsageError("give exactly one of --roster FILE or --count N")
    started = time.perf_counter()
    try:
        secret = read_key_file(key_file)
        students = (classroom.read_roster(roster) if roster is not None
                    else classroom.numbered_students(count))

        def on_student(student: str, code: str, resumed: bool) -> None:
            note = "kept (already dealt)" if resumed else "sealed"
            click.echo(f"{student}: {code} {note}", err=True)

        rows = _train_with_bars(
            lambda on_step: classroom.deal(
                out, students, secret, steps=steps, jobs=jobs, lang=lang, on_step=on_step,
                on_student=on_student, on_redeal=lambda msg: click.echo(msg, err=True)),
            [], steps or healthy_config().steps, f"dealing {len(students)} scenarios")
    except (SealError, ScenarioError) as err:
        raise click.ClickException(str(err)) from None
    except KeyboardInterrupt:
        click.echo(f"\nInterrupted: the bundles sealed so far are kept in {out}; run the same "
                   "command again to deal the rest.", err=True)
        raise SystemExit(130) from None
    seconds = time.perf_counter() - started
    click.echo(f"Dealt {len(rows)} bundles into {out} in {seconds:.1f} s; "
               f"manifest: {out / classroom.MANIFEST}")


def main() -> None:
    cli(prog_name="diagnose")
