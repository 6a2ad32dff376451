"""What-if, after the reveal: one run's break retrained at the other magnitudes its TOML declares.

A break with a magnitude (`[whatif] field = "init_scale"; doses = [1, 3, 10, 30, 100]`) can be
retrained at each dose once its ID is revealed, never before: the doses name the break. The dose
the scenario dealt is the run itself (its own records, no training); every other dose trains the
same broken config with only `field` changed, from the run's seed of its first deal, in a
`TrainingPool` (two at a time, in the background under the TUI). Results are kept in
`<workspace>/whatif/<ID>/<field>-<dose>/metrics.jsonl`, so asking again costs nothing.

`render_whatif` draws the six panels, the series the break's signature lives in first (its
`[whatif] show`, e.g. a frozen block's own matrices), every dose overlaid on one chart (a mark
and a colour per dose: the marks alone tell the doses apart without colour, under `NO_COLOR` or
piped; where curves meet, their marks take turns, so none hides another) above a legend with
each dose's first, last, min and max (and its value at a step cursor), over all steps or a
zoomed window, for `diagnose show --what-if` and the TUI's what-if screen alike; `whatif_html`
the same as SVG for the run's dashboard.html (a dash pattern per dose, the dealt one drawn last
and solid). Not here: the reveal itself.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

import scenarios
from diagnose.metrics import MetricsError, make_header, read_metrics, write_metrics
from diagnose.views.panels import (
    Axis,
    Panel,
    Series,
    format_number,
    panel_axis,
    panels_for,
    summarize,
)
from diagnose.workspace import REFERENCE, Workspace
from grading.seal import SealedBy
from scenarios.errors import UserError
from scenarios.words import N_, say

if TYPE_CHECKING:
    from diagnose.game.training import Progress

WHATIF_DIR = "whatif"

TITLE = N_("What if: run {run}, {brk}, at other values of {field}")
COLOURS = ("dodger_blue2", "dark_orange", "green3", "medium_purple", "dark_cyan", "gold3")
# One mark per dose (a break declares at most six), none of them a chart's NaN/±inf mark.
DOSE_MARKS = ("●", "○", "◆", "◇", "+", "*")


class WhatIfError(UserError):
    """A what-if that cannot be made: a sealed ID, the reference, a break without a magnitude."""


@dataclass(frozen=True)
class Dose:
    value: Any
    config: scenarios.Config
    dealt: bool  # the scenario's own run: its records, not trained again
    healthy: bool  # the healthy config's value of the field

    def label(self, field: str) -> str:
        value = format_number(self.value) if isinstance(self.value, float) else self.value
        return f"{field}={value}"

    def legend(self, field: str, lang: str) -> str:
        """`label`, and whether this dose is the one dealt or the healthy value."""
        if self.dealt and self.healthy:
            return say(lang, "{dose} (dealt, healthy)", dose=self.label(field))
        if self.dealt:
            return say(lang, "{dose} (dealt)", dose=self.label(field))
        if self.healthy:
            return say(lang, "{dose} (healthy)", dose=self.label(field))
        return self.label(field)

    def folder(self, field: str) -> str:
        return f"{field}-{self.value}"


@dataclass(frozen=True)
class WhatIfPlan:
    run: str
    brk: scenarios.Break
    doses: tuple[Dose, ...]
    seed: int

    @property
    def field(self) -> str:
        assert self.brk.whatif is not None
        return self.brk.whatif.field


def plan_whatif(workspace: Workspace, run: str, secret: bytes | None = None,
                lang: str = "en") -> WhatIfPlan:
    """The doses of `run`'s break; WhatIfError for a sealed ID, the reference, no magnitude.
    `secret`: the self-study secret's (asked for only once the ID is known to be revealed)."""
    from diagnose.diagnosis.reveal import open_assignment
    from diagnose.game.dealing import training_seed
    from diagnose.home import self_study_secret

    if run == REFERENCE:
        raise WhatIfError(say(lang, "the reference has no break to vary; choose an ID"))
    if workspace.key != SealedBy.SELF_STUDY:
        raise WhatIfError(say(lang, "run {run} is sealed with your instructor's key: what-if "
                                    "is for self-study scenarios (diagnose play, then the "
                                    "reveal)", run=run))
    if not workspace.revealed:
        raise WhatIfError(say(lang, "run {run} is still sealed: what-if comes after the reveal "
                                    "(`diagnose reveal`, or grading)", run=run))
    secret = secret if secret is not None else self_study_secret()
    slug = open_assignment(workspace, secret)[run]
    brk = scenarios.breaks(workspace.level)[slug]
    if brk.whatif is None:
        raise WhatIfError(say(lang, "run {run} holds {brk}, which has no magnitude to vary",
                              run=run, brk=brk.title[lang]))
    healthy = dataclasses.replace(scenarios.healthy_config(), steps=workspace.steps)
    broken = brk.apply(healthy)
    dealt = getattr(broken, brk.whatif.field)
    doses = tuple(Dose(value, config, value == dealt,
                       value == getattr(healthy, brk.whatif.field))
                  for value, config in brk.whatif.configs(broken))
    return WhatIfPlan(run, brk, doses, training_seed(secret, workspace.code, run))


def _cache(workspace: Workspace, plan: WhatIfPlan, dose: Dose) -> Path:
    return workspace.path / WHATIF_DIR / plan.run / dose.folder(plan.field) / "metrics.jsonl"


def _cached(workspace: Workspace, plan: WhatIfPlan, dose: Dose) -> list[dict[str, Any]] | None:
    """A dose trained by an earlier what-if, if its file is whole: one cut short, or that does
    not read as metrics, is trained again and replaced."""
    path = _cache(workspace, plan, dose)
    if not path.is_file():
        return None
    try:
        records = read_metrics(path)[1]
    except (MetricsError, OSError):
        return None
    return records if len(records) == dose.config.steps else None


def ready(workspace: Workspace, plan: WhatIfPlan) -> dict[Dose, list[dict[str, Any]]]:
    """The doses there is nothing to train for: the dealt one (the run) and the cached ones."""
    found = {}
    for dose in plan.doses:
        records = workspace.read_run(plan.run)[1] if dose.dealt else \
            _cached(workspace, plan, dose)
        if records is not None:
            found[dose] = records
    return found


def to_train(plan: WhatIfPlan, found: dict[Dose, Any]) -> list[Dose]:
    """The doses `run_whatif` trains: those `ready` did not find."""
    return [dose for dose in plan.doses if dose not in found]


def run_whatif(workspace: Workspace, plan: WhatIfPlan, *,
               on_step: Callable[[str, dict[str, Any]], None] | None = None,
               on_dose: Callable[[Dose, list[dict[str, Any]]], None] | None = None,
               should_stop: Callable[[], bool] | None = None,
               background: bool = False) -> dict[Dose, list[dict[str, Any]]]:
    """Every dose's records: the dealt one from the run, cached ones from disk, the rest
    trained (two at a time) and cached; `on_dose` hears of each trained dose as soon as its
    last step is in. Raises Cancelled when `should_stop` says so."""
    from diagnose.game.dealing import RunPlan
    from diagnose.game.training import TrainingPool

    found = ready(workspace, plan)
    todo = to_train(plan, found)
    if todo:
        labels = {dose.label(plan.field): dose for dose in todo}
        plans = [RunPlan(label, dose.config, plan.seed) for label, dose in labels.items()]
        arrived: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}

        def step(label: str, record: dict[str, Any]) -> None:
            if on_step is not None:
                on_step(label, record)
            if on_dose is not None:
                arrived[label].append(record)
                if len(arrived[label]) == labels[label].config.steps:
                    on_dose(labels[label], arrived[label])

        pool = TrainingPool(2, background=background)
        try:
            records = pool.run(plans, on_step=step, should_stop=should_stop)
        except BaseException:
            pool.close(graceful=False)  # stopped or failed: the workers go now, not later
            raise
        pool.close()
        from diagnose.engine import run_header_fields

        for label, dose in labels.items():
            path = _cache(workspace, plan, dose)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_metrics(path, make_header(run=label, **run_header_fields(dose.config)),
                          records[label])
            found[dose] = records[label]
    return {dose: found[dose] for dose in plan.doses}


CHART_ROWS = 8  # the overlay chart's height in lines
MET = N_("Where curves meet, their marks take turns along the chart: none hides another.")


def dose_look(index: int) -> tuple[str, str]:
    """The mark and the colour of a plan's `index`-th dose, on the charts and in the legend."""
    return DOSE_MARKS[index % len(DOSE_MARKS)], COLOURS[index % len(COLOURS)]


def whatif_views(plan: WhatIfPlan, records: list[dict[str, Any]]) -> list[tuple[Panel, Series]]:
    """The what-if's charts, in order: the series the break's signature lives in (its
    `[whatif] show`; else the first series of each panel of its signature), then the first
    series of every panel not shown yet, so all six panels are there."""
    panels = panels_for(records)
    by_key = {series.key: (panel, series) for panel in panels for series in panel.series}
    assert plan.brk.whatif is not None
    first = list(plan.brk.whatif.show) or [panels[int(n) - 1].series[0].key
                                           for n in plan.brk.signature
                                           if 1 <= int(n) <= len(panels)]
    views = [by_key[key] for key in first if key in by_key]
    drawn = {panel.number for panel, _ in views}
    return views + [(panel, panel.series[0]) for panel in panels if panel.number not in drawn]


def view_title(panel: Panel, series: Series, lang: str) -> str:
    """A chart's title: the panel's, and the series' name when it says something more
    ("1 · Loss · train"; "2 · Learning rate" once, not "Learning rate  learning rate")."""
    title, label = panel.title_in(lang), series.label_in(lang)
    said = panel.title[lang].casefold()
    return title if label.casefold() in (said, panel.y_label[lang].casefold()) else (
        f"{title} · {label}")


def axis_text(series: Series, axis: Axis, lang: str) -> str:
    """The axis's scale and ends in the units the series' numbers are written in: a count of
    heads as "0/8–2/8" beside values "1/8", never the percentage it is drawn at."""
    def end(value: float) -> str:
        if series.total:  # drawn as a percentage of `total`, written as a count of it
            return series.format(value * series.total / 100.0, lang)
        return series.format(value, lang)
    scale = say(lang, "log") if axis.log else say(lang, "linear")
    return f"({scale}, {end(axis.lo)}–{end(axis.hi)})"


def _overlay(series: Any, shown: list[tuple[tuple[str, str], list[float | None]]], axis: Any,
             width: int, indent: int, cursor: int | None = None) -> list[Text]:
    """Every dose's curve ((mark, colour), values) on one chart of CHART_ROWS lines: its mark
    in its colour per column at its value's height; where several doses meet, their marks take
    turns column by column, so none hides another along a stretch; NaN/±inf marked × ▲ ▼ on
    the top line, as everywhere else; the `cursor` step's columns reversed."""
    from diagnose.views.columns import columns, cursor_columns, nonfinite_mark

    cells: list[list[list[tuple[str, str]]]] = [[[] for _ in range(width)]
                                               for _ in range(CHART_ROWS)]
    count = max((len(values) for _, values in shown), default=0)
    for (mark, colour), values in shown:
        for column, value in enumerate(columns(values, width)):  # a zoomed step: whole columns
            if value is None:
                continue
            if not math.isfinite(value):
                cells[0][column].append((nonfinite_mark(value), "bold red"))
                continue
            fraction = axis.fraction(series.plotted(value))
            if fraction is None:
                continue
            row = CHART_ROWS - 1 - round(min(max(fraction, 0.0), 1.0) * (CHART_ROWS - 1))
            cells[row][column].append((mark, colour))
    marked = set(cursor_columns(cursor, count, width)) if cursor is not None else set()
    lines = []
    for row in cells:
        line = Text(" " * indent + "│", style="dim")
        for column, here in enumerate(row):
            if not here:
                char, style = ("│", "dim") if column in marked else (" ", "")
            else:  # doses that meet here take turns, column by column
                char, style = here[column % len(here)]
            line.append(char, style=style + (" reverse" if column in marked else ""))
        lines.append(line)
    return lines


def render_whatif(plan: WhatIfPlan, results: dict[Dose, list[dict[str, Any]]], lang: str = "en",
                  width: int = 100, steps: range | None = None,
                  cursor: int | None = None) -> list[Text]:
    """The six panels, the break's own series first (`whatif_views`): each chart overlays
    every dose's curve, then the legend, a line per dose in its mark and colour with its
    first, last, min and max (and its value at the `cursor`, an index into `steps`).

    `steps`: the window of steps drawn (the TUI's zoom; None: all). `results` may lack doses
    still training (the TUI draws as each one arrives): they keep their colour and legend
    line, marked as training, and the axes fit the doses in."""
    from diagnose.runs.show import SUMMARY_COLUMNS
    from diagnose.views.columns import held

    lines = [Text(say(lang, TITLE, run=plan.run, brk=plan.brk.title[lang], field=plan.field),
                  style="bold"), Text(say(lang, MET), style="dim")]
    labels = {dose: dose.legend(plan.field, lang) for dose in plan.doses}
    label_width = max(len(label) for label in labels.values())
    number_width = 9
    chart_width = max(width - 4, 16)
    looks = {dose: dose_look(index) for index, dose in enumerate(plan.doses)}
    records = next(iter(results.values()))
    window = steps if steps is not None else range(len(records))
    at_step = (window.start + cursor) if cursor is not None and cursor < len(window) else None
    for panel, series in whatif_views(plan, records):
        values = {dose: series.values(rows)[window.start:window.stop]
                  for dose, rows in results.items()}
        axis = panel_axis(panel, [[v if s is series else [] for s in panel.series]
                                  for v in values.values()])
        title = Text(f"\n{view_title(panel, series, lang)}", style="bold")
        title.append(f"  {axis_text(series, axis, lang)}", style="dim")
        lines.append(title)
        shown = [(looks[d], held(values[d]) if series.sparse else values[d])
                 for d in plan.doses if d in values]
        lines += _overlay(series, shown, axis, chart_width, 2,
                          cursor if at_step is not None else None)
        head = Text(" " * (4 + label_width), style="dim")
        if at_step is not None:
            head.append(" " + say(lang, "step {step}", step=at_step).rjust(number_width),
                        style="reverse")
        for name in SUMMARY_COLUMNS:
            head.append(" " + say(lang, name).rjust(number_width), style="dim")
        lines.append(head)
        for dose in plan.doses:
            mark, colour = looks[dose]
            row = Text(f"  {mark} " + labels[dose].ljust(label_width), style=colour)
            if dose not in values:
                row.append(" " + say(lang, "training…"), style="dim")
            else:
                summary = summarize(values[dose])
                if at_step is not None:
                    row.append(" " + series.format(values[dose][cursor], lang).rjust(
                        number_width), style="reverse")
                for value in (summary.first, summary.last, summary.low, summary.high):
                    row.append(" " + series.format(value, lang).rjust(number_width))
            lines.append(row)
    return lines


HTML_COLOURS = ("#1e6fd9", "#e07b00", "#2e9e3f", "#8a5cc7", "#11868c", "#b58b00")
# A dash pattern per dose, so a curve under another still shows between the other's dashes;
# the dealt dose is drawn last, solid and thicker: it is never the one hidden.
HTML_DASHES = ("", "7 4", "2 3", "10 3 2 3", "4 4", "1 5")


def _html_look(plan: WhatIfPlan, index: int, dose: Dose) -> str:
    colour = HTML_COLOURS[index % len(HTML_COLOURS)]
    dash = "" if dose.dealt else HTML_DASHES[index % len(HTML_DASHES)]
    return (f'stroke="{colour}" stroke-width="{2.5 if dose.dealt else 1.5}"'
            + (f' stroke-dasharray="{dash}"' if dash else ""))


def whatif_html(plan: WhatIfPlan, results: dict[Dose, list[dict[str, Any]]], lang: str = "en"
                ) -> str:
    """The what-if as a section of the run's dashboard.html: the charts of `whatif_views`,
    each overlaying every dose's curve (a colour and a dash pattern per dose, the dealt one
    drawn last, solid), with a legend."""
    from html import escape

    from diagnose.views.dashboard.plot import (
        BOTTOM,
        HEIGHT,
        LEFT,
        RIGHT,
        TOP,
        WIDTH,
        Frame,
        axis_ticks,
        curve_path,
    )

    labels = []
    for index, dose in enumerate(plan.doses):
        text = dose.legend(plan.field, lang)
        labels.append(f'<span><svg class="swatch" viewBox="0 0 24 8"><line x1="0" y1="4" '
                      f'x2="24" y2="4" {_html_look(plan, index, dose)}/></svg> '
                      f"{escape(text)}</span>")
    legend = f'<p class="legend">{" · ".join(labels)}</p>'
    sections = []
    order = sorted(enumerate(plan.doses), key=lambda pair: pair[1].dealt)  # the dealt on top
    for panel, series in whatif_views(plan, next(iter(results.values()))):
        values = {dose: series.values(records) for dose, records in results.items()}
        steps = {dose: [r["step"] for r in records] for dose, records in results.items()}
        axis = panel_axis(panel, [[v if s is series else [] for s in panel.series]
                                  for v in values.values()])
        last = max(s[-1] for s in steps.values() if s)
        frame = Frame(0, last, axis)
        ticks = "".join(
            f'<text class="tick" x="{LEFT - 5}" y="{frame.y(v):.1f}" text-anchor="end" '
            f'dy="0.35em">{escape(label)}</text>'
            for v, label in axis_ticks(axis, lang) if label)
        curves = "".join(
            f'<path fill="none" {_html_look(plan, i, dose)} d="'
            f'{curve_path(frame, steps[dose], [series.plotted(v) if v is not None else None for v in values[dose]])}"/>'  # noqa: E501
            for i, dose in order if dose in values)
        sections.append(
            f'<section class="panel whatif-panel"><h2>{escape(view_title(panel, series, lang))}'
            f' <span class="scale">{escape(axis_text(series, axis, lang))}</span></h2>'
            f'<svg class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img">'
            f'<rect class="frame" x="{LEFT}" y="{TOP}" width="{RIGHT - LEFT}" '
            f'height="{BOTTOM - TOP}"/>{ticks}{curves}</svg>{legend}</section>')
    title = say(lang, TITLE, run=plan.run, brk=plan.brk.title[lang], field=plan.field)
    return (f'<section class="whatif"><h2>{escape(title)}</h2>{legend}'
            f'<div class="panels">{"".join(sections)}</div></section>')


def whatif_results(workspace: Workspace, plan: WhatIfPlan, lang: str,
                   progress: Progress | None = None) -> dict[Dose, list[dict[str, Any]]]:
    """Every dose's records (`run_whatif`); when some are still to train, they train under
    `progress(make, labels, steps, title)`, which runs `make(on_step)` under the caller's
    progress display for those doses' labels and returns its result."""
    trained = [dose.label(plan.field) for dose in to_train(plan, ready(workspace, plan))]
    if not trained or progress is None:
        return run_whatif(workspace, plan)
    results: dict[Dose, list[dict[str, Any]]] = progress(
        lambda on_step: run_whatif(workspace, plan, on_step=on_step), trained, workspace.steps,
        say(lang, "what-if {run}", run=plan.run))
    return results


def write_whatif_dashboards(
        workspace: Workspace, lang: str,
        results_of: Callable[[WhatIfPlan], dict[Dose, list[dict[str, Any]]]],
) -> Iterator[tuple[str, Path]]:
    """After the reveal: each run whose break has a magnitude gets its what-if in its
    dashboard.html; yields (ID, page) as each is written. `results_of(plan)`: every dose's
    records (`run_whatif`, which the CLI runs under progress bars)."""
    from diagnose.views.dashboard import render_dashboard
    from scenarios.files import atomic_write

    reference = workspace.read_run(REFERENCE)
    for run in workspace.ids:
        try:
            plan = plan_whatif(workspace, run, lang=lang)
        except WhatIfError:
            continue  # a break without a magnitude: its page stays as it is
        results = results_of(plan)
        header, records = workspace.read_run(run)
        atomic_write(workspace.dashboard_path(run), render_dashboard(
            header, records, reference=reference, lang=lang, code=workspace.code,
            appendix=whatif_html(plan, results, lang)))
        yield run, workspace.dashboard_path(run)
