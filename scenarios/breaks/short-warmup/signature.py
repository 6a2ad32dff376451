"""short-warmup's reading of the panels: a first rate several times the reference's, below
the peak, with the reference's peak."""

from __future__ import annotations

from typing import Any

from diagnose.signatures import (
    Check,
    Figures,
    Finding,
    Records,
    WarmupStart,
    check,
    fmt,
    lr_differs,
    over,
    under,
    unless,
)


class ShortWarmup(WarmupStart):
    def vote(self, fig: Figures) -> float:
        # Panel 2 (a higher peak raises the first step's rate as well: not this break)
        return unless(lr_differs(fig), min(over(fig["lr0_ratio"], 2.0),
                                           under(fig["lr0_frac"], 0.9)))

    def start(self, fig: Figures) -> Finding:
        ratio = fmt(fig["lr0_ratio"])
        return self.started(fig, "lr0_ratio", f", {ratio}x the reference's first step",
                            f", {ratio} veces el primer paso de la referencia")

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
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
