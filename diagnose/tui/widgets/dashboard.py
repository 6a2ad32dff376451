"""`Dashboard`: the six panels of one run in a grid, 2×3 on a narrow terminal, 3×2 on a wide one.

One dashboard serves every tab: switching runs redraws the same panels with another run's
values, which is instant and keeps the zoom, the scale and the cursor where they were.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Grid

from diagnose.tui.drawing.state import RunStore, View
from diagnose.tui.widgets.panel import PanelBox
from diagnose.views.panels import Panel

WIDE = 180  # columns from which the panels sit 3 across (each chart then ≥ 40 columns)


class Dashboard(Grid):
    def __init__(self, panels: tuple[Panel, ...], lang: str) -> None:
        super().__init__()
        self.panels = panels
        self.boxes = [PanelBox(panel, lang, id=f"panel-{panel.number}") for panel in panels]

    def compose(self) -> ComposeResult:
        yield from self.boxes

    def on_resize(self, event: events.Resize) -> None:
        # Set here rather than by a breakpoint class on the screen: a class change restyles
        # every widget below it, which would cost the first frame a whole styling pass.
        columns = 3 if event.size.width >= WIDE else 2
        self.styles.grid_size_columns = columns
        self.styles.grid_size_rows = -(-len(self.panels) // columns)

    def show(self, store: RunStore, view: View) -> None:
        for box in self.boxes:
            box.show(store, view)
