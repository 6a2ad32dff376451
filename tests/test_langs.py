"""One list of languages (`scenarios.langs.LANGS`), and every text of the panels and the
breaks speaks all of them (the sentences themselves are the catalogs', tests/test_words.py)."""

from __future__ import annotations

import click

from diagnose.cli import cli
from diagnose.views.panels import build_panels
from scenarios import default_catalog
from scenarios.langs import LANGS


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
