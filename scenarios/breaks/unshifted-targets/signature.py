"""unshifted-targets' reading of the panels: below the entropy floor at the first evaluation."""

from __future__ import annotations

from typing import Any

from diagnose import signatures as sig


class UnshiftedTargets(sig.Signature):
    needs = ("val_loss", "entropy_floor")

    def vote(self, fig: sig.Figures) -> float:
        # Panel 1
        return sig.under(fig["first_val_floor_ratio"], 0.5)

    def findings(self, fig: sig.Figures, header: dict[str, Any]) -> list[sig.Finding]:
        f = sig.fmt
        return [
            sig.Finding(1, "first_val_floor_ratio", fig["first_val_floor_ratio"], {
                "en": f"at the first evaluation the validation loss is already "
                      f"{f(fig['first_val_floor_ratio'])}x the entropy floor "
                      f"{f(header['entropy_floor'])} (the reference: "
                      f"{f(fig['ref_first_val_floor_ratio'])}x)",
                "es": f"en la primera evaluación la pérdida de validación ya es "
                      f"{f(fig['first_val_floor_ratio'])} veces el suelo de entropía "
                      f"{f(header['entropy_floor'])} (la referencia: "
                      f"{f(fig['ref_first_val_floor_ratio'])} veces)"}),
            sig.Finding(1, "loss0_ratio", fig["loss0_ratio"], {
                "en": f"loss {f(fig['loss0'])} at step 0, {f(fig['loss0_ratio'])}x the "
                      f"reference's, where ln({header['vocab_size']}) = {f(header['ln_vocab'])}",
                "es": f"pérdida {f(fig['loss0'])} en el paso 0, {f(fig['loss0_ratio'])} veces "
                      f"la de referencia, con ln({header['vocab_size']}) = "
                      f"{f(header['ln_vocab'])}"}),
        ]

    def checks(self, fig: sig.Figures, run: sig.Records, reference: sig.Records,
               header: dict[str, Any]) -> list[sig.Check]:
        return [
            sig.check("first_val_floor_ratio", fig["first_val_floor_ratio"],
                      fig["first_val_floor_ratio"] < 0.5, "< 0.5 (below the floor at step 20)"),
            sig.check("loss0_ratio", fig["loss0_ratio"], fig["loss0_ratio"] < 0.9,
                      "< 0.9x at step 0 (the tied head favours the input token)"),
            sig.schedule_kept(run, reference),
        ]
