"""Which way a diagnoses file is graded: the one choice `diagnose grade` and the app's grading
key both make here (`grading_route`), each then calling the library function for its route.

- `SELF_STUDY`: a self-study scenario; the player's own secret grades it, records the attempt
  and reveals the solutions (`diagnose.game.self_study.grade_self_study`).
- `WITH_KEY`: the instructor's key file is given (`diagnose.classroom.grading`).
- `CHECK`: asked for a check (`--check`): the file read as the grader will, no key, no score
  (`grading.grade.check_against`).
- `HAND_IN`: an instructor's bundle and no key: only its instructor grades it. The CLI refuses
  with the line saying to check it and hand it in; the app checks it and says so.

Left out: grading itself, and how each face shows the result.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from grading.grade import read_scenario
from grading.seal import SealedBy
from scenarios.errors import UserError


class Route(StrEnum):
    SELF_STUDY = "self-study"
    WITH_KEY = "with-key"
    CHECK = "check"
    HAND_IN = "hand-in"


def grading_route(workspace: Path | None, *, check: bool = False,
                  key_given: bool = False) -> Route:
    """The route for a file of the scenario in `workspace` (None: none was found). Its
    `scenario.json` is read only when neither `check` nor `key_given` decides; a corrupt one is
    its GradeError line."""
    if check:
        return Route.CHECK
    if key_given:
        return Route.WITH_KEY
    if workspace is None:
        raise UserError("no scenario to grade against; pass --dir")
    if read_scenario(workspace).key == SealedBy.SELF_STUDY:
        return Route.SELF_STUDY
    return Route.HAND_IN


def hand_in(file: Path, workspace: Path) -> UserError:
    """The line for a `HAND_IN` file someone asked to grade."""
    return UserError(f"{workspace}: this scenario was dealt by an instructor and only their key "
                     f"opens it; check your file with `diagnose grade {file} --check` and hand "
                     "it in")
