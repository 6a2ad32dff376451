"""frozen-block's reading of the panels: some matrices' largest singular values never move."""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis import signatures as sig


class FrozenBlock(sig.Signature):
    needs = ("spectral_norm",)

    def vote(self, fig: sig.Figures) -> float:
        # Panel 5
        return sig.under(fig["least_moved"], sig.FROZEN_MOVE)

    def findings(self, fig: sig.Figures, header: dict[str, Any]) -> list[sig.Finding]:
        return [sig.said(5, "least_moved", fig,
                         "a matrix's largest singular value moved {least_moved_pct}% over the "
                         "whole run (the reference's least: {ref_least_moved_pct}%)")]
