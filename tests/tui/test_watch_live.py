"""`diagnose watch` as a user starts it: before the loop (the file does not exist yet), in a
terminal of 120 columns with a long path, and the detail view's keys (issue 33)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from diagnose.runs.watch import fit_status, shorten_middle
from diagnose.tui.screens.detail import DetailScreen
from diagnose.tui.watch_app import RUN, WatchApp
from diagnose.workspace import REFERENCE
from tests.tui.screen import screen_text

from .test_watch import log, recorder, source, until


async def test_watch_waits_for_a_file_not_written_yet_and_follows_it(tmp_path):
    path = tmp_path / "runs" / "x" / "metrics.jsonl"  # neither the file nor its folder yet
    app = WatchApp(path, poll=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.waiting and "waiting for the file" in app.status.text.plain
        rec = recorder(path)  # the Recorder makes runs/x
        _, steps = source("01")
        for record in steps[:7]:
            log(rec, record)
        await until(pilot, lambda: app.store.count(RUN) == 7)
        assert not app.waiting and "step 7 of 40" in app.status.text.plain
        for record in steps[7:9]:
            log(rec, record)
        await until(pilot, lambda: app.store.count(RUN) == 9)
        await pilot.press("q")
    assert app.problem is None
    rec.close()


async def test_a_file_that_appears_with_another_models_header_is_one_line(tmp_path):
    path = tmp_path / "metrics.jsonl"
    app = WatchApp(path, source(REFERENCE), poll=0.05)  # the reference names no model
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        recorder(path).close()  # model="minigpt"
        await until(pilot, lambda: app.problem is not None)
    assert app.problem.startswith(f"{path} and the reference reference are not runs of the "
                                  "same model and data: model minigpt against None")


async def test_the_status_line_fits_120_columns_with_its_step_and_a_long_path(tmp_path):
    folder = tmp_path
    for part in ("experiments", "a-rather-long-folder-name-for-a-sweep", "lr-3e-4-warmup-400",
                 "seed-1234-under-a-cluster-scratch-directory"):
        folder = folder / part
    path = folder / "metrics.jsonl"
    rec = recorder(path)
    for record in source("01")[1][:5]:
        log(rec, record)
    app = WatchApp(path, source(REFERENCE), poll=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        status = app.status.text.plain
        assert len(status) <= 120 and "step 5 of 40" in status, status
        assert "…" in status and "metrics.jsonl" in status  # shortened in the middle
        assert str(tmp_path)[:10] in status
        await pilot.press("q")
    rec.close()


async def test_the_detail_views_footer_offers_only_the_watchs_runs(tmp_path):
    path = tmp_path / "metrics.jsonl"
    rec = recorder(path)
    for record in source("01")[1][:5]:
        log(rec, record)
    app = WatchApp(path, source(REFERENCE), poll=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "01" in footer and "0123" not in footer and "012" not in footer, footer
        await pilot.press("1")  # the run's key still works there
        assert app.view.run == RUN
        await pilot.press("escape", "q")
    rec.close()


names = st.text(alphabet="abc/-_.é", min_size=0, max_size=300)
notes = st.lists(st.text(alphabet="abc xyz·", min_size=1, max_size=30), max_size=5)


@given(name=names, notes=notes, width=st.integers(60, 200), step=st.integers(0, 10**6))
def test_a_status_line_fits_its_width_and_keeps_its_step(name, notes, width, step):
    """The one rule (`watch.fit_status`) over generated paths and notes: it fits whenever it
    can with a 16-character path, else the path and the step's part fit (the widget cuts the
    later notes' end), and a shortened path keeps its start and its end."""
    head = f"{{name}}: step {step} of 400"
    line = fit_status(name, [head, *notes], width)
    assert f"step {step} of 400" in line
    if len(" · ".join([head, *notes])) - len("{name}") + 16 <= width:
        assert len(line) <= width
    if len(head) - len("{name}") + 16 <= width:
        assert len(line.split(" · ")[0]) <= width
    if name not in line:
        short = shorten_middle(name, 16)
        assert "…" in line and (line.startswith(name[:3]) or short in line)


@given(text=st.text(max_size=200), width=st.integers(1, 120))
def test_shortening_in_the_middle_keeps_both_ends(text, width):
    short = shorten_middle(text, width)
    assert len(short) <= max(width, 1)
    if len(text) <= width:
        assert short == text
    elif width >= 3:
        assert short[0] == text[0] and short[-1] == text[-1] and "…" in short
