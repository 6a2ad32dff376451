"""`TrainingBars`: one line per run while a fresh scenario trains: its bar and step count.

Hidden once the scenario is written. It shows only counts: every run trains the same number
of steps, so the lines tell nothing about which run is which. Its height is one line per run,
fixed, so a redraw repaints it without a new layout (see `readout`).
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.progress_bar import ProgressBar
from rich.table import Table
from textual.widget import Widget

from diagnose.tui.drawing.state import RunStore
from diagnose.workspace import REFERENCE
from scenarios.words import say


class TrainingBars(Widget):
    def __init__(self, lang: str, runs: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lang = lang
        self.styles.height = runs
        self.counts: list[tuple[str, int, int]] = []  # (run, steps done, steps in all)

    def show(self, store: RunStore) -> None:
        counts = [(run, store.count(run), store.extent) for run in store.runs]
        if counts != self.counts:
            self.counts = counts
            self.refresh()

    def render(self) -> RenderableType:
        grid = Table.grid(padding=(0, 1), expand=True)
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=1)
        grid.add_column(no_wrap=True, justify="right")
        for run, done, total in self.counts:
            label = say(self.lang, "reference") if run == REFERENCE else run
            grid.add_row(label, ProgressBar(total=total, completed=done),
                         say(self.lang, "{done}/{total} steps", done=done, total=total))
        return grid
