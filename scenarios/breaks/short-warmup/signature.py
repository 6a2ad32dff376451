"""short-warmup's reading of the panels: a first rate several times the reference's, below
the peak, with the reference's peak."""

from __future__ import annotations

from diagnose.diagnosis import signatures as sig


class ShortWarmup(sig.WarmupStart):
    def vote(self, fig: sig.Figures) -> float:
        # Panel 2 (a higher peak raises the first step's rate as well: not this break)
        return sig.unless(sig.lr_differs(fig), min(sig.over(fig["lr0_ratio"], 2.0),
                                                   sig.under(fig["lr0_frac"], 0.9)))

    def start(self, fig: sig.Figures) -> sig.Finding:
        return sig.said(2, "lr0_ratio", fig, "the learning rate starts at {lr0_frac_pct}% of its "
                        "peak, {lr0_ratio}x the reference's first step")
