"""`PanelBox`: one of the six panels as a titled box of `SeriesRow`s.

The title says the panel and its axis (log or linear), after a `▶` when the panel has the
focus (Tab moves it; the marker, not only the border's colour, tells which one `enter` opens).
The bottom edge says where a series first became NaN/inf (in red), else the guides' values,
and, when the panel shows fewer series than it has, how many are hidden and that `enter` shows
them; the cursor's step is the status line's, since a border change repaints the whole box.
The box decides how many rows it has room for and asks `panel_frame` for a frame of that size
(a panel's many spectral norms become their per-layer summary, or their envelope, in a small
box, and the bottom edge says so); `row_layout` gives every row the same height, so a bar's
size means the same in every row. A click focuses the panel and opens the detail view (the
screen listens for `PanelChosen`).
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widget import Widget

from diagnose.tui.drawing.frames import (
    DETAIL_ROWS,
    PanelFrame,
    panel_frame,
    row_layout,
    short_guide,
    shown_series,
)
from diagnose.tui.drawing.state import RunStore, View
from diagnose.tui.messages import PanelChosen
from diagnose.tui.widgets.series_row import SeriesRow
from diagnose.views.columns import MARKS
from diagnose.views.panels import Panel, format_number
from scenarios.words import say

INITIAL_ROWS = 3
FOCUS_MARK = "▶ "


class PanelBox(Widget, can_focus=True):
    def __init__(self, panel: Panel, lang: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.panel = panel
        self.lang = lang
        self._shown: tuple[RunStore, View] | None = None
        self._axis: bool | None = None  # the frame's log axis, once drawn
        self._focused = False  # as the last Focus/Blur event said
        self._row_height = 0  # the lines each row was last given (row_layout)
        # Kept, not queried on every redraw. A small box shows at most INITIAL_ROWS rows (the
        # nine spectral norms become two), so more are mounted only when a frame needs them.
        self.rows = [SeriesRow(series.group, lang) for series in panel.series[:INITIAL_ROWS]]

    def compose(self) -> ComposeResult:
        yield from self.rows

    def show(self, store: RunStore, view: View) -> None:
        """Draw the run in `view`; called on the redraw timer and after every key."""
        self._shown = (store, view)
        if not self.content_size:
            return  # not laid out yet: on_resize draws the first frame, at the right size
        frame = panel_frame(self.panel, store, view, self.lang, rows=self.content_size.height)
        if len(frame.lines) > len(self.rows):
            self.call_later(self._complete, len(frame.lines))  # then shows again
        overlay = any(line.reference is not None for line in frame.lines)
        shown, height = row_layout(self.content_size.height, len(frame.lines), overlay)
        if height != self._row_height:  # a new height costs a layout: only when it changes
            self._row_height = height
            for row in self.rows:
                row.styles.height = height
        for row, line in zip(self.rows[:shown], frame.lines, strict=False):
            row.display = True
            row.show(line, frame)
        for row in self.rows[shown:]:
            row.display = False
        self._axis = frame.log
        self._show_title()
        subtitle = self._subtitle(frame)
        if subtitle != self.border_subtitle:  # a border change repaints the whole box
            self.border_subtitle = subtitle
        self.set_class(frame.nonfinite_step is not None, "-nonfinite")

    async def _complete(self, count: int) -> None:
        """Give the panel `count` rows; then redraw it."""
        new = [SeriesRow(series.group, self.lang)
               for series in self.panel.series[len(self.rows):count]]
        for row in new:
            row.styles.height = self._row_height or "1fr"
        self.rows += new  # at once: a second call while this one awaits adds nothing twice
        if not self.is_attached:
            return  # the app is closing already
        await self.mount_all(new)
        if self._shown is not None:
            self.show(*self._shown)

    def on_resize(self) -> None:
        if self._shown is not None:  # the envelope or the full series may fit now
            self.show(*self._shown)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.focus()
        self.post_message(PanelChosen(self.panel.number))

    def on_focus(self) -> None:
        self._focused = True
        self._show_title()

    def on_blur(self) -> None:
        self._focused = False
        self._show_title()

    def _show_title(self) -> None:
        if self._axis is None:
            return
        axis = say(self.lang, "log") if self._axis else say(self.lang, "linear")
        marker = FOCUS_MARK if self._focused else ""
        title = f"{marker}{self.panel.title_in(self.lang)} · {axis}"
        if title != self.border_title:
            self.border_title = title

    def _subtitle(self, frame: PanelFrame) -> str:
        count = len(self.panel.series)
        shown = row_layout(self.content_size.height, len(frame.lines), False)[0]
        summarised = [line.series.key for line in frame.lines
                      if line.series.which is not None]
        # what enter shows: every series, or (past DETAIL_ROWS) their per-layer summary
        each = len(shown_series(self.panel, DETAIL_ROWS, False)) == count
        if any(".envelope." in key for key in summarised):
            note = (say(self.lang, "max/min of {count}: ⏎ shows each", count=count) if each
                    else say(self.lang, "max/min of {count}: ⏎ per layer", count=count))
        elif summarised:
            note = (say(self.lang, "per layer, of {count}: ⏎ shows each", count=count) if each
                    else say(self.lang, "max/med/min per layer, of {count}", count=count))
        elif shown < count:
            note = say(self.lang, "{shown} of {count}: ⏎ shows all", shown=shown, count=count)
        else:
            note = ""
        if frame.nonfinite_step is not None:
            mark = f"{MARKS['nan']} NaN/inf"
            since = say(self.lang, "{mark} from step {step}", mark=mark, step=frame.nonfinite_step)
            text = f"[b red]{since}[/]"
        elif frame.guides:
            text = "┄ " + " · ".join(
                f"{short_guide(guide, self.lang)} {format_number(value, self.lang)}"
                for guide, value in frame.guides)
        else:
            text = ""
        return " · ".join(part for part in (text, note) if part)
