"""`diagnose watch`: the game's six panels on your own run while it trains.

No IDs, no grading, no drafts: one run (and, when given, its healthy reference drawn under it),
the same `Dashboard`, panels, detail view and view keys as `diagnose play` (`viewing.ViewApp`),
fed by `diagnose.watch.MetricsTail` on a timer that reads only what the recorder appended since.
Keys: `0` the reference alone, `1` your run, `l` log/linear, `r` the reference under the run,
`z` the first steps, `←`/`→` a step cursor (it stays on its step as the run grows; `end` goes
to the newest), `tab` the next panel and `enter` (or a click) its detail view, `q` quit. A
panel whose field the run did not record says "not recorded" in its title, here and in the
detail view. A file that turns bad while watched (replaced, corrupt) stops the app with its one
error line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen

from diagnose.metrics import MetricsError
from diagnose.panels import Panel
from diagnose.tui.drawing.state import RunStore, View
from diagnose.tui.keys import RUNS, VIEW_BINDINGS, Spoken
from diagnose.tui.messages import PanelChosen
from diagnose.tui.viewing import ViewApp, view_notes
from diagnose.tui.widgets.dashboard import Dashboard
from diagnose.tui.widgets.footer import KeyFooter
from diagnose.tui.widgets.panel import PanelBox
from diagnose.tui.widgets.readout import Readout
from diagnose.watch import MetricsTail, own_panels
from diagnose.workspace import REFERENCE
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
        first = self.tail.poll()  # the header is written before any step: it is there now
        header = self.tail.header or {}
        self.store = RunStore((REFERENCE, RUN) if reference else (RUN,),
                              int(header.get("steps") or 1), header)
        if reference:
            for record in reference[1]:
                self.store.add(REFERENCE, record)
        for record in first:
            self.store.add(RUN, record)
        self.view = View(run=RUN, overlay=reference is not None)
        self._panels = own_panels(header, first[0] if first else None)
        self.dashboard = Dashboard(self._panels, lang)
        self.status = Readout(id="status")

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

    async def read_more(self) -> None:
        try:
            fresh = self.tail.poll()
        except MetricsError as err:
            self.problem = str(err)
            self.exit()
            return
        if fresh and self.store.count(RUN) == 0:
            # the panels' shape (blocks, matrices, recorded fields) comes from the first step
            await self.dashboard.remove()
            self._panels = own_panels(self.store.header, fresh[0])
            self.dashboard = Dashboard(self._panels, self.lang)
            await self.mount(self.dashboard, after=self.status)
        for record in fresh:
            self.store.add(RUN, record)
        if fresh:
            self.redraw()

    def redraw(self) -> None:
        with self.batch_update():
            self.dashboard.show(self.store, self.view)
            self.status.show(self._status())
            if hasattr(self.screen, "redraw"):
                self.screen.redraw()  # the detail view

    def _status(self) -> str:
        lang, name = self.lang, escape(str(self.tail.path))
        count = self.store.count(RUN)
        parts = [say(lang, "{name}: step {count} of {steps}", name=name, count=count,
                     steps=self.store.extent)
                 if count else say(lang, "{name}: waiting for the first step", name=name)]
        reference = escape(str((self.reference or ({},))[0].get("run")))
        if self.view.run == REFERENCE:
            parts.append(say(lang, "the reference {name}", name=reference))
        elif self.view.overlay and self.reference:
            parts.append(say(lang, "under it: {name}", name=reference))
        said = say(self.lang, "+reference") if self.reference else None  # "under it" says it
        parts += [note for note in view_notes(self.view, self.lang) if note != said]
        return " · ".join(parts)

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
