"""unshifted-targets' reading of the panels: below the entropy floor at the first evaluation."""

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
    schedule_kept,
    under,
)


class UnshiftedTargets(Signature):
    needs = ("val_loss", "entropy_floor")

    def vote(self, fig: Figures) -> float:
        # Panel 1
        return under(fig["first_val_floor_ratio"], 0.5)

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        f = fmt
        return [
            Finding(1, "first_val_floor_ratio", fig["first_val_floor_ratio"], {
                "en": f"at the first evaluation the validation loss is already "
                      f"{f(fig['first_val_floor_ratio'])}x the entropy floor "
                      f"{f(header['entropy_floor'])} (the reference: "
                      f"{f(fig['ref_first_val_floor_ratio'])}x)",
                "es": f"en la primera evaluación la pérdida de validación ya es "
                      f"{f(fig['first_val_floor_ratio'])} veces el suelo de entropía "
                      f"{f(header['entropy_floor'])} (la referencia: "
                      f"{f(fig['ref_first_val_floor_ratio'])} veces)"}),
            Finding(1, "loss0_ratio", fig["loss0_ratio"], {
                "en": f"loss {f(fig['loss0'])} at step 0, {f(fig['loss0_ratio'])}x the "
                      f"reference's, where ln({header['vocab_size']}) = {f(header['ln_vocab'])}",
                "es": f"pérdida {f(fig['loss0'])} en el paso 0, {f(fig['loss0_ratio'])} veces "
                      f"la de referencia, con ln({header['vocab_size']}) = "
                      f"{f(header['ln_vocab'])}"}),
        ]

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        return [
            check("first_val_floor_ratio", fig["first_val_floor_ratio"],
                  fig["first_val_floor_ratio"] < 0.5, "< 0.5 (below the floor at step 20)"),
            check("loss0_ratio", fig["loss0_ratio"], fig["loss0_ratio"] < 0.9,
                  "< 0.9x at step 0 (the tied head favours the input token)"),
            schedule_kept(run, reference),
        ]
