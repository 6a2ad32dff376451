"""Every key a Spanish prompt names works (issue 32, item 5): the grade dialog says "s: sí",
and `s` answers yes (`y` still does, in every language)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from textual.app import App

from diagnose.tui.screens.confirm import ConfirmScreen
from scenarios.words import LANGS, answers_yes, say_in, yes_key

# a key a hint names ("y: sí", "· n: jugar"): one character and a colon, after a · or at a start
NAMED_KEY = re.compile(r"(?:^|·\s*|\n)([a-z?]): ")


class Asking(App[None]):
    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang, self.answers = lang, []

    def on_mount(self) -> None:
        self.push_screen(ConfirmScreen("?", [], "yes", self.lang), self.answers.append)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", ["named", "y", "n", "escape"])
async def test_the_key_the_hint_names_answers_yes(lang, key):
    app = Asking(lang)
    async with app.run_test() as pilot:
        hint = str(app.screen.query(".hint").first().render())
        named = yes_key(lang)
        assert f"{named}: " in hint
        await pilot.press(named if key == "named" else key)
        await pilot.pause()
    assert app.answers == [key in ("named", "y")]
    assert yes_key("es") == "s" and yes_key("en") == "y"


def test_a_translation_names_only_keys_that_work():
    """A Spanish message names the keys its English names, or a key the game translates on
    purpose (a `say_in` key message, bound where it is said)."""
    translated_keys = {say_in("es", "key that answers yes", "y")}
    pytest.importorskip("babel")
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("words_tool", root / "tools" / "words.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    wrong = []
    for message in tool.read_catalog("es"):
        if not message.id or isinstance(message.id, tuple):
            continue
        english = set(NAMED_KEY.findall(message.id))
        spanish = set(NAMED_KEY.findall(message.string))
        if spanish - english - translated_keys:
            wrong.append((message.id, message.string))
    assert not wrong, wrong


def test_the_command_line_takes_the_key_its_spanish_question_names(tmp_path, monkeypatch):
    """`diagnose progress --reset --lang es` asks "[s/N]": `s` erases, Enter keeps."""
    from click.testing import CliRunner

    from diagnose.cli import cli
    from diagnose.game.progress import progress_path

    monkeypatch.setenv("DIAGNOSE_HOME", str(tmp_path))
    for typed, kept in (("\n", True), ("s\n", False)):
        progress_path().parent.mkdir(parents=True, exist_ok=True)
        progress_path().write_text("{}", encoding="utf-8")
        shown = CliRunner().invoke(cli, ["progress", "--reset", "--lang", "es"], input=typed,
                                   catch_exceptions=False)
        assert "[s/N]" in shown.output and progress_path().exists() == kept, shown.output
    assert answers_yes("es", " Sí ") and answers_yes("en", "y") and not answers_yes("es", "n")
    assert not answers_yes("en", "")
