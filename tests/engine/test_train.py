"""Training that streams: the record of each step, its cadence, determinism, instruments that
change nothing, and runs that diverge without raising."""

import dataclasses
import importlib
import math
import time
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scenarios
from diagnose import metrics
from diagnose.engine import Trainer, run_header_fields, train
from diagnose.engine.corpus import build_corpus
from diagnose.engine.instruments import evaluate, validation_loss
from diagnose.engine.model import flat_of, matrix_names
from diagnose.engine.train import AHEAD, records

train_module = importlib.import_module("diagnose.engine.train")  # `train` is also the function


@pytest.fixture(scope="module")
def small(healthy):
    """The lab's corpus and training on a narrower model: each step is quick."""
    return dataclasses.replace(healthy, d_model=16, n_heads=2, d_ff=32, batch_size=8,
                               steps=8, eval_every=3, warmup_steps=2, probe_examples=8)


def test_a_record_has_exactly_the_schema_keys(small):
    record = Trainer(small, 0).step()
    assert tuple(record) == metrics.STEP_KEYS
    assert record["step"] == 0
    assert isinstance(record["lr"], float) and isinstance(record["train_loss"], float)
    assert len(record["act_mean_abs"]) == small.n_layers + 1
    assert list(record["spectral_norm"]) == matrix_names(small)
    assert all(isinstance(v, float) for v in record["spectral_norm"].values())
    assert isinstance(record["dead_heads"], int) and 0 <= record["dead_heads"] <= 4
    assert 0.0 <= record["dead_neurons_frac"] <= 1.0
    metrics.dumps(record)                                    # strict JSON as it stands


def test_evaluations_every_eval_every_and_at_the_last_step(small):
    records = list(train(small, 0))
    assert [r["step"] for r in records] == list(range(small.steps))
    evaluated = [r["step"] for r in records if r["val_loss"] is not None]
    assert evaluated == [0, 3, 6, 7]
    assert evaluated == [r["step"] for r in records if r["dead_heads"] is not None]
    assert evaluated == [r["step"] for r in records if r["dead_neurons_frac"] is not None]
    assert all(r["act_mean_abs"] is not None and r["spectral_norm"] is not None for r in records)


def _textbook_lr(step: int, c) -> float:
    """The schedule written out independently of `lr_at`: linear warmup, then cosine."""
    if step < c.warmup_steps:
        return c.lr_max * (step + 1) / c.warmup_steps
    progress = (step - c.warmup_steps) / max(c.steps - 1 - c.warmup_steps, 1)
    return c.lr_min + 0.5 * (c.lr_max - c.lr_min) * (1 + math.cos(math.pi * progress))


def test_lr_and_clipping_in_the_records(small):
    records = list(train(small, 1))
    assert small.warmup_steps >= 1 and len(records) > small.warmup_steps + 1  # both phases
    for record in records:
        assert record["lr"] == pytest.approx(_textbook_lr(record["step"], small), rel=1e-12)
        pre, post = record["grad_norm_preclip"], record["grad_norm_postclip"]
        assert post == pytest.approx(min(pre, small.grad_clip), rel=1e-5)


def test_a_record_describes_the_weights_its_forward_pass_used(small):
    trainer = Trainer(small, 2)
    val = build_corpus(small).split("val")
    for step in range(4):
        used = {name: p.copy() for name, p in trainer.params.items()}
        record = trainer.step()
        for name, sigma in record["spectral_norm"].items():
            exact = np.linalg.svd(used[name].astype(np.float64), compute_uv=False)[0]
            assert sigma == pytest.approx(exact, rel=0.01), (step, name)
        if record["val_loss"] is not None:
            assert record["val_loss"] == pytest.approx(validation_loss(used, val, small),
                                                       rel=1e-6)


def test_the_same_seed_gives_the_same_bits(small):
    a, b = Trainer(small, 5), Trainer(small, 5)
    for _ in range(4):
        assert a.step() == b.step()
    assert np.array_equal(flat_of(a.params), flat_of(b.params))
    c = Trainer(small, 6)
    assert c.step()["train_loss"] != Trainer(small, 5).step()["train_loss"]


def test_instruments_change_no_number_of_the_training(small):
    watched, blind = Trainer(small, 3), Trainer(small, 3, instruments=False)
    for _ in range(small.steps):
        seen, unseen = watched.step(), blind.step()
        for key in ("step", "lr", "train_loss", "grad_norm_preclip", "grad_norm_postclip"):
            assert seen[key] == unseen[key]
        for key in ("val_loss", "act_mean_abs", "spectral_norm", "dead_heads",
                    "dead_neurons_frac"):
            assert unseen[key] is None
        assert tuple(unseen) == metrics.STEP_KEYS
    assert np.array_equal(flat_of(watched.params), flat_of(blind.params))


def test_worker_threads_change_no_number(small):
    threaded, alone = Trainer(small, 7), Trainer(small, 7, threads=False)
    for _ in range(small.steps):
        assert threaded.step() == alone.step()
    assert np.array_equal(flat_of(threaded.params), flat_of(alone.params))


def test_bad_init_trains_and_records_its_huge_values(healthy):
    config = scenarios.breaks()["bad-init"].apply(healthy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # no RuntimeWarning escapes
        records = list(zip(range(3), train(config, 0), strict=False))
    first = records[0][1]
    assert first["train_loss"] > 50                         # ln 64 is 4.2
    assert first["grad_norm_preclip"] > 100
    assert first["grad_norm_postclip"] == pytest.approx(1.0, rel=1e-5)
    assert first["act_mean_abs"][0] > 100
    assert min(first["spectral_norm"].values()) > 100
    assert all(math.isfinite(r["train_loss"]) for _, r in records)


def test_a_run_gone_non_finite_keeps_stepping_and_records_it(small):
    trainer = Trainer(small, 4)
    trainer.step()
    trainer.params["h.0.mlp.c_fc.weight"][0, 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        records = [trainer.step() for _ in range(3)]
    for record in records:
        assert math.isnan(record["train_loss"]) and math.isnan(record["grad_norm_preclip"])
        assert math.isnan(record["spectral_norm"]["h.0.mlp.c_fc.weight"])
        line = metrics.dumps(record)                        # NaN is data: strict JSON strings
        assert '"NaN"' in line
    assert records[-1]["step"] == 3 and math.isnan(records[-1]["val_loss"])   # an eval step


def test_train_streams_and_can_be_cancelled(small):
    run = train(small, 0)
    first = next(run)
    assert first["step"] == 0
    assert next(run)["step"] == 1
    run.close()
    with pytest.raises(StopIteration):
        next(run)


@pytest.mark.parametrize("threads", [True, False])
def test_streamed_records_are_the_step_records(small, threads):
    stepped = Trainer(small, 7, threads=threads)
    expected = [stepped.step() for _ in range(small.steps)]
    streamed = list(records(Trainer(small, 7, threads=threads), small.steps))
    assert repr(streamed) == repr(expected)                 # bit for bit, NaN included
    assert [r["step"] for r in streamed] == list(range(small.steps))


@settings(settings.get_profile("engine"), max_examples=12)
@given(steps=st.integers(1, 2 * AHEAD + 3), eval_every=st.integers(1, 6),
       threads=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_any_run_streams_its_step_records_in_order(small, steps, eval_every, threads, seed):
    """Whatever the run's length and evaluation cadence (every step, none but the first and
    the last), streaming gives the records `step()` gives, bit for bit, in step order."""
    config = dataclasses.replace(small, steps=steps, eval_every=eval_every)
    stepped = Trainer(config, seed, threads=threads)
    expected = [stepped.step() for _ in range(steps)]
    streamed = list(records(Trainer(config, seed, threads=threads), steps))
    assert repr(streamed) == repr(expected)
    assert [r["val_loss"] is not None for r in streamed] == [
        s % eval_every == 0 or s == steps - 1 for s in range(steps)]


def test_an_evaluation_goes_on_while_the_next_steps_train(small, monkeypatch):
    """The evaluation of step s reads its own copy of step s's weights: it may finish after
    later steps have trained (at most AHEAD), and its record still says step s's values."""
    config = dataclasses.replace(small, steps=AHEAD + 6)
    trainer = Trainer(config, 3)
    evaluated = [s for s in range(config.steps) if trainer.is_eval_step(s)]
    seen_at: dict[int, int] = {}

    def slow(params, probe, rest, config):
        step = evaluated[len(seen_at)]                   # one evaluation thread: in order
        until = min(step + 1 + AHEAD, config.steps)
        deadline = time.monotonic() + 10
        while trainer.step_index < until and time.monotonic() < deadline:
            time.sleep(0.001)                           # until the run is AHEAD steps on
        seen_at[step] = trainer.step_index
        return evaluate(params, probe, rest, config)

    monkeypatch.setattr(train_module, "evaluate", slow)
    lags, streamed = [], []
    for record in records(trainer, config.steps):
        lags.append(trainer.step_index - 1 - record["step"])
        streamed.append(record)
    monkeypatch.undo()
    assert seen_at[0] == 1 + AHEAD                          # the run trained on meanwhile
    assert max(lags) == AHEAD                               # and never further
    stepped = Trainer(config, 3)
    assert repr(streamed) == repr([stepped.step() for _ in range(config.steps)])


def test_header_fields(healthy):
    fields = run_header_fields(healthy)
    header = metrics.make_header("reference", **fields)
    assert header["params"] == 103_680 and header["vocab_size"] == 64
    assert header["ln_vocab"] == pytest.approx(math.log(64))
    assert header["entropy_floor"] == build_corpus(healthy).entropy_floor
    assert (header["steps"], header["eval_every"], header["lr_max"]) == (400, 20, healthy.lr_max)
