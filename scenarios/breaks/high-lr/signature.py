"""high-lr's reading of the panels: a peak learning rate several times the reference's."""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis import signatures as sig


class HighLr(sig.LrPeak):
    threshold = 3.0  # Panel 2: a peak several times the reference's

    def findings(self, fig: sig.Figures, header: dict[str, Any]) -> list[sig.Finding]:
        return [self.peak(fig), sig.quote("final_ratio", fig), sig.quote("clip_share", fig)]

    def computed(self, fig: sig.Figures, run: sig.Records, reference: sig.Records,
                 header: dict[str, Any]) -> list[sig.Promise]:
        return [sig.finite_loss(run, "no NaN (stable log-softmax)")]
