"""decay-everything's reading of the panels: a smaller residual stream and final-LN output than
the reference's at the end."""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis import signatures as sig


class DecayEverything(sig.Signature):
    needs = ("act_mean_abs", "spectral_norm", "val_loss", "entropy_floor")

    def vote(self, fig: sig.Figures) -> float:
        # Panel 4, unless Panel 2 differs, a line of Panel 5 never moved or Panel 1 starts
        # below the floor
        return sig.unless(sig.lr_differs(fig) or sig.frozen(fig) or sig.early_floor(fig),
                          min(sig.under(fig["residual_end_ratio"], 0.75),
                              sig.under(fig["ln_f_end_ratio"], 0.9)))

    def findings(self, fig: sig.Figures, header: dict[str, Any]) -> list[sig.Finding]:
        return [sig.said(4, "residual_end_ratio", fig,
                         "at the end the residual stream is {residual_end_ratio}x the "
                         "reference's and the final LayerNorm's output {ln_f_end_ratio}x")]
