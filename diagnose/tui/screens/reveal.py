"""`RevealScreen`: after grading, one ID's reveal inside the app: which break it held, what was
changed, what this run showed with its own numbers and why the panels show it — its section
of the solutions file `diagnose.diagnosis.reveal` writes (the same words, never a second text).

A run's digit shows that ID's section, `w` opens the what-if of the run shown, Esc closes.
The sections are read from the solutions file; when it could not be written, they are made
again from the scenario (`render_solutions`), which reads every run's metrics: in a thread.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from diagnose.tui.keys import Spoken
from diagnose.workspace import Workspace
from scenarios.words import N_, say


def reveal_sections(text: str, ids: tuple[str, ...]) -> dict[str, str]:
    """The solutions file's section of each ID (`## 01 — <title>` to the next `## `)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            run = line[3:].split(" ", 1)[0]
            current = sections.setdefault(run, []) if run in ids else None
        if current is not None:
            current.append(line)
    return {run: "\n".join(lines).strip() for run, lines in sections.items()}


class RevealScreen(Spoken, ModalScreen["str | None"]):
    """Dismissed with the run whose what-if the player asked for (w), else None."""

    BINDINGS = [Binding("escape,q", "close", N_("close")),
                Binding("w", "what_if", N_("what-if")),
                *(Binding(str(n), f"show('{n:02d}')", N_("ID"), show=False)
                  for n in range(1, 10))]

    def __init__(self, workspace: Workspace, run: str, lang: str) -> None:
        super().__init__()
        self.workspace, self.run, self.lang = workspace, run, lang
        self.sections: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="reveal-box", classes="dialog"):
            yield Markdown("", id="reveal-text")
            yield Static(say(self.lang, "A run's digit: its reveal · w: its what-if · PgDn "
                                        "scrolls · Esc closes"), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#reveal-box").focus()
        self.load()

    @work(thread=True, exclusive=True)
    def load(self) -> None:
        from diagnose.diagnosis.reveal import open_assignment, render_solutions

        path = self.workspace.solutions_path
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = render_solutions(self.workspace, open_assignment(self.workspace), self.lang)
        sections = reveal_sections(text, self.workspace.ids)
        self.app.call_from_thread(self._loaded, sections)

    def _loaded(self, sections: dict[str, str]) -> None:
        self.sections = sections
        self.action_show(self.run)

    def action_show(self, run: str) -> None:
        if run in self.workspace.ids:
            self.run = run
            self.query_one("#reveal-text", Markdown).update(self.sections.get(run, ""))
            self.query_one("#reveal-box").scroll_home(animate=False)

    def action_what_if(self) -> None:
        self.dismiss(self.run)

    def action_close(self) -> None:
        self.dismiss(None)
