"""`diagnose play` driven like a person: keys and clicks through Pilot, checks on the screen,
the drafts file and the diagnoses file (read back by the grader's own parser)."""

from __future__ import annotations

import json
import math
import re
import shutil

import pytest
from textual.widgets import Label, Markdown, Static

import grading
import scenarios
from diagnose.home import player_name
from diagnose.tui.app import PlayApp
from diagnose.tui.drafts import DRAFTS_FILE
from diagnose.tui.screens.detail import DetailScreen
from diagnose.tui.screens.form import FormScreen
from diagnose.tui.screens.grade import GradeScreen
from diagnose.tui.screens.help import HelpScreen
from diagnose.tui.screens.name import NameScreen
from diagnose.tui.screens.review import ReviewScreen
from diagnose.tui.training import FreshScenario
from diagnose.tui.widgets.panel import PanelBox
from diagnose.tui.widgets.readout import Readout
from diagnose.tui.widgets.series_plot import SeriesPlot
from diagnose.tui.widgets.series_row import SeriesRow
from diagnose.tui.widgets.sparkline import SafeSparkline
from diagnose.views.panels import format_number
from diagnose.workspace import open_workspace
from tests.tui.conftest import NAN_FROM, ReplayScenario
from tests.tui.screen import drawn, screen_text, until

SMALL = (80, 24)


def stats(app: PlayApp, panel: int, row: int = 0) -> str:
    box = app.screen.query_one(f"#panel-{panel}", PanelBox)
    return list(box.query(SeriesRow))[row].stats.plain


async def test_a_finished_scenario_opens_on_the_reference_with_six_panels(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await drawn(pilot, app)
        text = screen_text(app)
        assert "scenario TUI-FIXTURE" in text
        for title in ("1 · Loss", "2 · Learning rate", "3 · Gradient norm", "4 · Activations",
                      "5 · Spectral norm", "6 · Dead units"):
            assert title in text
        assert "0123 runs" in text and "q quit" in text.splitlines()[-1]
        assert app.view.run == "reference"


async def test_keys_switch_runs_and_change_the_view(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2")
        assert app.view.run == "02" and app.screen.query_one("Tabs").active == "tab-02"
        await pilot.press("l")
        assert not app.view.log and "1 · Loss · linear" in screen_text(app)
        await pilot.press("r")
        rows = [row for row in app.screen.query(SeriesRow) if row.display]
        assert app.view.overlay and all("ref" in row.label.plain for row in rows)
        assert stats(app, 4) != stats(app, 5)  # two envelopes (no room for 3 rows × 2), apart
        await pilot.press("z")
        assert app.view.zoom and "steps 0-19" in screen_text(app)
        await pilot.press("z", "l", "r", "0")
        assert (app.view.zoom, app.view.log, app.view.overlay, app.view.run) == (
            False, True, False, "reference")


async def test_a_click_on_a_tab_switches_the_run(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.click("#tab-03")
        await pilot.pause()
        assert app.view.run == "03"


async def test_the_cursor_shows_every_panel_at_its_step(workspace):
    records = open_workspace(workspace).read_run("01")[1]
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("1", "right")
        assert app.view.cursor == len(records) - 1  # the first press lands on the last step
        await pilot.press("home", "right", "right")
        assert app.view.cursor == 2
        assert "step 2" in screen_text(app)
        assert stats(app, 1).startswith(format_number(records[2]["train_loss"]))
        assert stats(app, 2).startswith(format_number(records[2]["lr"]))
        await pilot.press("z", "end")
        assert app.view.cursor == 19
        await pilot.press("shift+left", "escape")
        assert app.view.cursor is None
        assert stats(app, 1).startswith(format_number(records[19]["train_loss"]))


async def test_enter_and_a_click_open_the_detail_view_with_axes(workspace):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("3", "enter")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert app.screen.panel.number == 1
        text = screen_text(app)
        assert "1 · Loss · 03" in text and "┤" in text and "entropy floor = 0.2514" in text
        await pilot.press("right")  # the view keys work here too
        assert app.view.cursor == 39
        await until(pilot, lambda: "at step 39" in screen_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, DetailScreen))
        await pilot.click("#panel-5")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert app.screen.panel.number == 5
        plots = list(app.screen.query(SeriesPlot))  # every matrix, not the envelope
        assert len(plots) == 9
        await until(pilot, lambda: "h.1.mlp.c_proj" in plots[-1].query_one(Readout).text.plain)


async def test_a_diverging_run_renders_with_its_nan_marked(nan_workspace):
    app = PlayApp(nan_workspace)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2")
        await until(pilot, lambda: f"NaN/inf from step {NAN_FROM}" in screen_text(app))
        text = screen_text(app)
        assert "×" in text
        assert "NaN" in stats(app, 1)
        assert f"NaN/inf from step {NAN_FROM - 1}" in text  # the grad norm's ∞, a step earlier
        await pilot.press("z")
        await until(pilot, lambda: "steps 0-19" in screen_text(app))
        assert "NaN/inf" not in screen_text(app)  # the first steps were finite
        await pilot.press("z")
        await pilot.click("#panel-3")  # grad norm, in detail: its +inf is marked ▲
        await until(pilot, lambda: "▲" in screen_text(app))


async def test_the_sparkline_takes_numpy_and_non_finite_data():
    import numpy as np
    from textual.app import App

    class One(App[None]):
        def compose(self):
            yield SafeSparkline()

    app = One()
    async with app.run_test(size=(8, 2)) as pilot:
        spark = app.query_one(SafeSparkline)
        spark.data = np.array([1.0, np.nan, np.inf, -np.inf, 2.0, 3.0, np.float32(4.0), 5.0])
        await pilot.pause()
        assert all(type(v) is float for v in spark.data)
        assert math.isnan(spark.data[1]) and spark.data[2] == math.inf
        bottom = screen_text(app).splitlines()[0]  # a Sparkline is one line high by default
        assert bottom[1:4] == "×▲▼" and bottom[0] != " " and bottom[-1] == "█"


async def _answer(pilot, run: str, down: int, evidence: str) -> None:
    await pilot.press(run, "d")
    assert isinstance(pilot.app.screen, FormScreen)
    await pilot.press(*["down"] * down, "enter", "tab", *evidence)


async def test_form_type_save_and_the_grader_reads_it_back(workspace, course):
    catalog = list(scenarios.breaks())
    app = PlayApp(workspace, lang="en")
    async with app.run_test(size=SMALL) as pilot:
        await _answer(pilot, "1", 1, "P2: lr=0.025")
        await pilot.press("escape")
        await _answer(pilot, "2", 3, "loss < floor?")
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, NameScreen)
        await pilot.press(*"Ana María", "enter")
        await pilot.pause()
    path = course / "Ana-María-diagnoses.md"
    reading = grading.read_diagnoses(path)
    assert reading.codes == ("TUI-FIXTURE",)
    assert reading.answer("01").slug == catalog[1]
    assert reading.answer("01").evidence == "P2: lr=0.025"
    assert reading.answer("02").status == grading.UNSURE
    assert reading.answer("02").evidence == "loss < floor?"
    assert reading.answer("03").status != grading.NAMED
    assert player_name() == "Ana María"  # kept for every level, not in this scenario's drafts
    assert "name" not in json.loads((workspace / DRAFTS_FILE).read_text())


async def test_a_killed_terminal_loses_no_keystroke(workspace, tmp_path):
    app = PlayApp(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await _answer(pilot, "3", 0, "resid")
        # The disk as a kill would leave it: copied while the app still runs, before any quit.
        killed = shutil.copytree(workspace, tmp_path / "killed")
    again = PlayApp(killed)
    async with again.run_test(size=SMALL) as pilot:
        await pilot.press("3", "d")
        form = again.screen
        assert form.query_one("TextArea").text == "resid"
        assert form.query_one("RadioSet").pressed_index == 0


async def test_grading_reviews_every_answer_first_and_goes_back_to_any_form(workspace,
                                                                            course):
    title = scenarios.breaks()[list(scenarios.breaks())[0]].title["en"]
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await _answer(pilot, "1", 0, "loss flat")
        await pilot.press("enter", *"second line", "escape", "g")
        assert isinstance(app.screen, ReviewScreen)
        text = screen_text(app)
        assert f"01  {title} — loss flat" in text and "second line" not in text
        assert "✗ 02  no answer — (no evidence)" in text
        assert "✗ scores 0: 02, 03" in text and "shows every answer" in text
        await pilot.press("3")  # back to run 03's form, from the review
        assert isinstance(app.screen, FormScreen) and app.screen.run == "03"
        await pilot.press("escape", "g", "enter")  # Enter: the row under the cursor, 01
        assert isinstance(app.screen, FormScreen) and app.screen.run == "01"
        await pilot.press("escape", "g", "escape")  # not yet: nothing graded, nothing saved
        await pilot.pause()
        assert not isinstance(app.screen, (ReviewScreen, GradeScreen))
    assert not (course / "Ana-diagnoses.md").exists()
    assert not open_workspace(workspace).revealed


async def test_grading_in_the_app_shows_the_score_once_and_reveals(workspace, course):
    app = PlayApp(workspace, name="Ana")
    async with app.run_test(size=SMALL) as pilot:
        await _answer(pilot, "1", 0, "x")
        await pilot.press("escape", "g")
        assert isinstance(app.screen, ReviewScreen)
        await pilot.click("#yes")
        await until(pilot, lambda: isinstance(app.screen, GradeScreen)
                    and "Your grade" in screen_text(app))  # pushed, then drawn
        text = "\n".join(str(static.render()) for static in app.screen.query(Static))
        assert text.count("Score") == 1 and re.search(r"Score: \d/3", text)
    assert (course / "Ana-diagnoses.md").exists()
    assert open_workspace(workspace).revealed
    assert (course / "solutions" / "03-three-failures-ref.md").exists()


async def test_an_instructors_bundle_is_checked_not_graded(workspace, course):
    scenario = json.loads((workspace / "scenario.json").read_text())
    (workspace / "scenario.json").write_text(json.dumps({**scenario, "key": "instructor"}))
    app = PlayApp(workspace, name="Ana")
    said: list[str] = []
    notify = app.notify
    app.notify = lambda message, **how: (said.append(str(message)), notify(message, **how))[1]
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, ReviewScreen)  # the review names the file to hand in
        review = " ".join(str(label.render()) for label in app.screen.query(Label))
        assert f"hand in {course / 'Ana-diagnoses.md'}" in review
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, GradeScreen)
                    and "as your instructor's grader will read it" in screen_text(app))
        assert "Score" not in screen_text(app)  # once drawn (a pushed screen draws later)
        # the route (diagnose.game.routes: HAND_IN) also says where the file goes
        await until(pilot, lambda: any("your instructor grades it" in s for s in said))
    assert not open_workspace(workspace).revealed


def break_words() -> set[str]:
    """Every break's slug and title, in both languages, lower case."""
    return {slug for slug in scenarios.breaks()} | {
        brk.title[lang].lower() for brk in scenarios.breaks().values() for lang in ("en", "es")}


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_the_reference_has_no_form_and_help_names_no_break(workspace, lang):
    app = PlayApp(workspace, lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("d")
        assert not isinstance(app.screen, FormScreen)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        source = app.screen.query_one(Markdown).source.lower()
        assert "`tab`" in source and "`enter`" in source and "▶" in source
        shown = [screen_text(app).lower()]
        for _ in range(12):  # the whole help, page by page
            await pilot.press("pagedown")
            shown.append(screen_text(app).lower())
        for text in (source, *shown):
            assert not [w for w in break_words() if w in text]
        await pilot.press("escape")


async def test_no_screen_tells_which_break_a_run_holds(workspace):
    words = break_words()
    app = PlayApp(workspace)
    async with app.run_test(size=(160, 48)) as pilot:
        for key in ("0", "1", "2", "3", "r", "z", "right"):
            await pilot.press(key)
            shown = screen_text(app).lower()
            assert not [w for w in words if w in shown], key
        await pilot.press("enter")
        assert not [w for w in words if w in screen_text(app).lower()]
        await pilot.press("escape", "question_mark")
        assert not [w for w in words if w in screen_text(app).lower()]


async def test_spanish_labels(workspace):
    app = PlayApp(workspace, lang="es")
    async with app.run_test(size=SMALL) as pilot:
        await drawn(pilot, app)
        text = screen_text(app)
        assert "referencia" in text and "1 · Pérdida" in text and "escenario" in text
        assert "ejec." in text.splitlines()[-1]


async def test_a_fresh_scenario_trains_live_and_stays_responsive(tmp_path, home):
    replay = ReplayScenario(hold=10)
    app = PlayApp(tmp_path / "new", fresh=FreshScenario(steps=40, make=replay))
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await until(pilot, lambda: app.store.count("03") == 10)
        # a progress line per run, once the redraw timer has ticked
        await until(pilot, lambda: screen_text(app).count("10/40 steps") == 4)
        await pilot.press("2", "z", "right")
        await until(pilot, lambda: app.view.cursor == 9)
        assert app.view.run == "02"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "still running" in screen_text(app))
        await pilot.press("q")
    assert not (tmp_path / "new").exists()  # cancelled: nothing written
    assert f"--seed '{app.code}'" in app.note  # how to train the same scenario again


async def test_a_training_failure_stops_the_app_with_its_reason(tmp_path, home):
    from diagnose.game.dealing import ScenarioError

    def fail(target, **kwargs):
        raise ScenarioError("a training process stopped unexpectedly (exit code 1)")

    app = PlayApp(tmp_path / "new", fresh=FreshScenario(make=fail))
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.error is not None)
    assert app.return_code == 1
    assert app.error == "Training failed: a training process stopped unexpectedly (exit code 1)"


async def test_a_fresh_scenario_becomes_the_workspace_when_trained(tmp_path, home):
    app = PlayApp(tmp_path / "new", name="Bo",
                  fresh=FreshScenario(steps=40, make=ReplayScenario()))
    async with app.run_test(size=SMALL) as pilot:
        await _answer(pilot, "1", 0, "early")
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await until(pilot, lambda: app.workspace is not None)
        await pilot.pause()
        assert "scenario TUI-FIXTURE" in screen_text(app)
        assert not app.screen.query_one("#progress").display
    drafts = json.loads((tmp_path / "new" / DRAFTS_FILE).read_text())
    assert drafts["answers"]["01"]["evidence"] == "early" and player_name() == "Bo"
