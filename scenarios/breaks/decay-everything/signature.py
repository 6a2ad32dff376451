"""decay-everything's reading of the panels: a smaller residual stream and final-LN output than
the reference's at the end."""

from __future__ import annotations

from typing import Any

from diagnose.signatures import (
    Check,
    Figures,
    Finding,
    Records,
    Signature,
    check,
    early_floor,
    fmt,
    frozen,
    lr_differs,
    schedule_kept,
    under,
    unless,
)


class DecayEverything(Signature):
    needs = ("act_mean_abs", "spectral_norm", "val_loss", "entropy_floor")

    def vote(self, fig: Figures) -> float:
        # Panel 4, unless Panel 2 differs, a line of Panel 5 never moved or Panel 1 starts
        # below the floor
        return unless(lr_differs(fig) or frozen(fig) or early_floor(fig),
                      min(under(fig["residual_end_ratio"], 0.75),
                          under(fig["ln_f_end_ratio"], 0.9)))

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        f = fmt
        return [
            Finding(4, "residual_end_ratio", fig["residual_end_ratio"], {
                "en": f"at the end the residual stream is {f(fig['residual_end_ratio'])}x the "
                      f"reference's and the final LayerNorm's output "
                      f"{f(fig['ln_f_end_ratio'])}x",
                "es": f"al final el flujo residual es {f(fig['residual_end_ratio'])} veces el "
                      f"de referencia y la salida de la LayerNorm final "
                      f"{f(fig['ln_f_end_ratio'])} veces"}),
        ]

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        return [
            check("residual_end_ratio", fig["residual_end_ratio"],
                  fig["residual_end_ratio"] < 0.75, "< 0.75x at the end"),
            check("ln_f_end_ratio", fig["ln_f_end_ratio"], fig["ln_f_end_ratio"] < 0.9,
                  "< 0.9x at the end"),
            check("final_ratio", fig["final_ratio"], 0.8 <= fig["final_ratio"] <= 1.2,
                  "0.8-1.2x (the loss does not show it)"),
            schedule_kept(run, reference),
        ]
