"""The instructor's week: deal a class, hand it out, grade it, hand it back, see it.

- `deal`: a roster, one sealed bundle per student, the manifest and the deal's settings
  (`diagnose deal`); `cluster` trains a deal on a Dask cluster.
- `handout`: what to give each student and what to keep (`diagnose handout`).
- `grading`: grading with the instructor's key, one file or the class (`diagnose grade --key`).
- `answers`: the answer key and the hand-back (`diagnose answers`, `diagnose reveal --key`).
- `report`: which breaks the class found hard (`diagnose class-report`).
- `gradescope`: the autograder zip; `wheel`: this package as a wheel, for both.

The grading itself (keys, parsing, scoring, the ledger) is `grading/`, which runs without
numpy; this package puts it to work on a deal folder.
"""

from typing import TYPE_CHECKING

from diagnose.lazy import face

if TYPE_CHECKING:
    from diagnose.classroom.answers import reveal_class, reveal_to_class, write_answer_key
    from diagnose.classroom.deal import carry_out, deal_class, plan_deal, read_roster
    from diagnose.classroom.gradescope import build_autograder
    from diagnose.classroom.grading import (
        grade_class,
        grade_class_files,
        grade_file,
        grade_with_key,
    )
    from diagnose.classroom.handout import write_handout
    from diagnose.classroom.report import class_report
    from diagnose.classroom.wheel import write_wheel

__all__ = ["build_autograder", "carry_out", "class_report", "deal_class", "grade_class",
           "grade_class_files", "grade_file", "grade_with_key", "plan_deal", "read_roster",
           "reveal_class", "reveal_to_class", "write_answer_key", "write_handout", "write_wheel"]
__getattr__, __dir__ = face(__name__, {
    "reveal_class": "answers", "reveal_to_class": "answers", "write_answer_key": "answers",
    "carry_out": "deal", "deal_class": "deal", "plan_deal": "deal", "read_roster": "deal",
    "build_autograder": "gradescope", "grade_class": "grading", "grade_with_key": "grading",
    "grade_class_files": "grading", "grade_file": "grading",
    "write_handout": "handout", "class_report": "report", "write_wheel": "wheel"})
