"""Any run on disk, a scenario's or your own: show it, watch it grow, check it, record it.

- `show`: the six panels of one run in any terminal (`diagnose show`).
- `watch`: a metrics file that is still growing, and its panels (`diagnose watch`).
- `check`: what the diagnostician reads in a run of yours against your reference
  (`diagnose check`); `bands` the reference's own band and where a run leaves it.
- `record`: `Recorder`, a `metrics.jsonl` from your own training loop; `torch_hooks` the same
  for a PyTorch model with one object (the `[torch]` extra).
"""

from typing import TYPE_CHECKING

from diagnose.lazy import face

if TYPE_CHECKING:
    from diagnose.runs.check import check_run
    from diagnose.runs.record import Recorder
    from diagnose.runs.show import show_run
    from diagnose.runs.torch_hooks import ModelRecorder
    from diagnose.runs.watch import MetricsTail

__all__ = ["MetricsTail", "ModelRecorder", "Recorder", "check_run", "show_run"]
__getattr__, __dir__ = face(__name__, {
    "check_run": "check", "Recorder": "record", "show_run": "show",
    "ModelRecorder": "torch_hooks", "MetricsTail": "watch"})
