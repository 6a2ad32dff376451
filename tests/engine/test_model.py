"""The whole model: parameter names, shapes, count and init; `loss_and_grads` against finite
differences (both masks, ignored targets, padding); what the masks let through."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scenarios
from diagnose.engine import count_params, init_params, loss_and_grads
from diagnose.engine.model import flat_of, matrix_names, n_decayed

from .helpers import directional_check, tiny_config

ENGINE = settings.get_profile("engine")

GPT2_SHAPES = {"wte": (64, 64)} | {
    name: shape for i in (0, 1) for name, shape in {
        f"h.{i}.ln_1.weight": (64,), f"h.{i}.ln_1.bias": (64,),
        f"h.{i}.attn.c_attn.weight": (64, 192), f"h.{i}.attn.c_proj.weight": (64, 64),
        f"h.{i}.ln_2.weight": (64,), f"h.{i}.ln_2.bias": (64,),
        f"h.{i}.mlp.c_fc.weight": (64, 256), f"h.{i}.mlp.c_fc.bias": (256,),
        f"h.{i}.mlp.c_proj.weight": (256, 64), f"h.{i}.mlp.c_proj.bias": (64,),
    }.items()} | {"ln_f.weight": (64,), "ln_f.bias": (64,)}


def test_names_shapes_and_count(healthy):
    params = init_params(healthy, 0)
    assert {name: p.shape for name, p in params.items()} == GPT2_SHAPES
    assert list(params) == list(GPT2_SHAPES)
    assert count_params(healthy) == 103_680
    assert flat_of(params).size == 103_680 and flat_of(params).dtype == np.float32


def test_params_are_views_into_one_buffer_matrices_first(healthy):
    params = init_params(healthy, 0)
    flat = flat_of(params)
    flat[:] = np.arange(flat.size)
    decayed = np.concatenate([params[name].ravel() for name in matrix_names(healthy)])
    assert sorted(decayed) == list(range(n_decayed(healthy)))    # the leading slice
    assert set(matrix_names(healthy)) == {n for n, s in GPT2_SHAPES.items() if len(s) == 2}


@pytest.mark.parametrize("init_scale", [1.0, 100.0])
def test_init_is_xavier_normal_times_scale(healthy, init_scale):
    config = dataclasses.replace(healthy, init_scale=init_scale)
    params = init_params(config, 3)
    for name, p in params.items():
        if p.ndim == 2:
            xavier = init_scale * math.sqrt(2 / (p.shape[0] + p.shape[1]))
            assert p.std() == pytest.approx(xavier, rel=0.05), name
            assert abs(p.mean()) < 0.05 * xavier, name
        elif ".ln_" in name or name.startswith("ln_"):
            assert np.all(p == (1.0 if name.endswith("weight") else 0.0)), name
        else:
            assert np.all(p == 0.0), name


def test_init_depends_on_the_seed_only_and_not_on_the_dtype(healthy):
    a, b = init_params(healthy, 7), init_params(healthy, 7)
    wide = init_params(dataclasses.replace(healthy, dtype="float64"), 7)
    other = init_params(healthy, 8)
    assert np.array_equal(flat_of(a), flat_of(b))
    assert np.array_equal(flat_of(wide).astype(np.float32), flat_of(a))
    assert not np.array_equal(flat_of(other), flat_of(a))


def batch(rng, config, B, T, *, ignore_share=0.2):
    """Rows that start with a real token and end in pads; y = -1 at pads and here and there."""
    x = rng.integers(1, config.vocab_size, (B, T))
    y = rng.integers(0, config.vocab_size, (B, T))
    for row, length in enumerate(rng.integers(1, T + 1, B)):
        x[row, length:], y[row, length:] = 0, -1
    y[rng.random((B, T)) < ignore_share] = -1
    return x, y


def check_model_gradients(config, x, y, seed, *, rtol=1e-6):
    rng = np.random.default_rng(seed)
    params = init_params(config, seed)
    for p in params.values():      # move biases and gains off their init so they are tested
        p += 0.1 * rng.standard_normal(p.shape)
    loss, grads = loss_and_grads(params, x, y, config)
    assert np.isfinite(loss) and all(g.dtype == np.float64 for g in grads.values())
    directional_check(lambda **p: loss_and_grads(p, x, y, config)[0], params, grads, None, rng,
                      rtol=rtol)


@settings(ENGINE, max_examples=10)
@given(mask=st.sampled_from(["causal", "full"]), B=st.integers(1, 3), T=st.integers(1, 7),
       seed=st.integers(0, 2**32 - 1))
def test_loss_and_grads_match_finite_differences(mask, B, T, seed):
    config = tiny_config(attention_mask=mask)
    x, y = batch(np.random.default_rng(seed), config, B, T)
    check_model_gradients(config, x, y, seed)


@pytest.mark.parametrize("mask", ["causal", "full"])
def test_loss_and_grads_at_the_real_shapes(healthy, mask):
    config = dataclasses.replace(healthy, dtype="float64", attention_mask=mask)
    x, y = batch(np.random.default_rng(5), config, 3, config.context)
    check_model_gradients(config, x, y, 5, rtol=1e-5)


def test_initial_loss_is_near_uniform(healthy):
    x, y = batch(np.random.default_rng(0), healthy, 8, 20)
    loss, _ = loss_and_grads(init_params(healthy, 0), x, y, healthy)
    assert abs(loss - math.log(healthy.vocab_size)) < 1.0   # logits start with std ~1


def test_padding_changes_nothing():
    config = tiny_config()
    rng = np.random.default_rng(1)
    params = init_params(config, 1)
    x, y = batch(rng, config, 2, 5, ignore_share=0)
    x[:, -1], y[:, -1] = 0, -1
    padded_x = np.concatenate([x, np.zeros((2, 3), int)], axis=1)
    padded_y = np.concatenate([y, -np.ones((2, 3), int)], axis=1)
    loss, grads = loss_and_grads(params, x, y, config)
    padded_loss, padded_grads = loss_and_grads(params, padded_x, padded_y, config)
    assert padded_loss == pytest.approx(loss, rel=1e-13)
    for name in grads:
        np.testing.assert_allclose(padded_grads[name], grads[name], rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("mask, future_matters", [("causal", False), ("full", True)])
def test_only_the_full_mask_sees_the_future(mask, future_matters):
    config = tiny_config(attention_mask=mask)
    params = init_params(config, 2)
    x = np.array([[1, 2, 3, 4, 5, 6]])
    y = np.array([[2, 3, -1, -1, -1, -1]])         # only the first two positions are scored
    changed = x.copy()
    changed[0, 4] = 9                              # a future token
    before, _ = loss_and_grads(params, x, y, config)
    after, _ = loss_and_grads(params, changed, y, config)
    assert (before != after) == future_matters


def test_float32_agrees_with_float64(healthy):
    x, y = batch(np.random.default_rng(3), healthy, 4, 24)
    loss32, grads32 = loss_and_grads(init_params(healthy, 4), x, y, healthy)
    wide = dataclasses.replace(healthy, dtype="float64")
    loss64, grads64 = loss_and_grads(init_params(wide, 4), x, y, wide)
    assert grads32["wte"].dtype == np.float32
    assert loss32 == pytest.approx(loss64, rel=1e-5)
    for name in grads64:
        scale = np.abs(grads64[name]).max()
        np.testing.assert_allclose(grads32[name], grads64[name], atol=1e-4 * scale, err_msg=name)


def test_the_healthy_config_is_the_lab_model():
    c = scenarios.healthy_config()
    assert (c.vocab_size, c.d_model, c.n_heads, c.n_layers, c.d_ff) == (64, 64, 4, 2, 256)
