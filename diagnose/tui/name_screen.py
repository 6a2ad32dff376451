"""`NameScreen`: asks once for the student's name, which names the diagnoses file.

Dismissed with the name typed (stripped), or None on Esc or an empty line. The app keeps the
name in the drafts, so it is never asked again for this workspace.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from diagnose.tui.text import tr


class NameScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "close")]

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical(id="name-box", classes="dialog"):
            yield Label(tr(self.lang, "name_title"), classes="dialog-title")
            yield Input(placeholder=tr(self.lang, "name_placeholder"), max_length=80)
            yield Label(tr(self.lang, "name_hint"), classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
