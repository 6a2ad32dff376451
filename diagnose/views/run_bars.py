"""Progress bars for training in the terminal: one bar per run, on stderr, with rich.

Used by `diagnose new` and `diagnose deal`; the TUI draws its own. When stderr is not a
terminal (CI, a pipe), rich prints nothing animated, and a finished line per run is enough.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class RunBars:
    """A context manager: `bars.step(label, record)` advances that run's bar."""

    def __init__(self, labels: Sequence[str], steps: int, title: str = "training") -> None:
        self.console = Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]{task.description:>12}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("steps"), TimeElapsedColumn(), TimeRemainingColumn(),
            console=self.console, transient=False)
        self.title = title
        self.steps = steps
        self.tasks: dict[str, Any] = {}
        for label in labels:
            self.add(label)

    def add(self, label: str) -> None:
        self.tasks[label] = self.progress.add_task(label, total=self.steps)

    def step(self, label: str, record: dict[str, Any]) -> None:
        if label not in self.tasks:
            self.add(label)
        self.progress.update(self.tasks[label], completed=record["step"] + 1)

    def __enter__(self) -> RunBars:
        self.console.print(f"[dim]{self.title}[/dim]")
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()
