"""Fixtures for the TUI tests: real scenarios copied into tmp_path, never trained here.

`data/scenario` is a finished 40-step scenario from the real engine (`data/make_fixture.py`),
sealed under `data/home/self-study.key`. Each test gets its own copy inside a course folder
(`<tmp>/course/experiments/19-break-it`, the default layout) and the key in its private
DIAGNOSE_HOME (the root conftest points DIAGNOSE_HOME into tmp_path).
"""

from __future__ import annotations

import asyncio
import inspect
import math
import os
import shutil
import time
from pathlib import Path

import pytest
import textual.app
from textual.pilot import Pilot

from diagnose.metrics import read_metrics, write_metrics
from diagnose.workspace import open_workspace

DATA = Path(__file__).resolve().parent / "data"
NAN_FROM = 25  # the NaN fixture's run 02 diverges here
KEY_IDLE_WINDOW_S = 0.005  # Textual's: 0.02 (see quick_keys)


async def _key_settled(min_sleep: float = 0.0, max_sleep: float = 1.0) -> None:
    """Textual's idle test (the `wait_for_idle` textual.app calls) in windows of KEY_IDLE_WINDOW_S:
    sleep a window at a time until one passes in which this process used under a twentieth of
    it in CPU (the app has done what the key asked), or `max_sleep` has passed."""
    started = time.monotonic()
    while True:
        cpu = time.process_time()
        await asyncio.sleep(KEY_IDLE_WINDOW_S)
        used, elapsed = time.process_time() - cpu, time.monotonic() - started
        if elapsed >= max_sleep or (elapsed > min_sleep and used < KEY_IDLE_WINDOW_S / 20):
            return


# textual.app's `wait_for_idle` is a module name, not a documented API: a release without it
# leaves `press` as Textual wrote it (slower, never wrong), so only speed rests on it
TEXTUAL_PRESS, TEXTUAL_WAIT = Pilot.press, getattr(textual.app, "wait_for_idle", None)


async def _press(self: Pilot, *keys: str) -> None:
    """`Pilot.press`, the keys before the last one in quick windows (quick_keys)."""
    if len(keys) > 1 and TEXTUAL_WAIT is not None:
        textual.app.wait_for_idle = _key_settled  # what the app waits with after each key
        try:
            await TEXTUAL_PRESS(self, *keys[:-1])
        finally:
            textual.app.wait_for_idle = TEXTUAL_WAIT
    await TEXTUAL_PRESS(self, *keys[-1:])


@pytest.fixture(autouse=True)
def quick_keys(monkeypatch):
    """Pilot's keys in a row wait for an idle app in windows of 5 ms instead of 20.

    After every key `pilot.press` sends, Textual sleeps twice until a 20 ms window passes in
    which the process used under 1 ms of CPU: at least 40 ms a key, while handling one takes a
    few ms. Three TUI files slept 30.8 of their 46 s that way (638 waits; `pilot.pause()`: 45
    waits, 2.0 s). Here every key but the last of a `press` is followed by the same test in
    5 ms windows (its work done, the next key follows it in the app's queue); the last key,
    after which a test looks, and `pilot.pause()` keep Textual's 20 ms windows. No private
    name is imported (tests/test_public_api.py): `press`, and the module's `wait_for_idle` the
    app calls, which a Textual without it simply leaves alone (TEXTUAL_WAIT)."""
    monkeypatch.setattr(Pilot, "press", _press)


def copy_scenario(target: Path) -> Path:
    shutil.copytree(DATA / "scenario", target)
    return target


@pytest.fixture
def home(private_home: Path) -> Path:
    """The fixture's self-study secret, in this test's private DIAGNOSE_HOME."""
    key = private_home / "self-study.key"
    shutil.copyfile(DATA / "home" / "self-study.key", key)
    os.chmod(key, 0o600)
    return private_home


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A course folder: the diagnoses file and the solutions land here."""
    folder = tmp_path / "course"
    folder.mkdir()
    return folder


@pytest.fixture
def workspace(course: Path, home: Path) -> Path:
    return copy_scenario(course / "experiments" / "19-break-it")


def deal_again(workspace: Path, home: Path, steps: int) -> Path:
    """The fixture's scenario dealt again in its folder by the real engine at `steps`: its
    code and the self-study key in `home`, so the same breaks behind the same IDs (tests of
    a flow that trains, the what-if's, where the physics is not what they check)."""
    from diagnose.game.scenario import ScenarioSpec, create_scenario
    from diagnose.workspace import open_workspace
    from grading.seal import read_key_file

    create_scenario(workspace, ScenarioSpec(code=open_workspace(workspace).code, steps=steps),
                    secret=read_key_file(home / "self-study.key"), force=True)
    return workspace


@pytest.fixture
def nan_workspace(course: Path) -> Path:
    """The scenario with run 02 made to diverge: NaN from step NAN_FROM, an infinity before.

    Hand-made on purpose: the engine's stable log-softmax never diverges on these breaks.
    """
    target = copy_scenario(course / "experiments" / "nan")
    path = target / "02" / "metrics.jsonl"
    header, records = read_metrics(path)
    records[NAN_FROM - 1]["grad_norm_preclip"] = math.inf
    for record in records[NAN_FROM:]:
        record["train_loss"] = record["grad_norm_preclip"] = math.nan
        record["act_mean_abs"] = [math.nan] * len(record["act_mean_abs"])
        record["spectral_norm"] = dict.fromkeys(record["spectral_norm"], math.nan)
        if record["val_loss"] is not None:
            record["val_loss"] = math.nan
    write_metrics(path, {k: v for k, v in header.items() if k != "schema"}, records)
    return target


class ReplayScenario:
    """A stand-in for `create_scenario`: streams the fixture's records, then writes it.

    `hold` keeps it training (streaming nothing more after `hold` steps per run) until it is
    told to stop, for the tests of a quit mid-training. The keyword arguments are checked
    against the real signature's, so a change there fails here first.
    """

    def __init__(self, hold: int | None = None) -> None:
        self.hold = hold
        self.calls: list[dict] = []

    def __call__(self, target: Path, spec, *, secret: bytes, workers, callbacks) -> object:
        from diagnose.game.scenario import ScenarioSpec, create_scenario
        from diagnose.game.training import Cancelled, TrainingCallbacks, Workers

        inspect.signature(create_scenario).bind(  # the app's call must suit the real one
            target, spec=spec, secret=secret, workers=workers, callbacks=callbacks)
        assert isinstance(spec, ScenarioSpec) and isinstance(callbacks, TrainingCallbacks)
        assert isinstance(workers, Workers) and workers.pool is None
        assert workers.background, "under the TUI, training must yield the CPU and keep quiet"
        self.calls.append({"target": target, "code": spec.code, "steps": spec.steps,
                           "lang": spec.lang})
        on_step, should_stop = callbacks.on_step, callbacks.should_stop
        source = open_workspace(DATA / "scenario")
        runs = {run: source.read_run(run)[1] for run in source.runs}
        for step in range(source.steps if self.hold is None else self.hold):
            for run, records in runs.items():  # interleaved, as the training pool sends them
                if should_stop():
                    raise Cancelled()
                on_step(run, records[step])
        while self.hold is not None:
            if should_stop():
                raise Cancelled()
            time.sleep(0.01)
        return open_workspace(copy_scenario(Path(target)))


def cache_whatif_doses(workspace: Path) -> None:
    """Reveal the fixture and cache its no-warmup run (01) as every other dose's what-if, its
    loss scaled per dose: a what-if with nothing to train and its curves apart."""
    from diagnose.diagnosis.reveal import write_solutions
    from diagnose.game.whatif import plan_whatif

    write_solutions(workspace)
    plan = plan_whatif(open_workspace(workspace), "01")
    header, records = read_metrics(workspace / "01" / "metrics.jsonl")
    header = {k: v for k, v in header.items() if k != "schema"}
    for factor, dose in enumerate(plan.doses, start=2):
        if dose.dealt:
            continue
        scaled = [r | {"train_loss": r["train_loss"] * factor} for r in records]
        folder = workspace / "whatif" / "01" / dose.folder(plan.field)
        folder.mkdir(parents=True)
        write_metrics(folder / "metrics.jsonl", header, scaled)


@pytest.fixture
def foreground_whatif(monkeypatch):
    """The what-if screen's real training, at the test's own priority.

    The screen asks `run_whatif` for the background (checked here); a lowered priority would
    leave that training only the idle moments of a suite whose other workers keep both cores
    busy (10 s for the fixture's 120 steps, on two idle cores). `platform.lower_priority` is
    tested in tests/test_platform.py."""
    from diagnose.tui.screens import whatif as whatif_screen

    real = whatif_screen.run_whatif

    def run_whatif(*args, background: bool, **kwargs):
        assert background, "under the TUI, the what-if must train in the background"
        return real(*args, background=False, **kwargs)

    monkeypatch.setattr(whatif_screen, "run_whatif", run_whatif)
