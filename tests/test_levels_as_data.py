"""A level is data every text is drawn from: `--help` names the levels in use (a level 4 added
in a levels file included), a course deck's levels.toml extends the package's (adds a level,
adds breaks to one, or restates one) without copying it, and a break no level deals is a
warning and listed apart. The levels in use write back as a levels file that reads the same
(the Gradescope zip carries it)."""

from __future__ import annotations

import shutil
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import scenarios
from diagnose.cli import cli
from scenarios.catalog import DECK_SETTING, load_catalog
from scenarios.config import CatalogError
from scenarios.level_entries import LEVELS_SETTING, levels_toml, parse_levels

ROOT = Path(__file__).resolve().parents[1]
COURSE_DECK = ROOT / "tests" / "data" / "course-deck"  # huge-init, and no levels.toml
SLUG = "huge-init"
PACKAGED = (resources.files("scenarios") / "levels.toml").read_text(encoding="utf-8")
LEVEL_FOUR = """
[[level]]
number = 4
name = { en = "the lab's mirrors", es = "los espejos del laboratorio" }
deck = ["small-init", "short-warmup", "leaky-mask"]
deal = "permutation"
"""


def _cli(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, terminal_width=400,
                              max_content_width=400)  # a help's clause on one line


def _deck(tmp_path: Path, levels: str | None) -> Path:
    deck = tmp_path / "deck"
    shutil.copytree(COURSE_DECK / SLUG, deck / SLUG,
                    ignore=shutil.ignore_patterns("__pycache__"))
    if levels is not None:
        (deck / "levels.toml").write_text(levels, encoding="utf-8")
    return deck


def _packaged():
    return load_catalog(resources.files("scenarios")).levels


@pytest.mark.parametrize("command", ["new", "play", "deal"])
def test_a_level_four_in_a_levels_file_is_in_the_help(tmp_path, monkeypatch, command):
    own = tmp_path / "levels.toml"
    own.write_text(PACKAGED + LEVEL_FOUR, encoding="utf-8")
    before = _cli(command, "--help").output
    assert "the lab's mirrors" not in before and "3 (new bugs" in before
    monkeypatch.setenv(LEVELS_SETTING, str(own))
    after = _cli(command, "--help").output
    assert "4 (the lab's mirrors" in after, after


def test_a_course_decks_level_four_is_in_the_help_with_its_folder(tmp_path):
    deck = _deck(tmp_path, LEVEL_FOUR.replace('"leaky-mask"]', f'"leaky-mask", "{SLUG}"]'))
    out = _cli("--deck", str(deck), "play", "--help").output
    assert "3 (new bugs, in experiments/19-break-it-level-3), 4 (the lab's mirrors, in " \
           "experiments/19-break-it-level-4)" in out, out


def test_no_help_text_restates_a_levels_breaks():
    """What a level deals is said by the levels file alone, not by the words of a help."""
    for name, command in cli.commands.items():
        for text in [command.help or ""] + [p.help or "" for p in command.params
                                            if hasattr(p, "help")]:
            flat = " ".join(text.split())
            for words in ("Level 2 deals", "Level 3 deals", "at level 1 each",
                          "level column (1, 2, 3)", "1 the lab's breaks"):
                assert words not in flat, (name, words)


def test_a_deck_adds_a_level_and_breaks_to_a_level_without_copying(tmp_path, monkeypatch):
    deck = _deck(tmp_path, f'[[level]]\nnumber = 3\nadd = ["{SLUG}"]\n' + LEVEL_FOUR)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    packaged = _packaged()
    levels = {level.number: level for level in scenarios.all_levels()}
    assert sorted(levels) == [1, 2, 3, 4]
    assert levels[3].deck == (*packaged[3].deck, SLUG)
    assert levels[3].runs == packaged[3].runs and levels[3].decoy == packaged[3].decoy
    assert levels[4].deck == ("small-init", "short-warmup", "leaky-mask")
    assert levels[1] == packaged[1] and levels[2] == packaged[2]
    assert scenarios.breaks(None)[SLUG].levels == (3,)


def test_a_decks_full_copy_still_loads_and_a_restated_level_replaces_it(tmp_path,
                                                                       monkeypatch):
    copy = PACKAGED.replace('name = { en = "new bugs", es = "fallos nuevos" }',
                            'name = { en = "our bugs", es = "nuestros fallos" }')
    copy = copy.replace('"decay-everything"]', f'"decay-everything", "{SLUG}"]')
    deck = _deck(tmp_path, copy)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    packaged = _packaged()
    levels = {level.number: level for level in scenarios.all_levels()}
    assert sorted(levels) == sorted(packaged)
    assert levels[3].name["en"] == "our bugs" and levels[3].deck[-1] == SLUG
    assert [levels[n].deck for n in (1, 2)] == [packaged[n].deck for n in (1, 2)]


@pytest.mark.parametrize(("levels", "message"), [
    ('[[level]]\nnumber = 7\nadd = ["huge-init"]\n',
     "{deck}/levels.toml: [[level]] number: 7 is not a level of scenarios/levels.toml to add "
     "breaks to; a new level is a whole entry (number, name, deck, deal)"),
    ('[[level]]\nnumber = 3\nadd = ["high-lr"]\n',
     "{deck}/levels.toml: level 3: add: 'high-lr' is already in the deck of "
     "scenarios/levels.toml"),
    ('[[level]]\nnumber = 3\nadd = ["nope"]\n',
     "{deck}/levels.toml: level 3: deck: 'nope' is not a break of the catalog"),
    ('[[level]]\nnumber = 3\nadd = ["huge-init"]\nruns = 2\n',
     "{deck}/levels.toml: level 3: 'runs': an entry that adds breaks holds number and add "
     "only"),
    ('[[level]]\nnumber = 3\nadd = []\n', "{deck}/levels.toml: level 3: add: expected a list"),
    ('[[level]]\nnumber = 3\nadd = ["huge-init"]\n[[level]]\nnumber = 3\nadd = ["huge-init"]\n',
     "{deck}/levels.toml: level 3: number: listed twice"),
    ('[[level]]\nnumber = 1\nadd = ["huge-init", "high-lr", "raised-lr", "small-init", '
     '"big-init", "leaky-mask", "frozen-block"]\n' + LEVEL_FOUR.replace(
         "number = 4", "number = 5\nsuffix = \"-level-2\""),
     "{deck}/levels.toml: level 5: suffix: '-level-2' is level 2's too"),
])
def test_a_bad_extension_is_one_line(tmp_path, levels, message):
    deck = _deck(tmp_path, levels)
    with pytest.raises(CatalogError) as caught:
        load_catalog(resources.files("scenarios"), deck=deck)
    text = str(caught.value)
    assert "\n" not in text and text.startswith(message.format(deck=deck)), text


def test_a_break_no_level_deals_is_a_warning_and_listed_apart():
    out = CliRunner().invoke(cli, ["--deck", str(COURSE_DECK), "breaks"],
                             catch_exceptions=False)
    assert out.exit_code == 0
    warning = (f"Warning: {SLUG} ({COURSE_DECK}/{SLUG}/break.toml) is dealt by no level; add "
               f"it to one in {COURSE_DECK}/levels.toml ([[level]] number = N, add = "
               f'["{SLUG}"])\n')
    assert warning in out.output
    listed = out.output.split("Dealt by no level (a levels file's deck lists none of these)")
    assert len(listed) == 2 and f"\n{SLUG}\n" in listed[1] and SLUG not in listed[0].replace(
        warning, "")
    spanish = _cli("--deck", str(COURSE_DECK), "breaks", "--lang", "es").output
    assert "Sin nivel que los reparta" in spanish


def test_the_packages_own_levels_deal_every_break():
    assert not [b.slug for b in scenarios.breaks(None).values() if not b.levels and not b.healthy]
    out = _cli("breaks")
    assert "Dealt by no level" not in out.output and "Warning" not in out.output


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_the_levels_in_use_write_back_as_a_file_that_reads_the_same(tmp_path_factory, data):
    """`levels_toml` over generated extensions: breaks added to some levels, a level added."""
    catalog = load_catalog(resources.files("scenarios"))
    dealt = {slug for level in catalog.levels.values() for slug in level.deck}
    extension = ""
    for number, level in catalog.levels.items():
        spare = sorted(s for s, b in catalog.breaks.items()
                       if not b.healthy and s not in level.deck)
        added = data.draw(st.lists(st.sampled_from(spare), unique=True, max_size=2))
        if added and level.deal == "draw":
            extension += f"[[level]]\nnumber = {number}\nadd = {added!r}\n".replace("'", '"')
    if data.draw(st.booleans()):
        extension += LEVEL_FOUR.replace('"the lab\'s mirrors"', '"la \\"prueba\\" ñ"')
    assert dealt  # the package's levels deal breaks
    levels = catalog.levels if not extension else parse_levels(
        tomllib.loads(extension), "ext.toml", catalog.breaks, words=False, base=catalog.levels)
    text = levels_toml(levels)
    back = parse_levels(tomllib.loads(text), "in-use.toml", catalog.breaks, words=False)
    strip = {n: (lv.number, lv.name, lv.deck, lv.decoy, lv.deal, lv.runs, lv.suffix, lv.in_title)
             for n, lv in levels.items()}
    assert {n: (lv.number, lv.name, lv.deck, lv.decoy, lv.deal, lv.runs, lv.suffix, lv.in_title)
            for n, lv in back.items()} == strip


def test_the_gradescope_zip_carries_the_extended_levels_whole(tmp_path, monkeypatch):
    from diagnose.classroom.gradescope import grader_file

    deck = _deck(tmp_path, f'[[level]]\nnumber = 3\nadd = ["{SLUG}"]\n')
    monkeypatch.setenv(DECK_SETTING, str(deck))
    packaged = Path(str(resources.files("scenarios"))) / "levels.toml"
    carried = tomllib.loads(grader_file("scenarios/levels.toml", packaged).decode())
    assert [entry["number"] for entry in carried["level"]] == [1, 2, 3]
    assert carried["level"][2]["deck"][-1] == SLUG


def test_no_break_file_names_a_level_or_a_file_that_is_not_there():
    """A break names no level (levels.toml deals it), in its comments too, and the files its
    comments point to exist."""
    import re

    files = sorted((ROOT / "scenarios" / "breaks").glob("*/break.toml"))
    files += sorted(COURSE_DECK.glob("*/break.toml"))
    assert len(files) >= 15
    for path in files:
        comments = [line for line in path.read_text(encoding="utf-8").splitlines()
                    if line.lstrip().startswith("#")]
        for line in comments:
            assert not re.search(r"(?i)\blevels? \d|\blevel's\b|\bthe lab\b", line), (path, line)
            for named in re.findall(r"[\w./-]+\.toml", line):
                assert any((where / named).is_file() for where in (
                    path.parent, ROOT / "scenarios")), (path, named)  # healthy.toml, levels.toml


def test_the_readmes_table_of_levels_is_the_levels_file():
    """README.md's levels are `tools/levels_table.py`'s table of scenarios/levels.toml."""
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import levels_table
    finally:
        sys.path.remove(str(ROOT / "tools"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert levels_table.rewritten(readme) == readme
    for level in _packaged().values():
        assert f"| {level.number} | {level.name['en']}: " in readme
