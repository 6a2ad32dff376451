"""What the terminal shows, as plain text, read through Textual's public API only.

Each visible widget of the active screen renders its own lines (`Widget.render_lines`, borders
included), pasted where the screen placed it (`Screen.find_widget`, else `Widget.region`),
parents before children and layers (notifications) last, as the compositor paints them.
Enough for tests that read words and glyphs, not colours.
"""

from __future__ import annotations

import asyncio
import time

from textual.errors import NoWidget
from textual.geometry import Region


def screen_text(app) -> str:
    screen = app.screen
    width, height = screen.size
    cells = [[" "] * width for _ in range(height)]
    placed, on_top = [], []
    for widget in (screen, *screen.walk_children(with_self=False)):
        if not widget.display or not widget.visible:
            continue
        try:
            geometry = screen.find_widget(widget)
        except NoWidget:
            geometry = None
        layered = any(node.styles.layer for node in widget.ancestors_with_self
                      if node is not screen)  # notifications: a layer above the others
        if geometry is None:
            on_top.append((widget, widget.region, widget.region))
        else:
            (on_top if layered else placed).append((widget, geometry.region, geometry.clip))
    for widget, region, clip in placed + on_top:
        shown = region.intersection(clip).intersection(Region(0, 0, width, height))
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


async def until(pilot, condition, tries: int = 500) -> None:
    """Let the app run until `condition()` holds: a pushed screen or a worker's thread needs
    real time, more of it on a loaded machine, so a test waits on what it checks, not a sleep.

    `condition` is checked every 10 ms for up to `tries` × 20 ms (ten seconds by default). In
    between, the app's own loop runs (its timers, messages and workers): a plain sleep, and
    every tenth time `Pilot.pause`, which also makes every widget of the screen answer and
    repaints the screen. That costs ~7 CPU-ms at 80x24, which a long wait (a what-if trains
    for seconds) paid hundreds of times when every check paused that way.
    """
    deadline = time.monotonic() + tries * 0.02
    checks = 0
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition never held")
        checks += 1
        await (pilot.pause(0.01) if checks % 10 == 0 else asyncio.sleep(0.01))


async def open_what_if(pilot, app, key: str):
    """Press a run's key, then `w`: the what-if screen, once it shows."""
    from diagnose.tui.screens.whatif import WhatIfScreen

    await pilot.press(key, "w")
    await until(pilot, lambda: isinstance(app.screen, WhatIfScreen))
    return app.screen


async def drawn(pilot, app) -> str:
    """The screen once the footer and every panel's title have drawn (they come on timers)."""
    def ready() -> bool:
        lines = screen_text(app).split("\n")
        return bool(lines[-1].strip()) and sum("1 · " in line or "6 · " in line
                                                for line in lines) >= 2
    await until(pilot, ready)
    return screen_text(app)
