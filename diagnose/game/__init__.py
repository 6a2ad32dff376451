"""The game: a scenario dealt behind opaque IDs, trained, played, graded and revealed.

- `dealing`: a code and a secret decide the breaks behind the IDs (HMAC) and every seed; the
  re-deal until the runs are told apart.
- `training`: `TrainingPool`, the worker processes that train the runs and stream their steps.
- `scenario`: `ScenarioSpec` and `create_scenario`: deal, train, write the workspace under its
  lock (the reader is `diagnose.workspace`).
- `progress`: the player's way through the levels, the passing rule, the progress file.
- `self_study`: grading with no instructor (`diagnose grade FILE`, the app's `g`); a fresh
  scenario (`diagnose new`) and the reveal (`diagnose reveal`).
- `routes`: which way a diagnoses file is graded, chosen once.
- `review`: every answer before grading.
- `whatif`: after the reveal, a break retrained at its other magnitudes.

The app (`diagnose.tui`) and `diagnose new/play/grade/progress` use it; a class's deal
(`diagnose.classroom`) trains through `scenario`.
"""

from typing import TYPE_CHECKING

from diagnose.lazy import face

if TYPE_CHECKING:
    from diagnose.game.dealing import RunPlan
    from diagnose.game.progress import (
        choose_level_to_play,
        level_to_play,
        load_progress,
        record_grading,
    )
    from diagnose.game.routes import Route, grading_route
    from diagnose.game.scenario import ScenarioSpec, create_scenario
    from diagnose.game.self_study import grade_self_study, new_scenario, reveal_self_study
    from diagnose.game.training import TrainingPool
    from diagnose.game.whatif import run_whatif

__all__ = ["Route", "RunPlan", "ScenarioSpec", "TrainingPool", "choose_level_to_play",
           "create_scenario", "grade_self_study", "grading_route", "level_to_play",
           "load_progress", "new_scenario", "record_grading", "reveal_self_study", "run_whatif"]
__getattr__, __dir__ = face(__name__, {
    "Route": "routes", "grading_route": "routes",
    "RunPlan": "dealing", "ScenarioSpec": "scenario", "TrainingPool": "training",
    "create_scenario": "scenario", "grade_self_study": "self_study",
    "new_scenario": "self_study", "reveal_self_study": "self_study",
    "choose_level_to_play": "progress", "level_to_play": "progress",
    "load_progress": "progress", "record_grading": "progress",
    "run_whatif": "whatif"})
