"""`FormScreen`: the diagnosis of one run: which designed bug (the catalog's titles, or "not
sure yet") and the evidence, as free text.

Every change — a choice, a keystroke — is posted as `AnswerChanged` and the app writes it to
the drafts at once; Esc only closes. The choices are the whole catalog in its own order, the
same for every run: the form cannot hint at what a run holds.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, RadioSet, TextArea

from diagnose.tui.drafts import UNSURE, Draft
from diagnose.tui.keys import Spoken
from diagnose.tui.messages import AnswerChanged
from diagnose.tui.widgets.choice_button import ChoiceButton
from scenarios.words import N_, say


def choices(lang: str, level: int = 1) -> list[tuple[str, str]]:
    """(value, title) for each break of the level's deck, then "not sure"."""
    import scenarios

    return ([(slug, brk.title[lang]) for slug, brk in scenarios.breaks(level).items()]
            + [(UNSURE, say(lang, "not sure yet"))])


class FormScreen(Spoken, ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", N_("close")), Binding("ctrl+s", "app.save", N_("save"))]

    def __init__(self, run: str, answer: Draft, lang: str, note: str | None = None,
                 level: int = 1) -> None:
        super().__init__()
        self.run, self.answer, self.lang, self.note = run, answer, lang, note
        self.level = level  # the deck whose breaks the form offers

    def compose(self) -> ComposeResult:
        with Vertical(id="form-box", classes="dialog"):
            yield Label(say(self.lang, "Diagnosis of run {run}", run=self.run),
                        classes="dialog-title")
            yield Label(say(self.lang, "Which designed bug does {run} show?", run=self.run))
            with RadioSet(id="choice"):
                for value, title in choices(self.lang, self.level):
                    yield ChoiceButton(title, value=value == self.answer.choice,
                                       id=f"choice-{value}")
            yield Label(say(self.lang, "Evidence: which panels show it, and their numbers"))
            yield TextArea(self.answer.evidence, id="evidence", soft_wrap=True)
            if self.note:
                yield Label(self.note, classes="hint")
            yield Label(say(self.lang, "Tab moves · Esc closes (your draft is kept) · Ctrl+S "
                                       "saves the file"), classes="hint")

    def on_mount(self) -> None:
        radio = self.query_one(RadioSet)
        radio.focus()
        # RadioSet puts the arrow keys on its first option: move them to the chosen one, so
        # that Enter on a reopened form keeps the answer instead of choosing the first break.
        chosen = radio.pressed_button
        for _ in range(len(radio.children) if chosen is not None else 0):
            if chosen.has_class("-selected"):  # ChoiceButton's pointer reads the same class
                break
            radio.action_next_button()

    def _choice(self) -> str | None:
        pressed = self.query_one(RadioSet).pressed_button
        return None if pressed is None else (pressed.id or "").removeprefix("choice-")

    def _changed(self) -> None:
        self.post_message(AnswerChanged(self.run, self._choice(),
                                        self.query_one(TextArea).text))

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self._changed()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._changed()

    def action_close(self) -> None:
        self.dismiss()
