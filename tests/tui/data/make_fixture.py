"""Regenerate the TUI tests' scenario from the real engine: `python tests/tui/data/make_fixture.py`.

A finished 40-step scenario (code TUI-FIXTURE) sealed under `home/self-study.key`, so the tests
and snapshots read real curves without training anything. Run it again only when the metrics
format changes; the snapshots must then be reviewed and updated (`--snapshot-update`).
"""

from pathlib import Path

from diagnose.game.scenario import ScenarioSpec, create_scenario
from grading.seal import new_secret, read_key_file, write_key_file

DATA = Path(__file__).resolve().parent
CODE = "TUI-FIXTURE"
STEPS = 40


def main() -> None:
    key = DATA / "home" / "self-study.key"
    if not key.exists():
        key.parent.mkdir(exist_ok=True)
        write_key_file(key, new_secret())
    workspace = create_scenario(DATA / "scenario", ScenarioSpec(code=CODE, steps=STEPS),
                                secret=read_key_file(key), force=True)
    for run in workspace.runs:  # the TUI never reads them: keep the fixture small
        workspace.dashboard_path(run).unlink(missing_ok=True)
    print(f"wrote {workspace.path} ({', '.join(workspace.runs)})")


if __name__ == "__main__":  # the training pool spawns processes that import this module
    main()
