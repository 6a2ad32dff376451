"""The automatic diagnostician: names a run's break from its metrics and its reference's alone.

It reads exactly what a student can read on the dashboard (the six panels' series of a run and
of the scenario's healthy reference) and nothing of the config, and says which break the run
most likely holds, how sure it is, and the numbers that decided, panel by panel. It is the
fidelity test (every break must be named on every seed the tests try), the dealer's check
that a scenario's runs can be told apart, and the source of the reveal's and the grader's
numbers. Each break's vote and findings are its own code, in its folder's `signature.py`
(`diagnose/diagnosis/signatures.py` finds them); the figures they read are
`diagnose.diagnosis.figures`' (defined
there, once, and re-exported here). stdlib only: the reveal uses it without numpy, and the grader
never loads it.

The thresholds sit well inside the calibrated ranges (bench/fidelity.py prints them per seed);
they are properties of the arithmetic, not of any one seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from diagnose.diagnosis.figures import Records, figure_names, figures
from diagnose.diagnosis.signatures import Finding, said, said_n, signature
from scenarios import HEALTHY  # the verdict of no break: the catalog's one name for it

__all__ = ["HEALTHY", "Diagnosis", "Records", "diagnose_run", "figure_names", "figures",
           "findings_for", "panel_facts", "runs_distinguishable", "votes"]


@dataclass(frozen=True)
class Diagnosis:
    slug: str                     # a break slug, or "healthy"
    confidence: float             # 0..1
    findings: list[Finding] = field(default_factory=list)  # those that decided, first
    figures: dict[str, float] = field(default_factory=dict)

    def lines(self, lang: str = "en") -> list[str]:
        return [f"Panel {f.panel}: {f.text[lang]}" for f in self.findings]  # "Panel" in both


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
