"""The reference's own band, and where a run leaves it: `diagnose check`'s third reading.

A run that resembles no break of the catalog is not healthy for that alone: on every series
the run and its reference both record (Panel 1's losses, 2's learning rate, 3's pre-clip norm,
4's activations, 5's singular values, 6's dead units), it must stay inside the band the
reference draws. The band at step s is the range the reference covers within `window` steps of
s (5% of the reference's steps, at least 5: a healthy run of another seed runs a little ahead
or behind it), widened by a margin: `SPREADS` times the reference's own step-to-step spread
there (the median change from one point to the next within the window), or the panel's floor
(`FLOOR`) where that is larger, since another seed wanders further than one run's noise. With a
second reference (another seed of the same setup) the band covers both. Noisy per-step series
(the training loss, the gradient norm) are read through a trailing median of `SMOOTH` steps,
the run's and the references' alike. Ratios are read on a log scale, dead units as counts.

A series read at evaluations (the validation loss, dead units) is banded over the neighbouring
evaluations at least, its spread over two on each side. A run leaves the band on a series when
it stays outside for `HOLD` points in a row (evaluations for those, steps otherwise); how far
is said as the run's value against the reference's at the worst point, and as a multiple of
the reference's step-to-step spread. A reading at step s uses the run up to s and the
reference up to s + window: it never waits for steps the run has not trained.

The floors were drawn on bench/charlm.py's healthy seeds (docs/own-runs.md). stdlib only.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from diagnose.phrases import Phrase

Records = Sequence[dict[str, Any]]
SMOOTH = 9       # trailing median of the noisy per-step series
SPREADS = 4.0    # the margin: this many times the reference's step-to-step spread...
HOLD_STEPS = 10  # points in a row outside the band: per-step series
HOLD_EVALS = 2   # ...and series read at evaluations
# ...or at least this far past the reference's range (natural log for ratios; counts for
# dead heads, a share for dead neurons), per panel and series kind
# (bench/charlm.py's healthy seeds left one reference's range by up to 1.08x on the training
# loss, 1.04x on the validation loss, 1.6x on the gradient norm, 1.4x on an activation, 1.7x
# on a singular value, 3 dead heads of 8 and 12% of the neurons)
FLOOR = {"train_loss": math.log(1.15), "val_loss": math.log(1.05), "lr": math.log(1.02),
         "grad_norm_preclip": math.log(2.0), "act_mean_abs": math.log(1.8),
         "spectral_norm": math.log(1.9), "dead_heads": 3.5, "dead_neurons_frac": 0.2}


@dataclass(frozen=True)
class Departure:
    """Where the run leaves the reference's band on one series."""

    panel: int
    key: str                # the metrics key
    series: str             # the series' name: a matrix, "blocks.0"'s index, ...
    step: int               # the first step of the longest stretch outside
    worst_step: int
    run: float              # the run's value at the worst step (smoothed where the key is)
    reference: float        # the reference's there
    past: float             # how far past the band's edge: a factor for ratios, else a count
    spreads: float          # the same, in the reference's step-to-step spreads (inf: flat)
    of: int = 1             # series of this key outside the band (the worst is named)

    def phrase(self) -> Phrase:
        label = LABELS[self.key]
        values = {"what": label, "series": f" {self.series}" if self.series else "",
                  "step": self.step,
                  "worst": self.worst_step, "run": _fmt(self.run), "ref": _fmt(self.reference),
                  "spreads": "∞" if math.isinf(self.spreads) else
                  f"{self.spreads:.0f}" if self.spreads < 1000 else "> 1000"}
        if self.key in LOG_KEYS:
            values["factor"] = _fmt(self.run / self.reference) if self.reference else "∞"
            text = Phrase("{what}{series} leaves the reference's band from step {step}: at "
                          "step {worst}, {run} against {ref} ({factor}x; {spreads} times the "
                          "reference's step-to-step spread beyond its range)", **values)
        else:
            text = Phrase("{what}{series} leaves the reference's band from step {step}: at "
                          "step {worst}, {run} against {ref} ({spreads} times the reference's "
                          "step-to-step spread beyond its range)", **values)
        if self.of > 1:
            text = Phrase("{text} ({n} series of this panel leave it)", text=text, n=self.of)
        return text


LABELS = {"train_loss": Phrase("training loss"), "val_loss": Phrase("validation loss"),
          "lr": Phrase("learning rate"), "grad_norm_preclip": Phrase("pre-clip gradient norm"),
          "act_mean_abs": Phrase("activations"), "spectral_norm": Phrase("largest singular value"),
          "dead_heads": Phrase("dead heads"), "dead_neurons_frac": Phrase("dead neurons' share")}
LOG_KEYS = ("train_loss", "val_loss", "lr", "grad_norm_preclip", "act_mean_abs", "spectral_norm")
PANELS = {"train_loss": 1, "val_loss": 1, "lr": 2, "grad_norm_preclip": 3, "act_mean_abs": 4,
          "spectral_norm": 5, "dead_heads": 6, "dead_neurons_frac": 6}
SMOOTHED = ("train_loss", "grad_norm_preclip")
AT_EVALUATIONS = ("val_loss", "dead_heads", "dead_neurons_frac")


def _fmt(value: float) -> str:
    if not math.isfinite(value):
        return str(value)
    if value != 0 and (abs(value) >= 1e4 or abs(value) < 1e-2):
        return f"{value:.1e}"
    return f"{value:.3g}"


def _value(key: str, value: Any) -> float | None:
    """A point on the band's scale (log for ratios), or None where nothing is to read."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value):
        return None
    if key in LOG_KEYS:
        return math.log(value) if value > 0 else None
    return float(value)


def _series(records: Records) -> dict[tuple[str, str], list[float | None]]:
    """Every series of `records` on the band's scale, by (key, series name)."""
    out: dict[tuple[str, str], list[float | None]] = {}
    first = records[0] if records else {}
    for key in ("train_loss", "val_loss", "lr", "grad_norm_preclip", "dead_heads",
                "dead_neurons_frac"):
        if key in first and any(r.get(key) is not None for r in records):
            out[(key, "")] = [_value(key, r.get(key)) for r in records]
    acts = first.get("act_mean_abs") or []
    for i in range(len(acts)):
        name = "final norm" if i == len(acts) - 1 else f"#{i}"
        out[("act_mean_abs", name)] = [
            _value("act_mean_abs", (r["act_mean_abs"] or [None] * len(acts))[i])
            if r.get("act_mean_abs") and len(r["act_mean_abs"]) == len(acts) else None
            for r in records]
    for name in first.get("spectral_norm") or {}:
        out[("spectral_norm", name)] = [_value("spectral_norm", (r.get("spectral_norm") or {})
                                               .get(name)) for r in records]
    for (key, _name), values in out.items():
        if key in SMOOTHED:
            values[:] = _trailing_median(values)
    return out


def _trailing_median(values: list[float | None]) -> list[float | None]:
    out: list[float | None] = []
    for i in range(len(values)):
        window = [v for v in values[max(0, i - SMOOTH + 1):i + 1] if v is not None]
        out.append(statistics.median(window) if window else None)
    return out


def window_for(steps: int) -> int:
    """Steps either side of s whose reference values the band at s covers."""
    return max(5, round(steps * 0.05))


def departures(run: Records, references: Sequence[Records],
               keys: Sequence[str] | None = None) -> list[Departure]:
    """Where `run` leaves the band of `references` (one, or two seeds of the same setup), one
    per metrics key (its worst series, with the count of those outside), in panel order.
    `keys`: the keys both record (default: every key the run has)."""
    if not run or not references or not references[0]:
        return []
    mine = _series(run)
    theirs = [_series(r) for r in references]
    window = window_for(len(references[0]))
    found: dict[str, list[Departure]] = {}
    for (key, name), values in mine.items():
        if keys is not None and key not in keys:
            continue
        bands = [t[(key, name)] for t in theirs if (key, name) in t]
        if not bands:
            continue
        departure = _leaves(key, name, values, bands, window, run)
        if departure is not None:
            found.setdefault(key, []).append(departure)
    out = []
    for items in found.values():
        worst = max(items, key=lambda d: (d.spreads, abs(math.log(max(d.past, 1e-12)))))
        out.append(Departure(**{**worst.__dict__, "of": len(items)}))
    return sorted(out, key=lambda d: (d.panel, list(PANELS).index(d.key)))


def _leaves(key: str, name: str, values: list[float | None], bands: list[list[float | None]],
            window: int, run: Records) -> Departure | None:
    floor = FLOOR[key]
    hold = HOLD_EVALS if key in AT_EVALUATIONS else HOLD_STEPS
    main = bands[0]
    if key in AT_EVALUATIONS:  # the neighbouring evaluations, however far apart
        at = [i for i, v in enumerate(main) if v is not None]
        gap = statistics.median(b - a for a, b in zip(at, at[1:], strict=False)) if len(
            at) > 1 else 1
        window = max(window, int(gap))
    stretch: list[tuple[int, float, float, float]] = []  # (index, distance, spread, ref)
    best: list[tuple[int, float, float, float]] = []
    for i, value in enumerate(values):
        if value is None:
            continue
        near = [b[t] for b in bands for t in range(max(0, i - window), min(len(b), i + window + 1))
                if b[t] is not None]
        if not near:
            continue
        spread = _spread(main, i, 2 * window if key in AT_EVALUATIONS else window)
        margin = max(floor, SPREADS * spread)
        low, high = min(near) - margin, max(near) + margin
        distance = value - high if value > high else low - value if value < low else 0.0
        if distance > 0:
            ref = main[i] if i < len(main) and main[i] is not None else statistics.median(near)
            stretch.append((i, distance, spread, ref))
            if len(stretch) > len(best) or (len(stretch) == len(best) and stretch[-1][1] > max(
                    p[1] for p in best)):
                best = list(stretch)
        else:
            stretch = []
    if len(best) < hold:
        return None
    index, distance, spread, ref = max(best, key=lambda p: p[1])
    is_log = key in LOG_KEYS
    value = values[index]
    assert value is not None
    return Departure(
        panel=PANELS[key], key=key, series=name, step=int(run[best[0][0]]["step"]),
        worst_step=int(run[index]["step"]),
        run=math.exp(value) if is_log else value, reference=math.exp(ref) if is_log else ref,
        past=math.exp(distance) if is_log else distance,
        spreads=(distance + max(floor, SPREADS * spread)) / spread if spread > 0 else math.inf)


def _spread(values: list[float | None], i: int, window: int) -> float:
    """The reference's step-to-step spread around index i: the median absolute change from
    one point to the next (points that are None, between evaluations, are skipped)."""
    points = [v for v in values[max(0, i - window):i + window + 1] if v is not None]
    changes = [abs(b - a) for a, b in zip(points, points[1:], strict=False)]
    return statistics.median(changes) if changes else 0.0



