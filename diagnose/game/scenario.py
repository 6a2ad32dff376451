"""The scenario engine: deal breaks behind opaque IDs, train every run, write a sealed workspace.

A scenario is a code and a secret; everything else follows from both: the permutation of the
breaks behind `01 02 03` (HMAC-SHA256, uniform over the orderings) and every run's training
seed. `create_scenario` takes what to make as one `ScenarioSpec` and how the caller follows it
as one `TrainingCallbacks`; it trains the reference and the runs in worker processes, streams each
step to the caller, then writes the workspace (architecture §7) into a temporary folder and moves it
into place, so an interruption leaves nothing half-written. It never writes anything that
tells which break an ID holds: headers use the healthy config, files are written in ID order
after every run has finished, and all of them get the same modification time.

Not here: the numpy training (`diagnose.engine`), reading a workspace (`diagnose.workspace`),
the reveal (`diagnose.diagnosis.reveal`) and the terminal's progress bars
(`diagnose.views.run_bars`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import queue as queue_module
import re
import secrets as secrets_module
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import scenarios
from diagnose import __version__, platform
from diagnose.metrics import make_header, write_metrics
from diagnose.workspace import (
    DASHBOARD_FILE,
    KEY_FILE,
    METRICS_FILE,
    REFERENCE,
    SCENARIO_FILE,
    Workspace,
    is_workspace,
    open_workspace,
)
from grading.dealt import assignment, hmac_int, run_ids
from grading.grade import scenario_json
from grading.seal import SEALERS, SealedBy, seal
from scenarios.config import MAX_STEPS
from scenarios.errors import UserError
from scenarios.files import LockBusy, exclusive_lock

ENGINE_VERSION = "1"
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"  # no 0/O, 1/I/L, U: read aloud safely
CODE_MAX = 64
REDEALS = 3
BACKGROUND_NICENESS = 10  # training under the TUI: the screen answers keys first

OnStep = Callable[[str, dict[str, Any]], None]
# A caller's progress display: progress(make, labels, steps, title) runs make(on_step) under it
# (one bar per label, `steps` long) and returns what make returns.
Progress = Callable[[Callable[[OnStep | None], Any], Sequence[str], int, str], Any]


def engine_version() -> str:
    """This diagnose and its engine, as `scenario.json` and the deal settings record them: what
    must match between two machines (a cluster's workers) for their bundles to match."""
    return f"{__version__}+engine{ENGINE_VERSION}"


class ScenarioError(UserError):
    """A scenario cannot be made as asked; one line saying why and what to do."""


class Cancelled(Exception):  # noqa: N818 - it is an outcome, not a fault
    """Training was stopped before the end; nothing was written."""


# --- the deal: codes, permutation, seeds -------------------------------------------------

def new_code() -> str:
    """A fresh random code like `7KQ2-M9XF`."""
    chars = [secrets_module.choice(CODE_ALPHABET) for _ in range(8)]
    return "".join(chars[:4]) + "-" + "".join(chars[4:])


# A code is written into the diagnoses file's `<!-- scenario: CODE -->` comment: nothing in it
# may end the comment early or open markup.
CODE_FORBIDDEN = re.compile(r"[<>]|--")


def check_code(code: str) -> str:
    """Instructors name their seeds as they like: printable text of 1-64 characters, no `<>--`."""
    allowed = ("letters, digits, spaces and punctuation except '<' and '>', with no two "
               "dashes in a row")
    if not 1 <= len(code) <= CODE_MAX:
        raise ScenarioError(f"scenario code must have 1 to {CODE_MAX} characters, "
                            f"got {len(code)}")
    if not code.isprintable() or code != code.strip():
        raise ScenarioError(f"scenario code {code!r} must be printable text on one line, "
                            f"without leading or trailing spaces ({allowed})")
    if CODE_FORBIDDEN.search(code):
        raise ScenarioError(f"scenario code {code!r} cannot hold '<', '>' or '--' (it is "
                            f"saved in an HTML comment); use {allowed}")
    return code


def training_seed(secret: bytes, code: str, run: str, redeal: int = 0) -> int:
    return hmac_int(secret, "seed", code, run, str(redeal)) % 2**63


def planned_runs(level: int | None = None) -> tuple[str, ...]:
    """The runs a fresh scenario of `level` (the first level by default) will have, known
    before it trains: the reference, then its entry's IDs."""
    dealt = scenarios.level(level) if level is not None else scenarios.first_level()
    return (REFERENCE, *run_ids(dealt.runs))


@dataclass(frozen=True)
class RunPlan:
    run: str          # "reference" or an ID
    config: scenarios.Config
    seed: int


def plan_runs(secret: bytes, code: str, level: scenarios.Level, steps: int,
              redeal: int = 0) -> tuple[dict[str, str], list[RunPlan]]:
    """The deal of `level` and one plan per run; the healthy decoy trains the reference's
    config from its own ID's seed."""
    healthy = dataclasses.replace(scenarios.healthy_config(), steps=steps)
    deal = assignment(secret, code, level)
    catalog = scenarios.breaks(None)
    plans = [RunPlan(REFERENCE, healthy, training_seed(secret, code, REFERENCE, redeal))]
    plans += [RunPlan(rid, catalog[slug].apply(healthy), training_seed(secret, code, rid, redeal))
              for rid, slug in deal.items()]
    return deal, plans


Rounds = list[tuple[dict[str, str], list[RunPlan]]]  # (deal, plans) per round


def plan_rounds(secret: bytes, code: str, steps: int, level: int = 1) -> Rounds:
    """Every round a scenario may need (`REDEALS`): the same deal, each with fresh seeds.
    Planned from the secret on the dealer's machine; training them needs no secret."""
    entry = scenarios.level(level)
    return [plan_runs(secret, code, entry, steps, redeal) for redeal in range(REDEALS)]


# --- training in worker processes ---------------------------------------------------------

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


# --- writing the workspace -----------------------------------------------------------------

@contextlib.contextmanager
def workspace_lock(target: Path) -> Iterator[None]:
    """One writer per workspace: a second `diagnose new` on the same folder is refused."""
    lock_path = target.parent / f".{target.name}.lock"
    try:
        release = exclusive_lock(lock_path)
    except LockBusy:
        # the holder's lock file stays: removing it would let a third writer in
        raise ScenarioError(f"{target}: another diagnose is writing this scenario right "
                            "now; wait for it to finish") from None
    except OSError as err:
        raise ScenarioError(f"{target.parent}: cannot write here ({err.strerror or err})") from None
    try:
        yield
    finally:
        release()


def check_target(target: Path, force: bool) -> None:
    """Refuse a folder we must not write: a file, someone else's folder, a scenario (no --force)."""
    if target.exists() and not target.is_dir():
        raise ScenarioError(f"{target}: exists and is not a directory")
    if target.is_dir():
        if is_workspace(target):
            if not force:
                raise ScenarioError(f"{target}: a scenario is already here; use --force to "
                                    "replace it, or --dir to make one elsewhere")
        elif any(target.iterdir()):
            raise ScenarioError(f"{target}: holds other files, not a scenario; choose an empty "
                                "or new folder with --dir")
    parent = target.parent
    existing = next((p for p in [parent, *parent.parents] if p.exists()), None)
    if existing is None or not existing.is_dir():
        raise ScenarioError(f"{parent}: not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ScenarioError(f"{existing}: not writable")



def check_playable(directory: Path, code: str | None, level: int | None) -> None:
    """What `diagnose play` may open: a scenario in `directory` of the level and code asked for
    (when asked), or a folder a fresh scenario may be written to, under a valid code."""
    if is_workspace(directory):
        found = open_workspace(directory)
        if level is not None and found.level != level:
            raise UserError(f"{directory}: holds a level-{found.level} scenario, not level "
                            f"{level}; choose another --dir, or leave --dir out to use the "
                            "level's own folder")
        if code is not None and code != found.code:
            raise UserError(
                f"{directory}: holds scenario {found.code}, not {code}; choose another --dir "
                f"or replace it with `diagnose new --dir {directory} --seed {code} --force`")
    else:
        check_target(directory, force=False)
        if code is not None:
            check_code(code)


def write_workspace(target: Path, spec: ScenarioSpec, *, secret: bytes, deal: dict[str, str],
                    records: dict[str, list[dict[str, Any]]]) -> Workspace:
    """Write every file of the scenario `spec` (dealt as `deal`, trained as `records`) into a
    temp folder beside `target`, then move it into place."""
    code, steps, lang = spec.code, spec.steps, spec.lang
    healthy = dataclasses.replace(scenarios.healthy_config(), steps=steps)
    from diagnose.engine import run_header_fields  # numpy: only once training is done

    fields = run_header_fields(healthy)
    ids = list(deal)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial",
                                    dir=target.parent))
    try:
        headers = {run: make_header(run=run, **fields) for run in (REFERENCE, *ids)}
        for run in (REFERENCE, *ids):  # in ID order, after every run finished
            (staging / run).mkdir()
            write_metrics(staging / run / METRICS_FILE, headers[run], records[run])
        _write_dashboards(staging, code, headers, records, lang)
        (staging / SCENARIO_FILE).write_text(
            scenario_json(code, ids, steps, engine_version(), spec.key, spec.level),
            encoding="utf-8")
        (staging / KEY_FILE).write_text(seal(code, deal, secret), encoding="utf-8")
        _same_mtime(staging)
        _move_into_place(staging, target)
    except OSError as err:  # a full disk, a quota: one line, and nothing half-written kept
        shutil.rmtree(staging, ignore_errors=True)
        raise ScenarioError(f"{target}: cannot be written ({err.strerror or err}); nothing "
                            "was kept") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return open_workspace(target)


def _write_dashboards(root: Path, code: str, headers: dict[str, dict[str, Any]],
                      records: dict[str, list[dict[str, Any]]], lang: str) -> None:
    """Every run's page, all of one size and one line count
    (`diagnose.views.dashboard.one_size`)."""
    from diagnose.views.dashboard import one_size, render_dashboard  # not needed before here

    reference = (headers[REFERENCE], records[REFERENCE])
    pages = one_size({run: render_dashboard(headers[run], records[run],
                                            reference=None if run == REFERENCE else reference,
                                            lang=lang, code=code)
                      for run in headers})
    for run, page in pages.items():
        (root / run / DASHBOARD_FILE).write_bytes(page)


def _same_mtime(root: Path) -> None:
    """Every file and folder gets one timestamp: mtimes must not hint at which run is which."""
    stamp = time.time()
    for path in sorted(root.rglob("*"), reverse=True):
        os.utime(path, (stamp, stamp))
    os.utime(root, (stamp, stamp))


def _move_into_place(staging: Path, target: Path) -> None:
    if not target.exists():
        os.replace(staging, target)
        return
    retired = target.with_name(f".{target.name}.old-{os.getpid()}")
    os.replace(target, retired)  # --force: the old scenario goes only once the new one is in
    try:
        os.replace(staging, target)
    except OSError:
        os.replace(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)


# --- the whole recipe ------------------------------------------------------------------------

Verdict = Callable[[dict[str, list[dict[str, Any]]], dict[str, str]], bool]


@dataclass(frozen=True)
class ScenarioSpec:
    """What to make: the same spec and secret give the same scenario, bit for bit on one
    machine (on another CPU kind OpenBLAS picks other kernels: docs/files.md, "The workspace").

    Checked and completed when made: a missing `code` is drawn at random (`new_code`), missing
    `steps` are healthy.toml's, a missing `level` the first of levels.toml. `key` says who
    opens the sealed answers: "self-study" (the player) or "instructor" (a dealt bundle).
    `level` picks the entry of levels.toml whose deck and deal rule make the scenario.
    """

    code: str | None = None
    steps: int | None = None
    lang: str = "en"
    key: str = SealedBy.SELF_STUDY
    level: int | None = None

    def __post_init__(self) -> None:
        steps = scenarios.healthy_config().steps if self.steps is None else self.steps
        if not 1 <= steps <= MAX_STEPS:
            raise ScenarioError(f"--steps must be between 1 and {MAX_STEPS}, got {steps}")
        if self.lang not in scenarios.LANGS:
            raise ScenarioError(f"--lang must be one of {', '.join(scenarios.LANGS)}, "
                                f"got {self.lang!r}")
        if self.key not in SEALERS:
            raise ScenarioError(f"key must be self-study or instructor, got {self.key!r}")
        object.__setattr__(self, "code",
                           check_code(self.code) if self.code is not None else new_code())
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "level", self.entry.number)

    @property
    def entry(self) -> scenarios.Level:
        """The level's entry of levels.toml (LevelError for a number it lacks)."""
        return (scenarios.level(self.level) if self.level is not None
                else scenarios.first_level())


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


def create_scenario(target: Path, spec: ScenarioSpec, *, secret: bytes,
                    callbacks: TrainingCallbacks | None = None, workers: Workers | None = None,
                    force: bool = False) -> Workspace:
    """Deal, train and write the scenario `spec` into `target`; see the module docstring.
    `workers` says where it trains; `force` replaces a scenario in `target`."""
    workers = workers or Workers()
    pool, prefix = workers.pool, workers.prefix
    target = Path(target)
    callbacks = callbacks or TrainingCallbacks()
    code, steps = spec.code, spec.steps
    check_target(target, force)
    target.parent.mkdir(parents=True, exist_ok=True)
    with workspace_lock(target):
        check_target(target, force)  # again, now that we hold the lock
        rounds = plan_rounds(secret, code, steps, spec.level)
        own_pool = pool is None
        pool = pool or TrainingPool(workers.jobs, background=workers.background)

        def train(plans: list[RunPlan]) -> dict[str, list[dict[str, Any]]]:
            return pool.run(plans, on_step=callbacks.on_step, should_stop=callbacks.should_stop,
                            prefix=prefix)

        def redealt(failed: int) -> None:
            if callbacks.on_redeal is not None:
                callbacks.on_redeal(redeal_message(code, failed))

        try:
            check = deal_check(scenarios.level(spec.level).deck) if checks_runs(steps) else None
            kept, records = train_rounds(rounds, train, check, redealt)
        except BaseException:
            if own_pool:
                pool.close(graceful=False)
            raise
        if own_pool:
            pool.close()
        deal, _ = rounds[kept]
        return write_workspace(target, spec, secret=secret, deal=deal, records=records)


def checks_runs(steps: int) -> bool:
    """Whether a deal of `steps` is checked by the diagnostician: a full-length one only (a
    shortened run has not shown its signatures yet)."""
    return steps == scenarios.healthy_config().steps


def deal_check(deck: Sequence[str]) -> Verdict:
    """The automatic diagnostician's check, against a level's `deck`, that every run shows its
    break (and the decoy none)."""
    from diagnose.diagnosis.diagnostician import runs_distinguishable

    return lambda records, deal: runs_distinguishable(records, deal, deck=deck)


def train_rounds(rounds: Rounds, train: Callable[[list[RunPlan]], dict[str, list[dict[str, Any]]]],
                 check: Verdict | None, on_redeal: Callable[[int], None] | None = None
                 ) -> tuple[int, dict[str, list[dict[str, Any]]]]:
    """Train each round until `check` tells its runs apart (every round passes without one),
    or the last round, which is kept whatever it shows; (the kept round, its records by run).
    `on_redeal(round)` hears of each round refused before another is trained. Local deals
    (`create_scenario`) and a cluster's tasks (`diagnose.classroom.cluster.train_scenario`) both
    deal
    through here."""
    for kept, (deal, plans) in enumerate(rounds):
        records = train(plans)
        if check is None or kept == len(rounds) - 1 or check(records, deal):
            return kept, records
        if on_redeal is not None:
            on_redeal(kept)
    raise ScenarioError("no round to train")


def redeal_message(code: str, failed: int) -> str:
    """What a dealer is told when round `failed` (from 0) was refused and another trains."""
    return (f"scenario {code}: the runs could not be told apart from their metrics (deal "
            f"{failed + 1}); trained again with fresh seeds")
