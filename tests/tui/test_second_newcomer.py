"""`diagnose play` as the second newcomer met it (issue 23, "Bugs met in play"): the next level
after the grade is closed, a name asked once for every level, a form that opens on its answer,
what-if doses told apart without colour, rows of one height, the reference's value beside the
run's, and notices that hide no data."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diagnose.game.whatif import DOSE_MARKS
from diagnose.home import HomeError, check_name, keep_player_name, player_name
from diagnose.tui.app import PlayApp
from diagnose.tui.drawing.frames import row_layout
from diagnose.tui.screens.form import FormScreen
from diagnose.tui.screens.grade import GradeScreen
from diagnose.tui.screens.name import NameScreen
from diagnose.tui.screens.reveal import RevealScreen
from diagnose.tui.widgets.panel import PanelBox
from diagnose.tui.widgets.series_row import SeriesRow
from diagnose.views.panels import format_number
from diagnose.workspace import open_workspace
from tests.tui.conftest import cache_whatif_doses, copy_scenario
from tests.tui.screen import drawn, open_what_if, screen_text, until
from tests.tui.test_levels_tui import _grade_all_right, grade_text

SMALL = (80, 24)
SIZES = [(80, 24), (120, 40), (160, 48)]


# --- 1. n offers the next level after the grade dialog is closed ---------------------------

async def test_n_opens_the_next_level_after_the_grade_dialog_was_closed(workspace):
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await _grade_all_right(app, pilot, workspace)
        assert "Next: level 2, n plays it." in grade_text(app)
        await pilot.press("escape")  # the run's reveal, which invites w
        await until(pilot, lambda: isinstance(app.screen, RevealScreen))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, (GradeScreen, RevealScreen)))
        await pilot.press("n")
        await pilot.pause()
    assert app.next_level == 2


async def test_n_opens_the_next_level_from_a_reopened_passed_scenario(workspace):
    from diagnose.diagnosis.reveal import write_solutions
    from diagnose.game.progress import record_grading

    record_grading(1, "TUI-FIXTURE", 3, 3, counts=True)
    write_solutions(workspace)
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await until(pilot, lambda: "Next: level 2, n plays it" in screen_text(app))
        await pilot.press("n")
        await pilot.pause()
    assert app.next_level == 2


@pytest.mark.parametrize(("level", "notice"), [
    (1, "n opens level 2 once level 1 is passed"),
    (3, "Level 3 is the last level: there is no next one."),
])
async def test_n_says_why_when_it_cannot_act(workspace, level, notice):
    data = json.loads((workspace / "scenario.json").read_text()) | {"level": level}
    (workspace / "scenario.json").write_text(json.dumps(data))
    app = PlayApp(workspace)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await drawn(pilot, app)
        await pilot.press("n")
        await until(pilot, lambda: notice in " ".join(screen_text(app).split()))
        assert app.is_running
    assert app.next_level is None


# --- 2. the name is asked once, kept for every level, changeable ---------------------------

async def test_the_name_is_asked_once_and_every_level_uses_it(workspace, course):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, NameScreen)
        await pilot.press(*"Ana", "enter")
        await until(pilot, lambda: (course / "Ana-diagnoses.md").exists())
    assert player_name() == "Ana"
    level_two = copy_scenario(course / "experiments" / "19-break-it-level-2")
    data = json.loads((level_two / "scenario.json").read_text()) | {"level": 2}
    (level_two / "scenario.json").write_text(json.dumps(data))
    app = PlayApp(level_two)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("ctrl+s")
        await until(pilot, lambda: (course / "Ana-diagnoses-level-2.md").exists())
        assert not isinstance(app.screen, NameScreen)  # not asked again


async def test_u_changes_the_name_kept_for_every_level(workspace, course):
    keep_player_name("Ana")
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await pilot.press("u")
        assert isinstance(app.screen, NameScreen)
        assert app.screen.query_one("Input").value == "Ana"  # the kept name, to edit
        await pilot.press(*["backspace"] * 3, *"Bo Li", "enter")
        await until(pilot, lambda: "Your name is now Bo Li" in screen_text(app))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: (course / "Bo-Li-diagnoses.md").exists())
    assert player_name() == "Bo Li"


def test_play_name_keeps_the_name_and_refuses_an_empty_one(workspace, monkeypatch):
    from click.testing import CliRunner

    from diagnose.cli import cli

    monkeypatch.setattr(PlayApp, "run", lambda self: None)
    result = CliRunner().invoke(cli, ["play", "--dir", str(workspace), "--name", "  "],
                                catch_exceptions=False)
    assert result.exit_code == 1
    assert result.output == ("Error: the name is empty (give the one your diagnoses file "
                             "should carry)\n")
    assert player_name() is None
    result = CliRunner().invoke(cli, ["play", "--dir", str(workspace), "--name", " Ana Pi "],
                                catch_exceptions=False)
    assert result.exit_code == 0 and player_name() == "Ana Pi"


@given(st.text(max_size=120))
def test_a_name_is_kept_as_given_or_refused_in_one_line(text):
    try:
        name = check_name(text)
    except HomeError as err:
        assert "\n" not in str(err)
        return
    assert name == text.strip() and 0 < len(name) <= 80 and name.isprintable()


@given(st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=80))
def test_a_kept_name_reads_back(text):
    try:  # each example overwrites the one kept in this test's private DIAGNOSE_HOME
        name = keep_player_name(text)
    except HomeError:
        return
    assert player_name() == name


# --- 3. the form opens on the chosen answer --------------------------------------------------

async def test_enter_on_a_reopened_form_keeps_the_answer(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("1", "d", "down", "down", "enter")
        chosen = app.drafts.answer("01").choice
        assert chosen is not None
        await pilot.press("escape", "d")
        assert isinstance(app.screen, FormScreen)
        pointed = [line for line in screen_text(app).splitlines() if "›" in line]
        assert len(pointed) == 1 and "(•)" in pointed[0]  # the arrow keys start on it
        await pilot.press("enter")
        await pilot.pause()
        assert app.drafts.answer("01").choice == chosen


# --- 4. each what-if dose has its own mark --------------------------------------------------

async def test_what_if_doses_each_have_a_mark_without_colour(workspace, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    cache_whatif_doses(workspace)
    app = PlayApp(workspace)
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await open_what_if(pilot, app, "1")
        await until(pilot, lambda: screen.results is not None)
        text = grade_text(app)
    marks = DOSE_MARKS[:4]
    loss_chart = text.split("1 · Loss")[1].split("first")[0]
    assert all(mark in loss_chart for mark in marks)  # four curves, four marks
    assert "•" not in text
    for mark, label in zip(marks, ("warmup_steps=0 (dealt)", "warmup_steps=2",
                                   "warmup_steps=6", "warmup_steps=12 (healthy)"), strict=True):
        assert f"  {mark} {label}" in text  # the legend names each mark


# --- 6. every row of a panel has one height ------------------------------------------------

@given(rows=st.integers(0, 60), count=st.integers(0, 12), overlay=st.booleans())
def test_row_layout_gives_every_row_the_largest_equal_height_that_fits(rows, count, overlay):
    shown, height = row_layout(rows, count, overlay)
    assert shown * height <= rows
    assert shown == min(rows, count)
    if shown:
        assert height >= 1
        if overlay and height >= 2:
            assert height % 2 == 0
        step = 2 if overlay and height >= 2 else 1  # the next height the rule allows
        assert shown * (height + step) > rows  # the largest that fits


def _rows_share_one_height(pilot, app, overlay: bool):
    """Every panel's shown rows have one height, within the panel; an even one overlaid."""
    async def check():
        for box in app.screen.query(PanelBox):
            rows = [row for row in box.query(SeriesRow) if row.display]
            await until(pilot, lambda rows=rows, box=box: len({r.size.height for r in rows}) == 1
                        and sum(r.size.height for r in rows) <= box.content_size.height)
            height = rows[0].size.height
            if overlay and height >= 2:
                assert height % 2 == 0, (box.panel.key, height)
    return check()


@pytest.mark.parametrize("size", SIZES)
async def test_rows_share_one_height_and_notices_cover_no_data_at_every_size(workspace, size):
    app = PlayApp(workspace)
    async with app.run_test(size=size, notifications=True) as pilot:
        await drawn(pilot, app)
        await pilot.press("3")
        await _rows_share_one_height(pilot, app, overlay=False)
        spectral = app.screen.query_one("#panel-5", PanelBox)
        shown = [row for row in spectral.query(SeriesRow) if row.display]
        if size == (120, 40):  # nine matrices in eleven lines: one line each
            assert len(shown) == 9 and {row.size.height for row in shown} == {1}
        await pilot.press("r")
        await _rows_share_one_height(pilot, app, overlay=True)
        # 9. notices: the second replaces the first, over the top bar, on no panel's data
        await pilot.press("0", "d", "n")
        await until(pilot, lambda: "n opens level 2" in " ".join(screen_text(app).split()))
        toasts = list(app.screen.query("Toast"))
        assert len(toasts) == 1
        for box in app.screen.query(PanelBox):
            assert not toasts[0].region.overlaps(box.content_region), box.panel.key


# --- 7. with r, the reference's value beside the run's --------------------------------------

async def test_the_value_column_shows_the_references_value_beside_the_runs(workspace):
    run = open_workspace(workspace).read_run("01")[1]
    reference = open_workspace(workspace).read_run("reference")[1]
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await drawn(pilot, app)
        await pilot.press("1", "r", "home", "right", "right", "right")
        row = app.screen.query_one("#panel-1", PanelBox).query(SeriesRow).first()
        expected = [format_number(run[3]["train_loss"]), format_number(reference[3]["train_loss"])]
        await until(pilot, lambda: row.stats.plain.split("\n")[:2] == expected)
        assert row.label.plain.split("\n")[-1] == "ref"  # on the reference's line
