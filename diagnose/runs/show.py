"""`diagnose show`: the six panels of one run printed in any terminal, with rich.

    show_run(Path("experiments/19-break-it"), "01", steps="0:50", lang="es")

Each panel (from the shared specs in `diagnose.views.panels`) is a title, its guide values, and one
row per series: a block sparkline of the chosen steps, downsampled to the terminal's width on
the panel's own log or linear scale (by `diagnose.views.columns`, the TUI's rule), then the first,
last, min and max values. A panel of more than `panels.SCROLL_ROWS` series (a deep model's
matrices) prints their per-layer summary, each row naming the matrix it shows at the last
step. A NaN is drawn as a red `×` in the sparkline, +inf as `▲`, -inf as `▼`, and named below
the row with the step where it started. Piped output is plain text:
rich drops colours when its output is not a terminal.

Left out: training, writing files, and any interaction (that is the TUI's). Errors are
`ShowError` (a fixable problem: unknown run, missing scenario) or `StepsError` (a bad
`--steps`); the CLI turns them into one-line messages.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from diagnose.views.columns import MARKS, columns, held, nonfinite_mark
from diagnose.views.panels import (
    SCROLL_ROWS,
    Axis,
    Panel,
    Series,
    finite,
    format_number,
    guide_values,
    named,
    panel_axis,
    panels_for,
    series_for_rows,
    summarize,
)
from scenarios.errors import UsageProblem, UserError
from scenarios.words import N_, say

BLOCKS = "▁▂▃▄▅▆▇█"
NONFINITE = "".join(MARKS.values())  # NaN, +inf, -inf: the TUI's marks
COLOURS = ("dodger_blue2", "dark_orange", "green3", "medium_purple", "dark_cyan")
NUMBER_WIDTH = 9
STEPS = re.compile(r"^\s*+(\d*+)\s*+:\s*+(\d*+)\s*+$")
REFERENCE_ALIASES = ("reference", "ref", "0", "00")

# The four numbers each series is summed up by (the what-if's legend too)
SUMMARY_COLUMNS = (N_("first"), N_("last"), N_("min"), N_("max"))


class ShowError(UserError):
    """A problem the user can fix (unknown run ID, no scenario); one line."""


class StepsError(UsageProblem, ValueError):
    """A `--steps` value that is malformed or outside the run; one line."""


def parse_steps(text: str | None) -> tuple[int | None, int | None]:
    """`"A:B"` → (A, B), either end optional (`"50:"`, `":20"`); B is exclusive, like a slice."""
    if text is None:
        return None, None
    match = STEPS.match(text)
    if not match:
        raise StepsError(f"expected A:B with whole step numbers, e.g. 0:50; got {text!r}")
    start, stop = (int(g) if g else None for g in match.groups())
    if start is not None and stop is not None and start >= stop:
        raise StepsError(f"the start must be before the end; got {text!r}")
    return start, stop


def select_steps(span: tuple[int | None, int | None], count: int) -> range:
    """The record indices `span` picks out of a run of `count` steps, or StepsError."""
    start, stop = span
    start = 0 if start is None else start
    stop = count if stop is None else stop
    if count == 0:
        if span == (None, None):
            return range(0)
        raise StepsError("this run has no steps recorded yet")
    if start >= count or stop > count:
        raise StepsError(f"this run has steps 0 to {count - 1}; use an end of at most {count}")
    if start >= stop:
        raise StepsError(f"the start must be before the end; got {start}:{stop}")
    return range(start, stop)


def resolve_run(text: str, runs: Sequence[str]) -> str:
    """The run folder an ID names: `01`, `1`, `reference`, `ref` or `0` (case-insensitive)."""
    wanted = text.strip().lower()
    if wanted in REFERENCE_ALIASES:
        wanted = "reference"
    elif wanted.isdigit() and len(wanted) == 1:
        wanted = "0" + wanted
    if wanted not in runs:
        raise ShowError(f"no run {text!r} here; choose one of {', '.join(runs)}")
    return wanted


def sparkline(series: Series, values: Sequence[float | None], axis: Axis,
              width: int) -> Text:
    """At most one block per step, in at most `width` columns, by the rule the TUI draws with
    (`diagnose.views.columns`): a column takes the largest value of its steps (spikes survive
    downsampling), or its NaN/±inf marked × ▲ ▼; a sparse series holds its last measurement
    across the steps between two measurements."""
    colour = COLOURS[series.group % len(COLOURS)]
    line = Text()
    shown = held(values) if series.sparse else values
    for value in columns(shown, min(len(values), width)):
        if value is None:
            line.append(" ", style=colour)
        elif not math.isfinite(value):
            line.append(nonfinite_mark(value), style="bold red")
        else:
            fraction = axis.fraction(series.plotted(value))
            # Below a log axis (a zero) is the bottom block, like a zero on a linear axis.
            fraction = 0.0 if fraction is None else min(max(fraction, 0.0), 1.0)
            line.append(BLOCKS[round(fraction * (len(BLOCKS) - 1))], style=colour)
    return line


def _number(series: Series, value: float | None, lang: str) -> Text:
    style = "bold red" if value is not None and not finite(value) else ""
    return Text(series.format(value, lang).rjust(NUMBER_WIDTH), style=style)


def render_panel(panel: Panel, header: dict[str, Any], records: Sequence[dict[str, Any]],
                 steps: Sequence[int], lang: str, width: int) -> list[Text]:
    """The lines of one panel. Wide terminals put each sparkline beside its label; narrow ones
    give it a line of its own, so it is never squeezed below a readable width."""
    # A panel of more series than a screenful (a deep model's matrices): their summary.
    panel = dataclasses.replace(panel, series=series_for_rows(panel, SCROLL_ROWS))
    values = [s.values(records) for s in panel.series]
    labels = [named(s, records[-1] if records else None, lang) for s in panel.series]
    axis = panel_axis(panel, [values])
    title = Text(panel.title_in(lang), style="bold")
    title.append(f"  ({'log' if panel.log else 'lin'})", style="dim")
    for guide, value in guide_values(panel, header):
        title.append(f"  {guide.label[lang]} {format_number(value, lang)}", style="dim")
    label_width = min(max(map(len, labels)), 40)
    numbers_width = 4 * (NUMBER_WIDTH + 1)
    beside = width - 2 - label_width - 2 - numbers_width
    wide = beside >= 32
    # One block per step at most: a short range is not stretched, it stays a short line.
    spark_width = min(beside if wide else max(width - 4, 8), len(steps))
    beside = spark_width

    column_names = Text(" " * (2 + label_width + (2 + beside if wide else 0)), style="dim")
    for name in SUMMARY_COLUMNS:
        column_names.append(" " + say(lang, name).rjust(NUMBER_WIDTH), style="dim")
    lines = [title, column_names]
    for series, vals, label in zip(panel.series, values, labels, strict=True):
        summary = summarize(vals)
        row = Text("  " + label[:label_width].ljust(label_width))
        if wide:
            row.append("  ")
            row.append_text(sparkline(series, vals, axis, spark_width))
            row.pad_right(2 + label_width + 2 + beside - len(row))
        for value in (summary.first, summary.last, summary.low, summary.high):
            row.append(" ")
            row.append_text(_number(series, value, lang))
        lines.append(row)
        if not wide:
            lines.append(Text("    ").append_text(sparkline(series, vals, axis, spark_width)))
        if summary.nonfinite_at is not None:
            note = say(lang, "{value} from step {step}",
                       value=format_number(vals[summary.nonfinite_at], lang),
                       step=steps[summary.nonfinite_at])
            mark = nonfinite_mark(vals[summary.nonfinite_at])
            lines.append(Text(f"    {mark} {note}", style="bold red"))
    return lines


@dataclasses.dataclass(frozen=True)
class ShownRun:
    """A run as `render_run` prints it: its name ("01", "reference", a path), its metrics, the
    scenario's code (a game run's), and its panels (None: the game's model's)."""

    name: str
    header: dict[str, Any]
    records: Sequence[dict[str, Any]]
    code: str | None = None
    panels: Sequence[Panel] | None = None


def render_run(console: Console, shown: ShownRun, *, lang: str = "en",
               steps: range | None = None) -> None:
    """Print the six panels of one run (the records `steps` selects, all by default)."""
    run, code, header, records = shown.name, shown.code, shown.header, shown.records
    chosen = list(records) if steps is None else [records[i] for i in steps]
    heading = Text(say(lang, "Reference run") if run == "reference"
                   else say(lang, "Run {run}", run=run), style="bold")
    if code:
        heading.append("  " + say(lang, "scenario {code}", code=code), style="dim")
    console.print(heading, highlight=False)
    if not chosen:
        console.print(say(lang, "No steps recorded yet."), highlight=False)
        return
    step_numbers = [r["step"] for r in chosen]
    total = header.get("steps") if isinstance(header.get("steps"), int) else None
    if total and total > len(records):  # a run still training: the header says its length
        extent = say(lang, "steps {a}–{b} of {n}, {count} recorded so far", a=step_numbers[0],
                     b=step_numbers[-1], n=total, count=len(records))
    else:
        extent = say(lang, "steps {a}–{b} of {n}", a=step_numbers[0], b=step_numbers[-1],
                     n=len(records))
    console.print(Text(extent, style="dim"), highlight=False)
    for panel in shown.panels or panels_for(chosen):
        console.print()
        for line in render_panel(panel, header, chosen, step_numbers, lang, console.width):
            console.print(line, highlight=False, no_wrap=True, overflow="ellipsis")


def show_run(directory: Path, run_id: str, *, steps: str | None = None, lang: str = "en",
             console: Console | None = None) -> None:
    """`diagnose show`: open the workspace, pick the run, slice its steps, print it.

    Raises ShowError or `diagnose.workspace.WorkspaceError` (fixable problems) and StepsError
    (a bad `steps`)."""
    from diagnose.workspace import open_workspace

    span = parse_steps(steps)
    if is_own_run(run_id):
        show_own_run(Path(run_id), span, lang=lang, console=console)
        return
    workspace = open_workspace(directory)
    run = resolve_run(run_id, workspace.runs)
    header, records = workspace.read_run(run)
    chosen = select_steps(span, len(records))
    render_run(console or Console(), ShownRun(run, header, records, code=workspace.code),
               lang=lang, steps=chosen)


def is_own_run(text: str) -> bool:
    """An ID names a game run (`01`, `ref`); a path (with a separator, or a `.jsonl`) a run of
    your own."""
    return "/" in text or os.sep in text or text.endswith(".jsonl")


def show_own_run(path: Path, span: tuple[int | None, int | None], *, lang: str = "en",
                 console: Console | None = None) -> None:
    """A run you recorded (`diagnose.runs.record`): its panels as `diagnose watch` draws them, a
    field the run did not record "not recorded" in its panel's title."""
    from diagnose.metrics import read_metrics
    from diagnose.runs.check import metrics_path
    from diagnose.runs.watch import own_panels

    header, records = read_metrics(metrics_path(path))
    chosen = select_steps(span, len(records))
    panels = own_panels(header, records[0] if records else None)
    render_run(console or Console(),
               ShownRun(str(header.get("run", path)), header, records, panels=panels),
               lang=lang, steps=chosen)
