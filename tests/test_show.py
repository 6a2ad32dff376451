"""`diagnose show`: the panels in a terminal, plain when piped, and one-line errors.

The workspace is written here from made-up runs (`fake_run` of test_dashboard), so these tests
need no training; run 01 turns NaN/inf at step 250.
"""

from __future__ import annotations

import io
import re

import pytest
from click.testing import CliRunner
from rich.console import Console
from test_dashboard import break_words, fake_run, fold

from diagnose.cli import cli
from diagnose.metrics import write_metrics
from diagnose.runs.show import (
    BLOCKS,
    NONFINITE,
    ShownRun,
    StepsError,
    parse_steps,
    render_run,
    resolve_run,
    select_steps,
    sparkline,
)
from diagnose.views.panels import Axis, panels_for
from diagnose.workspace import SCENARIO_FILE
from grading.grade import scenario_json

ANSI = re.compile(r"\x1b\[")


@pytest.fixture
def workspace(tmp_path):
    path = tmp_path / "ws"
    path.mkdir()
    (path / SCENARIO_FILE).write_text(
        scenario_json("7KQ2-M9XF", ["01", "02", "03"], 400, "0.1.0", "self-study", 1))
    shapes = {"reference": {}, "01": {"nan_at": 250}, "02": {"warmup": 1},
              "03": {"floor": 0.004}}
    for run, shape in shapes.items():
        (path / run).mkdir()
        write_metrics(path / run / "metrics.jsonl", *fake_run(run, **shape))
    return path


def show(*args: str):
    return CliRunner().invoke(cli, ["show", *args], catch_exceptions=False)


def test_show_prints_six_panels_as_plain_text_when_piped(workspace):
    result = show("01", "--dir", str(workspace))
    assert result.exit_code == 0, result.output
    out = result.output
    assert not ANSI.search(out)
    assert out.startswith("Run 01  scenario 7KQ2-M9XF\nsteps 0–399 of 400\n")
    titles = [line.split("  ")[0] for line in out.splitlines() if re.match(r"\d · ", line)]
    assert titles == ["1 · Loss", "2 · Learning rate", "3 · Gradient norm", "4 · Activations",
                      "5 · Spectral norm", "6 · Dead units"]
    assert "1 · Loss  (log)  entropy floor 0.255" in out
    assert "3 · Gradient norm  (log)  clip threshold 1" in out
    # A sparkline per series (19 of them), as wide as the 80 columns allow.
    sparklines = [line.strip() for line in out.splitlines()
                  if line.strip() and set(line.strip()) <= set(BLOCKS + NONFINITE + " ")]
    assert len(sparklines) == 19 and all(len(s) == 76 for s in sparklines)
    assert max(len(line) for line in out.splitlines()) <= 80


def test_show_marks_nan_and_inf_with_the_step_they_started(workspace):
    out = show("01", "--dir", str(workspace)).output
    assert "    × NaN from step 250" in out.splitlines()
    assert "    ▲ +inf from step 250" in out.splitlines()  # each non-finite kind its own mark
    train = out.splitlines()[out.splitlines().index("1 · Loss  (log)  entropy floor 0.255  "
                                                    "ln(vocab): a uniform guess 4.159") + 2]
    losses = [r["train_loss"] for r in fake_run("01", nan_at=250)[1][:250]]
    assert train.split() == ["train", f"{losses[0]:.4g}", "NaN", f"{min(losses):.4g}",
                             f"{max(losses):.4g}"]
    assert "×" in out


def test_show_accepts_the_id_in_several_spellings(workspace):
    for spelled, heading in (("reference", "Reference run"), ("ref", "Reference run"),
                             ("REF", "Reference run"), ("0", "Reference run"),
                             ("2", "Run 02"), ("03", "Run 03")):
        result = show(spelled, "--dir", str(workspace))
        assert result.exit_code == 0 and result.output.startswith(heading), spelled


def test_show_slices_steps(workspace):
    out = show("02", "--dir", str(workspace), "--steps", "0:50").output
    assert "steps 0–49 of 400" in out
    lr = out.splitlines()[out.splitlines().index("2 · Learning rate  (lin)  lr_max 0.025") + 2]
    lrs = [r["lr"] for r in fake_run("02", warmup=1)[1][:50]]
    assert lr.split()[-4:] == [f"{v:.4g}" for v in (lrs[0], lrs[-1], min(lrs), max(lrs))]
    assert lrs[0] == 0.025 and lrs[-1] < 0.025  # the slice is the first fifty steps
    sparklines = [line.strip() for line in out.splitlines()
                  if line.strip() and set(line.strip()) <= set(BLOCKS)]
    assert {len(s) for s in sparklines} == {50}  # one block per step: no stretching
    assert "steps 390–399 of 400" in show("02", "--dir", str(workspace), "--steps", "390:").output
    assert "steps 0–9 of 400" in show("02", "--dir", str(workspace), "--steps", ":10").output


def test_show_in_spanish(workspace):
    out = show("03", "--dir", str(workspace), "--lang", "es").output
    assert out.startswith("Ejecución 03  escenario 7KQ2-M9XF\npasos 0–399 de 400\n")
    assert "1 · Pérdida  (log)  suelo de entropía 0,255" in out  # a decimal comma
    assert "primero" in out and "entrenamiento" in out
    assert "7\u00a0%" in out and not re.search(r"\d\.\d", out)  # every number in Spanish


def test_show_says_nothing_of_the_breaks(workspace):
    words = break_words()
    for run in ("reference", "01", "02", "03"):
        for lang in ("en", "es"):
            out = fold(show(run, "--dir", str(workspace), "--lang", lang).output)
            assert not [w for w in words if w in out]


def last_line(result) -> str:
    return result.output.strip().splitlines()[-1]


def test_unknown_id_is_a_one_line_error(workspace):
    result = show("04", "--dir", str(workspace))
    assert result.exit_code == 1
    assert result.output == "Error: no run '04' here; choose one of reference, 01, 02, 03\n"


def test_no_scenario_is_a_one_line_error(tmp_path):
    result = show("01", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert result.output == (f"Error: {tmp_path}: no scenario here (scenario.json is missing); "
                             "make one with `diagnose new`\n")


def test_missing_or_corrupt_metrics_is_a_one_line_error(workspace):
    (workspace / "02" / "metrics.jsonl").unlink()
    result = show("02", "--dir", str(workspace))
    assert result.exit_code == 1
    assert result.output == f"Error: {workspace / '02' / 'metrics.jsonl'}: missing metrics file\n"
    metrics = workspace / "03" / "metrics.jsonl"
    metrics.write_text(metrics.read_text()[:5000])  # cut mid-line, like an interrupted write
    result = show("03", "--dir", str(workspace))
    assert result.exit_code == 1
    assert re.fullmatch(rf"Error: {re.escape(str(metrics))}:\d+: not valid JSON \(corrupt or "
                        r"truncated\)\n", result.output)


def test_a_run_without_steps_yet(workspace):
    header, _ = fake_run("01")
    write_metrics(workspace / "01" / "metrics.jsonl", header, [])
    result = show("01", "--dir", str(workspace))
    assert result.exit_code == 0 and "No steps recorded yet." in result.output


@pytest.mark.parametrize(("steps", "message"), [
    ("5:2", "the start must be before the end; got '5:2'"),
    ("3:3", "the start must be before the end; got '3:3'"),
    ("x:y", "expected A:B with whole step numbers, e.g. 0:50; got 'x:y'"),
    ("-1:5", "expected A:B with whole step numbers, e.g. 0:50; got '-1:5'"),
    ("10", "expected A:B with whole step numbers, e.g. 0:50; got '10'"),
    ("0:401", "this run has steps 0 to 399; use an end of at most 400"),
    ("400:", "this run has steps 0 to 399; use an end of at most 400"),
])
def test_bad_steps_are_usage_errors(workspace, steps, message):
    result = show("01", "--dir", str(workspace), "--steps", steps)
    assert result.exit_code == 2
    assert last_line(result) == f"Error: Invalid value for '--steps': {message}"


def test_bad_usage_exits_2(workspace):
    assert show().exit_code == 2
    assert show("01", "--dir", str(workspace), "--lang", "fr").exit_code == 2


def test_help_has_an_example():
    result = show("--help")
    assert result.exit_code == 0
    assert "Example:" in result.output and "diagnose show 01" in result.output


def test_colours_on_a_terminal_and_none_when_piped():
    header, records = fake_run(nan_at=100)
    terminal = io.StringIO()
    render_run(Console(file=terminal, force_terminal=True, color_system="truecolor", width=100),
               ShownRun("01", header, records))
    assert ANSI.search(terminal.getvalue())
    piped = io.StringIO()
    render_run(Console(file=piped, width=100), ShownRun("01", header, records))
    assert not ANSI.search(piped.getvalue())
    assert re.sub(r"\x1b\[[0-9;]*m", "", terminal.getvalue()) == piped.getvalue()


def test_wide_terminals_put_the_sparkline_beside_its_label():
    header, records = fake_run()
    out = io.StringIO()
    render_run(Console(file=out, width=160), ShownRun("01", header, records))
    train = next(line for line in out.getvalue().splitlines() if line.startswith("  train"))
    losses = [r["train_loss"] for r in records]
    assert train.split()[2:] == [f"{v:.4g}" for v in (losses[0], losses[-1], min(losses),
                                                       max(losses))]
    assert re.fullmatch(rf"  train +[{BLOCKS}]{{50,}}( +[\d.]+){{4}}", train)
    assert len(train) <= 160


# --- the pieces ------------------------------------------------------------------------------

def test_sparkline_downsamples_keeping_spikes_and_marking_nan():
    series = panels_for(fake_run()[1])[2].series[0]  # pre-clip norm: a log panel
    values = [1.0] * 100
    values[37] = 1000.0
    line = sparkline(series, values, Axis(0.1, 10_000.0, True), 20).plain
    # 100 steps in 20 columns: the spike at step 37 survives in column 7, the rest is flat.
    assert line == BLOCKS[1] * 7 + BLOCKS[6] + BLOCKS[1] * 12
    values[90] = float("nan")
    line = sparkline(series, values, Axis(0.1, 10_000.0, True), 20).plain
    assert line[18] == "×" and line.count("×") == 1
    values[90] = float("-inf")
    assert sparkline(series, values, Axis(0.1, 10_000.0, True), 20).plain[18] == "▼"


def test_sparse_series_hold_their_last_measurement():
    val = panels_for(fake_run()[1])[0].series[1]
    values = [None] * 40
    values[0], values[20] = 10.0, 1.0
    line = sparkline(val, values, Axis(1.0, 10.0, True), 40).plain
    assert line == BLOCKS[-1] * 20 + BLOCKS[0] * 20


def test_parse_and_select_steps():
    assert parse_steps(None) == (None, None)
    assert parse_steps("0:50") == (0, 50) and parse_steps(" 5 : ") == (5, None)
    assert select_steps((None, None), 400) == range(400)
    assert select_steps((None, 10), 400) == range(10)
    with pytest.raises(StepsError):
        select_steps((10, None), 10)


def test_resolve_run():
    runs = ("reference", "01", "02", "03")
    assert [resolve_run(t, runs) for t in ("Ref", "00", "1", " 03 ")] == [
        "reference", "reference", "01", "03"]


def test_show_what_if_piped_gives_each_dose_its_own_mark(tmp_path, monkeypatch):
    """`diagnose show 01 --what-if | cat`: no colour, so the marks alone tell the doses apart,
    on every chart and in the legend (the doses are cached: nothing trains here)."""
    import os
    import shutil
    from pathlib import Path

    from diagnose.game.whatif import DOSE_MARKS
    from diagnose.home import data_dir
    from tests.tui.conftest import DATA, cache_whatif_doses, copy_scenario

    home = data_dir()
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA / "home" / "self-study.key", home / "self-study.key")
    os.chmod(home / "self-study.key", 0o600)
    workspace = copy_scenario(Path(tmp_path) / "experiments" / "19-break-it")
    cache_whatif_doses(workspace)
    result = CliRunner().invoke(cli, ["show", "01", "--what-if", "--dir", str(workspace)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert not ANSI.search(result.output) and "•" not in result.output
    marks = DOSE_MARKS[:4]
    loss_chart = result.output.split("1 · Loss")[1].split("first")[0]
    assert all(mark in loss_chart for mark in marks)
    legend = [line.split()[0] for line in result.output.splitlines()
              if "warmup_steps=" in line and "What if" not in line][:4]
    assert legend == list(marks)


def test_dose_marks_are_distinct_and_none_is_a_nonfinite_mark():
    from diagnose.game.whatif import DOSE_MARKS, dose_look

    assert len(set(DOSE_MARKS)) == len(DOSE_MARKS) == 6  # a break declares 2 to 6 doses
    assert not set(DOSE_MARKS) & set(NONFINITE)
    assert len({dose_look(i) for i in range(6)}) == 6
