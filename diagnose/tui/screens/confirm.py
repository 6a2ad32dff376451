"""`ConfirmScreen`: a yes/no question before a step that cannot be taken back (grading shows
every answer), whose safe answer is the default.

The focused button is "not yet": Enter, Esc, `n` or a click on it close without doing
anything; only the other button (or `y`, or the language's own key for yes, which the hint
names: `s` for "sí") answers yes. Dismissed with True or False.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from diagnose.tui.keys import Spoken
from scenarios.words import N_, say, yes_key


class ConfirmScreen(Spoken, ModalScreen[bool]):
    BINDINGS = [Binding("escape,n", "answer(False)", N_("not yet")),
                Binding("y", "answer(True)", N_("yes"))]

    def __init__(self, title: str, lines: list[str], yes: str, lang: str) -> None:
        super().__init__()
        self.title_text, self.lines, self.yes, self.lang = title, lines, yes, lang

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            for line in self.lines:
                yield Label(line)
            with Horizontal(id="confirm-buttons"):
                yield Button(say(self.lang, "Not yet"), id="no", variant="primary")
                yield Button(self.yes, id="yes")
            yield Label(say(self.lang, "Enter or Esc: not yet · {key}: yes · Tab moves between "
                                       "the buttons", key=yes_key(self.lang)), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def on_key(self, event: events.Key) -> None:
        if event.key == yes_key(self.lang):  # `y` is bound in every language
            event.stop()
            self.dismiss(True)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
