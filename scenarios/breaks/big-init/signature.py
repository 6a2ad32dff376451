"""big-init's reading of the panels: every matrix larger at step 0, the residual more so."""

from __future__ import annotations

from typing import Any

from diagnose import signatures as sig


class BigInit(sig.InitScale):
    def vote(self, fig: sig.Figures) -> float:
        # Panels 5 and 4 at step 0
        return min(sig.over(fig["spectral0_ratio"], 1.5), sig.over(fig["act0_ratio"], 2.0))

    def activation(self, fig: sig.Figures) -> sig.Finding:
        return sig.said(4, "act0_ratio", fig, "step-0 activations {act0_ratio}x the reference's")

    def checks(self, fig: sig.Figures, run: sig.Records, reference: sig.Records,
               header: dict[str, Any]) -> list[sig.Promise]:
        return [
            sig.at_least(fig, "spectral0_ratio", 2, ">= 2x at step 0"),
            sig.at_least(fig, "act0_ratio", 3, ">= 3x at step 0"),
            sig.at_least(fig, "loss0_ratio", 1.3, ">= 1.3x at step 0"),
            sig.schedule_kept(run, reference),
            sig.at_most(fig, "final_ratio", 1.5, "<= 1.5x (subtle: no lab-size disaster)"),
        ]
