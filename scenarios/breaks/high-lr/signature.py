"""high-lr's reading of the panels: a peak learning rate several times the reference's."""

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
)


class HighLr(LrPeak):
    threshold = 3.0  # Panel 2: a peak several times the reference's

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        return [self.peak(fig), final_ratio(fig), clip_share(fig)]

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        return [
            check("lr_peak_ratio", fig["lr_peak_ratio"], fig["lr_peak_ratio"] >= 9.99, "= 10x"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] >= 2, ">= 2x"),
            check("residual_end_ratio", fig["residual_end_ratio"],
                  fig["residual_end_ratio"] >= 10, ">= 10x at the end"),
            finite_loss(run, "no NaN (stable log-softmax)"),
        ]
