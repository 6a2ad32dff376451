"""`Readout`: a line or a few of text whose box the stylesheet sizes, redrawn without a layout.

`Static.update` asks Textual for a new layout of the whole screen (its content might need
another size). The dashboard's numbers change on every key and every redraw tick, in boxes
whose size never depends on them; re-laying out ~150 widgets each time would cost more than
the 100 ms a key may take. A `Readout` only repaints itself, and only when its text changed.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize
from textual.widget import Widget


def boxed(text: Text | str) -> Text:
    """`text` (markup, if a str) for a box of fixed size: cut with an ellipsis, never wrapped."""
    text = Text.from_markup(text) if isinstance(text, str) else text.copy()
    text.no_wrap, text.overflow = True, "ellipsis"  # each line of it
    return text


def text_lines(widget: Widget, text: Text, width: int, height: int,
               style: VisualStyle) -> list[Strip]:
    """`height` lines of `width` cells: `text` (no markup) in `style`, cell for cell as Textual
    draws a widget of that size showing it, for a widget that paints it as a part of its own
    lines (`SeriesRow`'s label and numbers, `ScaledSparkline`'s axis)."""
    drawn = Visual.to_strips(widget, visualize(widget, text, markup=False), width, height, style)
    # as Textual fills a widget: a short line with the background, a missing one blank
    background = Style.from_color(bgcolor=style.rich_style.bgcolor)
    lines = [line.adjust_cell_length(width, background) for line in drawn[:height]]
    return lines + [Strip.blank(width, style.rich_style)] * (height - len(lines))


class Readout(Widget):
    DEFAULT_CSS = """
    Readout {
        height: 1;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.text = Text()

    def show(self, text: Text | str) -> None:
        text = boxed(text)
        if text != self.text:
            self.text = text
            self.refresh()

    def render(self) -> Text:
        return self.text
