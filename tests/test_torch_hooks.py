"""`diagnose.runs.torch_hooks` on the nn.Module port of MiniGPT (skipped without torch; the proof on
many seeds is bench/own_runs.py)."""

from __future__ import annotations

import dataclasses

import pytest

import scenarios
from diagnose.metrics import STEP_OPTIONAL, read_metrics
from diagnose.runs.check import check_run
from diagnose.runs.record import RecordError, RunInfo

torch = pytest.importorskip("torch", exc_type=ImportError)

from diagnose.runs.torch_hooks import Hooks, ModelRecorder  # noqa: E402  (needs torch)
from tests.engine.torch_module import MiniGPT, copy_init, train_recorded  # noqa: E402

STEPS = 50


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("torch")
    healthy = dataclasses.replace(scenarios.healthy_config(), steps=STEPS)
    out = {"reference": root / "reference.jsonl"}
    train_recorded(healthy, 0, out["reference"])
    for slug in ("bad-init", "no-warmup", "broken-mask"):
        out[slug] = root / f"{slug}.jsonl"
        train_recorded(scenarios.breaks(None)[slug].apply(healthy), 1, out[slug])
    return out


def test_every_panel_is_recorded(runs):
    header, records = read_metrics(runs["reference"])
    assert header["recorded"] == list(STEP_OPTIONAL) and len(records) == STEPS
    first = records[0]
    assert len(first["act_mean_abs"]) == 3 and len(first["spectral_norm"]) == 9
    assert first["dead_heads"] is not None and records[1]["dead_heads"] is None
    assert first["grad_norm_postclip"] <= 1.0 + 1e-6 <= first["grad_norm_preclip"] + 1.0


@pytest.mark.parametrize("slug", ["reference", "bad-init", "no-warmup", "broken-mask"])
def test_check_reads_the_torch_runs(runs, slug):
    reading = check_run(runs[slug], runs["reference"])
    expected = {"reference": (), "broken-mask": ("broken-mask", "leaky-mask")}
    assert reading.resembles == expected.get(slug, (slug,))


def test_spectral_norms_match_the_svd(tmp_path):
    config = scenarios.healthy_config()
    model = copy_init(MiniGPT(config), 3)
    with ModelRecorder(model, tmp_path / "m.jsonl", RunInfo(steps=5, lr_max=0.1)) as rec:
        measured = rec.spectral_norms()
    for name, weight in model.named_parameters():
        if weight.ndim == 2:
            exact = float(torch.linalg.matrix_norm(weight.detach(), ord=2))
            assert measured[name] == pytest.approx(exact, rel=0.01), name


def test_the_hooks_change_no_number_of_the_training(tmp_path):
    config = dataclasses.replace(scenarios.healthy_config(), steps=6, eval_every=2)
    train_recorded(config, 5, tmp_path / "a.jsonl")
    train_recorded(config, 5, tmp_path / "b.jsonl")
    losses = [[r["train_loss"] for r in read_metrics(tmp_path / n)[1]] for n in ("a.jsonl",
                                                                                  "b.jsonl")]
    assert losses[0] == losses[1]
    model = copy_init(MiniGPT(config), 5)
    import numpy as np

    from diagnose.engine.corpus import build_corpus
    x, y = next(build_corpus(config).batches("train", config.batch_size,
                                             np.random.default_rng([5, 1])))
    model.train()
    assert float(model(torch.as_tensor(x), torch.as_tensor(y))) == pytest.approx(losses[0][0],
                                                                                 abs=0)


def test_a_module_name_that_is_not_there_is_one_line(tmp_path):
    model = MiniGPT(scenarios.healthy_config())
    with pytest.raises(RecordError, match="'h.9': no module of that name in the model"):
        ModelRecorder(model, tmp_path / "m.jsonl", RunInfo(steps=5, lr_max=0.1),
                      Hooks(blocks=["h.9"], final_norm="ln_f"))
    with pytest.raises(RecordError, match="dead heads and neurons need probe="):
        ModelRecorder(model, tmp_path / "m.jsonl", RunInfo(steps=5, lr_max=0.1),
                      Hooks(attention=["h.0.attn.probs"]))
