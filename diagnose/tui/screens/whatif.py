"""`WhatIfScreen`: after the reveal, one run's break at other magnitudes, trained behind it.

The six panels are drawn at once with the doses already there (the dealt run, and any cached
from an earlier what-if), one row per dose (`render_whatif`, the text `diagnose show --what-if`
prints). A thread worker calls `diagnose.game.whatif.run_whatif` (its own `TrainingPool`, two at a
time, in the background, so the screen answers keys first) and each dose joins the charts as
soon as its last step is in, so the signature grows on screen dose by dose; a 4 Hz timer shows
how many steps are done. The keys read it as on the dashboard: `z` zooms on the first
ZOOM_STEPS steps (where warmup doses differ), `←`/`→` move a step cursor (`shift` ×10, `home`
`end`) that every chart marks and every dose's row reads. Esc clears the cursor, then closes
and stops the training: nothing half-trained is kept. The app refuses to open it on a sealed
ID (`plan_whatif` raises first).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import get_current_worker

from diagnose.game.whatif import Dose, WhatIfPlan, ready, render_whatif, run_whatif, to_train
from diagnose.tui.keys import Spoken
from diagnose.workspace import Workspace
from scenarios.words import N_, say


class WhatIfScreen(Spoken, ModalScreen[None]):
    BINDINGS = [Binding("escape", "back", N_("close")),
                Binding("q,w", "close", N_("close"), show=False),
                Binding("z", "zoom", N_("zoom")),
                # before the scroll box's own home/end: the cursor's, as on the dashboard
                Binding("left", "move(-1)", N_("cursor"), priority=True),
                Binding("right", "move(1)", N_("cursor"), show=False, priority=True),
                Binding("shift+left", "move(-10)", N_("cursor"), show=False, priority=True),
                Binding("shift+right", "move(10)", N_("cursor"), show=False, priority=True),
                Binding("home", "to('start')", N_("start"), show=False, priority=True),
                Binding("end", "to('end')", N_("end"), show=False, priority=True)]

    def __init__(self, workspace: Workspace, plan: WhatIfPlan, lang: str) -> None:
        super().__init__()
        self.workspace, self.plan, self.lang = workspace, plan, lang
        self.steps_done = 0
        self.partial: dict[Dose, Any] = ready(workspace, plan)  # the doses in so far
        self.total = len(to_train(plan, self.partial)) * workspace.steps
        self.results: dict[Any, Any] | None = None  # every dose, once all are in
        self.zoom = False
        self.cursor: int | None = None  # an index into `window`

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="whatif-box", classes="dialog"):
            yield Static(say(self.lang, "What if: training the other magnitudes… {done}/{total} "
                                        "steps", done=0, total=self.total),
                         id="whatif-status", classes="dialog-title")
            yield Static("", id="whatif-body")
            yield Static(say(self.lang, "z zoom · ←/→ cursor · Esc clears the cursor, then "
                                        "closes"), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#whatif-box").focus()
        # once laid out: the charts take the body's real width
        self.call_after_refresh(lambda: self._draw(self.results or self.partial))
        self.set_interval(0.25, self._tick)
        self.train()

    def count_step(self, label: str, record: dict[str, Any]) -> None:
        self.steps_done += 1  # from the worker thread: a counter, read by the timer

    def dose_in(self, dose: Dose, records: list[dict[str, Any]]) -> None:
        self.app.call_from_thread(self._add, dose, records)  # from the worker thread

    def _add(self, dose: Dose, records: list[dict[str, Any]]) -> None:
        if self.results is None:
            self.partial[dose] = records
            self._draw(self.partial)

    @work(thread=True, exclusive=True, exit_on_error=False, group="whatif")
    def train(self) -> None:
        from diagnose.game.training import Cancelled

        worker = get_current_worker()
        try:
            results = run_whatif(self.workspace, self.plan, on_step=self.count_step,
                                 on_dose=self.dose_in, should_stop=lambda: worker.is_cancelled,
                                 background=True)
        except Cancelled:
            return
        except Exception as err:  # noqa: BLE001 - shown as one line, as training failures are
            self.app.call_from_thread(self.app.notify, say(self.lang, "Training failed: {reason}",
                                                           reason=err), severity="error")
            return
        self.app.call_from_thread(self._show, results)

    def _tick(self) -> None:
        if self.results is None:
            self.query_one("#whatif-status", Static).update(
                say(self.lang, "What if: training the other magnitudes… {done}/{total} steps",
                    done=self.steps_done, total=self.total))

    @property
    def window(self) -> range:
        """The steps drawn: all, or the first ZOOM_STEPS (the dashboard's zoom)."""
        from diagnose.tui.drawing.scale import ZOOM_STEPS

        return range(min(ZOOM_STEPS, self.workspace.steps) if self.zoom else self.workspace.steps)

    def _redraw(self) -> None:
        self._draw(self.results or self.partial)

    def _draw(self, results: dict[Any, Any]) -> None:
        """The charts of `results`: under the training status while doses are missing, under
        the what-if's title once every one is in."""
        width = max(self.query_one("#whatif-body").size.width, 60)
        lines = render_whatif(self.plan, results, self.lang, width, self.window, self.cursor)
        if self.results is not None:
            self.query_one("#whatif-status", Static).update(lines[0])
            lines = lines[1:]
        self.query_one("#whatif-body", Static).update(Text("\n").join(lines))

    def _show(self, results: dict[Any, Any]) -> None:
        self.results = results
        self._draw(results)

    def action_zoom(self) -> None:
        self.zoom = not self.zoom
        if self.cursor is not None:
            self.cursor = min(self.cursor, len(self.window) - 1)
        self._redraw()

    def action_move(self, by: int) -> None:
        last = len(self.window) - 1
        start = (last if by < 0 else 0) if self.cursor is None else self.cursor + by
        self.cursor = min(max(start, 0), last)
        self._redraw()

    def action_to(self, where: str) -> None:
        self.cursor = 0 if where == "start" else len(self.window) - 1
        self._redraw()

    def action_back(self) -> None:
        """Esc: the cursor goes first, as on the dashboard; then the screen."""
        if self.cursor is not None:
            self.cursor = None
            self._redraw()
        else:
            self.action_close()

    def action_close(self) -> None:
        self.workers.cancel_group(self, "whatif")
        self.dismiss()
