"""The reveal writes the signatures page beside the solutions file (issue 32, item 10), in the
reveal's language, and the solutions file ends with it; every Spanish number in both is
written the Spanish way (item 5)."""

from __future__ import annotations

import re

import pytest

import scenarios
from diagnose.diagnosis.reveal import signatures_path, write_solutions
from diagnose.workspace import open_workspace


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_reveal_writes_the_level_s_signatures_beside_the_solutions(workspace, lang):
    solutions = write_solutions(workspace, lang)
    opened = open_workspace(workspace)
    page = signatures_path(opened)
    assert page.parent == solutions.parent and page.name.endswith("-ref-signatures.md")
    text, revealed = page.read_text(encoding="utf-8"), solutions.read_text(encoding="utf-8")
    heading = {"en": "What each break looks like", "es": "Cómo se ve cada fallo"}[lang]
    assert text.startswith(f"# {heading}") and f"## {heading}" in revealed
    level = scenarios.breaks(opened.level)
    assert all(f"| {slug} |" in text for slug in level if slug != "healthy")
    assert "| high-lr |" not in text  # a later level's break stays unseen
    if lang == "es":  # Spanish numbers only, in the page and in the run's own numbers
        prose = re.sub(r"`[^`]*`|\b\w+ ?= ?-?[\d.]+", "", revealed)
        assert not re.findall(r"(?<![\w.\-/])\d+\.\d+(?![\w\-/]|\.\w)|\d%", prose)
