"""What a break looks like and why: the figures, the signatures, the diagnostician, the reveal.

- `figures`: every number a signature, the reveal and the fidelity checks read off a run.
- `signatures`: the `Signature` class a break folder's `signature.py` derives, and its loader.
- `diagnostician`: names a run's break from its metrics and its reference's alone.
- `fidelity`: each break's promises as checks on a run and its reference (bench/fidelity.py).
- `reveal`: which break each ID held, explained with that run's own numbers; `pages/` the
  signatures page written beside the solutions.

A course deck's `signature.py` imports `from diagnose.diagnosis import signatures as sig`.
"""

from typing import TYPE_CHECKING

from diagnose.lazy import face

if TYPE_CHECKING:
    from diagnose.diagnosis.diagnostician import Diagnosis, diagnose_run
    from diagnose.diagnosis.figures import figures
    from diagnose.diagnosis.reveal import render_solutions, reveal_scenario
    from diagnose.diagnosis.signatures import Signature

__all__ = ["Diagnosis", "Signature", "diagnose_run", "figures", "render_solutions",
           "reveal_scenario"]
__getattr__, __dir__ = face(__name__, {
    "Diagnosis": "diagnostician", "diagnose_run": "diagnostician", "figures": "figures",
    "render_solutions": "reveal", "reveal_scenario": "reveal", "Signature": "signatures"})
