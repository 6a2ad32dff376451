"""unscaled-attention's reading of the panels: clipped on a large share of the steps at the
reference's learning rate."""

from __future__ import annotations

from typing import Any

from diagnose.signatures import (
    Check,
    Figures,
    Finding,
    Records,
    Signature,
    check,
    final_ratio,
    fmt,
    frozen,
    lr_differs,
    over,
    schedule_kept,
    unless,
)


class UnscaledAttention(Signature):
    needs = ("grad_norm_preclip", "grad_norm_postclip", "spectral_norm")

    def vote(self, fig: Figures) -> float:
        # Panel 3, unless Panel 2 differs or a line of Panel 5 never moved
        return unless(lr_differs(fig) or frozen(fig), over(fig["clip_share"], 0.2))

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        f = fmt
        return [
            Finding(3, "clip_share", fig["clip_share"], {
                "en": f"the gradient is clipped on {f(fig['clip_share'] * 100)}% of the steps "
                      f"(the reference: {f(fig['ref_clip_share'] * 100)}%), with a peak learning "
                      f"rate {f(fig['lr_peak_ratio'])}x the reference's",
                "es": f"el gradiente se recorta en el {f(fig['clip_share'] * 100)}% de los "
                      f"pasos (la referencia: {f(fig['ref_clip_share'] * 100)}%), con un máximo "
                      f"del learning rate {f(fig['lr_peak_ratio'])} veces el de referencia"}),
            final_ratio(fig),
        ]

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        return [
            schedule_kept(run, reference),
            check("clip_share", fig["clip_share"], fig["clip_share"] >= 0.25,
                  ">= 25% of the steps clipped"),
            check("ref_clip_share", fig["ref_clip_share"], fig["ref_clip_share"] < 0.2,
                  "< 20% (reference)"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] >= 1.2, ">= 1.2x"),
        ]
