"""Make the fidelity tests' full-length runs again from the real engine:
`python tests/data/make_fidelity.py`.

`fidelity/scenario/` is a level-1 scenario dealt through the game's own path (`create_scenario`,
code FIDELITY-1, the fixed secret below) at the full default length, each run's metrics
gzipped; `fidelity/decoy.jsonl.gz` is the healthy decoy of levels 2 and 3 at the full length
from a seed of its own. `tests/test_fidelity.py` reads them instead of training 2,000 steps
each time the suite runs, and trains each stored run's first steps to check that the engine
still writes them (within the tolerance measured across CPU kinds): a change of the arithmetic,
the seeds or `healthy.toml` fails there until this script runs again, and the deck's
many-seed proof (`bench/fidelity.py`) with it.
"""

from __future__ import annotations

import base64
import gzip
import shutil
from pathlib import Path

import scenarios
from diagnose.engine import run_header_fields, train
from diagnose.metrics import make_header, write_metrics
from diagnose.scenario import ScenarioSpec, create_scenario

DATA = Path(__file__).resolve().parent / "fidelity"
SECRET = base64.urlsafe_b64encode(bytes(range(32)))  # fixed: the test opens the answer key
CODE = "FIDELITY-1"
DECOY_SEED = 102  # a seed of its own, as when a decoy is dealt


def gzip_file(path: Path) -> None:
    """path -> path.gz, byte for byte (no name or time in the gzip header: the same bytes
    every time the same records are written)."""
    with path.open("rb") as raw, path.with_name(path.name + ".gz").open("wb") as out, \
            gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as packed:
        shutil.copyfileobj(raw, packed)
    path.unlink()


def main() -> None:
    shutil.rmtree(DATA, ignore_errors=True)
    DATA.mkdir(parents=True)
    workspace = create_scenario(DATA / "scenario", ScenarioSpec(code=CODE), secret=SECRET)
    for run in workspace.runs:
        workspace.dashboard_path(run).unlink(missing_ok=True)  # the tests never read them
        gzip_file(workspace.metrics_path(run))
    config = scenarios.healthy_config()
    header = make_header("decoy", **run_header_fields(config))
    decoy = DATA / "decoy.jsonl"
    write_metrics(decoy, header, list(train(config, DECOY_SEED)))
    gzip_file(decoy)
    print(f"wrote {DATA} ({', '.join(workspace.runs)}, decoy)")


if __name__ == "__main__":  # the training pool spawns processes that import this module
    main()
