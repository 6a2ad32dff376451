"""Training a fresh scenario behind the screen: what the app's worker thread runs.

`train_into` calls `create_scenario` (or a stand-in the tests pass) with the app's `RunStore`
as the step sink, and the two things a Textual app needs from a training pool:

- multiprocessing's resource tracker must be started before the app runs (`prepare`): the
  first worker process starts it with sys.stderr's file descriptor, and inside the app
  sys.stderr is Textual's capture, whose fileno() is -1 ("bad value(s) in fds_to_keep");
- the training processes run in the background (`Workers(background=True)`): at a lower CPU
  priority than the screen, or on a machine with as many busy cores as runs every key would
  wait behind them, and silent, since their stderr is the screen.

No Textual here; numpy only through the engine, imported by the worker thread.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from diagnose.tui.drawing.state import RunStore
from diagnose.workspace import Workspace

if TYPE_CHECKING:  # the scenario engine loads with the training, not with the app
    from diagnose.game.scenario import ScenarioSpec
    from diagnose.game.training import TrainingCallbacks


@dataclasses.dataclass(frozen=True)
class FreshScenario:
    """How the app makes a scenario when its folder holds none: its `code` (drawn at random
    when None), `steps` (healthy.toml's when None), `level` (whose deck it deals; the first
    when None), the `jobs` that train it, and `make`, what trains and writes it
    (`diagnose.game.scenario.create_scenario` when None; tests pass a stand-in)."""

    code: str | None = None
    steps: int | None = None
    level: int | None = None
    jobs: int = 2
    make: Callable[..., Workspace] | None = None


def fresh_runs(steps: int | None, level: int = 1) -> tuple[tuple[str, ...], int]:
    """The runs and the step count a fresh scenario will have, known before it trains."""
    from diagnose.game.dealing import planned_runs
    from scenarios import healthy_config

    return planned_runs(level=level), steps or healthy_config().steps


def prepare() -> None:
    """Start multiprocessing's resource tracker while sys.stderr is the real one."""
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()


def train_into(store: RunStore, directory: Path, spec: ScenarioSpec, *, jobs: int,
               callbacks: TrainingCallbacks, make: Callable[..., Workspace] | None = None
               ) -> Workspace | None:
    """Train and write the scenario `spec`, streaming every step into `store` (`callbacks`
    says when to stop and hears re-deals); None if stopped.

    Raises what `create_scenario` raises (ScenarioError, HomeError) for the app to show.
    """
    from diagnose.engine import run_header_fields
    from diagnose.game.scenario import create_scenario
    from diagnose.game.training import Cancelled, Workers
    from diagnose.home import self_study_secret
    from scenarios import healthy_config

    store.header.update(run_header_fields(healthy_config()))  # the guides, before the files

    try:
        return (make or create_scenario)(
            directory, spec=spec, secret=self_study_secret(create=True),
            workers=Workers(jobs, background=True),
            callbacks=dataclasses.replace(callbacks, on_step=store.add))
    except Cancelled:
        return None
