"""Make the stored runs of the fidelity and own-runs tests again from the real engine:
`python tests/data/make_fidelity.py`.

`fidelity/scenario/` is a level-1 scenario dealt through the game's own path (`create_scenario`,
code FIDELITY-1, the fixed secret below) at the full default length, each run's metrics
gzipped; `fidelity/decoy.jsonl.gz` is the healthy decoy of levels 2 and 3 at the full length
from a seed of its own; `fidelity/deck/<slug>.jsonl.gz` are the healthy run and every break
of levels 2 and 3 at DECK_STEPS on one seed; `fidelity/own/<run>.jsonl.gz` are the runs
`tests/test_own_runs.py` records through the Recorder as a user's loop would. The tests read
them instead of training 2,640 steps each time the suite runs; `tests/test_fidelity.py`
trains each stored run's first steps to
check that the engine still writes them (within what they move between CPU kinds): a change
of the seeds, `healthy.toml`, a break or the arithmetic's meaning fails there until this
script runs again, and the deck's many-seed proof (`bench/fidelity.py`) with it.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import shutil
from pathlib import Path

import scenarios
from diagnose.engine import run_header_fields, train
from diagnose.game.dealing import RunPlan
from diagnose.game.scenario import ScenarioSpec, create_scenario
from diagnose.game.training import TrainingPool
from diagnose.metrics import make_header, read_metrics, write_metrics

DATA = Path(__file__).resolve().parent / "fidelity"
SECRET = base64.urlsafe_b64encode(bytes(range(32)))  # fixed: the test opens the answer key
CODE = "FIDELITY-1"
DECOY_SEED = 102  # a seed of its own, as when a decoy is dealt
DECK_SEED = 101  # the deck's short runs, one seed for every break of levels 2 and 3
# At 40 steps (two evaluations) every figure the deck's tests read keeps the margin it had at
# 120 (2026-12-03, seed 101: the frozen block's reference moved 0.36, high-lr's residual 207x,
# every verdict's confidence the same), for a third of the training.
DECK_STEPS = 40
DECK_LEVELS = (2, 3)
# tests/test_own_runs.py's runs, recorded as a user's loop would record them: 50 steps are
# enough for bad-init, no-warmup and the broken mask to show (not the leaky one)
OWN_STEPS = 50
OWN_RUNS = ("reference", "bad-init", "no-warmup", "broken-mask")


def deck_plans() -> list[RunPlan]:
    """The healthy run and every break of DECK_LEVELS, DECK_STEPS long, from DECK_SEED."""
    healthy = dataclasses.replace(scenarios.healthy_config(), steps=DECK_STEPS)
    plans = [RunPlan("healthy", healthy, DECK_SEED)]
    plans += [RunPlan(slug, brk.apply(healthy), DECK_SEED) for level in DECK_LEVELS
              for slug, brk in scenarios.breaks(level).items() if not brk.healthy]
    return plans


def own_plans() -> list[RunPlan]:
    """The reference (seed 1) and the lab's three breaks (seed 2), OWN_STEPS long."""
    healthy = dataclasses.replace(scenarios.healthy_config(), steps=OWN_STEPS)
    catalog = scenarios.breaks(None)
    return [RunPlan("reference", healthy, 1)] + [
        RunPlan(slug, catalog[slug].apply(healthy), 2) for slug in OWN_RUNS[1:]]


def write_run(path: Path, plan: RunPlan, records: list) -> None:
    write_metrics(path, make_header(plan.run, **run_header_fields(plan.config)), records)
    gzip_file(path)


def gzip_file(path: Path) -> None:
    """path -> path.gz, byte for byte (no name or time in the gzip header: the same bytes
    every time the same records are written)."""
    with path.open("rb") as raw, path.with_name(path.name + ".gz").open("wb") as out, \
            gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as packed:
        shutil.copyfileobj(raw, packed)
    path.unlink()


def gunzip_file(packed: Path, into: Path) -> Path:
    """A stored file unpacked to `into` (gzip_file's inverse)."""
    with gzip.open(packed, "rb") as source, into.open("wb") as out:
        shutil.copyfileobj(source, out)
    return into


def read_stored(packed: Path, folder: Path) -> tuple[dict, list[dict]]:
    """A stored run's (header, records), unpacked into `folder` and read as the game reads a
    metrics file."""
    return read_metrics(gunzip_file(packed, folder / packed.name.removesuffix(".gz")))


def main() -> None:
    shutil.rmtree(DATA, ignore_errors=True)
    DATA.mkdir(parents=True)
    workspace = create_scenario(DATA / "scenario", ScenarioSpec(code=CODE), secret=SECRET)
    for run in workspace.runs:
        workspace.dashboard_path(run).unlink(missing_ok=True)  # the tests never read them
        gzip_file(workspace.metrics_path(run))
    decoy = RunPlan("decoy", scenarios.healthy_config(), DECOY_SEED)
    write_run(DATA / "decoy.jsonl", decoy, list(train(decoy.config, decoy.seed)))
    (DATA / "deck").mkdir()
    plans = deck_plans()
    with TrainingPool(2) as pool:
        records = pool.run(plans)
    for plan in plans:
        write_run(DATA / "deck" / f"{plan.run}.jsonl", plan, records[plan.run])
    (DATA / "own").mkdir()
    for plan in own_plans():  # each on this thread, as tests/test_own_runs.py's loop trained it
        write_run(DATA / "own" / f"{plan.run}.jsonl", plan,
                  list(train(plan.config, plan.seed, threads=False)))
    print(f"wrote {DATA} ({', '.join(workspace.runs)}, decoy, {len(plans)} deck runs, "
          f"{len(OWN_RUNS)} own runs)")


if __name__ == "__main__":  # the training pool spawns processes that import this module
    main()
