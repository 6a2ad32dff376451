"""The app speaks the language it is given, footer included (issue 22's words).

Every word the TUI shows is a message of the catalogs (`scenarios/locale/`): the screens say
theirs with `say`, and the footer's key descriptions, English in each screen's BINDINGS, are
said in the app's language by `keys.Spoken` (through `Screen.active_bindings`, which Textual's
footer reads). These tests read the drawn footer, at the 80x24 of a small terminal.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from diagnose.tui.app import PlayApp
from diagnose.tui.screens.detail import DetailScreen
from diagnose.tui.screens.play import PlayScreen
from diagnose.tui.watch_app import WATCH_BINDINGS, WatchApp
from diagnose.workspace import REFERENCE
from scenarios.words import say
from tests.tui.screen import screen_text, until
from tests.tui.test_watch import growing, source

SMALL = (80, 24)
TUI = Path(__file__).resolve().parents[2] / "diagnose" / "tui"


def footer_line(app) -> str:
    return screen_text(app).split("\n")[-1]


def english_only(bindings, footer: str) -> list[str]:
    """The shown descriptions whose Spanish differs, found in English in `footer`."""
    return [b.description for b in bindings
            if b.show and b.description and say("es", b.description) != b.description
            and re.search(rf"(?<!\w){re.escape(b.description)}(?!\w)", footer)]


async def test_the_dashboard_and_the_detail_view_name_their_keys_in_spanish(workspace):
    app = PlayApp(workspace, lang="es")
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: "salir" in footer_line(app))
        dashboard = footer_line(app)
        assert "ejec." in dashboard and "⏎ ver" in dashboard and "? ayuda" in dashboard
        assert "d respuesta" in dashboard and "g nota" in dashboard
        assert english_only(PlayScreen.BINDINGS, dashboard) == []
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        await until(pilot, lambda: "volver" in footer_line(app))
        assert english_only(DetailScreen.BINDINGS, footer_line(app)) == []


async def test_english_is_the_default_and_unchanged(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: "quit" in footer_line(app))
        assert "⏎ open" in footer_line(app) and "runs" in footer_line(app)


async def test_the_watch_names_its_keys_in_spanish(tmp_path):
    path = tmp_path / "metrics.jsonl"
    growing(path, 3)
    app = WatchApp(path, source(REFERENCE), lang="es", poll=0.05)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: "salir" in footer_line(app))
        keys = footer_line(app)
        assert "ejec." in keys and "⏎ ver" in keys and keys.endswith("q salir")
        assert english_only(WATCH_BINDINGS, keys) == []
        await pilot.press("q")


def test_diagnose_watch_with_lang_es_shows_a_spanish_footer(tmp_path, monkeypatch):
    """The command line's `--lang es` reaches the footer: the real command, its app run
    headless at 80x24 by an autopilot that reads the footer and quits."""
    from click.testing import CliRunner

    from diagnose.cli import cli

    path = tmp_path / "metrics.jsonl"
    growing(path, 3)
    seen: list[str] = []

    async def read_footer(pilot) -> None:
        await until(pilot, lambda: "salir" in footer_line(pilot.app))
        seen.append(footer_line(pilot.app))
        await pilot.press("q")

    run = WatchApp.run
    monkeypatch.setattr(WatchApp, "run", lambda self: run(self, headless=True, size=SMALL,
                                                          auto_pilot=read_footer))
    result = CliRunner().invoke(cli, ["watch", str(path), "--lang", "es"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert seen and "ejec." in seen[0] and seen[0].endswith("q salir")
    assert english_only(WATCH_BINDINGS, seen[0]) == []


def test_every_key_description_is_marked_for_the_catalogs():
    """A description written as a bare string would never reach a catalog (the extractor reads
    `N_("...")`): only a run's ID, built with an f-string, is left as it is."""
    bare = []
    for path in TUI.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("Binding",
                                                                         "Binding.Group"):
                text = node.args[2] if ast.unparse(node.func) == "Binding" else node.args[0]
                if isinstance(text, ast.Constant) and text.value:
                    bare.append(f"{path.name}:{node.lineno} {text.value!r}")
    assert bare == []
