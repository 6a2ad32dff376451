"""small-init's reading of the panels: big-init's mirror, every matrix smaller at step 0."""

from __future__ import annotations

from typing import Any

from diagnose.signatures import (
    Check,
    Figures,
    Finding,
    Records,
    Signature,
    check,
    fmt,
    loss0_ratio,
    same_lr,
    spectral0_before_update,
    under,
)


class SmallInit(Signature):
    needs = ("act_mean_abs", "spectral_norm")

    def vote(self, fig: Figures) -> float:
        # Panels 5 and 4 at step 0 (the final LayerNorm's line is ~1 whatever the init: the
        # residual stream's is read)
        return min(under(fig["spectral0_ratio"], 0.67), under(fig["residual0_ratio"], 0.67))

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        f = fmt
        return [
            spectral0_before_update(fig),
            Finding(4, "residual0_ratio", fig["residual0_ratio"], {
                "en": f"the residual stream at step 0 {f(fig['residual0_ratio'])}x the "
                      "reference's (the final LayerNorm's output is ~1 in both)",
                "es": f"el flujo residual en el paso 0 {f(fig['residual0_ratio'])} veces el de "
                      "referencia (la salida de la LayerNorm final es ~1 en ambas)"}),
            loss0_ratio(fig, header),
        ]

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        ln_vocab, same = header["ln_vocab"], same_lr(run, reference)
        return [
            check("spectral0_ratio", fig["spectral0_ratio"], fig["spectral0_ratio"] <= 0.3,
                  "<= 0.3x at step 0"),
            check("residual0_ratio", fig["residual0_ratio"], fig["residual0_ratio"] <= 0.5,
                  "<= 0.5x at step 0"),
            check("loss0", fig["loss0"], fig["loss0"] <= ln_vocab + 0.2,
                  f"<= {ln_vocab + 0.2:.2f} (near a uniform guess)"),
            check("same_lr", float(same), same, "the reference's schedule"),
            check("final_ratio", fig["final_ratio"], fig["final_ratio"] <= 2,
                  "<= 2x (it trains: no lab-size disaster)"),
        ]
