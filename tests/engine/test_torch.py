"""The engine against an independent PyTorch implementation (skipped without torch).

Forward loss, every gradient, and whole training steps (clipping, AdamW, the schedule) agree
in float64 to rounding; float32 agrees to float32's precision.
"""

import dataclasses

import numpy as np
import pytest

from diagnose.engine import Trainer, init_params, loss_and_grads, lr_at
from diagnose.engine.corpus import build_corpus
from diagnose.engine.model import flat_of

torch = pytest.importorskip("torch", exc_type=ImportError)

from . import torch_gpt  # noqa: E402  (needs torch)


def a_batch(config, seed, B=6):
    corpus = build_corpus(config)
    return next(corpus.batches("train", B, np.random.default_rng(seed)))


def both_sides(params, x, y, config):
    """(our loss, our gradients) and (PyTorch autograd's loss, its gradients) of one batch."""
    loss, grads = loss_and_grads(params, x, y, config)
    tparams = torch_gpt.to_torch(params)
    tloss = torch_gpt.loss(tparams, x, y, config)
    tloss.backward()
    return (loss, grads), (float(tloss.detach()), {k: p.grad.numpy() for k, p in tparams.items()})


@pytest.mark.parametrize("mask", ["causal", "full"])
def test_loss_and_every_gradient_match_pytorch(healthy, mask):
    config = dataclasses.replace(healthy, dtype="float64", attention_mask=mask)
    params = init_params(config, 0)
    rng = np.random.default_rng(0)
    for p in params.values():                  # off the init: biases and gains matter too
        p += 0.1 * rng.standard_normal(p.shape)
    x, y = a_batch(config, 0)
    y = y.copy()
    y[:, 3] = -1                               # ignored targets among real tokens
    (loss, grads), (tloss, tgrads) = both_sides(params, x, y, config)
    assert loss == pytest.approx(tloss, rel=1e-12)
    for name, grad in grads.items():
        np.testing.assert_allclose(grad, tgrads[name], rtol=1e-9, atol=1e-13, err_msg=name)


def test_float32_matches_pytorch(healthy):
    params = init_params(healthy, 1)
    x, y = a_batch(healthy, 1)
    (loss, grads), (tloss, tgrads) = both_sides(params, x, y, healthy)
    assert loss == pytest.approx(tloss, rel=1e-5)
    for name, grad in grads.items():
        np.testing.assert_allclose(grad, tgrads[name], atol=1e-4 * np.abs(tgrads[name]).max(),
                                   err_msg=name)


@pytest.mark.parametrize("slug", ["healthy", "no-warmup"])
def test_training_steps_match_pytorch(healthy, slug):
    import scenarios

    config = healthy if slug == "healthy" else scenarios.breaks()[slug].apply(healthy)
    config = dataclasses.replace(config, dtype="float64")
    trainer = Trainer(config, 2, instruments=False)
    tparams = torch_gpt.to_torch(trainer.params)
    opt = torch_gpt.optimizer(tparams, config)
    batches = build_corpus(config).batches("train", config.batch_size,
                                           np.random.default_rng([2, 1]))  # the trainer's
    for step in range(4):
        x, y = next(batches)
        record = trainer.step()
        tloss, tnorm = torch_gpt.train_step(tparams, opt, x, y, lr_at(step, config), config)
        assert record["train_loss"] == pytest.approx(tloss, rel=1e-10)
        assert record["grad_norm_preclip"] == pytest.approx(tnorm, rel=1e-10)
    for name, p in trainer.params.items():
        np.testing.assert_allclose(p, tparams[name].detach().numpy(), rtol=1e-8, atol=1e-12,
                                   err_msg=name)
    assert flat_of(trainer.params).dtype == np.float64
