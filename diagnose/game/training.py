"""Training in worker processes: `TrainingPool` trains `RunPlan`s and streams their steps back.

Processes, not threads: the caller (the TUI) stays responsive and each run gets a core. The
numpy training itself is `diagnose.engine`; what to train is `diagnose.game.dealing`.
"""

from __future__ import annotations

import dataclasses
import os
import queue as queue_module
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import scenarios
from diagnose import platform
from diagnose.game.dealing import RunPlan, ScenarioError

BACKGROUND_NICENESS = 10  # training under the TUI: the screen answers keys first


OnStep = Callable[[str, dict[str, Any]], None]
# A caller's progress display: progress(make, labels, steps, title) runs make(on_step) under it
# (one bar per label, `steps` long) and returns what make returns.
Progress = Callable[[Callable[[OnStep | None], Any], Sequence[str], int, str], Any]


class Cancelled(Exception):  # noqa: N818 - it is an outcome, not a fault
    """Training was stopped before the end; nothing was written."""


def _train_worker(tasks: Any, out: Any, background: bool, threads: bool = True) -> None:
    """A worker process: train each plan it is handed, sending every record to the parent.

    `threads`: whether each run uses the engine's two helper threads; the pool turns them off
    when its runs already fill the cores (the numbers are the same either way).

    The engine's Trainer sets the process up (one BLAS thread, see diagnose/engine/runtime.py).
    In the background (under the TUI) the worker yields the CPU to the screen and keeps quiet:
    its stderr is the terminal the app draws on, and failures reach the parent as messages.
    """
    platform.watch_parent()  # a parent killed by any signal must not leave us blocked here
    if background:
        platform.lower_priority(BACKGROUND_NICENESS)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    try:
        from diagnose.engine import train

        while (task := tasks.get()) is not None:
            label, config, seed = task
            try:
                for record in train(scenarios.Config(**config), seed, threads=threads):
                    out.put(("step", label, record))
            except Exception as err:  # noqa: BLE001 - reported to the parent as one line
                out.put(("error", label, f"{type(err).__name__}: {err}"))
            else:
                out.put(("done", label, None))
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches the whole process group; the parent cleans up


def engine_threads(jobs: int) -> bool:
    """Whether each run of a pool of `jobs` workers gets the engine's two helper threads:
    only when every worker has a spare core for them (the numbers are the same either way)."""
    return platform.usable_cores() >= 2 * jobs


class TrainingPool:
    """Up to `jobs` worker processes that train runs and stream their steps back.

    Processes, not threads: the caller (the TUI) stays responsive and each run gets a core.
    A worker is started only when a run needs it, so there are never more workers than runs
    in flight; they live as long as the pool, so dealing a class pays their start-up once.
    A run uses the engine's helper threads only when each worker has a spare core for them:
    with the cores already full, they cost CPU and buy no time (four 400-step runs, two at a
    time on two cores: 10.1 s and 19.6 CPU-s without them, 11.3 s and 21.5 CPU-s with them).
    """

    def __init__(self, jobs: int = 2, background: bool = False) -> None:
        if jobs < 1:
            raise ScenarioError(f"--jobs must be at least 1, got {jobs}")
        self.jobs = jobs
        self._background = background
        self._threads = engine_threads(jobs)
        # never a fork of this process; the fork server imports the engine once for every
        # worker it forks, numpy.random too (numpy loads it lazily: 40 ms a worker)
        self._context = platform.worker_context([__name__, "diagnose.engine", "numpy.random"])
        self._tasks = self._context.Queue()
        self._inbox = self._context.Queue()
        self._workers: list[Any] = []

    def _start_workers(self, runs: int) -> None:
        while len(self._workers) < min(self.jobs, runs):
            worker = self._context.Process(
                target=_train_worker, daemon=True,
                args=(self._tasks, self._inbox, self._background, self._threads),
                name=f"diagnose-train-{len(self._workers)}")
            worker.start()
            self._workers.append(worker)

    def __enter__(self) -> TrainingPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(graceful=exc[0] is None)

    def close(self, graceful: bool = True) -> None:
        if graceful:
            for _ in self._workers:
                self._tasks.put(None)
        for worker in self._workers:
            if graceful:
                worker.join(timeout=10)
            if worker.is_alive():
                worker.terminate()
            worker.join(timeout=5)
        for q in (self._tasks, self._inbox):
            q.cancel_join_thread()
            q.close()

    def run(self, plans: Sequence[RunPlan], *, on_step: OnStep | None = None,
            should_stop: Callable[[], bool] | None = None,
            prefix: str = "") -> dict[str, list[dict[str, Any]]]:
        """Train `plans` to the end; records by run. Raises Cancelled or ScenarioError."""
        records: dict[str, list[dict[str, Any]]] = {plan.run: [] for plan in plans}
        self._start_workers(len(plans))
        for plan in plans:
            self._tasks.put((prefix + plan.run, dataclasses.asdict(plan.config), plan.seed))
        finished: set[str] = set()
        while len(finished) < len(plans):
            if should_stop is not None and should_stop():
                raise Cancelled()
            try:
                kind, label, payload = self._inbox.get(timeout=0.1)
            except queue_module.Empty:
                dead = [w for w in self._workers if not w.is_alive()]
                if dead:
                    raise ScenarioError(f"a training process stopped unexpectedly (exit code "
                                        f"{dead[0].exitcode})") from None
                continue
            run = label.removeprefix(prefix)
            if kind == "step":
                records[run].append(payload)
                if on_step is not None:
                    on_step(label, payload)
            elif kind == "done":
                finished.add(run)
            else:
                raise ScenarioError(f"training of run {label} failed: {payload}")
        return records


@dataclass(frozen=True)
class TrainingCallbacks:
    """How a caller follows and stops a training; every callback is optional.

    `on_step(run, record)` gets each step as it is trained (from the caller's thread);
    `should_stop()` is asked between steps, True cancels (raises `Cancelled`, writes nothing);
    `on_redeal(message)` hears that the runs are trained again with fresh seeds.
    """

    on_step: OnStep | None = None
    should_stop: Callable[[], bool] | None = None
    on_redeal: Callable[[str], None] | None = None


@dataclass(frozen=True)
class Workers:
    """Where a scenario trains: `jobs` worker processes of its own, at a lower priority and
    silent when `background`; or the caller's `pool` (a class's deal shares one), whose
    labels for this scenario's runs start with `prefix`."""

    jobs: int = 2
    background: bool = False
    pool: TrainingPool | None = None
    prefix: str = ""
