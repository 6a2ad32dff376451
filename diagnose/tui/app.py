"""`PlayApp`: `diagnose play` — a scenario's runs on screen, the diagnosis form, the grade.

The app owns the state and the actions; screens and widgets only draw it:

- `RunStore`: the runs' records. A finished workspace is read at start-up; otherwise a
  thread worker trains one (`training.train_into`: `create_scenario`, whose `on_step`
  appends to the store from that thread), and a timer (4 Hz) redraws when the store
  changed. Keys redraw at once, so the screen answers a key however fast steps arrive.
- `View`: run, log, overlay, zoom, cursor — one for every screen.
- `Drafts`: the answers, written to `<workspace>/.drafts.json` on every change.

Screens: `PlayScreen` (tabs and the six panels), `DetailScreen` (one panel with axes), and
modal ones for the diagnosis form, the name, the help, the review before grading, the grade and
the reveal. Only the first is imported at start-up: the first frame must come within a second.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import work
from textual.worker import Worker, WorkerState, get_current_worker

from diagnose.tui.diagnoses import write_diagnoses
from diagnose.tui.drafts import Drafts
from diagnose.tui.drawing.state import RunStore, View
from diagnose.tui.messages import (
    Redealt,
    TrainingFailed,
    TrainingFinished,
)
from diagnose.tui.screens.play import PlayScreen
from diagnose.tui.training import FreshScenario, fresh_runs, prepare, train_into
from diagnose.tui.viewing import ViewApp
from diagnose.views.panels import Panel, panels_for
from diagnose.workspace import REFERENCE, Workspace, is_workspace, open_workspace
from grading.seal import SealedBy
from scenarios.words import say

REDRAW_HZ = 4  # while training: a redraw of every panel costs ~50 ms, keys must come first
WIDE_FOOTER = 110  # columns from which the footer names p, u and v too


class PlayApp(ViewApp):
    CSS_PATH = "play.tcss"
    TITLE = "diagnose"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, directory: Path, *, name: str | None = None, lang: str = "en",
                 fresh: FreshScenario | None = None, cwd: Path | None = None) -> None:
        """Open the scenario in `directory`, or get ready to train one there as `fresh` says
        (a scenario in `directory` keeps its own code, steps and level).

        Raises WorkspaceError when `directory` holds a scenario that cannot be read, HomeError
        for a `name` that cannot be one (`name`: the player's, kept for every level). `cwd` is
        where the diagnoses file goes outside `experiments/`.
        """
        from diagnose.home import keep_player_name, player_name
        from scenarios.levels import first_level

        super().__init__()
        # the player's name, as `diagnose play --name` gives it or as kept from a former game
        self.player = keep_player_name(name) if name is not None else player_name()
        # No animations: the tabs' sliding underline alone would compose ~18 frames per key.
        self.animation_level = "none"
        fresh = fresh or FreshScenario()
        self.directory, self.code, self.lang = Path(directory), fresh.code, lang
        self.steps, self.jobs, self.cwd = fresh.steps, fresh.jobs, cwd
        self.make_scenario = fresh.make
        self.view = View()
        self.level = first_level().number if fresh.level is None else fresh.level
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
            from diagnose.game.dealing import new_code

            self.code = self.code or new_code()  # drawn here so the screen shows it at once
            self.store = RunStore(*fresh_runs(self.steps, self.level))
            self.drafts = Drafts()
        self.play = PlayScreen(self.store, self.view, panels_for([]), lang)
        self.revealed = False  # a self-study scenario's answers shown: _update_offers
        self.next_offer: int | None = None  # the level `n` opens now
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
            self.notify(self.drafts.warning[self.lang], severity="warning")
        if self.workspace is None:
            self.train()
        else:
            self._update_offers()
            self._offer_next_level()
        self.set_interval(1 / REDRAW_HZ, self._tick)

    def _offer_next_level(self) -> None:
        """A graded scenario of a passed level reopened: say what comes next, as grading did."""
        from diagnose.game.progress import load_progress, passed_message

        assert self.workspace is not None
        if not self.workspace.revealed or self.workspace.key != SealedBy.SELF_STUDY:
            return
        progress, _ = load_progress()  # its warnings are the progress screen's to show
        if progress[self.level].passed:
            self.notify(passed_message(self.level, self.lang, in_app=True), timeout=10)

    def action_next_level(self) -> None:
        """`n`: the next level once this one is passed (on the grade screen, or at any time
        after it); else a notice saying why not."""
        from diagnose.game.progress import full_score, level_after, load_progress

        if self.training:
            self.notify(say(self.lang, "Training is still running: wait for it to finish."))
            return
        from scenarios.levels import following_level as following

        progress, _ = load_progress()
        upcoming = level_after(self.level, progress)
        locked = following(self.level)
        if upcoming is not None:
            self._open_level(upcoming)
        elif locked is not None:
            self.notify(say(self.lang, "n opens level {next} once level {level} is passed ({score} "
                                       "on a scenario's first grading); `diagnose play --level "
                                       "{next}` goes there now.", level=self.level,
                            next=locked.number, score=full_score(self.level)))
        else:
            self.notify(say(self.lang, "Level {level} is the last level: there is no next one.",
                            level=self.level))

    def _open_level(self, level: int) -> None:
        """Close the app with `level` asked for: `diagnose play` opens that level's folder."""
        self._keep_drafts(self.drafts.save)
        self.next_level = level
        self.exit()

    def key_shown(self, action: str) -> bool:
        """Whether the footer names the key of `action` now: what acts in this state, as
        the footer has room (80 columns hold the keys of one state, not of all)."""
        revealed = self.revealed
        if action in ("focus_next", "diagnose", "grade"):
            return not revealed
        if action == "what_if":
            return revealed
        if action == "reveal":  # it opens after grading by itself; the help names v
            return revealed and self.size.width >= WIDE_FOOTER
        if action == "next_level":  # before the reveal, d and g fill 80 columns
            return (self.next_offer is not None and not self.training
                    and (revealed or self.size.width >= WIDE_FOOTER))
        return self.size.width >= WIDE_FOOTER  # p and u: they always act, shown when there is room

    def _update_offers(self) -> None:
        """What the footer offers: read once per change (the progress is a file)."""
        from diagnose.game.progress import level_after, load_progress

        workspace = self.workspace
        self.revealed = (workspace is not None and workspace.key == "self-study"
                         and workspace.revealed)
        self.next_offer = None if workspace is None else level_after(self.level,
                                                                     load_progress()[0])
        self.play.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A run's key is shown (and acts) only for the runs this scenario has: a level's
        count of runs is its own (`Level.runs`)."""
        if action == "show_run" and parameters:
            return isinstance(parameters[0], int) and parameters[0] < len(self.store.runs)
        return True

    @property
    def training(self) -> bool:
        return self.workspace is None

    def _set_scenario_title(self) -> None:
        if self.workspace is None:
            title = say(self.lang, "training {code}…", code=self.code)
        else:
            title = say(self.lang, "scenario {code}", code=self.workspace.code)
        # a level's entry says whether the title names it (the lab's screen never has)
        from scenarios.levels import level

        self.play.scenario = title + (" · " + say(self.lang, "level {level}", level=self.level)
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
        from diagnose.game.scenario import ScenarioSpec
        from diagnose.game.training import TrainingCallbacks

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
        self._update_offers()
        self.redraw()

    def on_training_failed(self, message: TrainingFailed) -> None:
        self.error = say(self.lang, "Training failed: {reason}", reason=message.reason)
        self.exit(return_code=1)

    def on_redealt(self, message: Redealt) -> None:
        self.notify(say(self.lang, "The runs could not be told apart; training again with fresh "
                                   "seeds."), timeout=8)

    async def action_quit(self) -> None:
        if self.training:
            self.workers.cancel_group(self, "training")  # create_scenario stops, writes nothing
            self.note = say(self.lang, "Stopped before the end of training: nothing was written "
                                       "to {dir}. The same scenario again: diagnose play --dir "
                                       "'{dir}' --seed '{code}'",
                            dir=self.directory, code=self.code)
        else:
            self._keep_drafts(self.drafts.save)
            if self.drafts.path is not None:
                self.note = say(self.lang, "Your diagnoses are kept as a draft in {path}: "
                                           "`diagnose play --dir '{dir}'` brings them back.",
                                path=self.drafts.path, dir=self.directory)
            if self.saved_to is not None:  # saved or graded in this session: say where
                saved = say(self.lang, "Your diagnoses file: {path}.", path=self.saved_to)
                self.note = " ".join(filter(None, [self.note, saved]))
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
            self.notify(say(self.lang, "Drafts cannot be written ({reason}); they are kept in "
                                       "memory only", reason=err.strerror or err),
                        severity="warning")

    def action_diagnose(self) -> None:
        from diagnose.tui.screens.form import FormScreen

        if self.view.run == REFERENCE:
            self.notify(say(self.lang, "The reference is the healthy run: pick a run with its "
                                       "digit, {first} to {last}, to diagnose it.",
                            first=int(self.store.runs[1]), last=int(self.store.runs[-1])))
            return
        note = (say(self.lang, "Your draft is kept in memory until training ends, then on disk.")
                if self.training else None)
        self.push_screen(FormScreen(self.view.run, self.drafts.answer(self.view.run),
                                    self.lang, note, self.level, self.keep_answer))

    def keep_answer(self, run: str, choice: str | None, evidence: str) -> None:
        """The form changed (a key or a choice): keep it as a draft now."""
        self._keep_drafts(lambda: self.drafts.set_answer(run, choice, evidence))

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
                self.notify(say(self.lang, "Your name is used for this session only: {reason}",
                                reason=err), severity="warning")
            if then is not None:
                then()
            else:
                self.notify(say(self.lang, "Your name is now {name}: every level's diagnoses file "
                                           "carries it.", name=self.player))

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
            self.notify(say(self.lang, "Could not save: {reason}", reason=reason), severity="error")
            return None
        self.notify(say(self.lang, "Saved {path}", path=path))
        self.saved_to = path
        return path

    def action_save(self) -> None:
        if self.training:
            self.notify(say(self.lang, "Training is still running: wait for it to finish."))
            return
        self._with_name(self._save)

    def action_grade(self) -> None:
        """`g`: the review (every ID's answer, the ones that score 0 marked), then grading
        once the player says yes there; from the review, back to any run's form."""
        if self.training:
            self.notify(say(self.lang, "Training is still running: wait for it to finish."))
            return
        assert self.workspace is not None
        from diagnose.game.review import rows_from_drafts
        from diagnose.tui.diagnoses import diagnoses_path
        from diagnose.tui.screens.review import ReviewScreen

        grades = self.workspace.key == SealedBy.SELF_STUDY  # else a check: it reveals nothing
        hand_in = None if grades or not self.player else diagnoses_path(
            self.workspace.path, self.player, self.level, self.cwd)

        def answered(choice: bool | str | None) -> None:
            if choice is True:
                self._with_name(self._grade_saved)
            elif isinstance(choice, str):
                self.select_run(choice)
                self.action_diagnose()

        rows = rows_from_drafts(self.workspace.ids, self.drafts, self.level, self.lang)
        self.push_screen(ReviewScreen(rows, self.lang, grades=grades, hand_in=hand_in),
                         answered)

    def _grade_saved(self) -> None:
        path = self._save()
        if path is None:
            return
        assert self.workspace is not None
        self.notify(say(self.lang, "Grading…"), timeout=2)
        self._grade(path, self.workspace)

    @work(thread=True, exclusive=True, group="grading")
    def _grade(self, path: Path, workspace: Workspace) -> None:
        """Grade off the UI thread (the feedback reads every run's metrics). An instructor's
        bundle cannot be graded here, only checked: its key never leaves the instructor."""
        from diagnose.game.routes import Route, grading_route
        from diagnose.home import HomeError
        from diagnose.tui.screens.grade import GradeScreen, box_width, check, grade
        from diagnose.workspace import WorkspaceError
        from grading import GradeError, SealError

        try:
            route = grading_route(workspace.path)
            judge = grade if route is Route.SELF_STUDY else check
            graded = judge(path, workspace, self.lang, box_width(self.size.width))
        except (GradeError, SealError, HomeError, WorkspaceError, OSError) as err:
            self.call_from_thread(self.notify, say(self.lang, "Could not grade: {reason}",
                                                   reason=err), severity="error", timeout=10)
            return
        self.call_from_thread(self._update_offers)  # the reveal's keys, the next level's
        self.call_from_thread(self.push_screen, GradeScreen(graded, self.lang),
                              self._after_grade)
        for warning in graded.warnings:
            self.call_from_thread(self.notify, warning, severity="warning", timeout=10)
        if route is Route.HAND_IN:
            self.call_from_thread(self.notify, say(self.lang, "This is an instructor's bundle: "
                                                              "hand in {path}; your instructor "
                                                              "grades it.", path=path),
                                  timeout=10)

    def action_what_if(self) -> None:
        """After the reveal: the current run's break at the other magnitudes it declares."""
        from diagnose.game.whatif import WhatIfError, plan_whatif
        from diagnose.home import HomeError
        from diagnose.tui.screens.whatif import WhatIfScreen
        from grading import SealError

        if self.training:
            self.notify(say(self.lang, "Training is still running: wait for it to finish."))
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
        """The grade screen closed; with the next level asked for, `diagnose play` opens it,
        else the reveal of the run shown (each ID's, a digit away)."""
        if next_level is not None:
            self._open_level(next_level)
        elif self.revealed:
            self.action_reveal()

    def action_reveal(self) -> None:
        """`v`, and after grading: one ID's reveal in the app, `w` its what-if from there."""
        from diagnose.tui.screens.reveal import RevealScreen

        if self.training or not self.revealed:
            self.notify(say(self.lang, "The reveal opens once this scenario is graded (g)."))
            return
        assert self.workspace is not None
        run = self.view.run if self.view.run != REFERENCE else self.workspace.ids[0]

        def closed(what_if: str | None) -> None:
            if what_if is not None:
                self.select_run(what_if)
                self.action_what_if()

        self.push_screen(RevealScreen(self.workspace, run, self.lang), closed)

    def action_help(self) -> None:
        from diagnose.tui.screens.help import HelpScreen  # Markdown: imported when first asked

        self.push_screen(HelpScreen(self.lang))

