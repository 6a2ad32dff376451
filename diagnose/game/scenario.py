"""The scenario engine: deal breaks behind opaque IDs, train every run, write a sealed workspace.

A scenario is a code and a secret; everything else follows from both: the permutation of the
breaks behind `01 02 03` and every run's training seed (`diagnose.game.dealing`).
`create_scenario` takes what to make as one `ScenarioSpec` and how the caller follows it
as one `TrainingCallbacks`; it trains the reference and the runs in worker processes
(`diagnose.game.training`), streams each
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
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import scenarios
from diagnose import __version__
from diagnose.game.dealing import (
    RunPlan,
    ScenarioError,
    check_code,
    checks_runs,
    deal_check,
    new_code,
    plan_rounds,
    redeal_message,
    train_rounds,
)
from diagnose.game.training import (
    TrainingCallbacks,
    TrainingPool,
    Workers,
)
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
from grading.grade import scenario_json
from grading.seal import SEALERS, SealedBy, seal
from scenarios.config import MAX_STEPS
from scenarios.errors import UserError
from scenarios.files import LockBusy, exclusive_lock

ENGINE_VERSION = "1"


def engine_version() -> str:
    """This diagnose and its engine, as `scenario.json` and the deal settings record them: what
    must match between two machines (a cluster's workers) for their bundles to match."""
    return f"{__version__}+engine{ENGINE_VERSION}"


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
