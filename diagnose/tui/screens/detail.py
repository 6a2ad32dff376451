"""`DetailScreen`: one panel filling the terminal, every series with a value axis, the steps
under them, and the panel's guides named in full.

It answers the same view keys as the dashboard (run, log, overlay, zoom, cursor): they act on
the app's one `View`, and the app redraws this screen. Esc or Enter goes back. It serves
`diagnose play` and `diagnose watch` alike: `play` is any app with a `store`, a `view`, a
`lang` and a `redraw`. A panel of more than `frames.DETAIL_ROWS` series (a deep model's
matrices) shows their per-layer summary, which scrolls.
"""

from __future__ import annotations

from typing import Protocol

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from diagnose.tui.drawing.frames import DETAIL_ROWS, panel_frame, shown_series
from diagnose.tui.drawing.state import RunStore, View
from diagnose.tui.keys import VIEW_BINDINGS, Spoken
from diagnose.tui.widgets.axes import AXIS_WIDTH, StepAxis
from diagnose.tui.widgets.footer import KeyFooter
from diagnose.tui.widgets.readout import Readout
from diagnose.tui.widgets.series_plot import SeriesPlot
from diagnose.views.panels import Panel, format_number
from diagnose.workspace import REFERENCE
from scenarios.words import N_, say


class Viewed(Protocol):
    """What this screen reads of its app (`diagnose.tui.viewing.ViewApp` is one): the screen
    knows no app class, so the app may open it without a circle of imports."""

    store: RunStore
    view: View
    lang: str


class DetailScreen(Spoken, Screen[None]):
    BINDINGS = [*VIEW_BINDINGS, Binding("escape,enter", "app.pop_screen", N_("back"))]

    def __init__(self, panel: Panel, play: Viewed) -> None:
        super().__init__()
        self.panel, self.play = panel, play
        self._mounting = 0  # plots asked for and not mounted yet

    def compose(self) -> ComposeResult:
        yield Readout(id="detail-title")
        view = self.play.view
        overlay = view.overlay and view.run != REFERENCE
        with VerticalScroll(id="detail-plots"):
            for _ in shown_series(self.panel, DETAIL_ROWS, overlay):
                yield SeriesPlot(self.play.lang)
        with Horizontal(id="detail-steps"):
            yield Static(" " * AXIS_WIDTH, classes="spacer")
            yield StepAxis()
        yield Readout(id="detail-guides")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.redraw()

    async def _complete(self, count: int) -> None:
        """Mount `count` more plots (counted in `_mounting` by the redraw that asked), then
        redraw."""
        try:
            if self.is_attached:
                await self.query_one("#detail-plots").mount_all(
                    [SeriesPlot(self.play.lang) for _ in range(count)])
        finally:
            self._mounting -= count
        if self.is_attached:
            self.redraw()

    def redraw(self) -> None:
        play, lang = self.play, self.play.lang
        frame = panel_frame(self.panel, play.store, play.view, lang, rows=DETAIL_ROWS)
        plots = list(self.query(SeriesPlot))
        missing = len(frame.lines) - len(plots) - self._mounting
        if missing > 0:  # `r` turned the matrices into their summary or back
            self._mounting += missing  # at once: a second redraw before the mount adds none
            self.call_later(self._complete, missing)
        for plot, line in zip(plots, frame.lines, strict=False):
            plot.display = True
            plot.show(line, frame)
        for plot in plots[len(frame.lines):]:
            plot.display = False
        run = say(lang, "reference") if play.view.run == REFERENCE else play.view.run
        axis = say(lang, "log") if frame.log else say(lang, "linear")
        keys = say(lang, "←/→ cursor · esc back")
        title = f"{self.panel.title_in(lang)} · {run} · {self.panel.y_label[lang]} ({axis})"
        # the keys' hint only where it fits whole: a line cut mid-word reads as broken
        room = self.query_one("#detail-title").content_size.width or self.size.width - 2
        hint = f"   [dim]{keys}[/dim]" if len(title) + 3 + len(keys) <= room else ""
        self.query_one("#detail-title", Readout).show(
            f"[b]{self.panel.title_in(lang)}[/b] · {run} · {self.panel.y_label[lang]} ({axis})"
            + hint)
        self.query_one(StepAxis).set_steps(frame.steps, frame.cursor)
        self.query_one("#detail-guides", Readout).show("   ".join(
            f"┄ {guide.label[lang]} = {format_number(value, lang)}"
            for guide, value in frame.guides))
