"""The calibration's promises: each break's signature, as checks on a run and its reference.

`signature_checks` turns the bullets of the fidelity issue into named pass/fail checks with the
figure that decided, for one run against the healthy reference trained with the same seed.
`bench/fidelity.py` prints them over many seeds; the tests assert them on a few. The figures
themselves come from `diagnose.diagnostician.figures`: one definition of each number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from diagnose.diagnostician import HEALTHY, Records, figures


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    value: float
    wanted: str


def _smoothness(records: Records) -> float:
    """The largest relative rise of the validation loss from one evaluation to the next,
    after the first: Panel 1 has a log axis, where a rise of 15% looks the same at any level.
    (10% held on the level-1 calibration seeds; over seeds 0-19 the reference rose up to 14%
    on three of them, and the decoys of 1000-1019 up to 12%: the seed-to-seed noise of a
    healthy run, so 15% is the promise.)"""
    vals = [r["val_loss"] for r in records if r["val_loss"] is not None]
    rises = [b / a - 1 for a, b in zip(vals[1:], vals[2:], strict=False) if a > 0]
    return max(rises, default=0.0)


def signature_checks(slug: str, run: Records, reference: Records,
                     header: dict[str, Any]) -> list[Check]:
    fig = figures(run, reference, header)
    ln_vocab, floor = header["ln_vocab"], header["entropy_floor"]
    finite = all(math.isfinite(r["train_loss"]) for r in run)
    same_lr = all(a["lr"] == b["lr"] for a, b in zip(run, reference, strict=False))

    def check(name: str, value: float, ok: bool, wanted: str) -> Check:
        return Check(name, bool(ok) and not math.isnan(value), value, wanted)

    if slug == "bad-init":
        return [
            check("act0_ratio", fig["act0_ratio"], fig["act0_ratio"] >= 50, ">= 50x"),
            check("grad_early_ratio", fig["grad_early_ratio"], fig["grad_early_ratio"] >= 100,
                  ">= 100x"),
            check("loss0", fig["loss0"], fig["loss0"] >= 5 * ln_vocab, f">= {5 * ln_vocab:.1f}"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] >= 2, ">= 2x"),
            check("spectral0_ratio", fig["spectral0_ratio"], fig["spectral0_ratio"] >= 20,
                  ">= 20x"),
            check("finite", float(finite), finite, "no NaN (stable log-softmax)"),
        ]
    if slug == "no-warmup":
        # Calibrated on seeds 0-19, proven on 1000-1019: the run recovers most of the way but
        # not all of it. It ends above the reference (10-60%), never near the lab's bad-init
        # (5x); the old promise, within 25% or 0.15 nats, failed on several seeds of twenty.
        cost = fig["final_val"] - fig["ref_final_val"]
        return [
            check("lr0_frac", fig["lr0_frac"], fig["lr0_frac"] >= 0.999, "= 1 (starts at lr_max)"),
            check("ref_lr0_frac", fig["ref_lr0_frac"], fig["ref_lr0_frac"] <= 0.1,
                  "<= 0.1 (reference starts near 0)"),
            check("early_excess", fig["early_excess"], fig["early_excess"] >= 0.3,
                  ">= 0.3 nats in steps 1-5"),
            check("spectral_jump", fig["spectral_jump"], fig["spectral_jump"] >= 0.15,
                  ">= 15% in the first update"),
            check("ref_spectral_jump", fig["ref_spectral_jump"], fig["ref_spectral_jump"] < 0.05,
                  "< 5% (reference)"),
            check("lasting_cost", cost, cost > 0, "> 0 nats (ends above the reference)"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] <= 2,
                  "<= 2x (recovers most of the way)"),
        ]
    if slug == "broken-mask":
        close = abs(fig["final_train"] - fig["final_val"])
        return [
            check("val_floor_ratio", fig["val_floor_ratio"], fig["val_floor_ratio"] < 1,
                  "< 1 (val below the entropy floor)"),
            check("train_floor_ratio", fig["train_floor_ratio"], fig["train_floor_ratio"] < 1,
                  "< 1 (train below the entropy floor)"),
            check("train_val_gap", close, close <= 0.5 * floor, f"<= {0.5 * floor:.3f} nats"),
            check("same_lr", float(same_lr), same_lr, "the reference's schedule"),
            check("dead_heads_excess", fig["dead_heads"] - fig["ref_dead_heads"],
                  fig["dead_heads"] > fig["ref_dead_heads"], "> 0 (more than the reference)"),
        ]
    if slug == "big-init":
        return [
            check("spectral0_ratio", fig["spectral0_ratio"], fig["spectral0_ratio"] >= 2,
                  ">= 2x at step 0"),
            check("act0_ratio", fig["act0_ratio"], fig["act0_ratio"] >= 3, ">= 3x at step 0"),
            check("loss0_ratio", fig["loss0_ratio"], fig["loss0_ratio"] >= 1.3,
                  ">= 1.3x at step 0"),
            check("same_lr", float(same_lr), same_lr, "the reference's schedule"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] <= 1.5,
                  "<= 1.5x (subtle: no lab-size disaster)"),
        ]
    if slug == "small-init":
        return [
            check("spectral0_ratio", fig["spectral0_ratio"], fig["spectral0_ratio"] <= 0.3,
                  "<= 0.3x at step 0"),
            check("residual0_ratio", fig["residual0_ratio"], fig["residual0_ratio"] <= 0.5,
                  "<= 0.5x at step 0"),
            check("loss0", fig["loss0"], fig["loss0"] <= ln_vocab + 0.2,
                  f"<= {ln_vocab + 0.2:.2f} (near a uniform guess)"),
            check("same_lr", float(same_lr), same_lr, "the reference's schedule"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] <= 2,
                  "<= 2x (it trains: no lab-size disaster)"),
        ]
    if slug == "raised-lr":
        return [
            check("lr_peak_ratio", fig["lr_peak_ratio"], 2.99 <= fig["lr_peak_ratio"] <= 3.01,
                  "= 3x"),
            check("lr_peak_step", fig["lr_peak_step"],
                  fig["lr_peak_step"] == fig["ref_lr_peak_step"], "the reference's warmup"),
            check("clip_share", fig["clip_share"], fig["clip_share"] >= 0.2,
                  ">= 20% of the steps clipped"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] >= 1.5, ">= 1.5x"),
            check("finite", float(finite), finite, "no NaN"),
        ]
    if slug == "short-warmup":
        return [
            check("lr0_ratio", fig["lr0_ratio"], fig["lr0_ratio"] >= 3,
                  ">= 3x the reference's first rate"),
            check("lr0_frac", fig["lr0_frac"], fig["lr0_frac"] <= 0.6,
                  "<= 0.6 of the peak (a ramp, not none)"),
            check("early_excess", fig["early_excess"], fig["early_excess"] >= 0.15,
                  ">= 0.15 nats in steps 1-5"),
            check("spectral_jump", fig["spectral_jump"], fig["spectral_jump"] >= 0.04,
                  ">= 4% in the first update"),
        ]
    if slug == "leaky-mask":
        return [
            check("val_floor_ratio", fig["val_floor_ratio"], fig["val_floor_ratio"] < 1,
                  "< 1 (val below the entropy floor)"),
            check("train_floor_ratio", fig["train_floor_ratio"], fig["train_floor_ratio"] < 1,
                  "< 1 (train below the entropy floor)"),
            check("first_val_floor_ratio", fig["first_val_floor_ratio"],
                  fig["first_val_floor_ratio"] > 1, "> 1 (above the floor at step 20)"),
            check("same_lr", float(same_lr), same_lr, "the reference's schedule"),
            check("dead_heads_excess", fig["dead_heads"] - fig["ref_dead_heads"],
                  fig["dead_heads"] > fig["ref_dead_heads"], "> 0 (more than the reference)"),
        ]
    if slug == "high-lr":
        return [
            check("lr_peak_ratio", fig["lr_peak_ratio"], fig["lr_peak_ratio"] >= 9.99, "= 10x"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] >= 2, ">= 2x"),
            check("residual_end_ratio", fig["residual_end_ratio"],
                  fig["residual_end_ratio"] >= 10, ">= 10x at the end"),
            check("finite", float(finite), finite, "no NaN (stable log-softmax)"),
        ]
    if slug == "unscaled-attention":
        return [
            check("same_lr", float(same_lr), same_lr, "the reference's schedule"),
            check("clip_share", fig["clip_share"], fig["clip_share"] >= 0.25,
                  ">= 25% of the steps clipped"),
            check("ref_clip_share", fig["ref_clip_share"], fig["ref_clip_share"] < 0.2,
                  "< 20% (reference)"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] >= 1.2, ">= 1.2x"),
        ]
    if slug == "frozen-block":
        return [
            check("least_moved", fig["least_moved"], fig["least_moved"] < 0.003,
                  "< 0.3% over the run"),
            check("ref_least_moved", fig["ref_least_moved"], fig["ref_least_moved"] > 0.02,
                  "> 2% (reference)"),
            check("grad_early_ratio", fig["grad_early_ratio"], fig["grad_early_ratio"] < 0.9,
                  "< 0.9x (the frozen block's gradient is not counted)"),
            check("same_lr", float(same_lr), same_lr, "the reference's schedule"),
        ]
    if slug == "unshifted-targets":
        return [
            check("first_val_floor_ratio", fig["first_val_floor_ratio"],
                  fig["first_val_floor_ratio"] < 0.5, "< 0.5 (below the floor at step 20)"),
            check("loss0_ratio", fig["loss0_ratio"], fig["loss0_ratio"] < 0.9,
                  "< 0.9x at step 0 (the tied head favours the input token)"),
            check("same_lr", float(same_lr), same_lr, "the reference's schedule"),
        ]
    if slug == "decay-everything":
        return [
            check("residual_end_ratio", fig["residual_end_ratio"],
                  fig["residual_end_ratio"] < 0.75, "< 0.75x at the end"),
            check("ln_f_end_ratio", fig["ln_f_end_ratio"], fig["ln_f_end_ratio"] < 0.9,
                  "< 0.9x at the end"),
            check("final_ratio", fig["final_ratio"], 0.8 <= fig["final_ratio"] <= 1.2,
                  "0.8-1.2x (the loss does not show it)"),
            check("same_lr", float(same_lr), same_lr, "the reference's schedule"),
        ]
    if slug == HEALTHY:
        rise = _smoothness(run)
        return [
            check("val_above_floor", fig["final_val"], fig["final_val"] > floor,
                  f"> {floor:.3f}"),
            check("val_well_below_ln_vocab", fig["final_val"], fig["final_val"] < ln_vocab / 4,
                  f"< {ln_vocab / 4:.2f}"),
            check("smooth", rise, rise < 0.15 and finite, "val never rises 15% between evals"),
        ]
    return []
