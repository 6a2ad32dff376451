"""unscaled-attention's reading of the panels: clipped on a large share of the steps at the
reference's learning rate."""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis import signatures as sig


class UnscaledAttention(sig.Signature):
    needs = ("grad_norm_preclip", "grad_norm_postclip", "spectral_norm")

    def vote(self, fig: sig.Figures) -> float:
        # Panel 3, unless Panel 2 differs or a line of Panel 5 never moved
        return sig.unless(sig.lr_differs(fig) or sig.frozen(fig), sig.over(fig["clip_share"], 0.2))

    def findings(self, fig: sig.Figures, header: dict[str, Any]) -> list[sig.Finding]:
        return [
            sig.said(3, "clip_share", fig,
                     "the gradient is clipped on {clip_share_pct}% of the steps (the reference: "
                     "{ref_clip_share_pct}%), with a peak learning rate {lr_peak_ratio}x the "
                     "reference's"),
            sig.quote("final_ratio", fig),
        ]
