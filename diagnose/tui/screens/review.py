"""`ReviewScreen`: before grading, every ID with its answer and its evidence's first line
(`diagnose.game.review`, the lines `diagnose grade` prints too), an answer that scores 0 marked.

Grading needs this screen's yes (`y`, or the button); Enter or a run's digit goes back to
that run's form instead; Esc closes without grading. In an instructor's bundle it also names
the file to hand in. Dismissed with True (grade), a run's ID (open its form) or None.
"""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, OptionList
from textual.widgets.option_list import Option

from diagnose.game.review import ReviewRow, render_review
from diagnose.tui.keys import Spoken
from scenarios.words import N_, say


class ReviewScreen(Spoken, ModalScreen["bool | str | None"]):
    BINDINGS = [Binding("escape,n", "close", N_("not yet")),
                Binding("y,s", "grade", N_("grade")),  # s: the Spanish prompt's "sí"
                *(Binding(str(n), f"back('{n:02d}')", N_("form"), show=False)
                  for n in range(1, 10))]

    def __init__(self, rows: list[ReviewRow], lang: str, *, grades: bool,
                 hand_in: Path | None = None) -> None:
        """`grades`: a self-study scenario (grading shows the answers); else an instructor's
        bundle, checked here and handed in (`hand_in`: the file)."""
        super().__init__()
        self.rows, self.lang, self.grades, self.hand_in = rows, lang, grades, hand_in

    def compose(self) -> ComposeResult:
        lines = render_review(self.rows, self.lang)
        with VerticalScroll(id="review-box", classes="dialog"):
            yield Label(say(self.lang, "Review before grading"), classes="dialog-title")
            yield OptionList(*(Option(escape(line), id=f"run-{row.run}")
                               for row, line in zip(self.rows, lines, strict=False)),
                             id="review-rows")
            for line in lines[len(self.rows):]:
                yield Label(escape(line))
            if self.grades:
                yield Label(say(self.lang, "Grading saves your diagnoses file, scores it and "
                                           "shows every answer (the solutions). Your first "
                                           "grade is the one that counts."))
            elif self.hand_in is not None:
                yield Label(say(self.lang, "This is an instructor's bundle: y saves and checks "
                                           "your file; hand in {path}.", path=self.hand_in))
            else:  # no name yet: y asks for it, and the file is named after it
                yield Label(say(self.lang, "This is an instructor's bundle: y asks your name, "
                                           "saves and checks your file; hand that file in."))
            with Horizontal(id="confirm-buttons"):
                yield Button(say(self.lang, "Not yet"), id="no", variant="primary")
                yield Button(say(self.lang, "Grade and show the answers") if self.grades
                             else say(self.lang, "Save and check"), id="yes")
            yield Label(say(self.lang, "Enter or a run's digit: back to its form · y: grade · "
                                       "Esc: not yet") if self.grades else
                        say(self.lang, "Enter or a run's digit: back to its form · y: save "
                                       "and check · Esc: not yet"), classes="hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss((event.option.id or "").removeprefix("run-"))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(True if event.button.id == "yes" else None)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_grade(self) -> None:
        self.dismiss(True)

    def action_back(self, run: str) -> None:
        if any(row.run == run for row in self.rows):
            self.dismiss(run)
