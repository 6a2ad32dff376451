"""The six dashboard panels (architecture §4) as data: what each draws, in which words, on
which scale.

One definition serves every view of a run (the HTML dashboard, `diagnose show`, the TUI): a
`Panel` has a number, a title and an axis label (`Phrase`s: the catalogs translate them), a log
or linear y axis,
its `Series` (how to read each one from a metrics record) and its `Guide` lines (the entropy
floor, the clip threshold). Helpers turn records into plain value lists and format numbers the
same way everywhere.

Left out on purpose: colours, widths, markup, terminal styles. A series only says which colour
*family* (`group`) and which line style within it (`variant`) it belongs to; each view maps
those to its own palette. Nothing here depends on which break a run holds: every run gets the
same panels, the same series and the same words. stdlib only (plus the catalog, for the sizes
of the model).

Value conventions: a series' values are aligned with the records; `None` means "not measured
at this step" (val loss and dead units are measured every `eval_every` steps); NaN and ±inf
are kept, they are data (a diverging run keeps its steps).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from diagnose.phrases import Phrase
from diagnose.views.ticks import nice_step
from scenarios.langs import LANGS
from scenarios.numbers import number, percent
from scenarios.words import N_

Record = dict[str, Any]
Text = Mapping[str, str]  # a `Phrase`: the same text in every language

# The weight matrices of one block, in the order the forward pass meets them; their colour
# family in Panel 5 is their position here (+1: the embedding is family 0).
BLOCK_MATRICES = ("attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj")


@dataclass(frozen=True)
class Series:
    """One line of a panel."""

    key: str                                   # stable id, e.g. "grad_norm_preclip"
    label: Text
    read: Callable[[Record], float | None]     # the value at one step (None: not measured)
    group: int = 0                             # colour family
    variant: int = 0                           # line style within the family (0 solid)
    sparse: bool = False                       # measured every eval_every steps only
    total: int | None = None                   # a count out of `total`, drawn as a percentage
    unit: str = ""                             # appended when formatting ("%")
    # A summary of other series (panels.envelope, panels.per_layer): which of them it shows
    # at a step, by name (None: none measured there).
    which: Callable[[Record], str | None] | None = None

    def values(self, records: Sequence[Record]) -> list[float | None]:
        return [self.read(r) for r in records]

    def plotted(self, value: float) -> float:
        """The value on the panel's y axis (a count out of `total` becomes a percentage)."""
        return value * 100.0 / self.total if self.total else value

    def format(self, value: float | None, lang: str = "en") -> str:
        """One value as the views print it: "0.3412", "1.23e+4", "NaN", "2/8", "6.25%" (in
        Spanish "0,3412", "6,25 %")."""
        if value is None:
            return "–"
        if self.total and math.isfinite(value):
            return f"{number(lang, value, 'g')}/{self.total}"
        if self.unit == "%" and math.isfinite(value):  # the language's percent pattern
            return percent(lang, format_number(value, lang))
        return format_number(value, lang) + (self.unit if math.isfinite(value) else "")

    def label_in(self, lang: str) -> str:
        return self.label[lang]


@dataclass(frozen=True)
class Guide:
    """A horizontal reference line drawn across a panel, its value taken from the header."""

    key: str
    label: Text
    read: Callable[[dict[str, Any]], float | None]


@dataclass(frozen=True)
class Panel:
    """One of the six panels: its series share one y axis, log or linear."""

    number: int                                # 1-6, as architecture §4 and the reveal number them
    key: str                                   # stable id: loss, lr, grad, act, spectral, dead
    title: Text
    y_label: Text
    log: bool
    series: tuple[Series, ...]
    guides: tuple[Guide, ...] = ()
    # Values a linear axis always spans, so that small counts do not fill the panel.
    y_include: tuple[float, ...] = ()

    def title_in(self, lang: str) -> str:
        return f"{self.number} · {self.title[lang]}"


def format_number(value: float, lang: str = "en") -> str:
    """4 significant digits, scientific outside [1e-3, 1e4); NaN and ±inf spelled out; the
    symbols `lang`'s (`scenarios.numbers`)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    size = abs(value)
    if size and (size >= 1e4 or size < 1e-3):
        mantissa, exponent = f"{value:.2e}".split("e")
        return f"{number(lang, float(mantissa), '.2f')}e{int(exponent):+d}"
    return number(lang, value, ".4g")



def finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def first_nonfinite(values: Sequence[float | None]) -> int | None:
    """The index of the first NaN or ±inf value, or None if every measured value is finite."""
    for index, value in enumerate(values):
        if value is not None and not math.isfinite(value):
            return index
    return None


@dataclass(frozen=True)
class Summary:
    """What a view prints next to a series: its first and last measured values, its finite
    extremes, and where it first stopped being finite (an index into the values)."""

    first: float | None
    last: float | None
    low: float | None
    high: float | None
    nonfinite_at: int | None


def summarize(values: Sequence[float | None]) -> Summary:
    measured = [v for v in values if v is not None]
    finite_values = [v for v in measured if math.isfinite(v)]
    return Summary(first=measured[0] if measured else None,
                   last=measured[-1] if measured else None,
                   low=min(finite_values) if finite_values else None,
                   high=max(finite_values) if finite_values else None,
                   nonfinite_at=first_nonfinite(values))


def _item(key: str) -> Callable[[Record], float | None]:
    return lambda record: record[key]


def _at(key: str, index: int) -> Callable[[Record], float | None]:
    return lambda record: record[key][index]


def _spectral(name: str) -> Callable[[Record], float | None]:
    return lambda record: record["spectral_norm"].get(name)


def _percent(key: str) -> Callable[[Record], float | None]:
    return lambda record: None if record[key] is None else record[key] * 100.0


def _same(name: str) -> Text:
    """A name every language writes alike (a matrix's, `lr_max`): no message to translate."""
    return dict.fromkeys(LANGS, name)


@functools.lru_cache(maxsize=8)
def build_panels(n_layers: int, heads_total: int, neurons_total: int) -> tuple[Panel, ...]:
    """The six panels for a model of `n_layers` blocks with that many heads and MLP neurons."""
    acts = tuple(
        Series(f"act.{i}", Phrase("residual after block h.{layer}", layer=i),
               _at("act_mean_abs", i), group=i)
        for i in range(n_layers))
    acts += (Series("act.ln_f", Phrase("final LN output (ln_f)"),
                    _at("act_mean_abs", n_layers), group=n_layers),)
    spectral = (Series("wte", Phrase("wte (embedding = LM head)"), _spectral("wte")),)
    spectral += tuple(
        Series(f"h.{i}.{m}", _same(f"h.{i}.{m}"), _spectral(f"h.{i}.{m}.weight"),
               group=1 + j, variant=i)
        for i in range(n_layers) for j, m in enumerate(BLOCK_MATRICES))
    return (
        Panel(1, "loss", Phrase("Loss"), Phrase("loss (nats)"), True,
              (Series("train_loss", Phrase("train"), _item("train_loss")),
               Series("val_loss", Phrase("validation"), _item("val_loss"), group=1,
                      sparse=True)),
              (Guide("entropy_floor", Phrase("entropy floor"), _item("entropy_floor")),
               Guide("ln_vocab", Phrase("ln(vocab): a uniform guess"), _item("ln_vocab")))),
        Panel(2, "lr", Phrase("Learning rate"), Phrase("learning rate"), False,
              (Series("lr", Phrase("learning rate"), _item("lr")),),
              (Guide("lr_max", _same("lr_max"), _item("lr_max")),)),
        Panel(3, "grad", Phrase("Gradient norm"), Phrase("global L2 norm"), True,
              (Series("grad_norm_preclip", Phrase("before clipping"),
                      _item("grad_norm_preclip")),
               Series("grad_norm_postclip", Phrase("after clipping"),
                      _item("grad_norm_postclip"), group=1)),
              (Guide("grad_clip", Phrase("clip threshold"), lambda header: clip_threshold()),)),
        Panel(4, "act", Phrase("Activations"), Phrase("mean |x|"), True, acts),
        Panel(5, "spectral", Phrase("Spectral norm"), Phrase("largest singular value σ"), True,
              spectral),
        Panel(6, "dead", Phrase("Dead units"), Phrase("% dead"), False,
              (Series("dead_heads", Phrase("attention heads (of {total})", total=heads_total),
                      _item("dead_heads"), sparse=True, total=heads_total),
               Series("dead_neurons", Phrase("MLP neurons (% of {total})", total=neurons_total),
                      _percent("dead_neurons_frac"), group=1, sparse=True, unit="%")),
              y_include=(0.0, 25.0)),
    )


# --- Summaries: a panel with more series than a view has rows for (a 12-layer model's
# matrices) draws, per layer, the largest, the median and the smallest, each naming the series
# it shows at a step; when even that does not fit, the largest and smallest of all.

SUMMARY_PICKS = {  # key suffix -> (its label, rank among the sorted values: 0 first, -1 last)
    "max": (N_("{scope} largest"), -1), "med": (N_("{scope} median"), None),
    "min": (N_("{scope} smallest"), 0)}
LAYER_SUMMARY = ("max", "med", "min")
SCROLL_ROWS = 40  # the most series a view with room to scroll (the detail view, `show`) draws


def matrix_layer(name: str) -> str | None:
    """The layer a series belongs to: its name up to its first all-digit part (`h.3.mlp.c_fc`
    -> `h.3`, `blocks.11.attn.qkv.weight` -> `blocks.11`); None outside any layer (`wte`)."""
    parts = name.split(".")
    for index, part in enumerate(parts):
        if part.isascii() and part.isdigit():
            return ".".join(parts[:index + 1])
    return None


def _ranked(members: Sequence[Series], record: Record) -> list[tuple[float, str]]:
    """The members' measured values at one step, smallest first; a NaN anywhere makes the
    summary NaN (a diverging matrix must show), named after the first NaN member."""
    measured = [(value, s.key) for s in members if (value := s.read(record)) is not None]
    broken = [pair for pair in measured if math.isnan(pair[0])]
    return broken[:1] if broken else sorted(measured)


def _picker(members: Sequence[Series], rank: int | None) -> tuple[Callable, Callable]:
    def chosen(record: Record) -> tuple[float, str] | None:
        ranked = _ranked(members, record)
        if not ranked:
            return None
        return ranked[(len(ranked) - 1) // 2 if rank is None else rank]  # the lower median:
        # a median that is one of the members, so that it has a name

    def read(record: Record) -> float | None:
        pair = chosen(record)
        return None if pair is None else pair[0]

    def which(record: Record) -> str | None:
        pair = chosen(record)
        return None if pair is None else pair[1]
    return read, which


def summary(members: Sequence[Series], key: str, scope: Text, picks: Sequence[str],
            group: int = 0) -> tuple[Series, ...]:
    """Series that each show one of `picks` ("max", "med", "min") over `members` at every
    step; `key` must be unique across panels (RunStore caches values by key)."""
    out = []
    for variant, pick in enumerate(picks):
        message, rank = SUMMARY_PICKS[pick]
        read, which = _picker(tuple(members), rank)
        out.append(Series(f"{key}.{pick}", Phrase(message, scope=scope), read, group=group,
                          variant=variant, which=which))
    return tuple(out)


def envelope(panel: Panel) -> tuple[Series, ...]:
    """The largest and smallest of all the panel's series at each step."""
    count = len(panel.series)
    top, bottom = summary(panel.series, f"{panel.key}.envelope", _same(""), ("max", "min"))
    return (dataclasses.replace(top, label=Phrase("largest of the {count}", count=count)),
            dataclasses.replace(bottom, group=1, variant=0,
                                label=Phrase("smallest of the {count}", count=count)))


def per_layer(panel: Panel) -> tuple[Series, ...]:
    """Per layer (`matrix_layer`), its series themselves when they are at most three, else
    their largest, median and smallest; the series outside any layer likewise, first."""
    layers: dict[str | None, list[Series]] = {}
    for series in panel.series:
        layers.setdefault(matrix_layer(series.key), []).append(series)
    out: list[Series] = []
    for index, (layer, members) in enumerate(layers.items()):
        if len(members) <= len(LAYER_SUMMARY):
            out += members
            continue
        scope = _same(layer) if layer else Phrase("outside the layers:")
        out += summary(members, f"{panel.key}.layer.{layer or ''}", scope, LAYER_SUMMARY,
                       group=index)
    return tuple(out)


def named(series: Series, record: Record | None, lang: str) -> str:
    """A series' label, and for a summary the series it shows in `record` (within its layer,
    the layer's prefix dropped): "h.3 largest: mlp.c_fc"."""
    label = series.label[lang]
    shows = series.which(record) if series.which and record is not None else None
    if shows is None:
        return label
    layer = matrix_layer(shows)
    if layer and label.startswith(layer + " "):
        shows = shows.removeprefix(layer + ".")
    return f"{label}: {shows}"


def series_for_rows(panel: Panel, rows: int | None, per_row: int = 1) -> tuple[Series, ...]:
    """The panel's series if `rows` holds them (`per_row` rows each: 2 with the reference
    overlaid), else the per-layer summary if it holds that, else the envelope of them all.
    `rows` None: no limit."""
    full = panel.series
    if rows is None or len(full) <= 2 or len(full) * per_row <= rows:
        return full
    layered = per_layer(panel)
    if len(layered) < len(full) and len(layered) * per_row <= rows:
        return layered
    return envelope(panel)


def clip_threshold() -> float:
    """Panel 3's threshold: the healthy config's, which no break changes (metrics omit it)."""
    from scenarios import healthy_config

    return healthy_config().grad_clip


def panels_for(records: Sequence[Record]) -> tuple[Panel, ...]:
    """The panels for these records: the block count comes from the data, the head and neuron
    totals from the healthy config (the metrics record counts, not totals)."""
    from scenarios import healthy_config

    config = healthy_config()
    n_layers = len(records[0]["act_mean_abs"]) - 1 if records else config.n_layers
    return build_panels(n_layers, n_layers * config.n_heads, n_layers * config.d_ff)


def guide_values(panel: Panel, header: dict[str, Any]) -> list[tuple[Guide, float]]:
    """The panel's guides that have a finite value in this header."""
    out = []
    for guide in panel.guides:
        value = guide.read(header)
        if finite(value):
            out.append((guide, float(value)))
    return out


# --- Scales: where a value sits on a panel's y axis, shared so every view draws alike. -------

@dataclass(frozen=True)
class Axis:
    """A fitted y axis from `lo` to `hi`, on a log or linear scale."""

    lo: float
    hi: float
    log: bool

    def fraction(self, value: float | None) -> float | None:
        """Where `value` sits between lo (0) and hi (1); None if it cannot be drawn here
        (missing, NaN, ±inf, or ≤ 0 on a log axis)."""
        if not finite(value) or (self.log and value <= 0):
            return None
        if self.log:
            return (math.log10(value) - math.log10(self.lo)) / (
                math.log10(self.hi) - math.log10(self.lo))
        return (value - self.lo) / (self.hi - self.lo)


def _snap_down(value: float) -> float:
    power = 10 ** math.floor(math.log10(value))
    return max(m * power for m in (1, 2, 5) if m * power <= value * (1 + 1e-9))


def _snap_up(value: float) -> float:
    power = 10 ** math.floor(math.log10(value))
    return min(m * power for m in (1, 2, 5, 10) if m * power >= value * (1 - 1e-9))


AXIS_LIMIT = 1e300


def fit_axis(values: Iterable[float | None], log: bool) -> Axis:
    """An axis holding every drawable value, ending at nice numbers. A linear axis starts at
    0 (learning rates and dead shares are read against zero); a log axis spans at least one
    decade, so a flat curve is drawn flat instead of as magnified noise."""
    # Finite values beyond these (a hand-edited file, a float64 overflow's neighbours) are
    # drawn at the axis's end: its nice ends and ticks would overflow or underflow a float.
    values = [max(-AXIS_LIMIT, min(v, AXIS_LIMIT)) for v in values if finite(v)]
    if log:
        positive = [max(v, 1 / AXIS_LIMIT) for v in values if v > 0]
        if not positive:
            return Axis(0.1, 10.0, True)
        lo, hi = min(positive), max(positive)
        if hi / lo < 10:
            middle = math.sqrt(lo) * math.sqrt(hi)  # lo * hi may overflow
            lo, hi = min(lo, middle / math.sqrt(10)), max(hi, middle * math.sqrt(10))
        return Axis(_snap_down(lo), _snap_up(hi), True)
    lo, hi = min([0.0, *values]), max([0.0, *values])
    if hi - lo <= 0:
        hi = lo + 1.0
    step = nice_step(hi - lo, 5)
    return Axis(math.floor(lo / step) * step, math.ceil(hi / step - 1e-9) * step, False)


def panel_axis(panel: Panel, runs: Iterable[Sequence[Sequence[float | None]]],
               extra: Iterable[float] = ()) -> Axis:
    """The y axis of `panel` for one or more runs (each a list of value lists aligned with
    `panel.series`, as `Series.values` gives them), plus any `extra` values (guides)."""
    plotted = [series.plotted(v) for run in runs
               for series, values in zip(panel.series, run, strict=True)
               for v in values if v is not None]
    return fit_axis([*plotted, *extra, *panel.y_include], panel.log)
