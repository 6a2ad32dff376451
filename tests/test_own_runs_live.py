"""Your own runs as issue 33 met them: three kinds of reading ("differs" beside a break and
healthy), a leak read against the reference without a floor, magnitudes, the run's own
`lr_max`, no `nan`, stable readings while a run trains, and the recorder's and `show`'s ease.

The runs are real: the engine's stored runs (tests/data/make_fidelity.py), re-recorded through
the Recorder, and the PyTorch runs bench/own_runs.py records on its second model family
(bench/charlm.py, stored by `--store tests/data/charlm`: a character model on the licence
texts, no known floor)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scenarios
from diagnose.cli import cli
from diagnose.metrics import STEP_OPTIONAL, read_metrics
from diagnose.runs.check import check_run, family
from diagnose.runs.record import Recorder, RunInfo
from tests.data import make_fidelity as MAKER
from tests.test_own_runs import record_run

CHARLM = Path(__file__).resolve().parent / "data" / "charlm"
# the catalog break each charlm bug is (None: none of the catalog: it reads "differs")
CHARLM_BUG = {"healthy": "healthy", "init-x10": "big-init", "no-warmup-x5": "no-warmup",
              "no-mask": "broken-mask", "lr-x10": "high-lr", "decay-all": "decay-everything",
              "unshifted": "unshifted-targets", "no-zero-grad": None}


def allowed(bug: str) -> frozenset[str]:
    """The breaks a reading of `bug` may name: its family (the no-warmup-x5 run holds a raised
    peak as well); none for a healthy run or an off-catalog bug."""
    slug = CHARLM_BUG.get(bug, bug)
    if slug in (None, "healthy"):
        return frozenset()
    extra = family("raised-lr") if bug == "no-warmup-x5" else frozenset()
    return family(slug) | extra


@pytest.fixture(scope="module")
def charlm(tmp_path_factory):
    root = tmp_path_factory.mktemp("charlm")
    return {p.name.removesuffix(".jsonl.gz").rsplit("-", 1)[0]:
            MAKER.gunzip_file(p, root / p.name.removesuffix(".gz"))
            for p in sorted(CHARLM.glob("*.jsonl.gz"))}


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """Every stored engine run as (reference, run, slug): the deck's, the own runs' and the
    level-1 scenario's (its answer key read as the reveal reads it)."""
    root = tmp_path_factory.mktemp("game")
    out = []
    deck = MAKER.gunzip_file(MAKER.DATA / "deck" / "healthy.jsonl.gz", root / "deck-ref.jsonl")
    for packed in sorted((MAKER.DATA / "deck").glob("*.jsonl.gz")):
        slug = packed.name.removesuffix(".jsonl.gz")
        out.append((deck, MAKER.gunzip_file(packed, root / f"deck-{packed.name[:-3]}"), slug))
    own = MAKER.gunzip_file(MAKER.DATA / "own" / "reference.jsonl.gz", root / "own-ref.jsonl")
    for packed in sorted((MAKER.DATA / "own").glob("*.jsonl.gz")):
        slug = packed.name.removesuffix(".jsonl.gz")
        out.append((own, MAKER.gunzip_file(packed, root / f"own-{packed.name[:-3]}"), slug))
    return out


def text_of(reading, lang: str = "en") -> str:
    return "\n".join(reading.lines(lang))


# --- three kinds -----------------------------------------------------------------------------

@pytest.mark.parametrize("bug", sorted(CHARLM_BUG))
def test_each_charlm_run_reads_as_its_family_or_differs_never_healthy(charlm, bug):
    reading = check_run(charlm[bug], charlm["reference"])
    if bug == "healthy":
        assert reading.kind == "healthy" and not reading.departures
        return
    assert reading.kind in ("break", "differs"), text_of(reading)
    if reading.kind == "break":
        assert set(reading.resembles) <= allowed(bug), reading.resembles
    else:
        assert reading.departures and "It differs from its reference" in text_of(reading)
    for lang in ("en", "es"):
        assert not any(word in text_of(reading, lang).split() for word in ("nan", "nanx"))


def test_zero_grad_forgotten_differs_with_the_panels_that_show_it(charlm):
    reading = check_run(charlm["no-zero-grad"], charlm["reference"])
    assert reading.kind == "differs"
    panels = {d.panel for d in reading.departures}
    assert {3, 4, 5} <= panels  # the gradient norm climbs, the activations and σ follow
    text = text_of(reading)
    grad = next(d for d in reading.departures if d.key == "grad_norm_preclip")
    assert grad.run / grad.reference > 2 and f"from step {grad.step}" in text
    data = json.loads(CliRunner().invoke(cli, [
        "check", str(charlm["no-zero-grad"]), "--reference", str(charlm["reference"]),
        "--json"]).output)
    assert data["kind"] == "differs" and data["reading"] == "differs"
    assert "resembles" in data and {d["panel"] for d in data["departures"]} >= {3, 4, 5}


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(key=st.sampled_from(["train_loss", "grad_norm_preclip", "act_mean_abs",
                            "spectral_norm"]),
       factor=st.sampled_from([0.2, 0.3, 4.0, 6.0]), start=st.integers(0, 60))
def test_a_run_far_outside_its_reference_on_any_panel_is_never_healthy(
        charlm, tmp_path_factory, key, factor, start):
    """The healthy seed's own records, one panel's series scaled by `factor` from `start` on,
    recorded through the Recorder: never read healthy, and the panel is named."""
    header, records = read_metrics(charlm["healthy"])
    path = tmp_path_factory.mktemp("far") / "metrics.jsonl"
    info = RunInfo(steps=header["steps"], lr_max=header["lr_max"], recorded=header["recorded"],
                   model=header["model"], data=header["data"], vocab_size=header["vocab_size"],
                   heads_total=header["heads_total"], neurons_total=header["neurons_total"],
                   eval_every=header["eval_every"])
    with Recorder(path, info) as rec:
        for record in records:
            values = {k: record[k] for k in ("lr", "train_loss", *header["recorded"])}
            if record["step"] >= start:
                value = values[key]
                values[key] = ([v * factor for v in value] if isinstance(value, list) else
                               {k: v * factor for k, v in value.items()}
                               if isinstance(value, dict) else value * factor)
                if key == "grad_norm_preclip":
                    values["grad_norm_postclip"] = min(values[key], 1.0)
            rec.log(**values)
    reading = check_run(path, charlm["reference"])
    assert reading.kind != "healthy"
    if reading.kind == "differs":
        panel = {"train_loss": 1, "grad_norm_preclip": 3, "act_mean_abs": 4,
                 "spectral_norm": 5}[key]
        assert panel in {d.panel for d in reading.departures}


# --- masks without a floor -------------------------------------------------------------------

def test_a_mask_removed_without_a_floor_reads_as_a_leak_against_the_reference(charlm):
    reading = check_run(charlm["no-mask"], charlm["reference"])
    assert "entropy_floor" in reading.not_recorded
    assert set(reading.resembles) == {"broken-mask", "leaky-mask", "unshifted-targets"}
    assert reading.against_reference
    text = text_of(reading)
    assert "Read against the reference" in text and "A floor would prove it" in text
    assert "nan" not in text.split()
    assert "Leído frente a la referencia" in text_of(reading, "es")


def test_with_a_floor_the_floor_stays_the_proof(game):
    reference, run = next((r, p) for r, p, slug in game if slug == "broken-mask"
                          and "own-" in p.name)
    reading = check_run(run, reference)
    assert reading.resembles == ("broken-mask", "leaky-mask") and not reading.against_reference
    assert any(f.name == "val_floor_ratio" for f in reading.findings)


# --- magnitudes and wording ------------------------------------------------------------------

def test_peak_x10_is_high_lr_and_the_other_magnitude_is_not_smaller(charlm, game):
    reading = check_run(charlm["lr-x10"], charlm["reference"])
    assert reading.resembles == ("high-lr",) and "raised-lr" in reading.kin
    text = text_of(reading)
    assert "another magnitude shows too" in text and "smaller" not in text
    deck = {slug: (r, p) for r, p, slug in game if "deck-" in p.name}
    assert check_run(deck["high-lr"][1], deck["high-lr"][0]).resembles == ("high-lr",)
    assert check_run(deck["raised-lr"][1], deck["raised-lr"][0]).resembles == ("raised-lr",)


def test_sentences_use_the_runs_own_lr_max(charlm):
    """No warmup with the peak x5: the rate starts at 100% of the run's own peak (not 500% of
    the reference's), and the raised peak is said too."""
    reading = check_run(charlm["no-warmup-x5"], charlm["reference"])
    assert reading.resembles == ("no-warmup",)
    text = text_of(reading)
    assert "the learning rate starts at 100% of its peak" in text and "500%" not in text
    assert "raised-lr" in reading.also


def test_no_reading_prints_nan_without_a_floor(tmp_path):
    healthy = dataclasses.replace(scenarios.healthy_config(), steps=MAKER.OWN_STEPS)
    runs = {}
    for plan in MAKER.own_plans():
        _, records = MAKER.read_stored(MAKER.DATA / "own" / f"{plan.run}.jsonl.gz", tmp_path)
        runs[plan.run] = record_run(tmp_path / plan.run, plan.config, plan.seed,
                                    records=records, floor=False)
    assert healthy.steps == MAKER.OWN_STEPS
    for name, path in runs.items():
        reading = check_run(path, runs["reference"])
        for lang in ("en", "es"):
            words = text_of(reading, lang).replace(",", " ").split()
            assert "nan" not in words and "nanx" not in words, (name, lang)
        json.dumps(reading.as_json(), allow_nan=False)


def test_no_percentage_that_means_nothing(charlm):
    """The old confidence (the peak ratio alone) printed "58%" for the healthy run, the mask
    removed and zero_grad forgotten alike: now a named break says what its margin supports in
    words, and no other reading prints a confidence."""
    texts = {bug: text_of(check_run(charlm[bug], charlm["reference"]))
             for bug in ("healthy", "no-mask", "no-zero-grad", "init-x10")}
    assert all("%)" not in t.splitlines()[1] for t in texts.values())
    assert "mark" in texts["init-x10"]  # "A clear mark" / "A faint mark"
    assert "confidence" not in texts["healthy"]


# --- stable while training -------------------------------------------------------------------

def _cut(path: Path, steps: int, folder: Path) -> Path:
    lines = path.read_text().splitlines(keepends=True)
    out = folder / f"{steps}-{path.name}"
    out.write_text("".join(lines[:steps + 1]))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_reading_flips_to_a_break_of_another_family_as_a_run_trains(
        charlm, game, tmp_path_factory, data):
    """A stored run (the engine's or the bench's PyTorch runs) hypothesis draws, cut at a step
    it draws: a reading names only breaks of the run's own family (healthy and "differs" are
    no flip)."""
    folder = tmp_path_factory.mktemp("cuts")
    pairs = [(ref, run, slug) for ref, run, slug in game]
    pairs += [(charlm["reference"], path, bug) for bug, path in charlm.items()
              if bug != "reference"]
    reference, run, slug = data.draw(st.sampled_from(pairs), label="run")
    steps = len(read_metrics(run)[1])
    cut = data.draw(st.integers(1, steps), label="cut")
    reading = check_run(_cut(run, cut, folder), reference)
    if reading.kind == "break":
        wanted = allowed(slug) if slug in CHARLM_BUG else family(slug)
        assert set(reading.resembles) <= wanted, (run.name, cut, reading.resembles)


@pytest.mark.parametrize(("bug", "cuts"), [("init-x10", (6, 11, 26, 101)),
                                           ("no-warmup-x5", (2, 4, 6, 11))])
def test_the_issues_flips_hold_still(charlm, tmp_path, bug, cuts):
    """x10 init read frozen-block at steps 25 and 100; no warmup read raised-lr in its first
    steps: each reads its own break at every one of those steps now."""
    for cut in cuts:
        reading = check_run(_cut(charlm[bug], cut, tmp_path), charlm["reference"])
        assert reading.resembles == (CHARLM_BUG[bug],), (cut, reading.resembles)


# --- recording as easy as the ecosystem's loggers --------------------------------------------

def test_the_recorder_makes_its_folder(tmp_path):
    """The README's example, in a fresh folder."""
    path = tmp_path / "runs" / "lr-test" / "metrics.jsonl"
    run = RunInfo(steps=3, lr_max=3e-4, model="gpt-4x128", data="tinyshakespeare",
                  recorded=["val_loss", "grad_norm_preclip", "grad_norm_postclip"])
    with Recorder(path, run) as rec:
        for step in range(3):
            rec.log(lr=3e-4, train_loss=4.0 - step, grad_norm_preclip=1.5,
                    grad_norm_postclip=1.0, val_loss=3.0 if step == 0 else None)
    assert len(read_metrics(path)[1]) == 3


def test_show_on_a_live_run_says_the_headers_length(tmp_path):
    path = tmp_path / "metrics.jsonl"
    rec = Recorder(path, RunInfo(steps=400, lr_max=0.1, recorded=["val_loss"]))
    for step in range(100):
        rec.log(lr=0.1, train_loss=3.0 - step / 100, val_loss=None)
    result = CliRunner().invoke(cli, ["show", str(path)])
    rec.close()
    assert result.exit_code == 0, result.output
    assert "steps 0–99 of 400, 100 recorded so far" in result.output
    assert "of 100" not in result.output


def test_files_written_by_the_old_recorder_still_read(charlm):
    header, records = read_metrics(charlm["reference"])
    assert set(header["recorded"]) <= set(STEP_OPTIONAL) and len(records) == header["steps"]
    assert math.isfinite(records[-1]["train_loss"])


def test_a_second_reference_seed_widens_the_band(charlm):
    """`--second-reference`: the band covers both seeds; a bug still leaves it, a healthy run
    of a third seed stays inside."""
    one = check_run(charlm["no-zero-grad"], charlm["reference"])
    two = check_run(charlm["no-zero-grad"], charlm["reference"], "en", charlm["healthy"])
    assert two.kind == "differs" and {d.panel for d in two.departures} >= {3, 4, 5}
    worst = {d.key: d.run / d.reference for d in one.departures}
    assert set(worst) >= {d.key for d in two.departures}
    result = CliRunner().invoke(cli, ["check", str(charlm["healthy"]), "--reference",
                                      str(charlm["reference"]), "--second-reference",
                                      str(charlm["no-zero-grad"])])
    assert result.exit_code == 0 and "reads as healthy" in result.output
