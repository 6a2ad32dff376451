"""Dealing on a Dask cluster: `diagnose deal --scheduler tcp://HOST:8786` (README, "A class
on a cluster").

One task per student: the task trains that student's scenario at that student's level (the
reference and every run, and a re-deal when the diagnostician, weighing the runs against the
level's deck, cannot tell them apart) in the worker's own process, calling the engine's
`train` directly (a Dask worker is daemonic: it cannot start a training pool), and returns
every run's records. The tasks get configs and seeds, never the secret: the
instructor's machine plans every deal, then writes each bundle through the same writer as a
local deal and seals it with the key, as results come back. A task that does not come back
wrote nothing, so an interrupted or failed deal resumes like a local one.

A worker that dies mid-task has its task run again elsewhere (Dask's scheduler does so, and
`retries` covers a task that raises); a worker with another diagnose or engine version is
refused before any training, since its bundles would differ from a local deal's.

dask.distributed is optional (`pip install "diagnose[cluster]"`) and imported only here.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnose import __version__
from diagnose.scenario import (
    ENGINE_VERSION,
    REDEALS,
    RunPlan,
    ScenarioError,
    choose_breaks,
    plan_runs,
)

CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler and see a worker
RETRIES = 2  # a task that raises is tried this many more times
ADDRESS = re.compile(r"^(?:(?:tcp|tls)://)?(?:\[[0-9A-Fa-f:.]+\]|[\w.-]+):(\d{1,5})$")
Rounds = list[tuple[dict[str, str], list[RunPlan]]]  # (assignment, plans) per re-deal


class ClusterError(ScenarioError):
    """The cluster cannot deal as asked; one line saying why and what to do."""


def engine_version() -> str:
    """What must match between this machine and every worker for bundles to match."""
    return f"{__version__}+engine{ENGINE_VERSION}"


def worker_version() -> str:
    """`engine_version()` as a worker computes it (run there by reference, so its own)."""
    return engine_version()


@dataclass(frozen=True)
class Order:
    """One student's scenario to train on the cluster and write at `target`; `level` picks the
    deck, as `ScenarioSpec.level` does."""

    student: str
    target: Path
    code: str
    level: int


@dataclass(frozen=True)
class Trained:
    """A task's result, back on this machine."""

    order: Order
    deal: dict[str, str]  # ID -> slug of the round that was kept
    records: dict[str, list[dict[str, Any]]]
    redeals: int  # rounds the diagnostician refused before the kept one


def check_address(address: str) -> str | None:
    """Why `address` is not a scheduler's address (`tcp://HOST:PORT`), or None when it is."""
    found = ADDRESS.match(address)
    if found is None or not 1 <= int(found.group(1)) <= 65535:
        return f"{address!r} is not a scheduler address; use tcp://HOST:PORT (dask scheduler " \
               "prints it; its port is 8786 by default)"
    return None


def connect(address: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A `distributed.Client` on `address` whose workers all run this diagnose."""
    problem = check_address(address)
    if problem:
        raise ClusterError(problem)
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--scheduler needs dask.distributed, which is not installed",
                           hint='pip install "diagnose[cluster]"') from None
    _reachable(address, timeout)

    class QuietClient(Client):
        """A client that failed to start says nothing more when it is collected."""

        def __del__(self) -> None:
            with contextlib.suppress(Exception):
                super().__del__()

    try:
        client = QuietClient(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as err:
        raise ClusterError(f"{address}: no Dask scheduler answered within {timeout:g} s "
                           f"({_first_line(err)})") from None
    except Exception as err:  # noqa: BLE001 - something answered, but not a scheduler
        raise ClusterError(f"{address}: what answers there is not a Dask scheduler "
                           f"({type(err).__name__})") from None
    try:
        check_workers(client, address, timeout)
    except BaseException:
        client.close()
        raise
    return client


def _first_line(err: BaseException) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0][:160]


def _reachable(address: str, timeout: float) -> None:
    """Fail fast, and quietly, when nothing listens at the address at all."""
    host, _, port = address.split("://")[-1].rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except TimeoutError:
        raise ClusterError(f"{address}: no Dask scheduler answered within {timeout:g} s; is "
                           "`dask scheduler` running there?") from None
    except OSError as err:
        raise ClusterError(f"{address}: cannot reach a Dask scheduler ("
                           f"{err.strerror or _first_line(err)}); is `dask scheduler` running "
                           "there?") from None


def check_workers(client: Any, address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Refuse a cluster without workers, or with one that runs another diagnose."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise ClusterError(f"{address}: the scheduler has no workers (none joined within "
                           f"{timeout:g} s); start some with `dask worker {address}`") from None
    try:
        found = client.run(worker_version)
    except Exception as err:  # noqa: BLE001 - whatever the worker raised, said in one line
        raise ClusterError(f"a worker of {address} cannot run diagnose ({type(err).__name__}: "
                           f"{err}); install diagnose {engine_version()} on every worker"
                           ) from None
    for worker, version in sorted(found.items()):
        if version != engine_version():
            raise ClusterError(f"worker {worker} runs diagnose {version}, this machine "
                               f"{engine_version()}; install the same version on every worker "
                               "(their bundles would differ from a local deal's)")


def train_scenario(rounds: Rounds, level: int, check: bool, expected: str
                   ) -> tuple[int, dict[str, list[dict[str, Any]]]]:
    """The task, on a worker: train each round until the diagnostician, weighing the runs
    against `level`'s deck when `check`, tells them apart (or the last round); (the kept round,
    its records by run)."""
    if engine_version() != expected:
        raise ClusterError(f"this worker runs diagnose {engine_version()}, the deal "
                           f"{expected}")
    from diagnose.engine import train

    deck = None
    if check:
        from diagnose.diagnostician import DECKS, runs_distinguishable

        deck = DECKS[level]
    for kept, (deal, plans) in enumerate(rounds):  # noqa: B007 - kept is returned
        records = {plan.run: list(train(plan.config, plan.seed)) for plan in plans}
        if deck is None or runs_distinguishable(records, deal, deck=deck):
            break
    return kept, records


def plan_rounds(secret: bytes, code: str, steps: int, level: int = 1) -> Rounds:
    """Every round a scenario may need, dealt from the level's breaks as a local deal's
    (`choose_breaks(None, level)`), planned here: the worker never sees the secret."""
    slugs = choose_breaks(None, level)
    return [plan_runs(secret, code, slugs, steps, redeal, level) for redeal in range(REDEALS)]


def train_on_cluster(client: Any, orders: Sequence[Order], *, secret: bytes,
                     steps: int, check: bool) -> Iterator[Trained]:
    """Submit one task per order, at its level; yield each result as it arrives (in any order).

    Closing the generator early (Ctrl-C, an error writing a bundle) cancels what is left.
    """
    from distributed import as_completed

    batch = secrets.token_hex(4)  # two deals on one cluster never share a task key
    pending: dict[Any, tuple[Order, Rounds]] = {}
    try:
        for order in orders:
            rounds = plan_rounds(secret, order.code, steps, order.level)
            future = client.submit(train_scenario, rounds, order.level, check, engine_version(),
                                   key=f"diagnose-{batch}-{order.code}", pure=False,
                                   retries=RETRIES)
            pending[future] = (order, rounds)
        for future in as_completed(list(pending), loop=client.loop):
            order, rounds = pending.pop(future)
            try:
                kept, records = future.result()
            except ClusterError:
                raise
            except Exception as err:  # noqa: BLE001 - KilledWorker, a lost scheduler, a bug
                raise ClusterError(f"{order.student}: training on the cluster failed "
                                   f"({type(err).__name__}: {_first_line(err)}); the bundles "
                                   "written so far are kept: run the same command again to "
                                   "deal the rest") from None
            future.release()
            yield Trained(order, rounds[kept][0], records, kept)
    finally:
        if pending:
            client.cancel(list(pending), force=True)
