"""`diagnose watch` headless: the panels follow a metrics file a Recorder is still writing.

The steps come from the committed 40-step scenario (real engine runs), re-recorded through
`diagnose.runs.record.Recorder` while the app runs, as a user's loop would write them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.metrics import MetricsError, read_metrics
from diagnose.runs.record import Recorder, RunInfo
from diagnose.runs.watch import MetricsTail, own_panels
from diagnose.tui.screens.detail import DetailScreen
from diagnose.tui.watch_app import RUN, WatchApp
from diagnose.tui.widgets.readout import Readout
from diagnose.tui.widgets.series_plot import SeriesPlot
from diagnose.tui.widgets.series_row import SeriesRow
from diagnose.workspace import REFERENCE
from tests.test_own_runs import record_deep_run

from .conftest import DATA
from .screen import until as until_held

SOURCE = DATA / "scenario"
KEEP = ("val_loss", "grad_norm_preclip", "grad_norm_postclip", "act_mean_abs",
        "spectral_norm")  # no dead units: Panel 6 says "not recorded"


def source(run: str) -> tuple[dict, list[dict]]:
    return read_metrics(SOURCE / run / "metrics.jsonl")


def recorder(path: Path, recorded=KEEP) -> Recorder:
    header, _ = source(REFERENCE)
    return Recorder(path, RunInfo(steps=header["steps"], lr_max=header["lr_max"],
                                  recorded=recorded, entropy_floor=header["entropy_floor"],
                                  model="minigpt"))


def log(rec: Recorder, record: dict) -> None:
    rec.log(**{k: v for k, v in record.items() if k in ("lr", "train_loss", *rec.recorded)})


def growing(path: Path, first: int) -> tuple[Recorder, list[dict]]:
    """A Recorder writing run 01 to `path`, its first `first` steps logged; the run's steps."""
    rec = recorder(path)
    _, steps = source("01")
    for record in steps[:first]:
        log(rec, record)
    return rec, steps


async def until(pilot, condition) -> None:
    """The shared wait (tests/tui/screen.py), with ten seconds for a file read by polling."""
    await until_held(pilot, condition, tries=1000)


async def test_the_panels_follow_a_growing_file(tmp_path):
    path = tmp_path / "metrics.jsonl"
    rec, steps = growing(path, 5)
    reference = source(REFERENCE)
    app = WatchApp(path, reference, poll=0.05)
    async with app.run_test(size=(160, 48)) as pilot:
        assert app.store.count(RUN) == 5 and app.store.count(REFERENCE) == 40
        for record in steps[5:20]:
            log(rec, record)
        await until(pilot, lambda: app.store.count(RUN) == 20)
        # a step half written is left for the next poll, then read whole
        with open(path, "a", encoding="utf-8") as stream:
            stream.write('{"step":20,"lr":0.01,"train_')
            stream.flush()
            await pilot.pause(0.2)
            assert app.store.count(RUN) == 20 and app.problem is None
            stream.write('loss":2.5,"val_loss":null,"grad_norm_preclip":1.0,'
                         '"grad_norm_postclip":1.0,"act_mean_abs":[1,1,1],'
                         '"spectral_norm":' + _spectral(steps[20]) + '}\n')
        await until(pilot, lambda: app.store.count(RUN) == 21)
        titles = [str(box.border_title) for box in app.dashboard.boxes]
        assert any("Dead units · not recorded" in t for t in titles), titles
        await pilot.press("q")
    assert app.problem is None
    rec.close()


def _spectral(record: dict) -> str:
    import json

    return json.dumps(record["spectral_norm"])


async def test_a_file_turned_bad_stops_the_app_with_one_line(tmp_path):
    path = tmp_path / "metrics.jsonl"
    rec = recorder(path)
    log(rec, source("01")[1][0])
    rec.close()
    app = WatchApp(path, poll=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        with open(path, "a", encoding="utf-8") as stream:
            stream.write("not json\n")
        await until(pilot, lambda: app.problem is not None)
    assert app.problem == f"{path}:3: not valid JSON (corrupt or truncated)"


def test_the_tail_refuses_what_every_reader_refuses(tmp_path):
    with pytest.raises(MetricsError, match="missing metrics file"):
        MetricsTail(tmp_path / "nope").poll()
    with pytest.raises(MetricsError, match="not a regular file"):
        MetricsTail(tmp_path).poll()


def test_own_panels_draw_what_the_run_recorded(tmp_path):
    header, records = source(REFERENCE)
    panels = own_panels({**header, "schema": "diagnose.metrics/1.1", "recorded": list(KEEP),
                         "heads_total": None}, records[0])
    assert [len(p.series) for p in panels] == [2, 1, 2, 3, 9, 1]  # a series per matrix
    assert panels[5].title["es"] == "Unidades muertas · no registrado"
    assert panels[2].guides == ()  # a run's clip threshold is its own


def test_watch_refuses_a_reference_of_another_model(tmp_path):
    path = tmp_path / "metrics.jsonl"
    recorder(path).close()
    other = tmp_path / "other.jsonl"
    Recorder(other, RunInfo(steps=3, lr_max=0.1, model="gpt-4L")).close()
    result = CliRunner().invoke(cli, ["watch", str(path), "--reference", str(other)])
    assert result.exit_code == 1
    assert result.output == (f"Error: {path} and the reference {other} are not runs of the same "
                             "model and data: model minigpt against gpt-4L (a reference is a "
                             "healthy run of the same setup)\n")


def panel_rows(app, number: int) -> list[SeriesRow]:
    box = app.screen.query_one(f"#panel-{number}")
    return [row for row in box.query(SeriesRow) if row.display]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_a_deep_models_matrices_are_summarised_and_named(tmp_path, size):
    """74 matrices (12 blocks of 6, an embedding, a head): Panel 5 never draws more rows than
    it has lines; its rows are summaries, each naming the matrix it shows; enter shows the
    per-layer summary (largest, median, smallest of each block), the block's names in full."""
    path = record_deep_run(tmp_path / "metrics.jsonl")
    app = WatchApp(path, poll=0.05)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        box = app.dashboard.boxes[4]
        rows = panel_rows(app, 5)
        assert 2 <= len(rows) <= box.content_size.height
        assert all(row.run_height >= 1 for row in rows)
        labels = [row.label.plain for row in rows]
        assert labels[0].startswith("max") and labels[-1].startswith("min")
        # with room for a second line, the label names the matrix: the last step's largest
        # is the head, the smallest the embedding
        if rows[0].size.height >= 2:
            assert labels[0].splitlines()[1] == "head" and labels[-1].splitlines()[1] == "embed"
        assert "max/min of 74: ⏎ per layer" in str(box.border_subtitle)
        box.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        await until(pilot, lambda: len(app.screen.query(SeriesPlot)) == 2 + 12 * 3)
        await pilot.pause()
        headings = [plot.query_one(Readout).text.plain for plot in app.screen.query(SeriesPlot)]
        assert headings[0].startswith("embed.weight ") and headings[1].startswith("head.weight")
        assert headings[2].startswith("blocks.0 largest = blocks.0.mlp.fc2.weight ")
        assert headings[3].startswith("blocks.0 median = blocks.0.attn.v.weight ")
        assert headings[-1].startswith("blocks.11 smallest = blocks.11.attn.q.weight ")
        await pilot.press("escape", "q")


async def test_watch_has_the_games_cursor_detail_and_reference_keys(tmp_path):
    path = tmp_path / "metrics.jsonl"
    rec, steps = growing(path, 10)
    app = WatchApp(path, source(REFERENCE), lang="es", poll=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("right")  # the first press lands on the run's last step
        assert app.view.cursor == 9
        await pilot.press("left", "left")
        assert app.view.cursor == 7 and "paso 7" in app.status.text.plain
        for record in steps[10:15]:  # the run grows: the cursor stays on its step
            log(rec, record)
        await until(pilot, lambda: app.store.count(RUN) == 15)
        assert app.view.cursor == 7
        await pilot.press("end")
        assert app.view.cursor == 14
        await pilot.press("r")
        assert not app.view.overlay and "debajo" not in app.status.text.plain
        await pilot.press("r")
        assert app.view.overlay and "debajo: reference" in app.status.text.plain
        await pilot.press("0")
        assert app.view.run == REFERENCE and "la referencia reference" in app.status.text.plain
        await pilot.press("1", "escape")
        assert app.view.run == RUN and app.view.cursor is None
        # tab to Panel 6, which this run did not record: its detail view says so too
        for _ in range(5):
            await pilot.press("tab")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert app.screen.panel.number == 6
        title = app.screen.query_one("#detail-title", Readout).text.plain
        assert "Unidades muertas · no registrado" in title
        await pilot.press("right")  # the view keys work in the detail view too
        assert app.view.cursor == 14
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, DetailScreen))
        await pilot.click("#panel-5")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert len(app.screen.query(SeriesPlot)) == 9  # the game's model: every matrix
        await pilot.press("escape", "q")
    rec.close()


async def test_the_detail_view_summarises_when_the_reference_doubles_its_plots(tmp_path):
    """26 matrices fit the detail view (40 plots) alone, not with the reference under each:
    `r` there turns them into their per-layer summary and back."""
    path = record_deep_run(tmp_path / "metrics.jsonl", layers=4)
    app = WatchApp(path, read_metrics(path), poll=0.05)

    def shown() -> int:
        return sum(plot.display for plot in app.screen.query(SeriesPlot))

    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.click("#panel-5")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert app.view.overlay and shown() == 2 + 4 * 3
        await pilot.press("r")
        await until(pilot, lambda: shown() == 26)
        await pilot.press("r")
        await until(pilot, lambda: shown() == 14)
        assert len(app.screen.query(SeriesPlot)) == 26
        await pilot.press("escape", "q")
