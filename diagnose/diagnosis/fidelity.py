"""The calibration's promises: each break's signature, as checks on a run and its reference.

Each break states its own promises in its folder: bounds on figures in its `break.toml`
(`[[promises]]`) and the few that need the whole run in its `signature.py` (`Signature.checks`
lists them all, named pass/fail checks with the figure that decided); `signature_checks`
runs one break's for one run against the healthy reference trained with the same seed.
`bench/fidelity.py` prints them over many seeds; the tests assert them on a few. The figures
themselves come from `diagnose.diagnosis.diagnostician.figures`: one definition of each number.
"""

from __future__ import annotations

from typing import Any

from diagnose.diagnosis.diagnostician import Records, figures
from diagnose.diagnosis.signatures import Promise, signature

__all__ = ["Promise", "signature_checks"]


def signature_checks(slug: str, run: Records, reference: Records,
                     header: dict[str, Any]) -> list[Promise]:
    """The promises of break `slug` (the healthy decoy's for "healthy") on `run`."""
    return signature(slug).checks(figures(run, reference, header), run, reference, header)
