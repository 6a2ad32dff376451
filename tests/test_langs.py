"""One list of languages (`scenarios.langs.LANGS`), and every table of words speaks all of them.

A table that lacks a language, or a key in one language only, would show English to a Spanish
reader (or fail on screen); these tests name the table and the key instead.
"""

from __future__ import annotations

import click
import pytest

from diagnose.cli import cli
from diagnose.panels import build_panels
from diagnose.tui import text
from diagnose.tui.drawing import frames
from scenarios import default_catalog
from scenarios.langs import LANGS, pick

TABLES = {"diagnose.tui.text.WORDS": text.WORDS, "diagnose.tui.text.HELP": text.HELP}


@pytest.mark.parametrize("name", TABLES)
def test_every_table_speaks_every_language_with_the_same_keys(name):
    table = TABLES[name]
    assert tuple(table) == LANGS, name
    keys = [set(table[lang]) if isinstance(table[lang], dict) else None for lang in LANGS]
    assert all(k == keys[0] for k in keys), f"{name}: keys differ between languages"


def test_the_tuis_short_labels_have_one_word_per_language():
    for table in (frames.SHORT, frames.ENVELOPE_SHORT, frames.GUIDE_SHORT):
        for key, words in table.items():
            assert len(words) == len(LANGS), key


def test_every_panel_text_and_every_break_speaks_every_language():
    for panel in build_panels(2, 8, 512):
        for texts in (panel.title, *(s.label for s in panel.series)):
            assert tuple(texts) == LANGS, panel.key
    for brk in default_catalog().breaks.values():
        assert tuple(brk.title) == LANGS and tuple(brk.reveal) == LANGS, brk.slug


def test_the_cli_offers_exactly_these_languages():
    for command in cli.commands.values():
        for param in command.params:
            if param.name == "lang":
                assert isinstance(param.type, click.Choice)
                assert tuple(param.type.choices) == LANGS, command.name


def test_pick_never_falls_back_to_english():
    assert pick(("train", "entr."), "es") == "entr."
    assert pick({"en": "a", "es": "b"}, "en") == "a"
    with pytest.raises(KeyError):
        pick(("train", "entr."), "fr")
    with pytest.raises(ValueError):
        pick(("only english",), "en")
