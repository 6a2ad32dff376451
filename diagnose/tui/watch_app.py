"""`diagnose watch`: the game's six panels on your own run while it trains.

No IDs, no grading, no drafts: one run (and, when given, its healthy reference drawn under it),
the same `Dashboard` and panels the game draws, fed by `diagnose.watch.MetricsTail` on a timer
that reads only what the recorder appended since. Keys: `l` log/linear, `r` the reference
under the run, `z` the first steps, `q` quit. A file that turns bad while watched (replaced,
corrupt) stops the app with its one error line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Footer

from diagnose.metrics import MetricsError
from diagnose.tui.dashboard import Dashboard
from diagnose.tui.readout import Readout
from diagnose.tui.state import RunStore, View
from diagnose.watch import MetricsTail, own_panels
from diagnose.workspace import REFERENCE

RUN = "run"
POLL_SECONDS = 0.5
TEXT = {
    "en": {"status": "{name}: step {count} of {steps}", "reference": "under it: {name}",
           "log": "log/linear", "overlay": "reference", "zoom": "zoom", "quit": "quit",
           "waiting": "{name}: waiting for the first step"},
    "es": {"status": "{name}: paso {count} de {steps}", "reference": "debajo: {name}",
           "log": "log/lineal", "overlay": "referencia", "zoom": "zoom", "quit": "salir",
           "waiting": "{name}: esperando el primer paso"},
}


class WatchApp(App[None]):
    CSS_PATH = "play.tcss"

    def __init__(self, run: Path, reference: tuple[dict[str, Any], list] | None = None, *,
                 lang: str = "en", poll: float = POLL_SECONDS) -> None:
        super().__init__()
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
        self.panels = own_panels(header, first[0] if first else None)
        self.dashboard = Dashboard(self.panels, lang)
        self.status = Readout(id="status")

    def compose(self) -> ComposeResult:
        yield self.status
        yield self.dashboard
        yield Footer(compact=True)

    def on_mount(self) -> None:
        t = TEXT[self.lang]
        for key, action, word in (("l", "log", "log"), ("r", "overlay", "overlay"),
                                  ("z", "zoom", "zoom"), ("q", "quit", "quit")):
            self.bind(key, action, description=t[word])
        self.set_interval(self.poll_seconds, self.read_more)
        self.redraw()

    async def read_more(self) -> None:
        try:
            fresh = self.tail.poll()
        except MetricsError as err:
            self.problem = str(err)
            self.exit()
            return
        if fresh and self.store.count(RUN) == 0:
            # the panels' shape (blocks, recorded fields) comes from the first step
            await self.dashboard.remove()
            self.panels = own_panels(self.store.header, fresh[0])
            self.dashboard = Dashboard(self.panels, self.lang)
            await self.mount(self.dashboard, after=self.status)
        for record in fresh:
            self.store.add(RUN, record)
        if fresh:
            self.redraw()

    def redraw(self) -> None:
        self.dashboard.show(self.store, self.view)
        t = TEXT[self.lang]
        name = self.tail.path
        count = self.store.count(RUN)
        parts = [t["status"].format(name=name, count=count, steps=self.store.extent)
                 if count else t["waiting"].format(name=name)]
        if self.view.overlay and self.reference:
            parts.append(t["reference"].format(name=self.reference[0].get("run")))
        self.status.show(" · ".join(parts))

    def action_log(self) -> None:
        self.view.log = not self.view.log
        self.redraw()

    def action_overlay(self) -> None:
        self.view.overlay = bool(self.reference) and not self.view.overlay
        self.redraw()

    def action_zoom(self) -> None:
        self.view.zoom = not self.view.zoom
        self.redraw()

