"""The instruments on constructed cases: spectral norms against the SVD, activations at init,
dead heads (degenerate and unneeded) and dead neurons."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnose.engine import init_params
from diagnose.engine.corpus import probe_batch
from diagnose.engine.instruments import SpectralNorms, act_mean_abs, dead_units, degenerate_heads
from diagnose.engine.model import loss_of, matrix_names


def svd_norm(W):
    return float(np.linalg.svd(W.astype(np.float64), compute_uv=False)[0])


def test_power_iteration_matches_svd_from_the_first_measurement(healthy):
    params = init_params(healthy, 0)
    sigmas = SpectralNorms(matrix_names(healthy), healthy.d_model).measure(params)
    assert list(sigmas) == matrix_names(healthy)
    for name, sigma in sigmas.items():
        assert sigma == pytest.approx(svd_norm(params[name]), rel=0.01), name


def test_kept_vectors_track_drifting_weights(healthy):
    rng = np.random.default_rng(1)
    params = init_params(healthy, 1)
    spectral = SpectralNorms(matrix_names(healthy), healthy.d_model)
    spectral.measure(params)
    for _ in range(5):                 # steps much larger than training's (lr 2.5e-2, Adam)
        for name in matrix_names(healthy):
            W = params[name]
            W += 0.03 * np.abs(W).mean() * rng.standard_normal(W.shape) + 0.002 * W.sum(0)
        for name, sigma in spectral.measure(params).items():
            assert sigma == pytest.approx(svd_norm(params[name]), rel=0.01), name


def with_singular_values(rng, shape, sigmas):
    """A float64 matrix of `shape` whose leading singular values are `sigmas`."""
    u, _ = np.linalg.qr(rng.standard_normal((shape[0], shape[0])))
    v, _ = np.linalg.qr(rng.standard_normal((shape[1], shape[1])))
    s = np.zeros(min(shape))
    s[:len(sigmas)] = sigmas
    return (u[:, :len(s)] * s) @ v[:, :len(s)].T


@settings(settings.get_profile("engine"))
@given(seed=st.integers(0, 2**32 - 1), gap=st.floats(0.0, 0.2), jump=st.floats(0.0, 1.0),
       wide=st.booleans())
def test_block_estimate_follows_ties_drift_and_a_new_top_direction(seed, gap, jump, wide):
    """Within 1% of numpy.linalg.norm(W, 2) (float64) at every call: top singular values
    that tie within `gap`, small drifts, then a new direction `jump` larger than the top (an
    update with no warmup does that) appearing in one step."""
    rng = np.random.default_rng(seed)
    C = 64
    shape = (C, 4 * C) if wide else (4 * C, C)
    decay = 1.0 - gap * np.arange(C) / C
    W = with_singular_values(rng, shape, decay * rng.uniform(0.5, 3.0) * np.linspace(1, 0.2, C))
    spectral = SpectralNorms(["W"], C)
    for step in range(6):
        if step == 3:
            new = np.outer(rng.standard_normal(shape[0]), rng.standard_normal(shape[1]))
            W = W + new * (1.0 + jump) * np.linalg.norm(W, 2) / np.linalg.norm(new, 2)
        elif step:
            W = W + 0.02 * np.abs(W).mean() * rng.standard_normal(shape)
        sigma = spectral.measure({"W": W})["W"]
        assert sigma == pytest.approx(np.linalg.norm(W, 2), rel=0.01), step


def test_non_finite_weights_give_nan_and_the_vector_recovers(healthy):
    params = init_params(healthy, 2)
    spectral = SpectralNorms(["wte"], healthy.d_model)
    params["wte"][0, 0] = np.nan
    with np.errstate(all="ignore"):
        assert np.isnan(spectral.measure(params)["wte"])
    params["wte"][0, 0] = 0.0
    assert spectral.measure(params)["wte"] == pytest.approx(svd_norm(params["wte"]), rel=0.01)


def test_activations_at_init(healthy):
    x, y = probe_batch(healthy)
    _, cache = loss_of(init_params(healthy, 0), x, y, healthy)
    acts = act_mean_abs(cache)
    assert len(acts) == healthy.n_layers + 1
    assert acts[-1] == pytest.approx(np.sqrt(2 / np.pi), rel=0.05)   # LN output ~ N(0, 1)
    assert all(0.05 < a < 5 for a in acts[:-1])


def test_resuming_at_a_block_reproduces_the_forward_pass(healthy):
    params, (x, y) = init_params(healthy, 0), probe_batch(healthy)
    loss, cache = loss_of(params, x, y, healthy)
    for layer in range(healthy.n_layers):
        resumed, _ = loss_of(params, x, y, healthy, resume=(layer, cache.blocks[layer].ln_1.x))
        assert resumed == loss


def test_an_ablation_after_the_attention_equals_a_whole_forward_pass(healthy):
    """The dead-head probe starts an ablation after the block's attention, from the probe's
    own heads: the same bits as zeroing the head in a forward pass from the embedding."""
    params, (x, y) = init_params(healthy, 7), probe_batch(healthy)
    _, cache = loss_of(params, x, y, healthy)
    heads_before = [block.attn_proj.x.copy() for block in cache.blocks]
    for layer in range(healthy.n_layers):
        block = cache.blocks[layer]
        for head in range(healthy.n_heads):
            whole, _ = loss_of(params, x, y, healthy, ablate=(layer, head))
            resumed, _ = loss_of(params, x, y, healthy, ablate=(layer, head),
                                 resume=(layer, block.ln_1.x, block.attn_proj.x))
            assert resumed == whole, (layer, head)
    for block, before in zip(cache.blocks, heads_before, strict=True):
        assert np.array_equal(block.attn_proj.x, before)   # the probe's cache is untouched


def head_columns(config, head):
    hs = config.d_model // config.n_heads
    return slice(head * hs, (head + 1) * hs)


def silence_attention(params, config, layer, head):
    """Zero the head's q and k projections: all its scores are 0, its attention uniform."""
    W, C, cols = params[f"h.{layer}.attn.c_attn.weight"], config.d_model, head_columns(config, head)
    W[:, cols] = 0.0
    W[:, C + cols.start:C + cols.stop] = 0.0


@pytest.fixture
def wide(healthy):
    return dataclasses.replace(healthy, dtype="float64")


def test_a_uniform_unneeded_head_is_dead(wide):
    params, probe = init_params(wide, 3), probe_batch(wide)
    silence_attention(params, wide, 1, 2)
    params["h.1.attn.c_proj.weight"][head_columns(wide, 2)] = 0.0   # its output goes nowhere
    x, y = probe
    _, cache = loss_of(params, x, y, wide)
    assert degenerate_heads(cache, x, wide)[1, 2]
    heads, _ = dead_units(params, probe, wide)
    assert heads[1, 2]


def test_a_uniform_head_that_is_needed_is_not_dead(wide):
    params, probe = init_params(wide, 3), probe_batch(wide)
    silence_attention(params, wide, 0, 1)
    params["h.0.attn.c_proj.weight"][head_columns(wide, 1)] *= 30.0  # its output matters
    x, y = probe
    _, cache = loss_of(params, x, y, wide)
    assert degenerate_heads(cache, x, wide)[0, 1]
    heads, _ = dead_units(params, probe, wide)
    assert not heads[0, 1]


def test_every_silenced_and_disconnected_head_is_dead(wide):
    params = init_params(wide, 4)
    for layer in range(wide.n_layers):
        params[f"h.{layer}.attn.c_attn.weight"][:, :2 * wide.d_model] = 0.0
        params[f"h.{layer}.attn.c_proj.weight"][...] = 0.0
    heads, _ = dead_units(params, probe_batch(wide), wide)
    assert heads.shape == (wide.n_layers, wide.n_heads) and heads.all()


def test_collapsed_attention_is_degenerate(wide):
    params, (x, y) = init_params(wide, 5), probe_batch(wide)
    W = params["h.0.attn.c_attn.weight"]
    W[:, :2 * wide.d_model] *= 40.0                      # sharp scores: one key wins
    _, cache = loss_of(params, x, y, wide)
    assert degenerate_heads(cache, x, wide)[0].all()


def test_dead_neurons_are_never_positive_on_the_probe(wide):
    params, probe = init_params(wide, 6), probe_batch(wide)
    _, fresh = dead_units(params, probe, wide)
    assert fresh.shape == (wide.n_layers, wide.d_ff) and fresh.mean() < 0.02
    params["h.0.mlp.c_fc.bias"][:100] = -1e3
    _, neurons = dead_units(params, probe, wide)
    assert neurons[0, :100].all()
    params["h.0.mlp.c_fc.bias"][:100] = 0.0
    params["h.0.mlp.c_fc.weight"][:, 7] = 0.0
    params["h.0.mlp.c_fc.bias"][7] = 1e-6                # never negative: alive
    _, neurons = dead_units(params, probe, wide)
    assert not neurons[0, 7]
