"""broken-mask's reading of the panels: both losses end below the corpus's entropy floor."""

from __future__ import annotations

from typing import Any

from diagnose.signatures import (
    Check,
    Figures,
    Finding,
    Records,
    Signature,
    check,
    dead_heads,
    fmt,
    same_lr,
    under,
)


class BrokenMask(Signature):
    needs = ("val_loss", "entropy_floor")

    def vote(self, fig: Figures) -> float:
        # Panel 1: both losses end below the entropy floor
        return min(under(fig["val_floor_ratio"], 0.8), under(fig["train_floor_ratio"], 0.8))

    def findings(self, fig: Figures, header: dict[str, Any]) -> list[Finding]:
        f = fmt
        return [
            Finding(1, "val_floor_ratio", fig["val_floor_ratio"], {
                "en": f"final validation loss {f(fig['final_val'])}, {f(fig['val_floor_ratio'])}x "
                      f"the corpus's entropy floor {f(header['entropy_floor'])} (no honest "
                      "model's validation loss goes below 1x)",
                "es": f"pérdida de validación final {f(fig['final_val'])}, "
                      f"{f(fig['val_floor_ratio'])} veces el suelo de entropía del corpus "
                      f"{f(header['entropy_floor'])}: por debajo de lo que un modelo honesto "
                      "puede alcanzar"}),
            dead_heads(fig),
        ]

    def checks(self, fig: Figures, run: Records, reference: Records,
               header: dict[str, Any]) -> list[Check]:
        floor, same = header["entropy_floor"], same_lr(run, reference)
        close = abs(fig["final_train"] - fig["final_val"])
        return [
            check("val_floor_ratio", fig["val_floor_ratio"], fig["val_floor_ratio"] < 1,
                  "< 1 (val below the entropy floor)"),
            check("train_floor_ratio", fig["train_floor_ratio"], fig["train_floor_ratio"] < 1,
                  "< 1 (train below the entropy floor)"),
            check("train_val_gap", close, close <= 0.5 * floor, f"<= {0.5 * floor:.3f} nats"),
            check("same_lr", float(same), same, "the reference's schedule"),
            check("dead_heads_excess", fig["dead_heads"] - fig["ref_dead_heads"],
                  fig["dead_heads"] > fig["ref_dead_heads"], "> 0 (more than the reference)"),
        ]
