"""`ViewApp`: what `diagnose play` and `diagnose watch` share: the one `View` and the keys that
change it (the run, log/linear, the reference under the run, the zoom, the step cursor), and the
detail view a panel opens into (`PanelChosen`: enter or a click).

An app built on it holds a `RunStore` (`store`), a `View` (`view`), its `lang` and its panels,
and redraws whatever screen is showing in `redraw`. Nothing here knows about scenarios, grading
or files: the cursor stays within what the shown run has recorded so far, which grows while a
run trains.
"""

from __future__ import annotations

from textual.app import App

from diagnose.tui.drawing.scale import ZOOM_STEPS, window
from diagnose.tui.drawing.state import RunStore, View
from diagnose.tui.messages import PanelChosen
from diagnose.views.panels import Panel
from diagnose.workspace import REFERENCE
from scenarios.words import say


def view_notes(view: View, lang: str) -> list[str]:
    """The status line's words for the view: the cursor's step, the zoom, the overlay, linear."""
    parts = []
    if view.cursor is not None:
        parts.append("[reverse] " + say(lang, "step {step}", step=view.cursor) + " [/]")
    if view.zoom:
        parts.append(say(lang, "steps 0-{last}", last=ZOOM_STEPS - 1))
    if view.overlay and view.run != REFERENCE:
        parts.append(say(lang, "+reference"))
    if not view.log:
        parts.append(say(lang, "linear"))
    return parts


class ViewApp(App[None]):
    store: RunStore
    view: View
    lang: str

    @property
    def panels(self) -> tuple[Panel, ...]:
        raise NotImplementedError

    def redraw(self) -> None:
        raise NotImplementedError

    def select_run(self, run: str) -> None:
        self.view.run = run
        self._set_cursor(self.view.cursor)
        self.redraw()

    def action_show_run(self, index: int) -> None:
        if index < len(self.store.runs):
            self.select_run(self.store.runs[index])

    def action_toggle_log(self) -> None:
        self.view.log = not self.view.log
        self.redraw()

    def action_toggle_overlay(self) -> None:
        self.view.overlay = not self.view.overlay
        self.redraw()

    def action_toggle_zoom(self) -> None:
        self.view.zoom = not self.view.zoom
        self._set_cursor(self.view.cursor)
        self.redraw()

    def _cursor_bounds(self) -> range:
        """The steps the cursor may visit: the window, as far as the run has recorded."""
        steps = window(self.store.extent, self.view.zoom)
        return range(steps.start, min(steps.stop, self.store.count(self.view.run)))

    def _set_cursor(self, step: int | None) -> None:
        bounds = self._cursor_bounds()
        if step is not None and bounds:
            step = min(max(step, bounds.start), bounds.stop - 1)
        self.view.cursor = step if bounds else None

    def action_move_cursor(self, delta: int) -> None:
        bounds = self._cursor_bounds()
        if self.view.cursor is None:  # the first press lands on the last step shown
            self._set_cursor(bounds.stop - 1 if bounds else None)
        else:
            self._set_cursor(self.view.cursor + delta)
        self.redraw()

    def action_cursor_to(self, where: str) -> None:
        bounds = self._cursor_bounds()
        self._set_cursor({"start": bounds.start, "end": bounds.stop - 1}.get(where))
        self.redraw()

    def on_panel_chosen(self, message: PanelChosen) -> None:
        from diagnose.tui.screens.detail import DetailScreen

        panel = next(p for p in self.panels if p.number == message.number)
        self.push_screen(DetailScreen(panel, self))
