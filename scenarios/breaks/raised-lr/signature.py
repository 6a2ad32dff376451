"""raised-lr's reading of the panels: a peak learning rate a few times the reference's."""

from __future__ import annotations

from typing import Any

from diagnose.signatures import (
    Check,
    Figures,
    Finding,
    LrPeak,
    Records,
    check,
    clip_share,
    final_ratio,
    finite_loss,
    fmt,
)


class RaisedLr(LrPeak):
    threshold = 1.5  # Panel 2: the peak a few times the reference's

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        step = fmt(fig["lr_peak_step"])
        return [self.peak(fig, f", at the same step ({step})", f", en el mismo paso ({step})"),
                clip_share(fig), final_ratio(fig)]

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        return [
            check("lr_peak_ratio", fig["lr_peak_ratio"], 2.99 <= fig["lr_peak_ratio"] <= 3.01,
                  "= 3x"),
            check("lr_peak_step", fig["lr_peak_step"],
                  fig["lr_peak_step"] == fig["ref_lr_peak_step"], "the reference's warmup"),
            check("clip_share", fig["clip_share"], fig["clip_share"] >= 0.2,
                  ">= 20% of the steps clipped"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] >= 1.5, ">= 1.5x"),
            finite_loss(run, "no NaN"),
        ]
