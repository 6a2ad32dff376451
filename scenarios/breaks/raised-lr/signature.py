"""raised-lr's reading of the panels: a peak learning rate a few times the reference's."""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis import signatures as sig


class RaisedLr(sig.LrPeak):
    threshold = 1.5  # Panel 2: the peak a few times the reference's

    def findings(self, fig: sig.Figures, header: dict[str, Any]) -> list[sig.Finding]:
        return [sig.said(2, "lr_peak_ratio", fig, "the learning rate peaks {lr_peak_ratio}x the "
                         "reference's peak, at the same step ({lr_peak_step})"),
                sig.quote("clip_share", fig), sig.quote("final_ratio", fig)]

    def computed(self, fig: sig.Figures, run: sig.Records, reference: sig.Records,
                 header: dict[str, Any]) -> list[sig.Promise]:
        return [sig.check("lr_peak_step", fig["lr_peak_step"],
                          fig["lr_peak_step"] == fig["ref_lr_peak_step"], "the reference's warmup"),
                sig.finite_loss(run, "no NaN")]
