"""broken-mask's reading of the panels: both losses end below the corpus's entropy floor."""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis import signatures as sig
from scenarios.words import N_


class BrokenMask(sig.FloorLeak):
    floor_message = N_("final validation loss {final_val}, {val_floor_ratio}x the corpus's "
                       "entropy floor {entropy_floor} (no honest model's validation loss goes "
                       "below 1x)")

    def computed(self, fig: sig.Figures, run: sig.Records, reference: sig.Records,
                 header: dict[str, Any]) -> list[sig.Promise]:
        floor = header["entropy_floor"]
        close = abs(fig["final_train"] - fig["final_val"])
        return [*super().computed(fig, run, reference, header),
                sig.check("train_val_gap", close, close <= 0.5 * floor,
                          f"<= {0.5 * floor:.3f} nats")]
