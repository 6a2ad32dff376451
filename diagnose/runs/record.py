"""The recorder: a `metrics.jsonl` (schema `diagnose.metrics/1.1`) from your own training loop.

    from diagnose.runs.record import Recorder, RunInfo

    run = RunInfo(steps=2000, lr_max=3e-4,
                  recorded=["val_loss", "grad_norm_preclip", "grad_norm_postclip"])
    with Recorder("runs/mine/metrics.jsonl", run) as rec:
        for step in range(2000):
            ...
            rec.log(lr=lr, train_loss=loss, grad_norm_preclip=pre, grad_norm_postclip=post,
                    val_loss=val if step % 100 == 0 else None)

The file's folder is made if it does not exist. Every step writes one whole line and flushes
it, so `diagnose watch` can read the file while it grows; the header is written atomically
before any step. A key the run does not record is absent from the file and every view says
"not recorded". Each value is checked where it is handed over: a bad one is one `UserError`
line naming the key and the step. Non-finite numbers are data (a diverging run keeps its
steps), as in the game's files.

Left out: computing the numbers (that is your loop's, or `diagnose.runs.torch_hooks`'s); numpy and
torch (any object with `__float__`, a numpy or a one-element torch scalar, is accepted).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnose.metrics import (
    HEADER_COUNTS,
    MAX_BYTES,
    SCHEMA_OWN,
    STEP,
    STEP_OPTIONAL,
    STEP_REQUIRED,
    MetricsError,
    StepValues,
    dumps,
    name,
    number,
)
from scenarios.files import atomic_write


class RecordError(MetricsError):
    """A value handed to the recorder is not what its key holds: one line naming both."""


def _number(value: Any, what: str) -> float:
    return number(value, what, RecordError)


def _positive(value: Any, what: str) -> float:
    got = _number(value, what)
    if not (math.isfinite(got) and got > 0):
        raise RecordError(f"{what}: expected a finite number above 0, got {value!r:.60}")
    return got


def _count(value: Any, what: str) -> int:
    most = HEADER_COUNTS[what][1] if what in HEADER_COUNTS else math.inf
    got = _number(value, what)
    if not (math.isfinite(got) and got == int(got) and got >= 1):
        raise RecordError(f"{what}: expected a whole number of at least 1, got {value!r:.60}")
    if got > most:  # what the readers refuse (diagnose.metrics.HEADER_COUNTS)
        raise RecordError(f"{what}: expected at most {most:,}, got {value!r:.60}")
    return int(got)


def _name(value: Any, what: str) -> str:
    return name(value, what, RecordError)


@dataclass(frozen=True)
class RunInfo:
    """What a run's header says (docs/files.md), checked when a `Recorder` opens: its steps
    and peak learning rate, the optional keys it records, its name, and what the panels' guides
    and `diagnose check` compare (evaluation interval, entropy floor, sizes, model and data)."""

    steps: int
    lr_max: float
    recorded: Iterable[str] = ()
    run: str = "run"
    eval_every: int | None = None
    entropy_floor: float | None = None
    vocab_size: int | None = None
    params: int | None = None
    heads_total: int | None = None
    neurons_total: int | None = None
    model: str | None = None
    data: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "recorded", tuple(self.recorded))  # a generator, read once

    def header(self) -> dict[str, Any]:
        """The header line, each value checked (RecordError naming the first bad one)."""
        recorded = tuple(self.recorded)
        unknown = [k for k in recorded if k not in STEP_OPTIONAL]
        if unknown or len(set(recorded)) != len(recorded):
            raise RecordError(f"recorded: {', '.join(map(repr, unknown)) or 'a key twice'}; "
                              f"it lists some of {', '.join(STEP_OPTIONAL)}")
        header: dict[str, Any] = {"schema": SCHEMA_OWN, "run": _name(self.run, "run"),
                                  "steps": _count(self.steps, "steps"),
                                  "lr_max": _positive(self.lr_max, "lr_max"),
                                  "recorded": [k for k in STEP_OPTIONAL if k in recorded]}
        for key in ("eval_every", "params", "vocab_size", "heads_total", "neurons_total"):
            if getattr(self, key) is not None:
                header[key] = _count(getattr(self, key), key)
        if self.vocab_size is not None:
            header["ln_vocab"] = math.log(header["vocab_size"])
        if self.entropy_floor is not None:
            header["entropy_floor"] = _positive(self.entropy_floor, "entropy_floor")
        for key in ("model", "data"):
            if getattr(self, key) is not None:
                header[key] = _name(getattr(self, key), key)
        return header


class Recorder:
    """Append one step record per `log` call to a new metrics file, header first."""

    def __init__(self, path: str | os.PathLike[str], info: RunInfo) -> None:
        self.path = Path(path)
        self.header = info.header()
        self.recorded = tuple(info.recorded)  # the keys `log` takes besides the required
        self._step = 0
        self._values = StepValues(self.recorded, RecordError)
        if self.path.exists() or self.path.is_symlink():
            raise RecordError(f"{self.path}: already exists; record each run to a new file")
        try:  # its folder is made, as the ecosystem's loggers do
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise RecordError(f"{self.path.parent}: cannot be made ({err.strerror})") from None
        atomic_write(self.path, dumps(self.header) + "\n", error=RecordError)
        self._size = self.path.stat().st_size
        try:
            self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        except OSError as err:
            raise RecordError(f"{self.path}: cannot be written ({err.strerror})") from None

    @property
    def steps_written(self) -> int:
        """How many steps this recorder has written: the next step's number."""
        return self._step

    def log(self, *, step: int | None = None, **values: Any) -> dict[str, Any]:
        """Write the next step's record; returns it as written (non-finite kept as floats).
        `step`, when given, must be the next one (0, 1, ...): a skipped step is an error."""
        if self._fd is None:
            raise RecordError(f"{self.path}: the recorder is closed")
        if step is not None and _number(step, "step") != self._step:
            raise RecordError(f"step: expected {self._step}, got {step!r:.60}")
        record = self._validated(values)
        line = (dumps(record) + "\n").encode("utf-8")
        if self._size + len(line) > MAX_BYTES:
            raise RecordError(f"{self.path}: would pass {MAX_BYTES >> 20} MB, the size every "
                              "reader refuses; record fewer matrices or fewer steps")
        os.write(self._fd, line)  # one write per line, O_APPEND: a reader sees whole lines
        self._size += len(line)
        self._step += 1
        return record

    def _validated(self, values: dict[str, Any]) -> dict[str, Any]:
        at = f"step {self._step}"
        allowed = (*STEP_REQUIRED, *self.recorded)
        for key in values:
            if key not in allowed:
                why = ("not recorded by this run: list it in recorded=" if key in STEP_OPTIONAL
                       else f"not a metrics key ({', '.join(k for k in allowed if k != 'step')})")
                raise RecordError(f"{at}: {key!r:.60}: {why}")
        record = {STEP: self._step, **self._values.check(values, at)}
        return {k: record[k] for k in (*STEP_REQUIRED, *STEP_OPTIONAL) if k in record}

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
