"""The healthy decoy's reading: no vote (healthy is what remains when no break's signature
shows), the numbers that say so, and the promises of a run that holds no break."""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis import signatures as sig


class Healthy(sig.Signature):
    needs = ()

    @staticmethod
    def smoothness(records: sig.Records) -> float:
        """The largest relative rise of the validation loss from one evaluation to the next,
        after the first: Panel 1 has a log axis, where a rise of 15% looks the same at any level.
        (10% held on the level-1 calibration seeds; over seeds 0-19 the reference rose up to 14%
        on three of them, and the decoys of 1000-1019 up to 12%: the seed-to-seed noise of a
        healthy run, so 15% is the promise.)"""
        vals = [r["val_loss"] for r in records if r["val_loss"] is not None]
        rises = [b / a - 1 for a, b in zip(vals[1:], vals[2:], strict=False) if a > 0]
        return max(rises, default=0.0)

    def findings(self, fig: sig.Figures, header: dict[str, Any]) -> list[sig.Finding]:
        return [
            sig.said(1, "final_val", fig,
                     "final validation loss {final_val}, {final_ratio}x the reference's and "
                     "{val_floor_ratio}x the entropy floor {entropy_floor}",
                     header),
            sig.said(2, "lr0_frac", fig,
                     "the learning rate starts at {lr0_frac_pct}% of its peak and peaks "
                     "{lr_peak_ratio}x the reference's"),
        ]

    def computed(self, fig: sig.Figures, run: sig.Records, reference: sig.Records,
                 header: dict[str, Any]) -> list[sig.Promise]:
        ln_vocab, floor = header["ln_vocab"], header["entropy_floor"]
        rise = self.smoothness(run)
        return [
            sig.check("val_above_floor", fig["final_val"], fig["final_val"] > floor,
                      f"> {floor:.3f}"),
            sig.check("val_well_below_ln_vocab", fig["final_val"], fig["final_val"] < ln_vocab / 4,
                      f"< {ln_vocab / 4:.2f}"),
            sig.check("smooth", rise, rise < 0.15 and sig.all_finite(run),
                      "val never rises 15% between evals"),
        ]
