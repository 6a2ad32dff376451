"""`ProgressScreen`: `diagnose progress` inside the app (p): each level's scenarios, scores and
what is next, read from the progress file (`diagnose.game.progress`). It never says what a run
holds."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from diagnose.game.progress import load_progress, render
from diagnose.tui.keys import Spoken
from scenarios.words import N_, say


class ProgressScreen(Spoken, ModalScreen[None]):
    BINDINGS = [Binding("escape,q,p", "close", N_("close"))]

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        progress, warnings = load_progress()
        with VerticalScroll(id="progress-box", classes="dialog"):
            yield Static(say(self.lang, "Your progress through the levels"), classes="dialog-title")
            for warning in warnings:
                yield Static(escape(warning), classes="hint")
            yield Static(escape(render(progress, self.lang, in_app=True)), id="progress-text")
            yield Static(say(self.lang, "n on the dashboard: the next level · Esc closes"),
                         classes="hint")

    def on_mount(self) -> None:
        self.query_one("#progress-box").focus()

    def action_close(self) -> None:
        self.dismiss()
