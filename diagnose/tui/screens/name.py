"""`NameScreen`: asks for the player's name, which names every level's diagnoses file.

Dismissed with the name typed (stripped), or None on Esc or an empty line. The app keeps the
name in the data folder (`diagnose.home`), so it is asked once, on the first save; `u` opens
this screen again, the kept name filled in, to change it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from diagnose.home import MAX_NAME
from diagnose.tui.keys import Spoken
from scenarios.words import N_, say


class NameScreen(Spoken, ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", N_("close"))]

    def __init__(self, lang: str, name: str | None = None) -> None:
        super().__init__()
        self.lang, self.kept = lang, name

    def compose(self) -> ComposeResult:
        with Vertical(id="name-box", classes="dialog"):
            yield Label(say(self.lang, "Your name, for the diagnoses file"), classes="dialog-title")
            yield Input(self.kept or "", placeholder=say(self.lang, "e.g. Ana García"),
                        max_length=MAX_NAME)
            yield Label(say(self.lang, "Kept for every level in your data folder; u changes it, "
                                       "as does `diagnose play --name`. Enter saves, Esc "
                                       "cancels."), classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
