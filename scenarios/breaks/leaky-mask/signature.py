"""leaky-mask's reading of the panels: both losses end below the entropy floor, later than a
full leak."""

from __future__ import annotations

from typing import Any

from diagnose import signatures as sig


class LeakyMask(sig.FloorLeak):
    def floor(self, fig: sig.Figures, header: dict[str, Any]) -> sig.Finding:
        return sig.said(1, "val_floor_ratio", fig,
                        "final validation loss {final_val}, {val_floor_ratio}x the corpus's "
                        "entropy floor {entropy_floor}, though at the first evaluation it was "
                        "{first_val_floor_ratio}x the floor", header)
