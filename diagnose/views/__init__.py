"""The dashboard's six panels as data, and the views that draw them outside the app.

- `panels`: what each panel draws, in which words, on which axes (architecture §4).
- `columns`: a run's values as a chart's columns; `ticks`: where an axis puts its ticks.
- `dashboard`: the offline HTML dashboard (`dashboard.html`).
- `run_bars`: progress bars for training in the terminal.

The terminal app draws the same panels with Textual (`diagnose.tui`); `diagnose show` prints
them (`diagnose.runs.show`).
"""

from typing import TYPE_CHECKING

from diagnose.lazy import face

if TYPE_CHECKING:
    from diagnose.views.dashboard import render_dashboard
    from diagnose.views.panels import Panel, Series, build_panels, format_number

__all__ = ["Panel", "Series", "build_panels", "format_number", "render_dashboard"]
__getattr__, __dir__ = face(__name__, {
    "Panel": "panels", "Series": "panels", "build_panels": "panels",
    "format_number": "panels", "render_dashboard": "dashboard"})
