"""What differs between Linux, macOS and Windows, in one small place.

- `lower_priority`: a training worker yields the CPU to the screen where the OS lets a process
  lower its own priority (`os.nice`); elsewhere it runs at normal priority.
- `worker_context`: how worker processes start. A fresh interpreter each (spawn) everywhere,
  except on Linux, where a small server process started once imports the worker's modules
  and forks each worker from itself (forkserver): never a fork of the threaded parent, and no
  worker re-imports numpy and the engine (a pool of two that trains one step each: 0.22 s and
  0.42 CPU-s, against 0.38 s and 0.71 CPU-s spawned).
- `usable_cores`: the cores this process may run on (its CPU affinity where the OS has one).
- `watch_parent`: a worker process exits as soon as its parent is gone, whatever killed the
  parent (SIGKILL included), through multiprocessing's portable parent sentinel.
- `termination_as_interrupt`: SIGTERM and SIGHUP (where it exists) reach the parent as an
  `Interrupted`, a KeyboardInterrupt, so the code that cleans up after Ctrl-C runs for them too.

The one platform flag is `scenarios.files.WINDOWS` (the bottom package, so `grading` can ask
it too); every function here reads it when called, so a test can patch it. Not here: the key
file's privacy check (`scenarios.files.readable_by_others`) and the file lock
(`scenarios.files.exclusive_lock`).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator
from multiprocessing.connection import wait

from scenarios import files

# Exit code of a worker whose parent died: the parent is gone, nobody reads it; ps shows it.
ORPHANED = 3


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled like Ctrl-C; `exit_code` is 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.exit_code = 128 + signum


def lower_priority(niceness: int) -> None:
    """Lower this process's CPU priority by `niceness` where the platform allows it."""
    if files.WINDOWS or not hasattr(os, "nice"):
        return
    with contextlib.suppress(OSError):
        os.nice(niceness)


def worker_context(preload: list[str]) -> multiprocessing.context.BaseContext:
    """The multiprocessing context for worker processes that run `preload`'s modules."""
    if not files.WINDOWS and sys.platform.startswith("linux") \
            and "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(preload)  # read once, when the server starts
        return context
    return multiprocessing.get_context("spawn")


def usable_cores() -> int:
    """How many cores this process may use: its affinity set (Linux), else the machine's."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def watch_parent() -> None:
    """In a worker process: exit within moments of the parent's death, however it died.

    A daemon thread waits on the parent's sentinel (a pipe on POSIX, a process handle on
    Windows), which becomes ready when the parent ends. Without it, a parent killed by SIGKILL
    or SIGTERM leaves its workers blocked forever on their task queue.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def exit_when_orphaned() -> None:
        wait([parent.sentinel])
        os._exit(ORPHANED)  # no cleanup to do: the parent owned every file

    threading.Thread(target=exit_when_orphaned, name="diagnose-watch-parent",
                     daemon=True).start()


@contextlib.contextmanager
def termination_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise `Interrupted` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = [signal.SIGTERM]
    if not files.WINDOWS and hasattr(signal, "SIGHUP"):
        wanted.append(signal.SIGHUP)

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted(signum)

    previous = {signum: signal.signal(signum, interrupt) for signum in wanted}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
