"""One list of languages (`scenarios.langs.LANGS`), and every table of words speaks all of them.

A table that lacks a language, or a key in one language only, would show English to a Spanish
reader (or fail on screen); these tests name the table and the key instead.
"""

from __future__ import annotations

import click
import pytest

from diagnose import levels, reveal, show
from diagnose.cli import cli
from diagnose.dashboard import WORDS as DASHBOARD_WORDS
from diagnose.panels import build_panels
from grading.autograder import TEXTS as AUTOGRADER_TEXTS
from grading.texts import TEXTS
from scenarios import default_catalog
from scenarios.langs import LANGS, pick

TABLES = {"grading.texts.TEXTS": TEXTS, "diagnose.show.WORDS": show.WORDS,
          "diagnose.dashboard.WORDS": DASHBOARD_WORDS, "diagnose.reveal.WORDS": reveal.WORDS,
          "grading.autograder.TEXTS": AUTOGRADER_TEXTS, "diagnose.levels.WORDS": levels.WORDS}


@pytest.mark.parametrize("name", TABLES)
def test_every_table_speaks_every_language_with_the_same_keys(name):
    table = TABLES[name]
    assert tuple(table) == LANGS, name
    keys = [set(table[lang]) if isinstance(table[lang], dict) else None for lang in LANGS]
    assert all(k == keys[0] for k in keys), f"{name}: keys differ between languages"


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
