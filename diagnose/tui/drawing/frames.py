"""What one panel draws right now: its lines over the window, their scale, guides and stats.

`panel_frame` joins the three things a panel depends on — the panel's definition
(`diagnose.views.panels`, shared with the HTML dashboard and `diagnose show`), the runs' values
(`RunStore`) and the student's `View` — into a plain `PanelFrame` that the widgets only lay
out. Every line of a panel, and the reference under it, shares one scale: a run and its
reference on two scales would look alike when they are not.

Also here, the terminal's adapter over `diagnose.views.panels`: short row labels, the envelope
(largest and smallest of a panel's series) that a panel too small for its nine spectral norms
shows instead of them, and `row_layout`, the one rule for how many lines each row of a panel
gets: the same for every row, since a bar twice as tall reads as a value twice as large. No
Textual.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from diagnose.phrases import P_, Phrase
from diagnose.tui.drawing.scale import window, windowed
from diagnose.tui.drawing.state import RunStore, View
from diagnose.views.columns import Value, held
from diagnose.views.panels import (
    BLOCK_MATRICES,
    SCROLL_ROWS,
    Guide,
    Panel,
    Series,
    Summary,
    fit_axis,
    guide_values,
    matrix_layer,
    series_for_rows,
    summarize,
)
from diagnose.workspace import REFERENCE

# A compact row's label, at most 6 cells in every language: a message of its own (a context),
# since "train" is also the series' full name, which Spanish does not shorten alike.
SHORT = {  # series key -> its short label
    "train_loss": P_("short label", "train"), "val_loss": P_("short label", "val"),
    "lr": P_("short label", "lr"), "grad_norm_preclip": P_("short label", "pre"),
    "grad_norm_postclip": P_("short label", "post"), "act.ln_f": P_("short label", "ln_f"),
    "wte": P_("short label", "wte"), "dead_heads": P_("short label", "heads"),
    "dead_neurons": P_("short label", "mlp"),
    "n.a": P_("short label", "n.a."),  # diagnose.runs.watch.NOTHING: a panel with nothing recorded
}
ENVELOPE_SHORT = {"max": Phrase("max"), "med": Phrase("med"), "min": Phrase("min")}
GUIDE_SHORT = {  # guide key -> a panel's bottom edge names its guides briefly
    "entropy_floor": P_("short label", "floor"), "ln_vocab": P_("short label", "ln V"),
    "grad_clip": P_("short label", "clip"),
}
DETAIL_ROWS = SCROLL_ROWS  # the detail view's plots (it scrolls): past that, a summary
MATRIX_SHORT = dict(zip(BLOCK_MATRICES, ("attn", "aprj", "fc", "mprj"), strict=True))


def short_matrix(name: str) -> str:
    """A weight matrix's name in at most 6 cells: its layer's number and its own short name
    (`h.1.mlp.c_proj` -> `1.mprj`, `blocks.11.mlp.fc2.weight` -> `11.fc2`)."""
    layer = matrix_layer(name)
    rest = name[len(layer) + 1:] if layer else name
    rest = MATRIX_SHORT.get(rest) or rest.removesuffix(".weight").rsplit(".", 1)[-1]
    return (f"{layer.rsplit('.', 1)[-1]}.{rest}" if layer else rest)[:6]


def short_shown(key: str) -> str:
    """The series a summary row shows, in at most 6 cells: a matrix (`short_matrix`) or a
    residual stream (`act.1` -> `h.1`, `act.ln_f` -> `ln_f`)."""
    if key.startswith("act."):
        rest = key.removeprefix("act.")
        return ("h." + rest if rest.isdigit() else rest)[:6]
    return short_matrix(key)


SUMMARY_MARK = {"max": "↑", "min": "↓", "med": "~"}  # as the numbers mark ↑max and ↓min


def short_label(series: Series, lang: str) -> str:
    if series.key in SHORT:
        return SHORT[series.key][lang]
    if series.which is not None:  # a summary: spectral.envelope.max, spectral.layer.h.3.max
        scope, _, which = series.key.rpartition(".")
        word = ENVELOPE_SHORT[which][lang]
        _, per_layer, layer = scope.partition(".layer.")
        if not per_layer:
            return word
        return f"{layer.rsplit('.', 1)[-1] or '·'} {word}"[:6]  # "3 max"
    if series.key.startswith("act."):  # act.0 -> h.0: the residual after block h.0
        return "h." + series.key.removeprefix("act.")
    return short_matrix(series.key)


def short_guide(guide: Guide, lang: str) -> str:
    return GUIDE_SHORT[guide.key][lang] if guide.key in GUIDE_SHORT else guide.key


def shown_series(panel: Panel, rows: int | None, overlay: bool) -> tuple[Series, ...]:
    """The panel's series, or their summary when `rows` cannot hold one row per series
    (`panels.series_for_rows`: per layer, else the envelope)."""
    return series_for_rows(panel, rows, 2 if overlay else 1)


def row_layout(rows: int, count: int, overlay: bool) -> tuple[int, int]:
    """(rows shown, lines per row) for `count` series in a panel of `rows` lines.

    Every shown row gets the same height, the largest that fits (a remainder stays blank, at
    the bottom): rows of unequal height would draw equal values as bars of unequal size. An
    overlaid row splits into the run's half and the reference's, so its height is even when
    it has two lines or more. With fewer lines than series, the first `rows` get one each.
    """
    if rows <= 0 or count <= 0:
        return 0, 0
    shown = min(count, rows)
    height = rows // shown
    if overlay and height >= 2:
        height -= height % 2
    return shown, height


@dataclass(frozen=True)
class DrawnSeries:
    """One series as drawn: values on the y axis's units, over the window."""

    series: Series
    label: str
    values: list[Value]            # plotted, held; None: not trained yet (drawn blank)
    reference: list[Value] | None  # the reference's, when overlaid
    summary: Summary               # of the raw values in the window: last, low, high, NaN
    at_cursor: Value               # the raw value at the cursor step (held)
    reference_summary: Summary | None = None  # the same two of the reference, when overlaid
    reference_at_cursor: Value = None
    shows: str | None = None       # a summary's: the series it shows at the cursor (or last)
    lang: str = "en"               # the language its numbers are written in


@dataclass(frozen=True)
class PanelFrame:
    panel: Panel
    log: bool
    value_range: tuple[float, float]  # panels.fit_axis: shared by every line and guide
    guides: list[tuple[Guide, float]]
    lines: tuple[DrawnSeries, ...]
    steps: range                   # the window of steps on screen
    cursor: int | None             # the cursor as an index into `steps`
    nonfinite_step: int | None     # the first step where a shown series is NaN or ±inf


def _plotted(series: Series, raw: Sequence[Value]) -> list[Value]:
    values = [None if v is None else series.plotted(v) for v in raw]
    return held(values) if series.sparse else values


def panel_frame(panel: Panel, store: RunStore, view: View, lang: str,
                rows: int | None = None) -> PanelFrame:
    """The frame of `panel` for the run in `view`; `rows`: the sparkline rows it has room for."""
    steps = window(store.extent, view.zoom)
    log = panel.log and view.log
    overlay = view.overlay and view.run != REFERENCE
    cursor = None
    if view.cursor is not None and view.cursor in steps:
        cursor = view.cursor - steps.start
    def at(series: Series, values: list[Value]) -> Value:
        """The raw value at the cursor step (a sparse series' last measurement before it)."""
        if cursor is None:
            return None
        return windowed(held(values) if series.sparse else values, steps)[cursor]

    lines = []
    for series in shown_series(panel, rows, overlay):
        values = store.values(view.run, series)  # as many as trained: held() stops there
        reference = reference_summary = reference_at_cursor = None
        if overlay:
            raw = store.values(REFERENCE, series)
            reference = windowed(_plotted(series, raw), steps)
            reference_summary = summarize(windowed(raw, steps))
            reference_at_cursor = at(series, raw)
        shows = None
        if series.which is not None:
            step = view.cursor if cursor is not None else store.count(view.run) - 1
            record = store.record(view.run, step)
            shows = series.which(record) if record is not None else None
        lines.append(DrawnSeries(series=series, label=short_label(series, lang), shows=shows,
                          values=windowed(_plotted(series, values), steps), reference=reference,
                          summary=summarize(windowed(values, steps)),
                          at_cursor=at(series, values), reference_summary=reference_summary,
                          reference_at_cursor=reference_at_cursor, lang=lang))
    # A fresh scenario's header arrives from the training thread (in one dict.update).
    guides = guide_values(panel, store.header) if store.header else []
    drawn = [v for line in lines for values in (line.values, line.reference or ())
             for v in values]
    axis = fit_axis([*drawn, *(v for _, v in guides), *panel.y_include], log)
    broken = [line.summary.nonfinite_at for line in lines if line.summary.nonfinite_at is not None]
    return PanelFrame(panel=panel, log=log, value_range=(axis.lo, axis.hi), guides=guides,
                      lines=tuple(lines), steps=steps, cursor=cursor,
                      nonfinite_step=steps.start + min(broken) if broken else None)
