"""Dealing on a Dask cluster: `diagnose deal --scheduler tcp://HOST:8786` (docs/instructors.md, "A
class on a cluster").

One task per student: the task trains that student's scenario at that student's level (the
reference and every run, and a re-deal when the diagnostician, weighing the runs against the
level's deck, cannot tell them apart) in the worker's own process, calling the engine's
`train` directly (a Dask worker is daemonic: it cannot start a training pool), and returns
every run's records. The tasks get configs and seeds, never the secret: the
instructor's machine plans every deal, then writes each bundle through the same writer as a
local deal and seals it with the key, as results come back. A task that does not come back
wrote nothing, so an interrupted or failed deal resumes like a local one.

Connecting has one overall deadline: Dask's own connect timeout leaves out the handshake, so a
peer that accepts TCP and never speaks would hang `Client(...)` for ever (dask/distributed PR
#7698); a bounded handshake runs first. `tls://` uses Dask's `Security` (the `--tls-*` files, or
Dask's `distributed.comm.tls` settings).

Only checked workers train: each worker, when it is first seen (at the start, or joining
mid-deal), reports its diagnose and engine version; a worker that matches this machine gets the
resource `diagnose-<version>` and every task asks for it, so the scheduler never gives a task to
one that does not (`CheckedCluster`). The others are named in a warning and keep serving whoever
else uses the cluster. A worker that dies mid-task has its task run again elsewhere (Dask's
scheduler does so, and `retries` covers a task that raises). A lost scheduler ends the deal:
its workers shut down with it (measured: a worker, nanny or not, closes as soon as its
scheduler's connection breaks; `--death-timeout` bounds only its wait for a scheduler at start).

dask.distributed is optional (the `diagnose-training[cluster]` extra) and imported only here.
What this module leaves out: starting clusters (dask-jobqueue and `dask worker` do that).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import scenarios
from diagnose import __version__
from diagnose.game.dealing import (
    Rounds,
    RunPlan,
    ScenarioError,
    deal_check,
    plan_rounds,
    train_rounds,
)
from diagnose.game.scenario import engine_version

CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler, handshake included
WORKER_TIMEOUT = 60.0  # seconds to wait for --min-workers checked workers, or for one mid-deal
POLL = 0.5  # seconds between looks at the cluster's workers while a deal runs
RETRIES = 2  # a task that raises is tried this many more times
ADDRESS = re.compile(r"^(?:(?:tcp|tls)://)?(?:\[[0-9A-Fa-f:.]+\]|[\w.-]+):(\d{1,5})$")
DASK_LOGGERS = ("distributed", "distributed.client", "distributed.gc", "tornado",
                "tornado.application", "bokeh")
LOST_SCHEDULER = ("its workers shut down with it (each once its task in hand ends): start "
                  "`dask scheduler` again, then every `dask worker` (on Slurm, the SLURMCluster "
                  "and its jobs), and run the same command again to deal the rest")


class ClusterError(ScenarioError):
    """The cluster cannot deal as asked; one line saying why and what to do."""


def install_hint() -> str:
    """How a worker gets this very version: the wheel `diagnose wheel` writes."""
    return (f"write the wheel here with `diagnose wheel --out DIR`, then on each worker: pip "
            f'install "DIR/diagnose_training-{__version__}-py3-none-any.whl[cluster]"')


def resource_name(version: str) -> str:
    """The Dask resource a worker of `version` is granted once checked; every task asks for it."""
    return f"diagnose-{version}"


async def grant_resource(expected: str, dask_worker: Any) -> str:
    """Run on a worker by `Client.run`: its own version; when it is `expected`, the worker also
    gets `resource_name(expected)`, one unit per thread, so it may take the deal's tasks."""
    version = engine_version()
    if version == expected:
        await dask_worker.set_resources(**{resource_name(expected): dask_worker.state.nthreads})
    return version


@dataclass(frozen=True)
class TLSFiles:
    """The PEM files of a `tls://` connection, as `dask worker --tls-ca-file/--tls-cert/--tls-key`
    take them; `key` may be None when `cert` holds the key too."""

    ca_file: Path
    cert: Path
    key: Path | None = None


@dataclass(frozen=True)
class ClusterOptions:
    """Where and how a deal trains on a Dask cluster (`diagnose deal --scheduler ...`); `opened`
    connects with them."""

    address: str
    connect_timeout: float = CONNECT_TIMEOUT
    min_workers: int = 1
    worker_timeout: float = WORKER_TIMEOUT
    tls: TLSFiles | None = None


@contextlib.contextmanager
def opened(options: ClusterOptions, on_warning: Callable[[str], None] = lambda message: None
           ) -> Iterator[CheckedCluster]:
    """A checked cluster for the length of the `with`, closed after it whatever happens; Dask's
    own loggers are silenced first (our account of a failure is the one Error line)."""
    quiet_dask_logs()
    checked = connect(options.address, options.connect_timeout,
                      min_workers=options.min_workers, worker_timeout=options.worker_timeout,
                      tls=options.tls, on_warning=on_warning)
    try:
        yield checked
    finally:
        checked.close()


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


@dataclass
class CheckedCluster:
    """A `distributed.Client` on `address`, and which of its workers run this diagnose.

    `look()` checks every worker not seen before (`grant_resource`), names in `on_warning` each
    one that runs another version or none, and returns the addresses it has just granted.
    """

    client: Any
    address: str
    on_warning: Callable[[str], None] = lambda message: None
    timeout: float = WORKER_TIMEOUT  # for checked workers to join (or rejoin mid-deal)
    expected: str = field(default_factory=engine_version)
    refused: set[str] = field(default_factory=set)  # named in a warning; not asked again

    @property
    def resource(self) -> str:
        return resource_name(self.expected)

    def lost(self) -> ClusterError:
        return ClusterError(f"{self.address}: the scheduler was lost; the bundles written so "
                            f"far are kept; {LOST_SCHEDULER}")

    def workers(self) -> dict[str, dict[str, Any]]:
        """The scheduler's workers by address (a lost scheduler is a ClusterError)."""
        if self.client.status != "running":
            raise self.lost()
        try:
            return self.client.scheduler_info(n_workers=-1)["workers"]
        except (KeyError, OSError):
            raise self.lost() from None

    def checked(self, workers: dict[str, dict[str, Any]] | None = None) -> set[str]:
        workers = self.workers() if workers is None else workers
        return {address for address, worker in workers.items()
                if worker.get("resources", {}).get(self.resource)}

    def look(self) -> set[str]:
        workers = self.workers()
        self.refused &= set(workers)  # one that left and comes back is asked again
        unseen = sorted(set(workers) - self.checked(workers) - self.refused)
        if not unseen:
            return set()
        try:
            answers = self.client.run(grant_resource, self.expected, workers=unseen,
                                      on_error="return")
        except OSError:
            raise self.lost() from None
        granted = set()
        for worker, answer in sorted(answers.items()):
            if answer == self.expected:
                granted.add(worker)
                continue
            self.refused.add(worker)
            found = (f"cannot run diagnose ({type(answer).__name__}: {_first_line(answer)})"
                     if isinstance(answer, BaseException) else f"runs diagnose {answer}")
            self.on_warning(f"worker {worker} {found}, this machine {self.expected}: it gets "
                            f"no task of this deal (to use it, {install_hint()})")
        return granted

    def wait_for_workers(self, count: int, timeout: float) -> None:
        """Wait up to `timeout` for `count` checked workers (dask-jobqueue's jobs start late)."""
        deadline = time.monotonic() + timeout
        try:
            self.client.wait_for_workers(count, timeout=timeout)
        except TimeoutError:  # before OSError, its base class
            joined = len(self.workers())
            raise ClusterError(f"{self.address}: {joined} worker(s) joined within {timeout:g} "
                               f"s, {count} wanted; start them with `dask worker "
                               f"{self.address}` (or lower --min-workers, or raise "
                               "--worker-timeout)") from None
        except (OSError, CancelledError):
            raise self.lost() from None
        while True:
            self.look()
            found = len(self.checked())
            if found >= count:
                return
            if time.monotonic() >= deadline:
                raise ClusterError(f"{self.address}: {found} of the {count} worker(s) wanted "
                                   f"run diagnose {self.expected} (after {timeout:g} s); "
                                   f"{install_hint()}")
            time.sleep(min(POLL, max(0.0, deadline - time.monotonic())))

    def close(self) -> None:
        self.client.close()


def quiet_dask_logs() -> None:
    """Silence, in this process, the loggers that distributed gives a stderr handler of their
    own and a level (`distributed.config`'s defaults), each of which would print its own
    account of a failure."""
    try:
        import distributed  # noqa: F401 - sets those loggers up on import
    except ImportError:  # `connect` says so, in one Error line
        return

    for name in DASK_LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def check_address(address: str) -> str | None:
    """Why `address` is not a scheduler's address (`tcp://HOST:PORT`), or None when it is."""
    found = ADDRESS.match(address)
    if found is None or not 1 <= int(found.group(1)) <= 65535:
        return f"{address!r} is not a scheduler address; use tcp://HOST:PORT or " \
               "tls://HOST:PORT (dask scheduler prints it; its port is 8786 by default)"
    return None


def connect(address: str, timeout: float = CONNECT_TIMEOUT, *, min_workers: int = 1,
            worker_timeout: float = WORKER_TIMEOUT, tls: TLSFiles | None = None,
            on_warning: Callable[[str], None] = lambda message: None) -> CheckedCluster:
    """A client on `address`, within `timeout` seconds all told, once `min_workers` workers
    that run this diagnose have joined (within `worker_timeout`)."""
    problem = check_address(address)
    if problem:
        raise ClusterError(problem)
    try:
        import distributed  # noqa: F401 - only to say clearly that it is missing
    except ImportError:
        raise ClusterError("--scheduler needs dask.distributed, which is not installed",
                           hint=f"install the [cluster] extra: {install_hint()}") from None
    security = _security(address, tls)
    deadline = time.monotonic() + timeout
    _reachable(address, timeout)
    try:
        _handshake(address, security, deadline, timeout)
        client = _client(address, security, deadline, timeout)
    except ssl.SSLError as err:
        raise ClusterError(f"{address}: the TLS handshake failed ({_first_line(err)}); check "
                           "--tls-ca-file, --tls-cert and --tls-key against the scheduler's"
                           ) from None
    except (OSError, TimeoutError) as err:
        if isinstance(err.__cause__, ConnectionResetError) and address.startswith("tcp://"):
            raise ClusterError(f"{address}: the scheduler closed the connection in Dask's "
                               "handshake; if it speaks TLS, use tls://HOST:PORT with "
                               "--tls-ca-file and --tls-cert") from None
        raise ClusterError(f"{address}: no Dask scheduler answered within {timeout:g} s "
                           f"({_first_line(err)})") from None
    checked = CheckedCluster(client, address, on_warning, worker_timeout)
    try:
        checked.wait_for_workers(min_workers, worker_timeout)
    except BaseException:
        client.close()
        raise
    return checked


def _first_line(err: BaseException) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0][:160]


def _security(address: str, tls: TLSFiles | None) -> Any:
    """Dask's `Security` for `address`: the given files, else Dask's own TLS settings."""
    from distributed.security import Security

    if not address.startswith("tls://"):
        if tls is not None:
            raise ClusterError(f"--tls-ca-file and --tls-cert need a tls:// address, not "
                               f"{address}")
        return Security()
    if tls is None:
        security = Security()  # distributed.comm.tls.* from Dask's config, if set there
        if not security.tls_ca_file or not security.tls_client_cert:
            raise ClusterError(f"{address} needs --tls-ca-file and --tls-cert (and --tls-key "
                               "unless the cert holds it), or Dask's distributed.comm.tls "
                               "settings")
        return security
    return Security(tls_ca_file=str(tls.ca_file), tls_client_cert=str(tls.cert),
                    tls_client_key=None if tls.key is None else str(tls.key),
                    require_encryption=True)


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


def _silent_peer(address: str, timeout: float) -> ClusterError:
    return ClusterError(f"{address}: something accepts connections there but no Dask "
                        f"scheduler answered within {timeout:g} s; is it the address `dask "
                        "scheduler` printed?")


def _handshake(address: str, security: Any, deadline: float, timeout: float) -> None:
    """Dask's handshake and one `identity` call, all before `deadline`: what answers is a
    scheduler."""
    from distributed.comm import connect as comm_connect

    async def identity() -> Any:
        comm = await comm_connect(address, timeout=timeout,
                                  **security.get_connection_args("client"))
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:
        found = asyncio.run(asyncio.wait_for(identity(), max(0.0, deadline - time.monotonic())))
    except TimeoutError:
        raise _silent_peer(address, timeout) from None
    except (OSError, ssl.SSLError):
        raise
    except Exception as err:  # noqa: BLE001 - a peer that speaks, but not Dask's protocol
        raise ClusterError(f"{address}: what answers there is not a Dask scheduler "
                           f"({type(err).__name__})") from None
    if not isinstance(found, dict) or found.get("type") != "Scheduler":
        raise ClusterError(f"{address}: what answers there is not a Dask scheduler")


def _client(address: str, security: Any, deadline: float, timeout: float) -> Any:
    """`distributed.Client(address)`, given up at `deadline` even if its handshake hangs (it is
    made in a thread; one that finishes after the deadline is closed there)."""
    from distributed import Client

    class QuietClient(Client):
        """A client that failed to start says nothing more when it is collected."""

        def __del__(self) -> None:
            with contextlib.suppress(Exception):
                super().__del__()

    made: dict[str, Any] = {}
    given_up = threading.Lock()  # held by whichever of the two threads decides first

    def make() -> None:
        try:
            client = QuietClient(address, timeout=max(0.1, deadline - time.monotonic()),
                                 security=security, set_as_default=False)
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread
            made["error"] = err
            return
        with given_up:
            keep = "late" not in made
            if keep:
                made["client"] = client
        if not keep:
            client.close()

    thread = threading.Thread(target=make, name="diagnose-connect", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()) + 0.5)
    with given_up:
        made["late"] = True
    if "client" in made:
        return made["client"]
    if "error" not in made:
        raise _silent_peer(address, timeout)
    err = made["error"]
    if isinstance(err, (OSError, TimeoutError)):
        raise err
    raise ClusterError(f"{address}: what answers there is not a Dask scheduler "
                       f"({type(err).__name__})")


def train_scenario(rounds: Rounds, deck: tuple[str, ...], check: bool, expected: str
                   ) -> tuple[int, dict[str, list[dict[str, Any]]]]:
    """The task, on a worker: `diagnose.game.dealing.train_rounds` over `rounds`, each checked
    against `deck` (the student's level's, read on the dealer's machine) when `check`; (the
    kept round, its records by run)."""
    if engine_version() != expected:  # a worker that claimed the resource by hand
        from distributed import get_worker

        raise ClusterError(f"worker {get_worker().address} runs diagnose {engine_version()}, "
                           f"the deal {expected}; {install_hint()}")
    from diagnose.engine import train

    def train_round(plans: list[RunPlan]) -> dict[str, list[dict[str, Any]]]:
        return {plan.run: list(train(plan.config, plan.seed)) for plan in plans}

    return train_rounds(rounds, train_round, deal_check(deck) if check else None)


def train_on_cluster(cluster: CheckedCluster, orders: Sequence[Order], *, secret: bytes,
                     steps: int, check: bool) -> Iterator[Trained]:
    """Submit one task per order, at its level, for checked workers only; yield each result as
    it arrives (in any order), looking at the cluster every `POLL` seconds meanwhile.

    Closing the generator early (Ctrl-C, an error writing a bundle) cancels what is left.
    A course deck's break is refused: the dealer's check runs on the workers, and its code runs
    only where the deck is installed.
    """
    from distributed import wait

    _refuse_course_breaks(orders)
    client = cluster.client
    batch = secrets.token_hex(4)  # two deals on one cluster never share a task key
    pending: dict[Any, tuple[Order, Rounds]] = {}

    def submit(order: Order, rounds: Rounds, attempt: int = 0) -> None:
        future = client.submit(train_scenario, rounds, scenarios.level(order.level).deck, check,
                               cluster.expected,
                               key=f"diagnose-{batch}-{order.code}-{attempt}", pure=False,
                               retries=RETRIES, resources={cluster.resource: 1})
        pending[future] = (order, rounds)

    try:
        for order in orders:
            submit(order, plan_rounds(secret, order.code, steps, order.level))
        attempts, alone_since = 0, None
        while pending:
            with contextlib.suppress(TimeoutError, CancelledError), client.as_current():
                wait(list(pending), timeout=POLL, return_when="FIRST_COMPLETED")
            if client.status != "running" or any(f.cancelled() for f in pending):
                raise cluster.lost()
            for future in [f for f in pending if f.done()]:
                order, rounds = pending.pop(future)
                kept, records = _result(future, order)
                future.release()
                yield Trained(order, rounds[kept][0], records, kept)
            if not pending:
                break
            if cluster.look():  # a checked worker joined: tasks left with no worker may go
                attempts += 1
                _resubmit_stranded(client, pending, partial(submit, attempt=attempts))
            alone_since = _alone_since(cluster, alone_since, len(pending))
    finally:
        if pending and client.status == "running":
            client.cancel(list(pending), force=True)


def _refuse_course_breaks(orders: Sequence[Order]) -> None:
    """A course deck's break is dealt on this machine only (its code is installed here)."""
    course = sorted({slug for order in orders for slug, brk in scenarios.breaks(order.level)
                     .items() if brk.course})
    if course:
        raise ClusterError(f"{course[0]} is a course deck's break: its code runs only on this "
                           "machine, so a level that holds it is dealt here, without "
                           "--scheduler")


def _result(future: Any, order: Order) -> tuple[int, dict[str, list[dict[str, Any]]]]:
    """A finished task's (kept round, records), or one error line naming the student."""
    try:
        return future.result()
    except ClusterError as err:
        raise ClusterError(f"{order.student}: {err}") from None
    except Exception as err:  # noqa: BLE001 - KilledWorker, a bug
        raise ClusterError(f"{order.student}: training on the cluster failed "
                           f"({type(err).__name__}: {_first_line(err)}); the bundles written "
                           "so far are kept: run the same command again to deal the rest"
                           ) from None


def _alone_since(cluster: CheckedCluster, since: float | None, left: int) -> float | None:
    """When the deal last saw no checked worker (None while one is there); an error once
    that has lasted `cluster.timeout` seconds with `left` students still to train."""
    if cluster.checked():
        return None
    if since is None:
        return time.monotonic()
    if time.monotonic() - since > cluster.timeout:
        raise ClusterError(f"{cluster.address}: no worker of diagnose {cluster.expected} for "
                           f"{cluster.timeout:g} s, {left} student(s) still to train; the "
                           "bundles written so far are kept: start workers and run the same "
                           "command again to deal the rest")
    return since


def _resubmit_stranded(client: Any, pending: dict[Any, tuple[Order, Rounds]],
                       submit: Callable[[Order, Rounds], None]) -> None:
    """Submit again the tasks no worker holds: the scheduler parks a task whose resource no
    worker has, and granting one later does not wake it (only a worker's arrival does)."""
    held = {key for keys in client.processing().values() for key in keys}
    for future in [f for f in pending if not f.done() and f.key not in held]:
        order, rounds = pending.pop(future)
        future.cancel()
        submit(order, rounds)
