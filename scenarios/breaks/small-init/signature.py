"""small-init's reading of the panels: big-init's mirror, every matrix smaller at step 0."""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis import signatures as sig


class SmallInit(sig.InitScale):
    def vote(self, fig: sig.Figures) -> float:
        # Panels 5 and 4 at step 0 (the final LayerNorm's line is ~1 whatever the init: the
        # residual stream's is read)
        return min(sig.under(fig["spectral0_ratio"], 0.67), sig.under(fig["residual0_ratio"], 0.67))

    def activation(self, fig: sig.Figures) -> sig.Finding:
        return sig.said(4, "residual0_ratio", fig,
                        "the residual stream at step 0 {residual0_ratio}x the reference's (the "
                        "final LayerNorm's output is ~1 in both)")

    def computed(self, fig: sig.Figures, run: sig.Records, reference: sig.Records,
                 header: dict[str, Any]) -> list[sig.Promise]:
        near_uniform = header["ln_vocab"] + 0.2  # the bound follows the vocabulary
        return [sig.at_most(fig, "loss0", near_uniform,
                            f"<= {near_uniform:.2f} (near a uniform guess)")]
