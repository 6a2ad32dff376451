"""leaky-mask's reading of the panels: both losses end below the entropy floor, later than a
full leak."""

from __future__ import annotations

from typing import Any

from diagnose import signatures as sig


class LeakyMask(sig.FloorLeak):
    def floor(self, fig: sig.Figures, header: dict[str, Any]) -> sig.Finding:
        f = sig.fmt
        return sig.Finding(1, "val_floor_ratio", fig["val_floor_ratio"], {
            "en": f"final validation loss {f(fig['final_val'])}, {f(fig['val_floor_ratio'])}x "
                  f"the corpus's entropy floor {f(header['entropy_floor'])}, though at the "
                  f"first evaluation it was {f(fig['first_val_floor_ratio'])}x the floor",
            "es": f"pérdida de validación final {f(fig['final_val'])}, "
                  f"{f(fig['val_floor_ratio'])} veces el suelo de entropía "
                  f"{f(header['entropy_floor'])}, aunque en la primera evaluación era "
                  f"{f(fig['first_val_floor_ratio'])} veces el suelo"})

    def own_checks(self, fig: sig.Figures, header: dict[str, Any]) -> list[sig.Check]:
        return [sig.check("first_val_floor_ratio", fig["first_val_floor_ratio"],
                          fig["first_val_floor_ratio"] > 1, "> 1 (above the floor at step 20)")]
