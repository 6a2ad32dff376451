"""`diagnose watch`: the game's six panels on your own run while it trains.

No IDs, no grading, no drafts: one run (and, when given, its healthy reference drawn under it),
the same `Dashboard`, panels, detail view and view keys as `diagnose play` (`viewing.ViewApp`),
fed by `diagnose.runs.watch.MetricsTail` on a timer that reads only what the recorder appended
since.
Keys: `0` the reference alone, `1` your run, `l` log/linear, `r` the reference under the run,
`z` the first steps, `←`/`→` a step cursor (it stays on its step as the run grows; `end` goes
to the newest), `tab` the next panel and `enter` (or a click) its detail view, `q` quit. A
panel whose field the run did not record says "not recorded" in its title, here and in the
detail view. A file that does not exist yet is waited for (the status line says so), so the
watch can be started before the loop; its header is checked against the reference when it
appears. A file that turns bad while watched (replaced, corrupt) stops the app with its one
error line. The status line fits the terminal: a long path is shortened in its middle, and the
step count is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen

from diagnose.metrics import MetricsError
from diagnose.runs.watch import MetricsTail, fit_status, own_panels
from diagnose.tui.drawing.state import RunStore, View
from diagnose.tui.keys import RUNS, VIEW_BINDINGS, Spoken
from diagnose.tui.messages import PanelChosen
from diagnose.tui.viewing import ViewApp, view_notes
from diagnose.tui.widgets.dashboard import Dashboard
from diagnose.tui.widgets.footer import KeyFooter
from diagnose.tui.widgets.panel import PanelBox
from diagnose.tui.widgets.readout import Readout
from diagnose.views.panels import Panel
from diagnose.workspace import REFERENCE
from scenarios.errors import UserError
from scenarios.words import N_, say

RUN = "run"
POLL_SECONDS = 0.5
WATCH_BINDINGS = [
    Binding("0", "app.show_run(0)", N_("reference"), group=RUNS),
    Binding("1", "app.show_run(1)", N_("run"), group=RUNS),
    *(b for b in VIEW_BINDINGS if not b.action.startswith("app.show_run")),
    Binding("escape", "app.cursor_to('none')", N_("clear cursor"), show=False),
    Binding("tab", "app.focus_next", N_("panel")),
    Binding("shift+tab", "app.focus_previous", N_("panel"), show=False),
    Binding("enter", "app.detail", N_("open"), key_display="⏎"),
    Binding("q", "app.quit", N_("quit")),
]


class WatchScreen(Spoken, Screen[None]):
    """The watch's one screen, which the app composes: its footer speaks the app's language."""


def _detail_screen() -> type:
    """The game's detail view with the watch's keys: `0` and `1` (`2`-`9` show no run here)."""
    from diagnose.tui.screens.detail import DetailScreen

    class WatchDetailScreen(DetailScreen, inherit_bindings=False):
        BINDINGS = [b for b in DetailScreen.BINDINGS
                    if not b.action.startswith("app.show_run")
                    or b.action in ("app.show_run(0)", "app.show_run(1)")]

    return WatchDetailScreen


def escape_name(text: str) -> str:
    """The status line as markup-free text: a path's brackets are not markup."""
    return escape(text)


class WatchApp(ViewApp):
    CSS_PATH = "play.tcss"
    BINDINGS = WATCH_BINDINGS
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, run: Path, reference: tuple[dict[str, Any], list] | None = None, *,
                 lang: str = "en", poll: float = POLL_SECONDS) -> None:
        super().__init__()
        self.animation_level = "none"
        self.lang = lang
        self.tail = MetricsTail(run)
        self.poll_seconds = poll
        self.reference = reference
        self.problem: str | None = None  # the error line that stopped the app, for the CLI
        self.waiting = not self.tail.path.exists()  # started before the loop: wait for it
        first = [] if self.waiting else self.tail.poll()  # the header is written first
        self._start(first)
        self.view = View(run=RUN, overlay=reference is not None)
        self.status = Readout(id="status")

    def _start(self, first: list) -> None:
        """The store and the panels for the run's header and its first records."""
        header = self.tail.header or {}
        reference = self.reference
        steps = header.get("steps") or (reference[0].get("steps") if reference else None)
        self.store = RunStore((REFERENCE, RUN) if reference else (RUN,), int(steps or 1),
                              header or (reference[0] if reference else {}))
        if reference:
            for record in reference[1]:
                self.store.add(REFERENCE, record)
        for record in first:
            self.store.add(RUN, record)
        self._panels = own_panels(header or (reference[0] if reference else {}),
                                  first[0] if first else None)
        self.dashboard = Dashboard(self._panels, self.lang)

    @property
    def panels(self) -> tuple[Panel, ...]:
        return self._panels

    def get_default_screen(self) -> Screen:
        return WatchScreen(id="_default")

    def compose(self) -> ComposeResult:
        yield self.status
        yield self.dashboard
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.set_interval(self.poll_seconds, self.read_more)
        self.dashboard.boxes[0].focus()
        self.redraw()
        self.call_after_refresh(self._fit_status)  # the status line's width is known now

    def _fit_status(self) -> None:
        self.status.show(self._status())

    def on_resize(self) -> None:
        if self.is_mounted:
            self.call_after_refresh(self._fit_status)

    async def read_more(self) -> None:
        try:
            if self.waiting and not self.tail.path.exists():
                return
            fresh = self.tail.poll()
            if self.waiting:
                self._arrived()
        except (MetricsError, UserError) as err:
            self.problem = str(err)
            self.exit()
            return
        arrived = self.waiting
        if self.waiting or (fresh and self.store.count(RUN) == 0):
            # the panels' shape (blocks, matrices, recorded fields) comes from the first step
            self.waiting = False
            await self.dashboard.remove()
            self._panels = own_panels(self.store.header, fresh[0] if fresh else None)
            self.dashboard = Dashboard(self._panels, self.lang)
            await self.mount(self.dashboard, after=self.status)
        for record in fresh:
            self.store.add(RUN, record)
        if fresh or arrived:
            self.redraw()

    def _arrived(self) -> None:
        """The file appeared: its header must be a run of the reference's setup."""
        from diagnose.runs.check import same_model

        header = self.tail.header or {}
        if self.reference:
            same_model(header, self.reference[0], (str(self.tail.path), str(
                self.reference[0].get("run"))), self.lang)
        self.store = RunStore(self.store.runs, int(header.get("steps") or 1), header)
        if self.reference:
            for record in self.reference[1]:
                self.store.add(REFERENCE, record)

    def on_panel_chosen(self, message: PanelChosen) -> None:
        message.prevent_default()  # the game's handler would push its own detail view
        panel = next(p for p in self.panels if p.number == message.number)
        self.push_screen(_detail_screen()(panel, self))

    def redraw(self) -> None:
        with self.batch_update():
            self.dashboard.show(self.store, self.view)
            self.status.show(self._status())
            if hasattr(self.screen, "redraw"):
                self.screen.redraw()  # the detail view

    def _status(self) -> str:
        lang = self.lang
        count = self.store.count(RUN)
        if self.waiting:
            head = say(lang, "{name}: waiting for the file (start your training loop)",
                       name="{name}")
        elif count:
            head = say(lang, "{name}: step {count} of {steps}", name="{name}", count=count,
                       steps=self.store.extent)
        else:
            head = say(lang, "{name}: waiting for the first step", name="{name}")
        parts = [head]
        reference = escape(str((self.reference or ({},))[0].get("run")))
        if self.view.run == REFERENCE:
            parts.append(say(lang, "the reference {name}", name=reference))
        elif self.view.overlay and self.reference:
            parts.append(say(lang, "under it: {name}", name=reference))
        said = say(self.lang, "+reference") if self.reference else None  # "under it" says it
        parts += [note for note in view_notes(self.view, self.lang) if note != said]
        width = next((w for w in (self.status.content_size.width, self.size.width) if w), 120)
        return escape_name(fit_status(str(self.tail.path), parts, width))

    def action_show_run(self, index: int) -> None:
        """`0` the reference alone (when there is one), `1` the run."""
        run = (REFERENCE, RUN)[index] if index < 2 else None
        if run in self.store.runs:
            self.select_run(run)

    def action_toggle_overlay(self) -> None:
        if self.reference:
            super().action_toggle_overlay()

    def action_detail(self) -> None:
        focused = self.focused
        box = focused if isinstance(focused, PanelBox) else self.dashboard.boxes[0]
        self.post_message(PanelChosen(box.panel.number))
