"""`GradeScreen`: the grader's word inside the app: a self-study grade, or an instructor's
bundle's check.

`grade` draws what `diagnose grade FILE` prints for a self-study scenario, from the same
service (`diagnose.game.self_study.grade_self_study`: grade, reveal, record progress). `check` does
what `diagnose grade FILE --check` does for a bundle whose key only the instructor holds: how
the grader will read each ID, no score. Both raise the grader's and the workspace's own
errors; the app shows them in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from diagnose.tui.keys import Spoken
from diagnose.workspace import Workspace
from scenarios.words import N_, say

STYLES = {"title": "bold", "right": "bold green", "wrong": "bold red", "score": "bold",
          "note": "yellow"}


@dataclass(frozen=True)
class GradeOutcome:
    feedback: str           # Rich markup
    score: str | None       # "2/3"; None for a check
    solutions: Path | None  # None for a check, or when they could not be written
    passed: str | None = None  # the level passed just now, and what comes next
    next_level: int | None = None  # the level `n` opens, once this level is passed
    warnings: tuple[str, ...] = ()  # what was not written (the grade stands)
    changed: tuple[str, ...] = ()  # per ID, what its break changed (the reveal's words)


WIDTH = 92  # the grade box's text: 100 columns less its border, padding and scrollbar


def box_width(screen_width: int) -> int:
    """The columns the grade box's text has on a screen `screen_width` wide (the box is at
    most 100 wide, `play.tcss`)."""
    return min(screen_width, 100) - (100 - WIDTH)


def _markup(text: str, role: str) -> str:
    """The grader's style hook: its roles (title, right, wrong, …) as Rich markup."""
    return f"[{STYLES[role]}]{escape(text)}[/]" if role in STYLES else escape(text)


def grade(path: Path, workspace: Workspace, lang: str, width: int = WIDTH) -> GradeOutcome:
    """Grade `path` against `workspace` (self-study): `diagnose.game.self_study`, drawn here with
    its paragraphs wrapped at `width` columns (the box's)."""
    from diagnose.game.progress import passed_message
    from diagnose.game.self_study import grade_self_study

    graded = grade_self_study(path, workspace.path, lang)
    report = graded.report
    passed = None if graded.passed is None else passed_message(workspace.level, lang,
                                                               in_app=True)  # keys, not commands
    return GradeOutcome(report.render(_markup, width), f"{report.score}/{report.max_score}",
                        graded.solutions, passed, graded.next_level, graded.warnings,
                        what_changed(workspace, lang))


def what_changed(workspace: Workspace, lang: str) -> tuple[str, ...]:
    """Each ID's break and what it changed, as the reveal says it: the grade says why, not
    only right or wrong. Nothing when the key cannot be opened here (the grade stands)."""
    import scenarios
    from diagnose.diagnosis.reveal import open_assignment
    from scenarios.errors import UserError

    try:
        assignment = open_assignment(workspace)
    except (UserError, OSError):
        return ()
    deck = scenarios.breaks(workspace.level)
    return tuple(f"{rid} — {deck[slug].title[lang]}: {deck[slug].reveal[lang].changed}"
                 for rid, slug in assignment.items() if slug in deck)


def check(path: Path, workspace: Workspace, lang: str, width: int = WIDTH) -> GradeOutcome:
    """Read `path` as the instructor's grader will, without the key: no score."""
    from grading.grade import check_against

    result = check_against(path, workspace.path, lang=lang)
    return GradeOutcome(result.render(_markup, width), None, None)


class GradeScreen(Spoken, ModalScreen[int | None]):
    """Dismissed with the next level when the player takes the offer (n), else None."""

    BINDINGS = [Binding("escape,q,g", "close", N_("close")), Binding("n", "next_level", N_("next"))]

    def __init__(self, graded: GradeOutcome, lang: str) -> None:
        super().__init__()
        self.graded, self.lang = graded, lang

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="grade-box", classes="dialog"):
            # The grader's feedback states the score: the title does not repeat it.
            title = (say(self.lang, "Your file, as your instructor's grader will read it")
                     if self.graded.score is None else say(self.lang, "Your grade"))
            yield Static(title, classes="dialog-title")
            # the way on first, where 80×24 shows it without scrolling
            if self.graded.passed is not None:
                yield Static(escape(self.graded.passed), id="level-passed")
            if self.graded.next_level is not None and self.graded.passed is None:
                yield Static(say(self.lang, "n: play level {level} now (or later: n on the "
                                            "dashboard)", level=self.graded.next_level),
                             classes="hint")
            yield Static(self.graded.feedback)
            if self.graded.changed:
                yield Static(say(self.lang, "What each ID's break changed:"),
                             classes="dialog-title")
                for line in self.graded.changed:
                    yield Static(escape(line))
            if self.graded.solutions is not None:
                yield Static(say(self.lang, "Solutions, with each run's own numbers: {path}",
                                 path=self.graded.solutions), classes="hint")
            yield Static(say(self.lang, "Esc: each ID's reveal (w: its what-if) · PgDn scrolls")
                         if self.graded.score is not None else
                         say(self.lang, "Esc closes · PgDn scrolls"), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#grade-box").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_next_level(self) -> None:
        if self.graded.next_level is not None:
            self.dismiss(self.graded.next_level)
