"""`PlayApp`: `diagnose play` — a scenario's runs on screen, the diagnosis form, the grade.

The app owns the state and the actions; screens and widgets only draw it:

- `RunStore`: the runs' records. A finished workspace is read at start-up; otherwise a
  thread worker trains one (`training.train_into`: `create_scenario`, whose `on_step`
  appends to the store from that thread), and a timer (4 Hz) redraws when the store
  changed. Keys redraw at once, so the screen answers a key however fast steps arrive.
- `View`: run, log, overlay, zoom, cursor — one for every screen.
- `Drafts`: the answers, written to `<workspace>/.drafts.json` on every change.

Screens: `PlayScreen` (tabs and the six panels), `DetailScreen` (one panel with axes), and
modal ones for the diagnosis form, the name, the help and the grade. Only the first is
imported at start-up: the first frame must come within a second.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import work
from textual.worker import Worker, WorkerState, get_current_worker

from diagnose.panels import Panel, panels_for
from diagnose.tui.diagnoses import write_diagnoses
from diagnose.tui.drafts import UNSURE, Drafts
from diagnose.tui.drawing.state import RunStore, View
from diagnose.tui.messages import (
    AnswerChanged,
    Redealt,
    TrainingFailed,
    TrainingFinished,
)
from diagnose.tui.screens.play import PlayScreen
from diagnose.tui.text import localised, tr
from diagnose.tui.training import fresh_runs, prepare, train_into
from diagnose.tui.viewing import ViewApp
from diagnose.workspace import REFERENCE, Workspace, is_workspace, open_workspace

REDRAW_HZ = 4  # while training: a redraw of every panel costs ~50 ms, keys must come first


class PlayApp(ViewApp):
    CSS_PATH = "play.tcss"
    TITLE = "diagnose"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, directory: Path, *, code: str | None = None, name: str | None = None,
                 lang: str = "en", steps: int | None = None, jobs: int = 2,
                 make_scenario: Callable[..., Workspace] | None = None,
                 cwd: Path | None = None, level: int | None = None) -> None:
        """Open the scenario in `directory`, or get ready to train one there.

        Raises WorkspaceError when `directory` holds a scenario that cannot be read, HomeError
        for a `name` that cannot be one (`name`: the player's, kept for every level).
        `make_scenario` defaults to `diagnose.scenario.create_scenario` (tests pass a
        stand-in); `cwd` is where the diagnoses file goes outside `experiments/`. `level`:
        the deck a fresh scenario deals from, the first level's by default (a scenario in
        `directory` keeps its own).
        """
        from diagnose.home import keep_player_name, player_name
        from scenarios.levels import first_level

        super().__init__()
        # the player's name, as `diagnose play --name` gives it or as kept from a former game
        self.player = keep_player_name(name) if name is not None else player_name()
        # No animations: the tabs' sliding underline alone would compose ~18 frames per key.
        self.animation_level = "none"
        self.directory, self.code, self.lang = Path(directory), code, lang
        self.steps, self.jobs, self.cwd = steps, jobs, cwd
        self.make_scenario = make_scenario
        self.view = View()
        self.level = first_level().number if level is None else level
        self.next_level: int | None = None  # set when the player asks for the next level
        self.error: str | None = None  # why the app stopped, for the CLI to print
        self.note: str | None = None  # what the CLI prints after a quit mid-training
        self.workspace: Workspace | None = None
        prepare()  # before Textual takes sys.stderr: a fresh scenario and the what-if train
        if is_workspace(self.directory):
            self.workspace = open_workspace(self.directory)
            self.level = self.workspace.level
            self.store = RunStore.from_workspace(self.workspace)
            self.drafts = Drafts.load(self.workspace.path)
        else:
            from diagnose.scenario import new_code

            self.code = code or new_code()  # drawn here so the screen can show it at once
            self.store = RunStore(*fresh_runs(steps, self.level))
            self.drafts = Drafts()
        self.play = localised(PlayScreen, lang)(self.store, self.view, panels_for([]), lang)
        self._drawn = -1
        self.saved_to: Path | None = None  # the diagnoses file this session last wrote

    # --- life cycle ----------------------------------------------------------------------

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Textual's notice, one at a time: it covers the top bar (play.tcss), and two stacked
        would reach down into the panels' data."""
        self.clear_notifications()
        super().notify(message, title=title, severity=severity, timeout=timeout,
                       markup=markup)


    def on_mount(self) -> None:
        self.push_screen(self.play)
        self._set_scenario_title()
        if self.drafts.warning:
            self.notify(self.drafts.warning, severity="warning")
        if self.workspace is None:
            self.train()
        else:
            self._offer_next_level()
        self.set_interval(1 / REDRAW_HZ, self._tick)

    def _offer_next_level(self) -> None:
        """A graded scenario of a passed level reopened: say what comes next, as grading did."""
        from diagnose.levels import level_after, load_progress, passed_message

        assert self.workspace is not None
        if not self.workspace.revealed or self.workspace.key != "self-study":
            return
        progress, _ = load_progress()  # its warnings are the progress screen's to show
        if progress[self.level].passed:
            upcoming = level_after(self.level, progress)
            offer = "" if upcoming is None else " " + tr(self.lang, "next_key", level=upcoming)
            self.notify(passed_message(self.level, self.lang) + offer, timeout=10)

    def action_next_level(self) -> None:
        """`n`: the next level once this one is passed (on the grade screen, or at any time
        after it); else a notice saying why not."""
        from diagnose.levels import level_after, load_progress

        if self.training:
            self.notify(tr(self.lang, "wait_training"))
            return
        from scenarios.levels import following_level as following

        progress, _ = load_progress()
        upcoming = level_after(self.level, progress)
        locked = following(self.level)
        if upcoming is not None:
            self._open_level(upcoming)
        elif locked is not None:
            self.notify(tr(self.lang, "next_locked", level=self.level, next=locked.number))
        else:
            self.notify(tr(self.lang, "next_none", level=self.level))

    def _open_level(self, level: int) -> None:
        """Close the app with `level` asked for: `diagnose play` opens that level's folder."""
        self._keep_drafts(self.drafts.save)
        self.next_level = level
        self.exit()

    @property
    def training(self) -> bool:
        return self.workspace is None

    def _set_scenario_title(self) -> None:
        if self.workspace is None:
            title = tr(self.lang, "training", code=self.code)
        else:
            title = tr(self.lang, "scenario", code=self.workspace.code)
        # a level's entry says whether the title names it (the lab's screen never has)
        from scenarios.levels import level

        self.play.scenario = title + (tr(self.lang, "level", level=self.level)
                                      if level(self.level).in_title else "")

    def _tick(self) -> None:
        if self.store.version != self._drawn:
            self.redraw()

    def redraw(self) -> None:
        if not self.play.is_mounted:
            return  # its on_mount draws the first frame
        self._drawn = self.store.version
        with self.batch_update():  # one composed frame for all the widgets a redraw touches
            self.play.redraw(self.training)
            if self.screen is not self.play and hasattr(self.screen, "redraw"):
                self.screen.redraw()  # the detail view

    @work(thread=True, exclusive=True, exit_on_error=False, group="training")
    def train(self) -> None:
        """Train a fresh scenario into the directory (a thread: the screen stays live)."""
        from diagnose.scenario import ScenarioSpec, TrainingCallbacks

        worker = get_current_worker()
        spec = ScenarioSpec(code=self.code, steps=self.steps, lang=self.lang, level=self.level)
        workspace = train_into(self.store, self.directory, spec, jobs=self.jobs,
                               make=self.make_scenario,
                               callbacks=TrainingCallbacks(
                                   should_stop=lambda: worker.is_cancelled,
                                   on_redeal=lambda note: self.post_message(Redealt(note))))
        if workspace is not None:
            self.post_message(TrainingFinished(workspace))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "training" and event.state == WorkerState.ERROR:
            error = event.worker.error
            self.post_message(TrainingFailed(str(error) or type(error).__name__))

    def on_training_finished(self, message: TrainingFinished) -> None:
        self.workspace = message.workspace
        self.store = RunStore.from_workspace(message.workspace)  # exactly what a reopen shows
        self.play.store = self.store
        self._set_scenario_title()
        self._keep_drafts(lambda: self.drafts.attach(message.workspace.path))
        self.redraw()

    def on_training_failed(self, message: TrainingFailed) -> None:
        self.error = tr(self.lang, "training_failed", reason=message.reason)
        self.exit(return_code=1)

    def on_redealt(self, message: Redealt) -> None:
        self.notify(tr(self.lang, "redeal"), timeout=8)

    async def action_quit(self) -> None:
        if self.training:
            self.workers.cancel_group(self, "training")  # create_scenario stops, writes nothing
            self.note = tr(self.lang, "interrupted", dir=self.directory, code=self.code)
        else:
            self._keep_drafts(self.drafts.save)
            if self.drafts.path is not None:
                self.note = tr(self.lang, "drafts_kept", path=self.drafts.path,
                               dir=self.directory)
            if self.saved_to is not None:  # saved or graded in this session: say where
                self.note = " ".join(filter(None, [self.note, tr(self.lang, "file_saved",
                                                                 path=self.saved_to)]))
        self.exit()

    # --- the view ------------------------------------------------------------------------

    @property
    def panels(self) -> tuple[Panel, ...]:
        return self.play.panels

    def select_run(self, run: str) -> None:
        self.play.select(run)
        super().select_run(run)

    # --- diagnoses -----------------------------------------------------------------------

    def _keep_drafts(self, write: Callable[[], Any]) -> None:
        try:
            write()
        except OSError as err:
            self.notify(tr(self.lang, "drafts_failed", reason=err.strerror or err),
                        severity="warning")

    def action_diagnose(self) -> None:
        from diagnose.tui.screens.form import FormScreen

        if self.view.run == REFERENCE:
            self.notify(tr(self.lang, "form_reference"))
            return
        note = tr(self.lang, "form_training") if self.training else None
        self.push_screen(FormScreen(self.view.run, self.drafts.answer(self.view.run),
                                    self.lang, note, self.level))

    def on_answer_changed(self, message: AnswerChanged) -> None:
        self._keep_drafts(lambda: self.drafts.set_answer(message.run, message.choice,
                                                         message.evidence))

    def _with_name(self, then: Callable[[], None]) -> None:
        """Run `then` once the player has a name, asking for it the first time only."""
        if self.player:
            then()
        else:
            self._ask_name(then)

    def _ask_name(self, then: Callable[[], None] | None = None) -> None:
        """Ask for the player's name (the kept one filled in) and keep it for every level."""
        from diagnose.home import HomeError, keep_player_name
        from diagnose.tui.screens.name import NameScreen

        def named(name: str | None) -> None:
            if not name:
                return
            try:
                self.player = keep_player_name(name)
            except HomeError as err:  # the data folder cannot be written: this session only
                self.player = name
                self.notify(tr(self.lang, "name_not_kept", reason=err), severity="warning")
            if then is not None:
                then()
            else:
                self.notify(tr(self.lang, "name_kept", name=self.player))

        self.push_screen(NameScreen(self.lang, self.player), named)

    def action_change_name(self) -> None:
        self._ask_name()

    def _save(self) -> Path | None:
        assert self.workspace is not None
        try:
            assert self.player is not None, "_with_name asks for it first"
            path = write_diagnoses(self.workspace, self.player, self.drafts, self.lang, self.cwd)
        except (OSError, ValueError) as err:
            reason = getattr(err, "strerror", None) or str(err)
            self.notify(tr(self.lang, "save_failed", reason=reason), severity="error")
            return None
        self.notify(tr(self.lang, "saved", path=path))
        self.saved_to = path
        return path

    def action_save(self) -> None:
        if self.training:
            self.notify(tr(self.lang, "wait_training"))
            return
        self._with_name(self._save)

    def action_grade(self) -> None:
        if self.training:
            self.notify(tr(self.lang, "wait_training"))
            return
        assert self.workspace is not None
        if self.workspace.key != "self-study":  # a check, not a grade: it reveals nothing
            self._with_name(self._grade_saved)
            return
        from diagnose.tui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self._with_name(self._grade_saved)

        self.push_screen(ConfirmScreen(tr(self.lang, "grade_ask"), self._grade_warning(),
                                       tr(self.lang, "grade_yes"), self.lang), answered)

    def _grade_warning(self) -> list[str]:
        """What grading now would do, and the runs it would score 0 for want of an answer."""
        runs = [run for run in self.store.runs if run != REFERENCE]
        missing = [run for run in runs if self.drafts.answer(run).choice is None]
        unsure = [run for run in runs if self.drafts.answer(run).choice == UNSURE]
        lines = [tr(self.lang, "grade_reveals")]
        if missing:
            lines.append(tr(self.lang, "grade_missing", ids=", ".join(missing)))
        if unsure:
            lines.append(tr(self.lang, "grade_unsure", ids=", ".join(unsure)))
        return lines

    def _grade_saved(self) -> None:
        path = self._save()
        if path is None:
            return
        assert self.workspace is not None
        self.notify(tr(self.lang, "grading"), timeout=2)
        self._grade(path, self.workspace)

    @work(thread=True, exclusive=True, group="grading")
    def _grade(self, path: Path, workspace: Workspace) -> None:
        """Grade off the UI thread (the feedback reads every run's metrics). An instructor's
        bundle cannot be graded here, only checked: its key never leaves the instructor."""
        from diagnose.home import HomeError
        from diagnose.tui.screens.grade import GradeScreen, check, grade
        from diagnose.workspace import WorkspaceError
        from grading import GradeError, SealError

        judge = grade if workspace.key == "self-study" else check
        try:
            graded = judge(path, workspace, self.lang)
        except (GradeError, SealError, HomeError, WorkspaceError, OSError) as err:
            self.call_from_thread(self.notify, tr(self.lang, "grade_failed", reason=err),
                                  severity="error", timeout=10)
            return
        self.call_from_thread(self.push_screen, GradeScreen(graded, self.lang),
                              self._after_grade)
        for warning in graded.warnings:
            self.call_from_thread(self.notify, warning, severity="warning", timeout=10)
        if judge is check:
            self.call_from_thread(self.notify, tr(self.lang, "grade_instructor", path=path),
                                  timeout=10)

    def action_what_if(self) -> None:
        """After the reveal: the current run's break at the other magnitudes it declares."""
        from diagnose.home import HomeError
        from diagnose.tui.screens.whatif import WhatIfScreen
        from diagnose.whatif import WhatIfError, plan_whatif
        from grading import SealError

        if self.training:
            self.notify(tr(self.lang, "wait_training"))
            return
        assert self.workspace is not None
        try:
            plan = plan_whatif(open_workspace(self.workspace.path), self.view.run,
                               lang=self.lang)
        except (WhatIfError, HomeError, SealError) as err:
            self.notify(str(err), severity="warning")
            return
        self.push_screen(WhatIfScreen(self.workspace, plan, self.lang))

    def action_show_progress(self) -> None:
        from diagnose.tui.screens.progress import ProgressScreen

        self.push_screen(ProgressScreen(self.lang))

    def _after_grade(self, next_level: int | None) -> None:
        """The grade screen closed; with the next level asked for, `diagnose play` opens it."""
        if next_level is not None:
            self._open_level(next_level)

    def action_help(self) -> None:
        from diagnose.tui.screens.help import HelpScreen  # Markdown: imported when first asked

        self.push_screen(HelpScreen(self.lang))

