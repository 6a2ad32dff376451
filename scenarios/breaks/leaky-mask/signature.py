"""leaky-mask's reading of the panels: both losses end below the entropy floor, later than a
full leak."""

from __future__ import annotations

from diagnose.diagnosis import signatures as sig
from scenarios.words import N_


class LeakyMask(sig.FloorLeak):
    floor_message = N_("final validation loss {final_val}, {val_floor_ratio}x the corpus's "
                       "entropy floor {entropy_floor}, though at the first evaluation it was "
                       "{first_val_floor_ratio}x the floor")
