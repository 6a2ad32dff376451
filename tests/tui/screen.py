"""What the terminal shows, as plain text, read through Textual's public API only.

Each visible widget of the active screen renders its own lines (`Widget.render_lines`, borders
included), pasted where the screen placed it (`Screen.find_widget`), parents before children,
as the compositor paints them. Enough for tests that read words and glyphs, not colours.
"""

from __future__ import annotations

from textual.errors import NoWidget
from textual.geometry import Region


def screen_text(app) -> str:
    screen = app.screen
    width, height = screen.size
    cells = [[" "] * width for _ in range(height)]
    for widget in (screen, *screen.walk_children(with_self=False)):
        if not widget.display or not widget.visible:
            continue
        try:
            geometry = screen.find_widget(widget)
        except NoWidget:
            continue  # hidden, or scrolled out of view
        region = geometry.region
        shown = region.intersection(geometry.clip).intersection(Region(0, 0, width, height))
        if not shown:
            continue
        crop = shown.translate((-region.x, -region.y))
        for row, strip in enumerate(widget.render_lines(crop)):
            text = strip.crop(crop.x, crop.x + crop.width).text if strip.cell_length > \
                crop.width else strip.text
            line = cells[shown.y + row]
            for column, char in enumerate(text[:shown.width]):
                line[shown.x + column] = char
    return "\n".join("".join(line).rstrip() for line in cells)
