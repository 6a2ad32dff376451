"""big-init's reading of the panels: every matrix larger at step 0, the residual more so."""

from __future__ import annotations

from diagnose.diagnosis import signatures as sig


class BigInit(sig.InitScale):
    def vote(self, fig: sig.Figures) -> float:
        # Panels 5 and 4 at step 0
        return min(sig.over(fig["spectral0_ratio"], 1.5), sig.over(fig["act0_ratio"], 2.0))

    def activation(self, fig: sig.Figures) -> sig.Finding:
        return sig.said(4, "act0_ratio", fig, "step-0 activations {act0_ratio}x the reference's")
