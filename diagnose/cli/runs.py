"""Your own runs: `watch` follows a run as it trains, `check` reads it against a reference."""

from __future__ import annotations

from pathlib import Path

import click

from diagnose.cli.common import (
    LANG,
    cli,
)
from diagnose.cli.params import (
    PathArg,
)
from grading.layout import printable
from scenarios.errors import UserError


@cli.command()
@click.argument("run", metavar="RUN", type=PathArg())
@click.option("--reference", type=PathArg(), default=None, metavar="REF",
              help="A healthy run of the same model and data, drawn under yours.")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the panels.")
def watch(run: Path, reference: Path | None, lang: str) -> None:
    """Open the game's six panels on your own run while it trains.

    RUN is a metrics.jsonl written by diagnose.runs.record.Recorder (or its folder); the panels
    grow as your loop appends steps. A RUN that does not exist yet is waited for, so the
    watch may start before your loop. No IDs, no grading. The keys are the game's: 0 the
    reference, 1 your run, l log/linear, r the reference under the run, z the first steps,
    left/right a step cursor, tab and enter a panel's detail view, q quit.

    \b
    Example:
      diagnose watch runs/lr-test --reference runs/baseline
    """
    from diagnose.metrics import read_metrics
    from diagnose.runs.check import metrics_path, same_model
    from diagnose.tui.watch_app import WatchApp

    run_file = metrics_path(run)
    if not run_file.exists() and run_file.suffix != ".jsonl":  # a folder the loop will make
        run_file = run_file / "metrics.jsonl"
    ref = None
    if reference is not None:
        ref = read_metrics(metrics_path(reference))
    app = WatchApp(run_file, ref, lang=lang)
    if ref is not None and not app.waiting:
        same_model(app.store.header, ref[0], (str(run_file), str(metrics_path(reference))),
                   lang)
    app.run()
    if app.problem:
        raise UserError(app.problem)


@cli.command()
@click.argument("run", metavar="RUN", type=PathArg())
@click.option("--reference", type=PathArg(), default=None, metavar="REF",
              help="A healthy run of the same model and data (its metrics.jsonl or folder).")
@click.option("--second-reference", type=PathArg(), default=None, metavar="REF2",
              help="Another healthy seed of the same setup: the reference's band covers both.")
@click.option("--json", "as_json", is_flag=True, help="Print the reading as JSON, for scripts.")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the reading.")
def check(run: Path, reference: Path | None, second_reference: Path | None, as_json: bool,
          lang: str) -> None:
    """Read your own run as the diagnostician would, against a healthy reference.

    RUN is a metrics.jsonl (recorded with diagnose.runs.record.Recorder) or its folder; it may
    still be training. Prints which break of the catalog the panels resemble (or that the run
    is healthy, or that it differs from its reference in ways no break explains, naming each
    panel and step where it leaves the reference's band), how clear the mark is, and each
    sign with the run's number beside the reference's. A reading, not a verdict; two breaks
    the panels cannot tell apart are printed as a tie.

    \b
    Example:
      diagnose check runs/lr-test --reference runs/baseline
      diagnose check runs/lr-test/metrics.jsonl --reference runs/baseline --json
      diagnose check runs/lr-test --reference runs/seed-0 --second-reference runs/seed-1
    """
    import json

    from diagnose.runs.check import check_run

    reading = check_run(run, reference, lang, second_reference)
    if as_json:
        click.echo(printable(json.dumps(reading.as_json(), ensure_ascii=False, indent=2)))
        return
    click.echo("\n".join(printable(line) for line in reading.lines(lang)))
