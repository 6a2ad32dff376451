"""bad-init's reading of the panels: the init shows before the first update."""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis import signatures as sig


class BadInit(sig.Signature):
    needs = ("act_mean_abs",)

    def vote(self, fig: sig.Figures) -> float:
        # activations and loss at step 0
        return min(sig.over(fig["act0_ratio"], 10.0), sig.over(fig["loss0_ratio"], 2.0))

    def findings(self, fig: sig.Figures, header: dict[str, Any]) -> list[sig.Finding]:
        return [
            sig.said(4, "act0_ratio", fig,
                     "step-0 activations {act0_ratio}x the reference's, before any update"),
            sig.said(3, "grad_early_ratio", fig,
                     "pre-clip gradient norm in steps 0-5 {grad_early_ratio}x the reference's"),
            sig.said(1, "loss0", fig,
                     "loss {loss0} at step 0, where a uniform guess gives ln({vocab_size}) = "
                     "{ln_vocab}", header),
            sig.said(5, "spectral0_ratio", fig,
                     "largest singular values {spectral0_ratio}x the reference's at step 0"),
        ]

    def computed(self, fig: sig.Figures, run: sig.Records, reference: sig.Records,
                 header: dict[str, Any]) -> list[sig.Promise]:
        ln_vocab = header["ln_vocab"]  # the bound follows the vocabulary: code, not data
        return [sig.at_least(fig, "loss0", 5 * ln_vocab, f">= {5 * ln_vocab:.1f}"),
                sig.finite_loss(run, "no NaN (stable log-softmax)")]
