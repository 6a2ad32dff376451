"""The figures: every number a break's signature, the reveal and the fidelity checks read off a
run's metrics against its reference's (architecture §6), defined here once.

`figures(run, reference, header)` gives them all by name; `figure_names()` the names, which a
break's `[[promises]]` may bound (`diagnose.diagnosis.signatures` checks them when it loads a
break). It
reads records (the metrics file's, `diagnose.metrics`) and nothing of the config or of any
break: which break a run holds is `diagnose.diagnosis.diagnostician`'s to say. stdlib only.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from diagnose.metrics import (
    ACT_MEAN_ABS,
    DEAD_HEADS,
    DEAD_NEURONS_FRAC,
    GRAD_NORM_POSTCLIP,
    GRAD_NORM_PRECLIP,
    LR,
    SPECTRAL_NORM,
    STEP,
    TRAIN_LOSS,
    VAL_LOSS,
    StepRecord,
)

EARLY = range(1, 6)   # the steps where a missing warmup shows (steps 1-5)
FIRST = range(0, 6)   # steps 0-5

Records = Sequence[Mapping[str, Any]]  # a run's step records (`diagnose.metrics.StepRecord`)


def _finite(values: Sequence[Any]) -> list[float]:
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def ratio(a: float, b: float) -> float:
    if not (math.isfinite(a) and math.isfinite(b)) or b <= 0:
        return math.inf if (math.isfinite(b) and b <= 0 and a > 0) or math.isinf(a) else math.nan
    return a / b


def _last(records: Records, key: str) -> float:
    values = _finite([r[key] for r in records if r[key] is not None])
    return values[-1] if values else math.nan


def _spectral(record: Mapping[str, Any]) -> list[float]:
    return _finite(list(record[SPECTRAL_NORM].values())) if record[SPECTRAL_NORM] else []


def figures(run: Records, reference: Records, header: dict[str, Any]) -> dict[str, float]:
    """Every signature figure of architecture §6 for `run` against `reference`."""
    return {**_lab_figures(run, reference, header), **_deck_figures(run, reference, header),
            **_quoted_figures(run, reference, header)}


_BLANK: StepRecord = {"step": 0, "lr": math.nan, "train_loss": math.nan, "val_loss": None,
                      "grad_norm_preclip": math.nan, "grad_norm_postclip": math.nan,
                      "act_mean_abs": [], "spectral_norm": {}, "dead_heads": None,
                      "dead_neurons_frac": None}


@functools.cache
def figure_names() -> frozenset[str]:
    """The names `figures` gives, the same for every run: what a break's `[[promises]]` may
    bound (read off a blank step, so no run is needed to check a break.toml)."""
    return frozenset(figures([_BLANK], [_BLANK], {"lr_max": 1.0, "entropy_floor": 1.0}))


def _lab_figures(run: Records, reference: Records, header: dict[str, Any]) -> dict[str, float]:
    """The lab's figures (level 1's breaks)."""
    lr_max = header["lr_max"]
    floor = header["entropy_floor"]
    n = min(len(run), len(reference))
    fig: dict[str, float] = {}
    fig["loss0"] = run[0][TRAIN_LOSS]
    fig["loss0_ratio"] = ratio(run[0][TRAIN_LOSS], reference[0][TRAIN_LOSS])
    fig["act0_ratio"] = ratio(max(_finite(run[0][ACT_MEAN_ABS] or []), default=math.nan),
                               max(_finite(reference[0][ACT_MEAN_ABS] or []), default=math.nan))
    fig["residual0_ratio"] = ratio(_act_at(run, 0, -2), _act_at(reference, 0, -2))
    fig["grad_early_ratio"] = ratio(
        max(_finite([run[s][GRAD_NORM_PRECLIP] for s in FIRST if s < n]), default=math.nan),
        max(_finite([reference[s][GRAD_NORM_PRECLIP] for s in FIRST if s < n]),
            default=math.nan))
    fig["spectral0_ratio"] = ratio(statistics.median(_spectral(run[0]) or [math.nan]),
                                    statistics.median(_spectral(reference[0]) or [math.nan]))
    fig["lr0_frac"] = run[0][LR] / lr_max
    fig["ref_lr0_frac"] = reference[0][LR] / lr_max
    excess = [run[s][TRAIN_LOSS] - reference[s][TRAIN_LOSS] for s in EARLY if s < n]
    fig["early_excess"] = max(_finite(excess), default=math.nan)
    fig["spectral_jump"] = _jump(run)
    fig["ref_spectral_jump"] = _jump(reference)
    fig["final_val"] = _last(run, VAL_LOSS)
    fig["ref_final_val"] = _last(reference, VAL_LOSS)
    fig["final_train"] = _last(run, TRAIN_LOSS)
    fig["final_ratio"] = ratio(fig["final_val"], fig["ref_final_val"])
    fig["val_floor_ratio"] = ratio(fig["final_val"], floor)
    fig["train_floor_ratio"] = ratio(fig["final_train"], floor)
    fig["dead_heads"] = _last(run, DEAD_HEADS)
    fig["ref_dead_heads"] = _last(reference, DEAD_HEADS)
    return fig


def _deck_figures(run: Records, reference: Records, header: dict[str, Any]) -> dict[str, float]:
    """The deck's figures (levels 2 and 3)."""
    floor = header["entropy_floor"]
    fig: dict[str, float] = {}
    fig["lr0_ratio"] = ratio(run[0][LR], reference[0][LR])
    fig["lr_peak_ratio"] = ratio(max(_finite([r[LR] for r in run]), default=math.nan),
                                  max(_finite([r[LR] for r in reference]), default=math.nan))
    fig["least_moved"] = _least_moved(run)
    fig["ref_least_moved"] = _least_moved(reference)
    fig["clip_share"] = _clip_share(run)
    fig["ref_clip_share"] = _clip_share(reference)
    fig["first_val_floor_ratio"] = ratio(_first_val(run), floor)
    fig["ref_first_val_floor_ratio"] = ratio(_first_val(reference), floor)
    fig["residual_end_ratio"] = ratio(_act_at(run, -1, -2), _act_at(reference, -1, -2))
    fig["ln_f_end_ratio"] = ratio(_act_at(run, -1, -1), _act_at(reference, -1, -1))
    return fig


def _quoted_figures(run: Records, reference: Records, header: dict[str, Any]
                    ) -> dict[str, float]:
    """What the reveal quotes of every panel (architecture §6): the run's own numbers."""
    floor = header["entropy_floor"]
    fig: dict[str, float] = {}
    fig["lr_peak"] = max(_finite([r[LR] for r in run]), default=math.nan)
    fig["ref_lr_peak"] = max(_finite([r[LR] for r in reference]), default=math.nan)
    fig["lr_peak_step"] = _peak_step(run)
    fig["ref_lr_peak_step"] = _peak_step(reference)
    fig["grad_peak_step"] = _argmax(run, GRAD_NORM_PRECLIP)
    fig["grad_median_ratio"] = ratio(_median(run, GRAD_NORM_PRECLIP),
                                      _median(reference, GRAD_NORM_PRECLIP))
    fig["spectral0_min_ratio"], fig["spectral0_max_ratio"] = _spectral_spread(run, reference, 0)
    fig["spectral_end_min_ratio"], fig["spectral_end_max_ratio"] = _spectral_spread(
        run, reference, -1)
    fig["dead_heads_peak"] = _peak(run, DEAD_HEADS)
    fig["ref_dead_heads_peak"] = _peak(reference, DEAD_HEADS)
    fig["dead_neurons_end"] = _last(run, DEAD_NEURONS_FRAC)
    fig["ref_dead_neurons_end"] = _last(reference, DEAD_NEURONS_FRAC)
    fig["train_below_floor"] = sum(1 for r in run if _finite([r[TRAIN_LOSS]])
                                   and r[TRAIN_LOSS] < floor)
    return fig


def _median(records: Records, key: str) -> float:
    values = _finite([r[key] for r in records])
    return statistics.median(values) if values else math.nan


def _argmax(records: Records, key: str) -> float:
    values = [(v, r[STEP]) for r in records for v in _finite([r[key]])]
    return float(max(values)[1]) if values else math.nan


def _peak(records: Records, key: str) -> float:
    return max(_finite([r[key] for r in records if r[key] is not None]), default=math.nan)


def _peak_step(records: Records) -> float:
    """Panel 2: the first step at the schedule's peak (the end of the warmup)."""
    peak = max(_finite([r[LR] for r in records]), default=math.nan)
    return float(next((r[STEP] for r in records if r[LR] >= peak * (1 - 1e-6)), math.nan))


def _spectral_spread(run: Records, reference: Records, at: int) -> tuple[float, float]:
    """Panel 5 at step 0 (`at` 0) or the last step (-1): the smallest and the largest ratio of
    one matrix's largest singular value to the same matrix's in the reference."""
    if not run or not reference or not run[at][SPECTRAL_NORM] or not reference[at][
            SPECTRAL_NORM]:
        return math.nan, math.nan
    mine, theirs = run[at][SPECTRAL_NORM], reference[at][SPECTRAL_NORM]
    ratios = _finite([ratio(mine[k], theirs[k]) for k in mine if k in theirs])
    return (min(ratios), max(ratios)) if ratios else (math.nan, math.nan)


def _least_moved(records: Records) -> float:
    """Panel 5: the smallest relative change of a matrix's largest singular value over the run
    (first step to last). A matrix the training never updates stays where it started."""
    if len(records) < 2 or not records[0][SPECTRAL_NORM] or not records[-1][SPECTRAL_NORM]:
        return math.nan
    first, last = records[0][SPECTRAL_NORM], records[-1][SPECTRAL_NORM]
    moves = [abs(last[k] / first[k] - 1) for k in first
             if math.isfinite(first[k]) and math.isfinite(last[k]) and first[k] > 0]
    return min(moves, default=math.nan)


def _clip_share(records: Records) -> float:
    """Panel 3: the share of steps whose gradient was clipped (post-clip below pre-clip)."""
    clipped = [r[GRAD_NORM_POSTCLIP] < r[GRAD_NORM_PRECLIP] for r in records
               if math.isfinite(r[GRAD_NORM_PRECLIP]) and math.isfinite(r[GRAD_NORM_POSTCLIP])]
    return sum(clipped) / len(clipped) if clipped else math.nan


def _first_val(records: Records) -> float:
    """Panel 1: the validation loss at the first evaluation after step 0."""
    vals = [r[VAL_LOSS] for r in records[1:] if r[VAL_LOSS] is not None]
    return vals[0] if vals and math.isfinite(vals[0]) else math.nan


def _act_at(records: Records, step: int, index: int) -> float:
    """Panel 4 at record `step` (0 the first, -1 the last): series `index` (-1 after the final
    LN, -2 the residual stream after the last block)."""
    acts = records[step][ACT_MEAN_ABS] if records else None
    if not acts or not math.isfinite(acts[index]):
        return math.nan
    return float(acts[index])


def _jump(records: Records) -> float:
    """Largest relative growth of a matrix's top singular value in the first update."""
    if len(records) < 2 or not records[0][SPECTRAL_NORM]:
        return math.nan
    before, after = records[0][SPECTRAL_NORM], records[1][SPECTRAL_NORM]
    growth = [after[k] / before[k] - 1 for k in before
              if math.isfinite(before[k]) and math.isfinite(after[k]) and before[k] > 0]
    return max(growth, default=math.nan)
