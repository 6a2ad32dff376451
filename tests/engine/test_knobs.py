"""The deck's engine knobs (levels 2 and 3), each against finite differences in float64 and
against what it claims to do: a leak in one head or one layer of the last block, the attention
logits without 1/sqrt(hs), targets not shifted, a frozen block, weight decay on everything.

The healthy value of every knob is the engine as it was (the golden fixture and the level-1
metrics bytes pin that); these tests cover the other values.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnose.engine import Trainer, init_params, loss_and_grads
from diagnose.engine.corpus import build_corpus
from diagnose.engine.layers import attention_backward, attention_bias, attention_forward
from diagnose.engine.model import flat_of, frozen_positions, gpt_forward

from .helpers import directional_check, tiny_config
from .test_layers import random_batch
from .test_model import batch, check_model_gradients

ENGINE = settings.get_profile("engine")
seeds = st.integers(0, 2**32 - 1)


@settings(ENGINE)
@given(B=st.integers(1, 3), T=st.integers(1, 6), NH=st.integers(1, 3),
       scale=st.sampled_from([None, 1.0, 0.3]), per_head=st.booleans(), seed=seeds)
def test_attention_backward_with_a_scale_and_per_head_masks(B, T, NH, scale, per_head, seed):
    rng = np.random.default_rng(seed)
    idx, rows = random_batch(rng, B, T)
    hs, N = 4, len(rows.index)
    bias = attention_bias(idx, "causal", 0, np.float64)
    if per_head:   # head 0 sees the whole sequence, the others keep the causal mask
        full = attention_bias(idx, "full", 0, np.float64)
        bias = np.concatenate([full, np.repeat(bias, NH - 1, axis=1)], axis=1)
    qkv = rng.standard_normal((N, 3 * NH * hs)) * 2
    dy = rng.standard_normal((N, NH * hs))
    _, cache = attention_forward(qkv, rows, bias, NH, scale)
    directional_check(lambda qkv: attention_forward(qkv, rows, bias, NH, scale)[0],
                      {"qkv": qkv}, {"qkv": attention_backward(dy, cache)}, dy, rng)


def test_the_unscaled_logits_are_sqrt_hs_times_the_textbook_ones():
    rng = np.random.default_rng(0)
    idx, rows = random_batch(rng, 2, 5, pad_share=0)
    qkv = rng.standard_normal((len(rows.index), 3 * 2 * 16))
    bias = attention_bias(idx, "causal", 0, np.float64)
    textbook = attention_forward(qkv, rows, bias, 2)[1].weights
    unscaled = attention_forward(qkv * np.repeat([0.25, 1.0, 1.0], 32), rows, bias, 2,
                                 1.0)[1].weights     # q / sqrt(16) without the scale: the same
    np.testing.assert_allclose(unscaled, textbook, rtol=1e-12)


@settings(ENGINE, max_examples=8)
@given(knob=st.sampled_from([{"mask_leak": "one-head"}, {"mask_leak": "one-layer"},
                             {"attention_logit_scale": "1"}]),
       B=st.integers(1, 3), T=st.integers(2, 7), seed=st.integers(0, 2**32 - 1))
def test_loss_and_grads_match_finite_differences_under_each_knob(knob, B, T, seed):
    config = tiny_config(**knob)
    x, y = batch(np.random.default_rng(seed), config, B, T)
    check_model_gradients(config, x, y, seed)


def test_unshifted_targets_gradients_match_finite_differences():
    config = tiny_config(target_shift=0)
    x, _ = batch(np.random.default_rng(4), config, 3, 6)
    y = np.where(x == 0, -1, x)              # the target of each token is the token itself
    check_model_gradients(config, x, y, 4)


@pytest.mark.parametrize(("leak", "layers_that_see"), [
    ("none", set()), ("one-layer", {1}), ("one-head", {1})])
def test_a_leak_lets_only_the_last_block_see_the_future(leak, layers_that_see):
    config = tiny_config(mask_leak=leak)
    params = init_params(config, 2)
    x = np.array([[1, 2, 3, 4, 5, 6]])
    _, cache = gpt_forward(params, x, config)
    for layer, block in enumerate(cache.blocks):
        att = block.attn.att[0]                                   # (NH, T, S)
        future = np.triu(np.ones((6, 6), bool), 1)
        sees = att[:, future].max(-1) > 0                          # (NH,)
        if layer not in layers_that_see:
            assert not sees.any()
        elif leak == "one-layer":
            assert sees.all()
        else:
            assert sees.tolist() == [True] + [False] * (config.n_heads - 1)


def test_unshifted_targets_are_the_inputs(healthy):
    shifted = build_corpus(healthy)
    unshifted = build_corpus(dataclasses.replace(healthy, target_shift=0))
    x, y = unshifted.batch("train", np.arange(8))
    x1, y1 = shifted.batch("train", np.arange(8))
    np.testing.assert_array_equal(x, x1)
    np.testing.assert_array_equal(np.where(x == 0, -1, x), y)
    np.testing.assert_array_equal(y1[:, :-1][y1[:, 1:] >= 0], x[:, 1:][y1[:, 1:] >= 0])
    assert unshifted.entropy_floor == shifted.entropy_floor      # the task's floor, unchanged


@pytest.fixture(scope="module")
def small(healthy):
    return dataclasses.replace(healthy, d_model=16, n_heads=2, d_ff=32, batch_size=8,
                               steps=6, eval_every=3, warmup_steps=2, probe_examples=8)


def test_a_frozen_block_never_moves_and_its_gradient_is_not_counted(small):
    frozen = dataclasses.replace(small, frozen_layers=1)
    trainer, free = Trainer(frozen, 3), Trainer(small, 3)
    positions = frozen_positions(frozen)
    names = {n for n in trainer.params if n.startswith("h.0.")}
    assert positions.size == sum(trainer.params[n].size for n in names)
    before = flat_of(trainer.params).copy()
    for _ in range(4):
        trainer.step(), free.step()
    after = flat_of(trainer.params)
    np.testing.assert_array_equal(after[positions], before[positions])
    rest = np.setdiff1d(np.arange(after.size), positions)
    assert np.mean(after[rest] != before[rest]) > 0.9          # the rest trains
    # step 0: the same weights, so the same gradient, less the frozen block's share
    x, y = Trainer(small, 3)._batches.__next__()
    _, grads = loss_and_grads(init_params(small, 3), x, y, small)
    g = flat_of(grads).astype(np.float64)
    g[positions] = 0
    first = Trainer(frozen, 3).step()
    assert first["grad_norm_preclip"] == pytest.approx(np.linalg.norm(g), rel=1e-5)


def test_decay_on_everything_also_shrinks_gains_and_biases(small):
    everything = dataclasses.replace(small, weight_decay_on="everything", warmup_steps=0)
    matrices = dataclasses.replace(small, warmup_steps=0)
    a, b = Trainer(everything, 5), Trainer(matrices, 5)
    gain0 = a.params["ln_f.weight"].copy()
    a.step(), b.step()
    shrink = small.lr_max * small.weight_decay * gain0        # p <- p (1 - lr wd) - lr u
    np.testing.assert_allclose(b.params["ln_f.weight"] - a.params["ln_f.weight"], shrink,
                               rtol=1e-4)
    np.testing.assert_array_equal(a.params["wte"], b.params["wte"])
