"""`HelpScreen`: how to read each panel and the keys, in the app's language (`text.HELP`).

The same text for every scenario and every run: it teaches how to read, never what a run holds.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from diagnose.tui.keys import Spoken
from diagnose.tui.text import help_text
from scenarios.words import N_, say


class HelpScreen(Spoken, ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", N_("close"))]

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box", classes="dialog"):
            yield Static(say(self.lang, "Esc closes · PgDn scrolls"), classes="hint")
            yield Markdown(help_text(self.lang))

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()  # so ↑/↓ and page keys scroll at once

    def action_close(self) -> None:
        self.dismiss()
