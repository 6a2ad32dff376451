"""Self-study grading, the one flow behind `diagnose grade FILE` and the app's `g`.

Grade a diagnoses file against a scenario this machine dealt (the self-study secret opens its
key), each miss explained with that run's own numbers; then reveal (solutions file, workspace
marked revealed: grading shows the truth anyway); then record the grading in the player's
progress and work out what comes next. The CLI prints a `SelfStudyGrade`, the TUI draws it:
neither grades, reveals or records on its own.

Not here: an instructor's bundle (its key never leaves the instructor: `diagnose grade --key`
and `grading.gradebook`), reading a file without a key (`grading.check_file`), and the words
either face shows around the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from diagnose.diagnosis.reveal import feedback_options, reveal_after_grading
from diagnose.game.progress import level_after, load_progress, record_report
from diagnose.game.routes import hand_in
from diagnose.home import self_study_secret
from grading.diagnoses import Reading, read_diagnoses
from grading.feedback import Report
from grading.grade import grade_reading, read_scenario, record_attempt
from grading.seal import SealedBy


@dataclass(frozen=True)
class SelfStudyGrade:
    report: Report
    solutions: Path | None   # None when they could not be written (then a warning says why)
    passed: str | None       # what a player who passed the level just now is told
    next_level: int | None   # the level the player may go on to (`levels.level_after`)
    warnings: tuple[str, ...]  # the grade stands; these say what was not written


def grade_self_study(file: Path, workspace: Path, lang: str,
                     reading: Reading | None = None) -> SelfStudyGrade:
    """Grade `file` against the self-study scenario in `workspace`; see the module docstring.
    `reading`: the file already read (the CLI reads it first to find its scenario)."""
    scenario = read_scenario(workspace)
    if scenario.key == SealedBy.INSTRUCTOR:
        raise hand_in(file, workspace)
    reading = reading or read_diagnoses(Path(file))
    secret = self_study_secret()
    report = grade_reading(reading, Path(file), scenario, secret, feedback_options(lang, secret))
    record_attempt(report, scenario, secret)
    solutions, warnings = reveal_after_grading(scenario.path, lang, secret)
    passed, more = record_report(scenario, report, lang)
    progress, _ = load_progress()  # its warnings are the progress screen's to show
    return SelfStudyGrade(report, solutions, passed, level_after(scenario.level, progress),
                          tuple(warnings + more))
