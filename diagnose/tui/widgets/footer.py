"""`KeyFooter`: Textual's footer, composed again only when the keys it shows change.

Textual's `Footer` composes its keys anew (a widget per key, each restyled) whenever the
screen's bindings may have changed: a focus moving, a screen pushed or popped, a key pressed.
On a dashboard's first frame that was five compositions of the same thirteen keys, a tenth of
the frame's CPU. The keys it shows are compared first; the same keys keep the same widgets.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


def shown_keys(screen: Screen[Any]) -> tuple[Any, ...]:
    """What the footer draws of `screen`'s bindings: each shown binding, enabled or not."""
    return tuple((binding, enabled, tooltip)
                 for _, binding, enabled, tooltip in screen.active_bindings.values()
                 if binding.show)


class KeyFooter(Footer):
    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self._composed: tuple[Any, ...] | None = None  # the keys of the last composition

    def bindings_changed(self, screen: Screen[Any]) -> None:
        keys = shown_keys(screen)
        if keys == self._composed:
            return
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._composed = keys  # Footer composes again (without app focus, it waits)
        super().bindings_changed(screen)
