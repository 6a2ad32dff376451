"""raised-lr's reading of the panels: a peak learning rate a few times the reference's."""

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


class RaisedLr(Signature):
    needs = ()

    def vote(self, fig: Figures) -> float:
        # Panel 2: the peak a few times the reference's
        return over(fig["lr_peak_ratio"], 1.5)

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        f = fmt
        return [
            Finding(2, "lr_peak_ratio", fig["lr_peak_ratio"], {
                "en": f"the learning rate peaks {f(fig['lr_peak_ratio'])}x the reference's peak, "
                      f"at the same step ({f(fig['lr_peak_step'])})",
                "es": f"el máximo del learning rate es {f(fig['lr_peak_ratio'])} veces el de "
                      f"la referencia, en el mismo paso ({f(fig['lr_peak_step'])})"}),
            clip_share(fig),
            final_ratio(fig),
        ]

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        finite = all_finite(run)
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
