"""Your own runs: the recorder, the 1.1 schema's readers and `diagnose check`, on the numpy
engine's runs recorded as a user's loop would record them (short runs, trained once)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import scenarios
from diagnose.cli import cli
from diagnose.metrics import STEP_OPTIONAL, MetricsError, read_metrics
from diagnose.runs.check import CheckError, check_run
from diagnose.runs.record import Recorder, RecordError, RunInfo
from tests.data import make_fidelity as MAKER  # the stored runs' plans: one definition

STEPS, RUNS = MAKER.OWN_STEPS, MAKER.OWN_RUNS


def record_run(path: Path, config, seed: int, recorded=STEP_OPTIONAL, floor=True,
               records=None, **header) -> Path:
    """A run recorded through the Recorder as a user's loop would: `records` (the engine's,
    as stored), or the engine's training of `config` from `seed` here."""
    from diagnose.engine import run_header_fields, train

    fields = run_header_fields(config)
    path.mkdir(parents=True)
    info = RunInfo(run=path.name, steps=fields["steps"], lr_max=fields["lr_max"],
                   eval_every=fields["eval_every"],
                   entropy_floor=fields["entropy_floor"] if floor else None,
                   vocab_size=fields["vocab_size"], recorded=recorded, **header)
    if records is None:
        records = train(config, seed, threads=False)  # helper threads: CPU, not time, here
    with Recorder(path / "metrics.jsonl", info) as recorder:
        for record in records:
            recorder.log(**{k: v for k, v in record.items()
                            if k in ("step", "lr", "train_loss", *recorded)})
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The reference and the lab's breaks, the engine's records stored by
    tests/data/make_fidelity.py (tests/test_fidelity.py checks the engine still writes them)."""
    root = tmp_path_factory.mktemp("own")
    out = {}
    for plan in MAKER.own_plans():
        _, records = MAKER.read_stored(MAKER.DATA / "own" / f"{plan.run}.jsonl.gz", root)
        out[plan.run] = record_run(root / plan.run, plan.config, plan.seed, records=records,
                                   model="minigpt")
    return out


@pytest.mark.parametrize("slug", RUNS)
def test_check_reads_each_break_and_the_reference(runs, slug):
    reading = check_run(runs[slug], runs["reference"])
    expected = {"reference": (), "broken-mask": ("broken-mask", "leaky-mask")}
    assert reading.resembles == expected.get(slug, (slug,))
    assert reading.not_recorded == () and reading.steps == STEPS


def test_a_broken_mask_is_a_tie_never_a_pick(runs):
    result = CliRunner().invoke(cli, ["check", str(runs["broken-mask"]), "--reference",
                                      str(runs["reference"]), "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["reading"] == "tie" and data["resembles"] == ["broken-mask", "leaky-mask"]
    assert {s["sign"] for s in data["signs"]} >= {"val_floor_ratio", "dead_heads"}
    text = CliRunner().invoke(cli, ["check", str(runs["broken-mask"]), "--reference",
                                    str(runs["reference"])]).output
    assert "a tie, which these panels cannot tell apart" in text
    assert "verdict" in text  # "a reading of the curves, not a verdict"
    es = CliRunner().invoke(cli, ["check", str(runs["broken-mask"]), "--reference",
                                  str(runs["reference"]), "--lang", "es"]).output
    assert "un empate" in es and "Señales" in es


def test_signs_print_the_runs_number_beside_the_references(runs):
    reading = check_run(runs["no-warmup"], runs["reference"])
    lr0 = next(s for s in reading.signs if s.name == "lr0_frac")
    assert lr0.run == pytest.approx(1.0) and lr0.reference < 0.2
    assert any("the learning rate starts at 100% of its peak" in line
               for line in reading.lines("en"))


def test_a_running_run_is_read_against_the_reference_up_to_its_step(runs, tmp_path):
    lines = (runs["no-warmup"] / "metrics.jsonl").read_text().splitlines(keepends=True)
    partial = tmp_path / "running" / "metrics.jsonl"
    partial.parent.mkdir()
    partial.write_text("".join(lines[:12]))  # header and 11 steps
    reading = check_run(partial, runs["reference"])
    assert reading.steps == 11 and reading.resembles == ("no-warmup",)


def test_fields_not_recorded_are_said_and_their_breaks_not_weighed(runs, tmp_path):
    healthy = dataclasses.replace(scenarios.healthy_config(), steps=8)
    recorded = ("grad_norm_preclip", "grad_norm_postclip", "act_mean_abs")
    reference = record_run(tmp_path / "ref", healthy, 1, recorded=recorded, floor=False)
    run = record_run(tmp_path / "run", scenarios.breaks(None)["bad-init"].apply(healthy), 2,
                     recorded=recorded, floor=False)
    reading = check_run(run, reference)
    assert reading.resembles == ("bad-init",)
    assert "spectral_norm" in reading.not_recorded and "entropy_floor" in reading.not_recorded
    assert "big-init" in reading.not_weighed and "broken-mask" in reading.not_weighed
    shown = {s.name: s.run for s in reading.signs}
    assert shown["dead_heads"] is None and shown["final_val"] is None
    assert "dead heads at the end: not recorded / not recorded" in "\n".join(reading.lines())
    header, records = read_metrics(run / "metrics.jsonl")
    assert header["params"] is None and records[0]["spectral_norm"] is None


def test_check_refuses_without_a_reference(runs):
    result = CliRunner().invoke(cli, ["check", str(runs["bad-init"])])
    assert result.exit_code == 1
    assert result.output == ("Error: check needs a reference run of the same model and data "
                             "(train it healthy once and pass --reference its "
                             "metrics.jsonl)\n")


def test_check_refuses_another_model(runs, tmp_path):
    healthy = dataclasses.replace(scenarios.healthy_config(), steps=3)
    other = record_run(tmp_path / "other", healthy, 1, model="gpt-4L")
    result = CliRunner().invoke(cli, ["check", str(runs["bad-init"]), "--reference", str(other)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {runs['bad-init'] / 'metrics.jsonl'} and the reference "
        f"{other / 'metrics.jsonl'} are not runs of the same model and data: model minigpt "
        "against gpt-4L (a reference is a healthy run of the same setup)\n")


def test_check_refuses_an_unrevealed_game_workspace(runs, tmp_path):
    workspace = tmp_path / "ws"
    (workspace / "01").mkdir(parents=True)
    (workspace / "scenario.json").write_text("{}")
    (workspace / "01" / "metrics.jsonl").write_bytes(
        (runs["bad-init"] / "metrics.jsonl").read_bytes())
    result = CliRunner().invoke(cli, ["check", str(workspace / "01"), "--reference",
                                      str(runs["reference"])])
    assert result.exit_code == 1
    assert result.output == (f"Error: {workspace / '01' / 'metrics.jsonl'} is inside a game "
                             "workspace whose answers are not revealed (diagnose them yourself "
                             "first, or run diagnose reveal)\n")
    (workspace / "reveal.json").write_text("{}")
    assert check_run(workspace / "01", runs["reference"]).resembles == ("bad-init",)


def test_an_empty_run_is_one_line(runs, tmp_path):
    path = tmp_path / "m.jsonl"
    Recorder(path, RunInfo(steps=5, lr_max=0.1)).close()
    with pytest.raises(CheckError, match="has no step yet"):
        check_run(path, runs["reference"])


json_value = st.one_of(st.none(), st.booleans(), st.floats(width=32).map(
    lambda v: v if math.isfinite(v) else str(v).replace("inf", "Infinity").replace(
        "nan", "NaN")), st.text(max_size=3), st.lists(st.floats(0, 10), max_size=3),
    st.dictionaries(st.sampled_from(["w", "v"]), st.floats(0, 10), max_size=2))


VALID = {"lr": st.floats(0, 1), "train_loss": st.floats(width=32).map(
    lambda v: v if math.isfinite(v) else "NaN"), "val_loss": st.none() | st.floats(0, 10),
    "act_mean_abs": st.lists(st.floats(0, 1e6), min_size=2, max_size=2),
    "spectral_norm": st.fixed_dictionaries({"w": st.floats(0, 1e3), "v": st.floats(0, 1e3)})}


@given(rows=st.lists(st.fixed_dictionaries({k: st.one_of(valid, valid, valid, json_value)
                                            for k, valid in VALID.items()}),
                     min_size=1, max_size=6))
def test_check_on_any_hand_written_run_is_a_reading_or_one_line(runs, tmp_path_factory, rows):
    """A /1.1 file written by hand, with any JSON values: a reading, or one UserError line."""
    from scenarios.errors import UserError

    path = tmp_path_factory.mktemp("hand") / "metrics.jsonl"
    recorded = ["val_loss", "act_mean_abs", "spectral_norm"]
    lines = [json.dumps({"schema": "diagnose.metrics/1.1", "run": "r", "steps": len(rows),
                         "lr_max": 0.1, "recorded": recorded})]
    lines += [json.dumps({"step": i, **row}) for i, row in enumerate(rows)]
    path.write_text("\n".join(lines) + "\n")
    for run, reference in ((path, path), (path, runs["reference"])):
        try:
            reading = check_run(run, reference)
        except UserError as err:
            assert "\n" not in str(err)
            continue
        json.dumps(reading.as_json(), allow_nan=False)
        assert reading.lines("es") and reading.lines("en")


# --- the recorder ----------------------------------------------------------------------------

finite = st.floats(allow_nan=False, allow_infinity=False, width=32)
anything = st.floats(width=32)


@given(steps=st.lists(st.tuples(finite.map(abs), anything, st.none() | anything,
                                st.lists(anything, min_size=3, max_size=3)),
                      min_size=1, max_size=8),
       recorded=st.sets(st.sampled_from(("val_loss", "act_mean_abs"))))
def test_what_is_recorded_reads_back(tmp_path_factory, steps, recorded):
    path = tmp_path_factory.mktemp("rec") / "metrics.jsonl"
    with Recorder(path, RunInfo(steps=len(steps), lr_max=1.0, recorded=recorded)) as recorder:
        for lr, loss, val, acts in steps:
            recorder.log(lr=lr, train_loss=loss,
                         **({"val_loss": val} if "val_loss" in recorded else {}),
                         **({"act_mean_abs": acts} if "act_mean_abs" in recorded else {}))
    header, records = read_metrics(path)
    assert header["recorded"] == [k for k in STEP_OPTIONAL if k in recorded]
    for (lr, loss, val, _acts), record in zip(steps, records, strict=True):
        assert record["lr"] == lr
        assert record["train_loss"] == loss or math.isnan(loss) and math.isnan(
            record["train_loss"])
        assert record["grad_norm_preclip"] is None and record["spectral_norm"] is None
        if "act_mean_abs" in recorded:
            assert len(record["act_mean_abs"]) == 3
        if "val_loss" in recorded and val is not None and not math.isnan(val):
            assert record["val_loss"] == val


@pytest.mark.parametrize(("values", "message"), [
    ({"lr": "0.1", "train_loss": 1.0}, "step 0: lr: expected a number, got '0.1'"),
    ({"lr": 0.1}, "step 0: train_loss: missing (this run records it at every step)"),
    ({"lr": -1, "train_loss": 1.0}, "step 0: lr: expected a number of at least 0"),
    ({"lr": 0.1, "train_loss": 1.0, "spectral_norm": {"w": 1.0}},
     "step 0: 'spectral_norm': not recorded by this run: list it in recorded="),
    ({"lr": 0.1, "train_loss": 1.0, "loss": 1.0},
     "step 0: 'loss': not a metrics key (lr, train_loss, dead_neurons_frac)"),
    ({"lr": 0.1, "train_loss": True}, "step 0: train_loss: expected a number, got True"),
    ({"lr": 0.1, "train_loss": 1.0, "dead_neurons_frac": 2},
     "step 0: dead_neurons_frac: expected a share between 0 and 1"),
    ({"lr": 0.1, "train_loss": 1.0, "step": 3}, "step: expected 0, got 3"),
])
def test_a_bad_value_is_one_line(tmp_path, values, message):
    recorder = Recorder(tmp_path / "m.jsonl",
                        RunInfo(steps=5, lr_max=0.1, recorded=["dead_neurons_frac"]))
    with pytest.raises(RecordError) as err:
        recorder.log(**values)
    recorder.close()
    assert str(err.value) == message


def test_the_recorder_refuses_a_bad_header_and_an_existing_file(tmp_path):
    with pytest.raises(RecordError, match="lr_max: expected a finite number above 0"):
        Recorder(tmp_path / "a.jsonl", RunInfo(steps=5, lr_max=math.nan))
    with pytest.raises(RecordError, match="recorded: 'grad'"):
        Recorder(tmp_path / "a.jsonl", RunInfo(steps=5, lr_max=0.1, recorded=["grad"]))
    Recorder(tmp_path / "a.jsonl", RunInfo(steps=5, lr_max=0.1)).close()
    with pytest.raises(RecordError, match="already exists; record each run to a new file"):
        Recorder(tmp_path / "a.jsonl", RunInfo(steps=5, lr_max=0.1))


def test_shapes_are_fixed_by_step_0(tmp_path):
    with Recorder(tmp_path / "m.jsonl", RunInfo(
            steps=5, lr_max=0.1, recorded=["act_mean_abs", "spectral_norm"])) as recorder:
        recorder.log(lr=0.1, train_loss=1.0, act_mean_abs=[1, 2], spectral_norm={"w": 1.0})
        with pytest.raises(RecordError, match="3 values where step 0 had 2"):
            recorder.log(lr=0.1, train_loss=1.0, act_mean_abs=[1, 2, 3],
                         spectral_norm={"w": 1.0})
        with pytest.raises(RecordError, match="not the matrices step 0 named"):
            recorder.log(lr=0.1, train_loss=1.0, act_mean_abs=[1, 2], spectral_norm={"v": 1})


def test_a_1_1_file_must_hold_what_its_header_lists(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"schema":"diagnose.metrics/1.1","run":"r","steps":2,"lr_max":0.1,'
                    '"recorded":["val_loss"]}\n{"step":0,"lr":0.1,"train_loss":1.0}\n')
    with pytest.raises(MetricsError, match=":2: expected the keys step, lr, train_loss, "
                                           "val_loss"):
        read_metrics(path)
    path.write_text('{"schema":"diagnose.metrics/1.1","run":"r","steps":2,"lr_max":0.1,'
                    '"recorded":["loss"]}\n')
    with pytest.raises(MetricsError, match="header's recorded must list some of"):
        read_metrics(path)


def test_the_torch_helper_without_torch_is_one_line(tmp_path, monkeypatch):
    import diagnose.runs.torch_hooks as hooks
    from scenarios.errors import UserError

    monkeypatch.setattr(hooks, "torch", None)
    with pytest.raises(UserError) as err:
        hooks.ModelRecorder(object(), tmp_path / "m.jsonl", RunInfo(steps=5, lr_max=0.1))
    assert str(err.value) == ("diagnose.runs.torch_hooks needs PyTorch (pip install "
                              "'diagnose-training[torch]')")
    assert not (tmp_path / "m.jsonl").exists()


def test_every_break_of_every_deck_says_what_its_signature_reads():
    """A break's signature says which recorded fields its reading needs (`Signature.needs`),
    else `check` cannot tell when a run lacks them: fields `check` knows how to miss."""
    from diagnose.diagnosis.signatures import signature
    from diagnose.metrics import STEP_OPTIONAL
    from diagnose.runs import check

    for slug in check.all_breaks():
        assert set(signature(slug).needs) <= {*STEP_OPTIONAL, "entropy_floor"}, slug


# --- Panel 5 with many matrices --------------------------------------------------------------

DEEP_MATRICES = ("attn.q", "attn.k", "attn.v", "attn.o", "mlp.fc1", "mlp.fc2")


def record_deep_run(path: Path, layers: int = 12, steps: int = 30) -> Path:
    """A run of a `layers`-block model recorded as a torch loop would (one matrix per
    `blocks.i.<m>.weight`, an embedding and a head outside the blocks), through the Recorder.
    Its singular values grow with the layer and the step, so every summary has one answer."""
    names = ["embed.weight", *(f"blocks.{i}.{m}.weight" for i in range(layers)
                               for m in DEEP_MATRICES), "head.weight"]
    with Recorder(path, RunInfo(steps=steps, lr_max=1e-3, model=f"gpt-{layers}L", run="deep",
                                recorded=["val_loss", "act_mean_abs", "spectral_norm"])) as rec:
        for step in range(steps):
            growth = 1 + step / 100
            norms = {name: growth * (1 + 0.1 * index) for index, name in enumerate(names)}
            rec.log(lr=1e-3 * min(1, (step + 1) / 5), train_loss=5 - step / 10,
                    val_loss=5 - step / 10 if step % 10 == 0 else None,
                    act_mean_abs=[1.0 + i / 10 for i in range(layers + 1)], spectral_norm=norms)
    return path


def test_show_summarises_many_matrices_per_layer_and_names_them(tmp_path):
    from rich.console import Console

    from diagnose.runs.show import show_own_run

    run = record_deep_run(tmp_path / "metrics.jsonl")
    console = Console(width=120, record=True)
    show_own_run(run, (None, None), console=console)
    text = console.export_text()
    spectral = text.split("5 · Spectral norm")[1].split("6 · Dead units")[0]
    rows = [line for line in spectral.splitlines()[2:] if line.strip()]
    assert len(rows) == 2 + 12 * 3  # embed, head, then per layer: largest, median, smallest
    assert rows[0].split()[0] == "embed.weight" and rows[1].split()[0] == "head.weight"
    # the last step's largest of block 11 is its last matrix; the lower median is its third
    assert rows[2 + 11 * 3].split()[:3] == ["blocks.11", "largest:", "mlp.fc2.weight"]
    assert rows[2 + 11 * 3 + 1].split()[:3] == ["blocks.11", "median:", "attn.v.weight"]
    assert rows[2 + 11 * 3 + 2].split()[:3] == ["blocks.11", "smallest:", "attn.q.weight"]
    assert "6 · Dead units · not recorded" in text
    result = CliRunner().invoke(cli, ["show", str(run), "--lang", "es", "--steps", "0:5"])
    assert result.exit_code == 0, result.output
    assert "blocks.3 la mayor: mlp.fc2.weight" in result.output
    assert "Unidades muertas · no registrado" in result.output


def test_a_few_matrices_are_shown_one_by_one(tmp_path):
    from rich.console import Console

    from diagnose.runs.show import show_own_run

    run = record_deep_run(tmp_path / "metrics.jsonl", layers=2)  # 14 matrices: each fits
    console = Console(width=120, record=True)
    show_own_run(run, (None, None), console=console)
    spectral = console.export_text().split("5 · Spectral norm")[1].split("6 · Dead")[0]
    assert "blocks.1.mlp.fc2.weight" in spectral and "largest" not in spectral


layer_names = st.builds("{}{}.{}".format, st.sampled_from(("h.", "blocks.", "model.layers.")),
                        st.integers(0, 40), st.sampled_from(DEEP_MATRICES))
matrix_names = st.lists(layer_names | st.sampled_from(("wte", "lm_head.weight", "pos", "h.x")),
                        min_size=1, max_size=150, unique=True)
sigma = st.none() | st.floats(0, 1e6) | st.just(math.nan) | st.just(math.inf)


@given(names=matrix_names, data=st.data(), rows=st.integers(0, 200), per_row=st.integers(1, 2))
def test_a_summary_fits_its_rows_and_names_what_it_shows(names, data, rows, per_row):
    """The one rule every view draws Panel 5 by (`panels.series_for_rows`), over generated
    matrix names and values: the series themselves if they fit, else the per-layer summary if
    that fits, else the envelope; a summary's value is a member's, named, NaN when one is."""
    from diagnose.runs.watch import own_panels
    from diagnose.views.panels import envelope, matrix_layer, per_layer, series_for_rows

    values = data.draw(st.lists(sigma, min_size=len(names), max_size=len(names)))
    record = {"spectral_norm": {n: v for n, v in zip(names, values, strict=True)
                                if v is not None}}
    header = {"schema": "diagnose.metrics/1.1", "recorded": ["spectral_norm"]}
    first = {"spectral_norm": dict.fromkeys(names, 1.0), "act_mean_abs": None}
    panel = own_panels(header, first)[4]
    assert [s.key for s in panel.series] == names
    shown = [s.key for s in series_for_rows(panel, rows, per_row)]
    layered = per_layer(panel)
    groups: dict = {}
    for name in names:
        groups.setdefault(matrix_layer(name), []).append(name)
    assert len(layered) == sum(min(len(g), 3) for g in groups.values())
    if len(names) * per_row <= rows or len(names) <= 2:
        assert shown == names
    elif len(layered) * per_row <= rows and len(layered) < len(names):
        assert shown == [s.key for s in layered]
    else:
        assert shown == [s.key for s in envelope(panel)]
    members = record["spectral_norm"]
    for series in (*layered, *envelope(panel)):
        if series.which is None:
            continue
        value, which = series.read(record), series.which(record)
        if value is None:
            assert which is None
            continue
        assert which in members and (members[which] == value or math.isnan(value))
        if math.isnan(value):
            assert math.isnan(members[which])
    by_scope: dict = {}
    for series in layered:
        if series.which is not None:
            by_scope.setdefault(series.key.rsplit(".", 1)[0], []).append(series.read(record))
    for high, middle, low in by_scope.values():
        if high is not None and not math.isnan(high):
            assert high >= middle >= low

