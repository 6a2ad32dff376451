"""The automatic diagnostician: names a run's break from its metrics and its reference's alone.

It reads exactly what a student can read on the dashboard (the six panels' series of a run and
of the scenario's healthy reference) and nothing of the config, and says which break the run
most likely holds, how sure it is, and the numbers that decided, panel by panel. It is the
fidelity test (every break must be named on every seed the tests try), the dealer's check
that a scenario's runs can be told apart, and the source of the reveal's and the grader's
numbers. Each break's vote and findings are its own code, in its folder's `signature.py`
(`diagnose/signatures.py` finds them); the figures they read are defined here, once. stdlib
only: the reveal uses it without numpy, and the grader never loads it.

The thresholds sit well inside the calibrated ranges (bench/fidelity.py prints them per seed);
they are properties of the arithmetic, not of any one seed.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from diagnose.signatures import Finding, said, said_n, signature
from scenarios import HEALTHY  # the verdict of no break: the catalog's one name for it

EARLY = range(1, 6)   # the steps where a missing warmup shows (steps 1-5)
FIRST = range(0, 6)   # steps 0-5

Records = Sequence[dict[str, Any]]
FROZEN_MOVE = 0.003  # a matrix whose largest singular value moved less over the run is frozen


@dataclass(frozen=True)
class Diagnosis:
    slug: str                     # a break slug, or "healthy"
    confidence: float             # 0..1
    findings: list[Finding] = field(default_factory=list)  # those that decided, first
    figures: dict[str, float] = field(default_factory=dict)

    def lines(self, lang: str = "en") -> list[str]:
        return [f"Panel {f.panel}: {f.text[lang]}" for f in self.findings]  # "Panel" in both


def _finite(values: Sequence[Any]) -> list[float]:
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def _ratio(a: float, b: float) -> float:
    if not (math.isfinite(a) and math.isfinite(b)) or b <= 0:
        return math.inf if (math.isfinite(b) and b <= 0 and a > 0) or math.isinf(a) else math.nan
    return a / b


def _last(records: Records, key: str) -> float:
    values = _finite([r[key] for r in records if r[key] is not None])
    return values[-1] if values else math.nan


def _spectral(record: dict[str, Any]) -> list[float]:
    return _finite(list(record["spectral_norm"].values())) if record["spectral_norm"] else []


def figures(run: Records, reference: Records, header: dict[str, Any]) -> dict[str, float]:
    """Every signature figure of architecture §6 for `run` against `reference`."""
    return {**_lab_figures(run, reference, header), **_deck_figures(run, reference, header),
            **_quoted_figures(run, reference, header)}


_BLANK = {"step": 0, "lr": math.nan, "train_loss": math.nan, "val_loss": None,
          "grad_norm_preclip": math.nan, "grad_norm_postclip": math.nan, "act_mean_abs": [],
          "spectral_norm": {}, "dead_heads": None, "dead_neurons_frac": None}


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
    fig["loss0"] = run[0]["train_loss"]
    fig["loss0_ratio"] = _ratio(run[0]["train_loss"], reference[0]["train_loss"])
    fig["act0_ratio"] = _ratio(max(_finite(run[0]["act_mean_abs"] or []), default=math.nan),
                               max(_finite(reference[0]["act_mean_abs"] or []), default=math.nan))
    fig["residual0_ratio"] = _ratio(_act_at(run, 0, -2), _act_at(reference, 0, -2))
    fig["grad_early_ratio"] = _ratio(
        max(_finite([run[s]["grad_norm_preclip"] for s in FIRST if s < n]), default=math.nan),
        max(_finite([reference[s]["grad_norm_preclip"] for s in FIRST if s < n]),
            default=math.nan))
    fig["spectral0_ratio"] = _ratio(statistics.median(_spectral(run[0]) or [math.nan]),
                                    statistics.median(_spectral(reference[0]) or [math.nan]))
    fig["lr0_frac"] = run[0]["lr"] / lr_max
    fig["ref_lr0_frac"] = reference[0]["lr"] / lr_max
    excess = [run[s]["train_loss"] - reference[s]["train_loss"] for s in EARLY if s < n]
    fig["early_excess"] = max(_finite(excess), default=math.nan)
    fig["spectral_jump"] = _jump(run)
    fig["ref_spectral_jump"] = _jump(reference)
    fig["final_val"] = _last(run, "val_loss")
    fig["ref_final_val"] = _last(reference, "val_loss")
    fig["final_train"] = _last(run, "train_loss")
    fig["final_ratio"] = _ratio(fig["final_val"], fig["ref_final_val"])
    fig["val_floor_ratio"] = _ratio(fig["final_val"], floor)
    fig["train_floor_ratio"] = _ratio(fig["final_train"], floor)
    fig["dead_heads"] = _last(run, "dead_heads")
    fig["ref_dead_heads"] = _last(reference, "dead_heads")
    return fig


def _deck_figures(run: Records, reference: Records, header: dict[str, Any]) -> dict[str, float]:
    """The deck's figures (levels 2 and 3)."""
    floor = header["entropy_floor"]
    fig: dict[str, float] = {}
    fig["lr0_ratio"] = _ratio(run[0]["lr"], reference[0]["lr"])
    fig["lr_peak_ratio"] = _ratio(max(_finite([r["lr"] for r in run]), default=math.nan),
                                  max(_finite([r["lr"] for r in reference]), default=math.nan))
    fig["least_moved"] = _least_moved(run)
    fig["ref_least_moved"] = _least_moved(reference)
    fig["clip_share"] = _clip_share(run)
    fig["ref_clip_share"] = _clip_share(reference)
    fig["first_val_floor_ratio"] = _ratio(_first_val(run), floor)
    fig["ref_first_val_floor_ratio"] = _ratio(_first_val(reference), floor)
    fig["residual_end_ratio"] = _ratio(_act_at(run, -1, -2), _act_at(reference, -1, -2))
    fig["ln_f_end_ratio"] = _ratio(_act_at(run, -1, -1), _act_at(reference, -1, -1))
    return fig


def _quoted_figures(run: Records, reference: Records, header: dict[str, Any]
                    ) -> dict[str, float]:
    """What the reveal quotes of every panel (architecture §6): the run's own numbers."""
    floor = header["entropy_floor"]
    fig: dict[str, float] = {}
    fig["lr_peak"] = max(_finite([r["lr"] for r in run]), default=math.nan)
    fig["ref_lr_peak"] = max(_finite([r["lr"] for r in reference]), default=math.nan)
    fig["lr_peak_step"] = _peak_step(run)
    fig["ref_lr_peak_step"] = _peak_step(reference)
    fig["grad_peak_step"] = _argmax(run, "grad_norm_preclip")
    fig["grad_median_ratio"] = _ratio(_median(run, "grad_norm_preclip"),
                                      _median(reference, "grad_norm_preclip"))
    fig["spectral0_min_ratio"], fig["spectral0_max_ratio"] = _spectral_spread(run, reference, 0)
    fig["spectral_end_min_ratio"], fig["spectral_end_max_ratio"] = _spectral_spread(
        run, reference, -1)
    fig["dead_heads_peak"] = _peak(run, "dead_heads")
    fig["ref_dead_heads_peak"] = _peak(reference, "dead_heads")
    fig["dead_neurons_end"] = _last(run, "dead_neurons_frac")
    fig["ref_dead_neurons_end"] = _last(reference, "dead_neurons_frac")
    fig["train_below_floor"] = sum(1 for r in run if _finite([r["train_loss"]])
                                   and r["train_loss"] < floor)
    return fig


def _median(records: Records, key: str) -> float:
    values = _finite([r[key] for r in records])
    return statistics.median(values) if values else math.nan


def _argmax(records: Records, key: str) -> float:
    values = [(v, r["step"]) for r in records for v in _finite([r[key]])]
    return float(max(values)[1]) if values else math.nan


def _peak(records: Records, key: str) -> float:
    return max(_finite([r[key] for r in records if r[key] is not None]), default=math.nan)


def _peak_step(records: Records) -> float:
    """Panel 2: the first step at the schedule's peak (the end of the warmup)."""
    peak = max(_finite([r["lr"] for r in records]), default=math.nan)
    return float(next((r["step"] for r in records if r["lr"] >= peak * (1 - 1e-6)), math.nan))


def _spectral_spread(run: Records, reference: Records, at: int) -> tuple[float, float]:
    """Panel 5 at step 0 (`at` 0) or the last step (-1): the smallest and the largest ratio of
    one matrix's largest singular value to the same matrix's in the reference."""
    if not run or not reference or not run[at]["spectral_norm"] or not reference[at][
            "spectral_norm"]:
        return math.nan, math.nan
    mine, theirs = run[at]["spectral_norm"], reference[at]["spectral_norm"]
    ratios = _finite([_ratio(mine[k], theirs[k]) for k in mine if k in theirs])
    return (min(ratios), max(ratios)) if ratios else (math.nan, math.nan)


def _least_moved(records: Records) -> float:
    """Panel 5: the smallest relative change of a matrix's largest singular value over the run
    (first step to last). A matrix the training never updates stays where it started."""
    if len(records) < 2 or not records[0]["spectral_norm"] or not records[-1]["spectral_norm"]:
        return math.nan
    first, last = records[0]["spectral_norm"], records[-1]["spectral_norm"]
    moves = [abs(last[k] / first[k] - 1) for k in first
             if math.isfinite(first[k]) and math.isfinite(last[k]) and first[k] > 0]
    return min(moves, default=math.nan)


def _clip_share(records: Records) -> float:
    """Panel 3: the share of steps whose gradient was clipped (post-clip below pre-clip)."""
    clipped = [r["grad_norm_postclip"] < r["grad_norm_preclip"] for r in records
               if math.isfinite(r["grad_norm_preclip"]) and math.isfinite(r["grad_norm_postclip"])]
    return sum(clipped) / len(clipped) if clipped else math.nan


def _first_val(records: Records) -> float:
    """Panel 1: the validation loss at the first evaluation after step 0."""
    vals = [r["val_loss"] for r in records[1:] if r["val_loss"] is not None]
    return vals[0] if vals and math.isfinite(vals[0]) else math.nan


def _act_at(records: Records, step: int, index: int) -> float:
    """Panel 4 at record `step` (0 the first, -1 the last): series `index` (-1 after the final
    LN, -2 the residual stream after the last block)."""
    acts = records[step]["act_mean_abs"] if records else None
    if not acts or not math.isfinite(acts[index]):
        return math.nan
    return acts[index]


def _jump(records: Records) -> float:
    """Largest relative growth of a matrix's top singular value in the first update."""
    if len(records) < 2 or not records[0]["spectral_norm"]:
        return math.nan
    before, after = records[0]["spectral_norm"], records[1]["spectral_norm"]
    growth = [after[k] / before[k] - 1 for k in before
              if math.isfinite(before[k]) and math.isfinite(after[k]) and before[k] > 0]
    return max(growth, default=math.nan)


def panel_facts(fig: dict[str, float], header: dict[str, Any]) -> dict[str, Finding]:
    """What a run's own numbers show on each panel ("1".."6"), against its reference: the
    reveal quotes these under each panel's text, so no sentence about this run is more than
    its metrics show (architecture §6)."""
    return {
        "1": said(1, "final_ratio", fig,
                  "loss {loss0} at step 0 ({loss0_ratio}x the reference's); final validation "
                  "loss {final_val}, {final_ratio}x the reference's {ref_final_val} (the "
                  "entropy floor: {entropy_floor})", header),
        "2": said(2, "lr_peak_ratio", fig,
                  "{lr0_frac_pct}% of the healthy lr_max at step 0, a peak of {lr_peak} reached "
                  "at step {lr_peak_step} (the reference: {ref_lr0_frac_pct}%, {ref_lr_peak} at "
                  "step {ref_lr_peak_step})", header),
        "3": said(3, "clip_share", fig,
                  "the pre-clip norm is largest at step {grad_peak_step}, its median "
                  "{grad_median_ratio}x the reference's; clipped on {clip_share_pct}% of the "
                  "steps (the reference: {ref_clip_share_pct}%)", header),
        "4": said(4, "residual_end_ratio", fig,
                  "the residual stream {residual0_ratio}x the reference's at step 0 and "
                  "{residual_end_ratio}x at the end; the final LayerNorm's output "
                  "{ln_f_end_ratio}x at the end", header),
        "5": said(5, "spectral0_ratio", fig,
                  "matrix by matrix, {spectral0_min_ratio}-{spectral0_max_ratio}x the "
                  "reference's at step 0 and {spectral_end_min_ratio}-{spectral_end_max_ratio}x "
                  "at the end; the first update grew one by up to {spectral_jump_pct}% (the "
                  "reference: {ref_spectral_jump_pct}%); the least-moved matrix moved "
                  "{least_moved_pct}% over the run", header),
        "6": said_n(6, "dead_heads_peak", fig,
                    "up to {dead_heads_peak} dead head at an evaluation, {dead_heads} at the end "
                    "(the reference: up to {ref_dead_heads_peak}, {ref_dead_heads} at the end); "
                    "{dead_neurons_end_pct}% of the neurons dead at the end (the reference: "
                    "{ref_dead_neurons_end_pct}%)",
                    "up to {dead_heads_peak} dead heads at an evaluation, {dead_heads} at the end "
                    "(the reference: up to {ref_dead_heads_peak}, {ref_dead_heads} at the end); "
                    "{dead_neurons_end_pct}% of the neurons dead at the end (the reference: "
                    "{ref_dead_neurons_end_pct}%)", header),
    }


def findings_for(slug: str, fig: dict[str, float], header: dict[str, Any]) -> list[Finding]:
    """The panel findings that speak for `slug` (empty for a break the catalog does not hold)."""
    import scenarios

    if slug not in scenarios.breaks(None):
        return []
    return signature(slug).findings(fig, header)


def votes(fig: dict[str, float], deck: Sequence[str]) -> dict[str, float]:
    """How strongly each break of `deck` shows, in the deck's order: each break's own
    `Signature.vote` (its folder's signature.py), a margin in decades past its threshold."""
    return {slug: signature(slug).vote(fig) for slug in deck if slug != HEALTHY}


def diagnose_run(run: Records, reference: Records, header: dict[str, Any],
                 deck: Sequence[str]) -> Diagnosis:
    """The most likely break of `run` among `deck`'s (or "healthy"), its confidence and the
    deciding numbers. `deck` is one level's slugs (`scenarios.Level.deck`)."""
    if not run or not reference:
        return Diagnosis(HEALTHY, 0.0)
    fig = figures(run, reference, header)
    weighed = votes(fig, deck)
    if not weighed:
        return Diagnosis(HEALTHY, 0.0, figures=fig)
    best = max(weighed, key=weighed.__getitem__)
    if weighed[best] <= 0:
        # no signature at all: healthy, as sure as the closest signature is far
        confidence = min(1.0, -weighed[best] / math.log10(2))
        return Diagnosis(HEALTHY, round(confidence, 3), findings_for(HEALTHY, fig, header), fig)
    others = sorted((v for k, v in weighed.items() if k != best), reverse=True)
    runner_up = max(others[0], 0.0) if others else 0.0
    # a factor of two past the threshold, with no rival signature, is certainty
    confidence = min(1.0, (weighed[best] - runner_up) / math.log10(2))
    return Diagnosis(best, round(max(confidence, 0.0), 3), findings_for(best, fig, header), fig)


def runs_distinguishable(records: dict[str, Records], deal: dict[str, str],
                         header: dict[str, Any] | None = None,
                         deck: Sequence[str] = ()) -> bool:
    """True when the diagnostician, weighing each run against `deck` (one level's,
    `scenarios.Level.deck`),
    names every dealt break it knows, and the reference and the healthy decoy healthy."""
    import scenarios
    from diagnose.engine import run_header_fields  # the dealer already has numpy loaded

    header = header or run_header_fields(scenarios.healthy_config())
    reference = records["reference"]
    if diagnose_run(reference, reference, header, deck).slug != HEALTHY:
        return False
    return all(diagnose_run(records[rid], reference, header, deck).slug == slug
               for rid, slug in deal.items() if slug in deck or slug == HEALTHY)
