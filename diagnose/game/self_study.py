"""Self-study grading, the one flow behind `diagnose grade FILE` and the app's `g`.

Grade a diagnoses file against a scenario this machine dealt (the self-study secret opens its
key), each miss explained with that run's own numbers; then reveal (solutions file, workspace
marked revealed: grading shows the truth anyway); then record the grading in the player's
progress and work out what comes next. The CLI prints a `SelfStudyGrade`, the TUI draws it:
neither grades, reveals or records on its own.

Beside it, the player's other two flows the CLI calls with an options object: making a fresh
scenario (`new_scenario`, `diagnose new`) and the reveal without a grading (`reveal_self_study`,
`diagnose reveal`, with its what-if pages).

Not here: an instructor's bundle (its key never leaves the instructor: `diagnose grade --key`
and `grading.gradebook`), reading a file without a key (`grading.check_file`), and the words
either face shows around the result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from diagnose.diagnosis.reveal import feedback_options, reveal_after_grading
from diagnose.game.progress import level_after, load_progress, record_report
from diagnose.game.routes import hand_in
from diagnose.home import self_study_secret
from grading.diagnoses import Reading, read_diagnoses
from grading.feedback import Report
from grading.grade import grade_reading, read_scenario, record_attempt
from grading.seal import SealedBy

if TYPE_CHECKING:
    from diagnose.game.scenario import ScenarioSpec
    from diagnose.game.training import OnStep, Progress
    from diagnose.workspace import Workspace


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


@dataclass(frozen=True)
class RevealOptions:
    """What `diagnose reveal` (self-study) was asked: the scenario's folder, the solutions
    file's language, and whether each run with a magnitude gets its what-if in its dashboard."""

    directory: Path
    lang: str = "en"
    what_if: bool = False


@dataclass(frozen=True)
class Revealed:
    """A self-study scenario revealed: ID -> slug, the solutions file, the scenario's level."""

    assignment: dict[str, str]
    solutions: Path
    level: int

    def titles(self, lang: str) -> dict[str, str]:
        """ID -> its break's title in `lang` (read from the catalog when asked)."""
        from scenarios import breaks

        catalog = breaks(self.level)
        return {rid: catalog[slug].title[lang] for rid, slug in self.assignment.items()}


def reveal_self_study(options: RevealOptions, progress: Progress | None = None,
                      on_page: Callable[[str, Path], None] = lambda run, page: None
                      ) -> Revealed:
    """Reveal the scenario in `options.directory` (`diagnose.diagnosis.reveal.reveal_scenario`:
    an instructor's bundle is refused); with `what_if`, write each run's what-if into its
    dashboard.html, training the missing doses under `progress` (`whatif.whatif_results`), and
    tell `on_page(ID, page)` as each is written."""
    from diagnose.diagnosis.reveal import reveal_scenario

    lang = options.lang
    workspace, assignment, path = reveal_scenario(options.directory, lang)
    if options.what_if:
        from diagnose.game.whatif import whatif_results, write_whatif_dashboards
        from diagnose.workspace import open_workspace

        revealed = open_workspace(options.directory)
        for run, page in write_whatif_dashboards(
                revealed, lang, lambda plan: whatif_results(revealed, plan, lang, progress)):
            on_page(run, page)
    return Revealed(assignment, path, workspace.level)


@dataclass(frozen=True)
class NewOptions:
    """What `diagnose new` was asked: the folder, the scenario (`spec`: its code drawn already,
    so an interrupted `new` can say how to make the same one again), the training processes,
    and whether a scenario already there is replaced."""

    directory: Path
    spec: ScenarioSpec
    jobs: int = 2
    force: bool = False


@dataclass(frozen=True)
class Made:
    """A fresh self-study scenario, and how long it took to make."""

    workspace: Workspace
    seconds: float


def new_scenario(options: NewOptions, progress: Progress | None = None,
                 on_redeal: Callable[[str], None] | None = None) -> Made:
    """Deal, train and write a self-study scenario (`scenario.create_scenario`, sealed with this
    player's secret, made on first use), its runs under `progress(make, labels, steps, title)`
    when given; `on_redeal` hears of runs trained again. Ctrl-C leaves nothing written."""
    import time

    from diagnose.game.dealing import planned_runs
    from diagnose.game.scenario import create_scenario
    from diagnose.game.training import TrainingCallbacks, Workers
    from scenarios.words import say

    spec = options.spec
    started = time.perf_counter()
    secret = self_study_secret(create=True)

    def make(on_step: OnStep | None) -> Workspace:
        return create_scenario(options.directory, spec, secret=secret,
                               workers=Workers(options.jobs), force=options.force,
                               callbacks=TrainingCallbacks(on_step=on_step,
                                                           on_redeal=on_redeal))

    workspace: Workspace = make(None) if progress is None else progress(
        make, planned_runs(level=spec.level), spec.steps or 0,
        say(spec.lang, "scenario {code}", code=spec.code))
    return Made(workspace, time.perf_counter() - started)
