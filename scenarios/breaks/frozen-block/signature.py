"""frozen-block's reading of the panels: some matrices' largest singular values never move."""

from __future__ import annotations

from typing import Any

from diagnose.signatures import (
    FROZEN_MOVE,
    Check,
    Figures,
    Finding,
    Records,
    Signature,
    check,
    compared,
    schedule_kept,
    under,
)


class FrozenBlock(Signature):
    needs = ("spectral_norm",)

    def vote(self, fig: Figures) -> float:
        # Panel 5
        return under(fig["least_moved"], FROZEN_MOVE)

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        return [compared(5, "least_moved", fig,
                         "a matrix's largest singular value moved {run}% over the whole run "
                         "(the reference's least: {ref}%)",
                         "el mayor valor singular de una matriz se movió un {run}% en toda la "
                         "ejecución (el que menos en la referencia: {ref}%)", percent=True)]

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        return [
            check("least_moved", fig["least_moved"], fig["least_moved"] < 0.003,
                  "< 0.3% over the run"),
            check("ref_least_moved", fig["ref_least_moved"], fig["ref_least_moved"] > 0.02,
                  "> 2% (reference)"),
            check("grad_early_ratio", fig["grad_early_ratio"], fig["grad_early_ratio"] < 0.9,
                  "< 0.9x (the frozen block's gradient is not counted)"),
            schedule_kept(run, reference),
        ]
