"""What the app knows: the runs' records (`RunStore`) and what the student is looking at (`View`).

`RunStore` is the one object two threads share: the training worker appends records as
`create_scenario` streams them, the UI thread reads them on its redraw timer. A lock guards
both sides, since a redeal truncates a run while the UI may be reading it. The UI thread also
keeps here, per run and series, the values already read from the records, so a redraw reads
only the steps that arrived since the last one.

No Textual here, and nothing about which break a run holds: runs are known by their IDs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from diagnose.views.columns import Value
from diagnose.views.panels import Series
from diagnose.workspace import REFERENCE, Workspace

Record = dict[str, Any]


@dataclass
class View:
    """One for the whole app, so the dashboard and the detail screen always agree."""

    run: str = REFERENCE
    log: bool = True        # architecture §4's log panels on a log axis (`l`: linear)
    overlay: bool = False   # the reference's curve under the run's (`r`)
    zoom: bool = False      # the first scale.ZOOM_STEPS steps only (`z`)
    cursor: int | None = None  # a step: every panel shows its value there; None: the last


class RunStore:
    """Every run's header and records, in display order (the reference first)."""

    def __init__(self, runs: tuple[str, ...], extent: int,
                 header: dict[str, Any] | None = None) -> None:
        self.runs = runs
        self.extent = extent  # steps a run will have: the sparklines' full width
        self.header: dict[str, Any] = dict(header or {})  # identical for every run (metrics.py)
        self._lock = threading.Lock()
        self._records: dict[str, list[Record]] = {run: [] for run in runs}
        self._restarts: dict[str, int] = {}  # per run: how often a redeal started it over
        self._cache: dict[tuple[str, str], tuple[int, list[Value]]] = {}  # UI thread only
        self.version = 0  # bumped on every change: the redraw timer compares it

    @classmethod
    def from_workspace(cls, workspace: Workspace) -> RunStore:
        """A finished scenario, read from its metrics files."""
        header, _ = workspace.read_run(REFERENCE)
        store = cls(workspace.runs, workspace.steps, header)
        for run in workspace.runs:
            store._records[run] = workspace.read_run(run)[1]
        return store

    # --- the training thread ---------------------------------------------------------------

    def add(self, run: str, record: Record) -> None:
        """Append one step; a step already seen means the run started over (a redeal)."""
        with self._lock:
            records = self._records.setdefault(run, [])
            if record["step"] < len(records):
                del records[record["step"]:]
                self._restarts[run] = self._restarts.get(run, 0) + 1
            records.append(record)
            self.version += 1

    # --- the UI thread -----------------------------------------------------------------------

    def count(self, run: str) -> int:
        with self._lock:
            return len(self._records.get(run, ()))

    def record(self, run: str, step: int) -> Record | None:
        """The run's record at `step`, if it has one yet."""
        with self._lock:
            records = self._records.get(run, ())
            return records[step] if 0 <= step < len(records) else None

    def records(self, run: str) -> list[Record]:
        """A copy of the run's records so far."""
        with self._lock:
            return list(self._records.get(run, ()))

    def values(self, run: str, series: Series) -> list[Value]:
        """The series' value at each step so far, read once per record."""
        with self._lock:
            restarts = self._restarts.get(run, 0)
            seen, cached = self._cache.get((run, series.key), (restarts, []))
            if seen != restarts:
                cached = []
            fresh = self._records.get(run, [])[len(cached):]
        cached.extend(series.read(record) for record in fresh)  # records never change once in
        self._cache[(run, series.key)] = (restarts, cached)
        return cached
