"""high-lr's reading of the panels: a peak learning rate several times the reference's."""

from __future__ import annotations

from typing import Any

from diagnose.signatures import (
    Check,
    Figures,
    Finding,
    Records,
    Signature,
    all_finite,
    check,
    clip_share,
    final_ratio,
    fmt,
    over,
)


class HighLr(Signature):
    needs = ()

    def vote(self, fig: Figures) -> float:
        # Panel 2: a peak several times the reference's
        return over(fig["lr_peak_ratio"], 3.0)

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        f = fmt
        return [
            Finding(2, "lr_peak_ratio", fig["lr_peak_ratio"], {
                "en": f"the learning rate peaks {f(fig['lr_peak_ratio'])}x the reference's peak",
                "es": f"el máximo del learning rate es {f(fig['lr_peak_ratio'])} veces el de "
                      "la referencia"}),
            final_ratio(fig),
            clip_share(fig),
        ]

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        finite = all_finite(run)
        return [
            check("lr_peak_ratio", fig["lr_peak_ratio"], fig["lr_peak_ratio"] >= 9.99, "= 10x"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] >= 2, ">= 2x"),
            check("residual_end_ratio", fig["residual_end_ratio"],
                  fig["residual_end_ratio"] >= 10, ">= 10x at the end"),
            check("finite", float(finite), finite, "no NaN (stable log-softmax)"),
        ]
