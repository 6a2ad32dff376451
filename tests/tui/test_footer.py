"""The footer is composed again only when the keys it shows change (`widgets.footer`)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

from diagnose.tui.app import PlayApp
from diagnose.tui.widgets.footer import KeyFooter
from tests.tui.screen import drawn, screen_text, until


def keys(app) -> list:
    return list(app.screen.query_one(Footer).query("FooterKey"))


async def test_keys_that_change_nothing_keep_the_footers_widgets(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await drawn(pilot, app)
        before = keys(app)
        await pilot.press("tab", "tab", "2", "l", "right", "shift+tab")
        await pilot.pause()
        assert keys(app) == before and len(before) >= 10
        assert "q quit" in screen_text(app).splitlines()[-1]


class Switching(Screen[None]):
    """One key whose action is enabled or not: the footer must follow it."""

    BINDINGS = [Binding("s", "save", "save"), Binding("x", "flip", "flip")]

    def __init__(self) -> None:
        super().__init__()
        self.allowed = True

    def compose(self) -> ComposeResult:
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "save" and not self.allowed else True  # None: shown, off

    def action_flip(self) -> None:
        self.allowed = not self.allowed
        self.refresh_bindings()

    def action_save(self) -> None:
        pass


class Switch(App[None]):
    def get_default_screen(self) -> Screen[None]:
        return Switching()


async def test_a_key_turned_off_is_drawn_off_and_back():
    app = Switch()
    async with app.run_test(size=(40, 3)) as pilot:
        await until(pilot, lambda: len(keys(app)) >= 2)
        def save_is_off() -> bool:  # Footer marks a disabled key with this class
            return next(k for k in keys(app) if k.key == "s").has_class("-disabled")
        assert not save_is_off()
        await pilot.press("x")
        await until(pilot, save_is_off)
        await pilot.press("x")
        await until(pilot, lambda: not save_is_off())
