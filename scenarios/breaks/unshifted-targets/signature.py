"""unshifted-targets' reading of the panels: below the entropy floor at the first evaluation."""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis import signatures as sig


class UnshiftedTargets(sig.Signature):
    needs = ("val_loss", "entropy_floor")

    def vote(self, fig: sig.Figures) -> float:
        # Panel 1
        return sig.under(fig["first_val_floor_ratio"], 0.5)

    def findings(self, fig: sig.Figures, header: dict[str, Any]) -> list[sig.Finding]:
        return [
            sig.said(1, "first_val_floor_ratio", fig,
                     "at the first evaluation the validation loss is already "
                     "{first_val_floor_ratio}x the entropy floor {entropy_floor} (the reference: "
                     "{ref_first_val_floor_ratio}x)", header),
            sig.said(1, "loss0_ratio", fig,
                     "loss {loss0} at step 0, {loss0_ratio}x the reference's, where "
                     "ln({vocab_size}) = {ln_vocab}", header),
        ]
