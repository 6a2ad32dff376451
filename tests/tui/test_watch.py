"""`diagnose watch` headless: the panels follow a metrics file a Recorder is still writing.

The steps come from the committed 40-step scenario (real engine runs), re-recorded through
`diagnose.record.Recorder` while the app runs, as a user's loop would write them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.metrics import MetricsError, read_metrics
from diagnose.record import Recorder
from diagnose.tui.watch_app import RUN, WatchApp
from diagnose.watch import MetricsTail, own_panels
from diagnose.workspace import REFERENCE

from .conftest import DATA

SOURCE = DATA / "scenario"
KEEP = ("val_loss", "grad_norm_preclip", "grad_norm_postclip", "act_mean_abs",
        "spectral_norm")  # no dead units: Panel 6 says "not recorded"


def source(run: str) -> tuple[dict, list[dict]]:
    return read_metrics(SOURCE / run / "metrics.jsonl")


def recorder(path: Path, recorded=KEEP) -> Recorder:
    header, _ = source(REFERENCE)
    return Recorder(path, steps=header["steps"], lr_max=header["lr_max"], recorded=recorded,
                    entropy_floor=header["entropy_floor"], model="minigpt")


def log(rec: Recorder, record: dict) -> None:
    rec.log(**{k: v for k, v in record.items() if k in ("lr", "train_loss", *rec.recorded)})


async def until(pilot, condition, tries: int = 200) -> None:
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the app did not get there")


async def test_the_panels_follow_a_growing_file(tmp_path):
    path = tmp_path / "metrics.jsonl"
    rec = recorder(path)
    _, steps = source("01")
    for record in steps[:5]:
        log(rec, record)
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
    assert [len(p.series) for p in panels] == [2, 1, 2, 3, 3, 1]
    assert panels[5].title["es"] == "Unidades muertas · no registrado"
    assert panels[2].guides == ()  # a run's clip threshold is its own


def test_watch_refuses_a_reference_of_another_model(tmp_path):
    path = tmp_path / "metrics.jsonl"
    recorder(path).close()
    other = tmp_path / "other.jsonl"
    Recorder(other, steps=3, lr_max=0.1, model="gpt-4L").close()
    result = CliRunner().invoke(cli, ["watch", str(path), "--reference", str(other)])
    assert result.exit_code == 1
    assert result.output == (f"Error: {path} and the reference {other} are not runs of the same "
                             "model and data: model minigpt against gpt-4L (a reference is a "
                             "healthy run of the same setup)\n")
