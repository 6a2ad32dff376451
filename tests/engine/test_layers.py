"""Each layer's backward against finite differences, and the layers' invariants.

Every check is directional (HIPS/autograd's `check_vjp`): a random upstream gradient, a random
direction per input, float64, shapes and seeds chosen by hypothesis.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnose.engine import layers

from .helpers import directional_check

ENGINE = settings.get_profile("engine")
seeds = st.integers(0, 2**32 - 1)


@settings(ENGINE)
@given(N=st.integers(1, 12), V=st.integers(2, 9), C=st.integers(1, 6), seed=seeds)
def test_embedding_backward(N, V, C, seed):
    rng = np.random.default_rng(seed)
    ids, wte = rng.integers(0, V, N), rng.standard_normal((V, C))
    dy = rng.standard_normal((N, C))
    _, cache = layers.embedding_forward(ids, wte)
    dwte = layers.embedding_backward(dy, cache)
    directional_check(lambda wte: layers.embedding_forward(ids, wte)[0], {"wte": wte},
                      {"wte": dwte}, dy, rng)


@settings(ENGINE)
@given(N=st.integers(1, 12), C=st.integers(4, 10), seed=seeds, scale=st.sampled_from([0.1, 1, 30]))
def test_layernorm_backward(N, C, seed, scale):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, C)) * scale + rng.standard_normal()
    w, b = rng.standard_normal(C), rng.standard_normal(C)
    dy = rng.standard_normal((N, C))
    _, cache = layers.layernorm_forward(x, w, b)
    dx, dw, db = layers.layernorm_backward(dy, cache)
    directional_check(lambda x, w, b: layers.layernorm_forward(x, w, b)[0],
                      {"x": x, "w": w, "b": b},
                      {"x": dx, "w": dw, "b": db}, dy, rng, eps=1e-5)  # sharp when var ~ eps


def test_layernorm_normalises():
    x = np.random.default_rng(0).standard_normal((5, 16)) * 7 + 3
    y, _ = layers.layernorm_forward(x, np.ones(16), np.zeros(16))
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(-1), 1, rtol=1e-5)  # eps 1e-5 against variance 49


@settings(ENGINE)
@given(N=st.integers(1, 12), fan_in=st.integers(1, 8), fan_out=st.integers(1, 8),
       bias=st.booleans(), seed=seeds)
def test_linear_backward(N, fan_in, fan_out, bias, seed):
    rng = np.random.default_rng(seed)
    x, W = rng.standard_normal((N, fan_in)), rng.standard_normal((fan_in, fan_out))
    b = rng.standard_normal(fan_out)
    dy = rng.standard_normal((N, fan_out))
    _, cache = layers.linear_forward(x, W, b if bias else None)
    dx, dW, db = layers.linear_backward(dy, cache)
    inputs, grads = {"x": x, "W": W}, {"x": dx, "W": dW}
    if bias:
        inputs["b"], grads["b"] = b, db
    directional_check(lambda **p: layers.linear_forward(p["x"], p["W"], p.get("b"))[0],
                      inputs, grads, dy, rng)


@settings(ENGINE)
@given(N=st.integers(1, 12), F=st.integers(1, 10), seed=seeds,
       scale=st.sampled_from([0.1, 1, 4]))
def test_gelu_backward(N, F, seed, scale):
    rng = np.random.default_rng(seed)
    x, dy = rng.standard_normal((N, F)) * scale, rng.standard_normal((N, F))
    _, cache = layers.gelu_forward(x)
    directional_check(lambda x: layers.gelu_forward(x)[0], {"x": x},
                      {"x": layers.gelu_backward(dy, cache)}, dy, rng)


def test_gelu_is_the_tanh_approximation():
    x = np.linspace(-5, 5, 101)
    expected = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(layers.gelu_forward(x)[0], expected, rtol=1e-14, atol=1e-15)


@settings(ENGINE)
@given(N=st.integers(1, 9), NH=st.integers(1, 3), hs=st.sampled_from([2, 4, 8]), seed=seeds)
def test_rope_backward(N, NH, hs, seed):
    rng = np.random.default_rng(seed)
    C = NH * hs
    table = layers.rope_table(rng.integers(0, 32, N), 32, C, NH, np.float64)
    qkv, dy = rng.standard_normal((N, 3 * C)), rng.standard_normal((N, 3 * C))
    _, cache = layers.rope_forward(qkv, table)
    directional_check(lambda qkv: layers.rope_forward(qkv, table)[0], {"qkv": qkv},
                      {"qkv": layers.rope_backward(dy, cache)}, dy, rng)


@settings(ENGINE)
@given(N=st.integers(1, 9), NH=st.integers(1, 3), hs=st.sampled_from([2, 4, 8]), seed=seeds)
def test_rope_in_place_is_the_same_rotation(N, NH, hs, seed):
    """`out=` (the model rotates the arrays it owns in place) gives the same bits, and without
    it the input is left as it was."""
    rng = np.random.default_rng(seed)
    C = NH * hs
    table = layers.rope_table(rng.integers(0, 32, N), 32, C, NH, np.float32)
    qkv = rng.standard_normal((N, 3 * C)).astype(np.float32)
    before = qkv.copy()
    y, cache = layers.rope_forward(qkv, table)
    dx = layers.rope_backward(y, cache)
    assert np.array_equal(qkv, before)
    elsewhere = np.empty_like(qkv)
    assert np.array_equal(layers.rope_forward(qkv, table, out=elsewhere)[0], y)
    assert np.array_equal(layers.rope_backward(y.copy(), cache, out=elsewhere), dx)
    in_place, _ = layers.rope_forward(qkv, table, out=qkv)
    assert in_place is qkv and np.array_equal(qkv, y)
    assert np.array_equal(layers.rope_backward(qkv, cache, out=qkv), dx)


def rope_on_heads(x, positions, NH):
    """RoPE through the layer: x (N, C) is q in head order, rotated as q and k are."""
    N, C = x.shape
    order = layers.rope_order(C, NH)
    qkv = np.concatenate([x, x, np.zeros((N, C))], axis=1)[:, order]     # as c_attn makes it
    y, _ = layers.rope_forward(qkv, layers.rope_table(positions, 32, C, NH, np.float64))
    rotated = np.empty_like(y)
    rotated[:, order] = y                                                 # back to head order
    assert np.array_equal(rotated[:, :C], rotated[:, C:2 * C])          # q and k alike
    return rotated[:, :C]


def test_rope_is_rotate_half_with_base_10000():
    T, NH, hs = 6, 2, 8
    x = np.random.default_rng(1).standard_normal((T, NH * hs))
    theta = np.arange(T)[:, None] * 10000.0 ** (-np.arange(0, hs, 2) / hs)   # (T, hs/2)
    expected = []
    for head in range(NH):
        x1, x2 = x[:, head * hs:head * hs + hs // 2], x[:, head * hs + hs // 2:(head + 1) * hs]
        expected += [x1 * np.cos(theta) - x2 * np.sin(theta),
                     x2 * np.cos(theta) + x1 * np.sin(theta)]
    np.testing.assert_allclose(rope_on_heads(x, np.arange(T), NH),
                               np.concatenate(expected, axis=1), atol=1e-14)


def test_rope_scores_depend_only_on_relative_position():
    T, NH, hs = 9, 1, 16
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal(hs), rng.standard_normal(hs)
    rq = rope_on_heads(np.tile(q, (T, 1)), np.arange(T), NH)
    rk = rope_on_heads(np.tile(k, (T, 1)), np.arange(T), NH)
    scores = rq @ rk.T                                    # (T, T), query t, key s
    for offset in range(-3, 4):
        diagonal = np.diagonal(scores, offset)
        np.testing.assert_allclose(diagonal, diagonal[0], rtol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(rq, axis=-1), np.linalg.norm(q), rtol=1e-12)


def random_batch(rng, B, T, pad_share=0.3):
    """Token ids (B, T) with random pads (id 0), and their real rows."""
    idx = rng.integers(1, 9, (B, T))
    idx[rng.random((B, T)) < pad_share] = 0
    return idx, layers.Rows(np.flatnonzero(idx.reshape(-1) != 0), B, T)


@settings(ENGINE)
@given(B=st.integers(1, 3), T=st.integers(1, 6), NH=st.integers(1, 3),
       hs=st.sampled_from([2, 4]), mask=st.sampled_from(["causal", "full"]), seed=seeds)
def test_attention_backward(B, T, NH, hs, mask, seed):
    rng = np.random.default_rng(seed)
    idx, rows = random_batch(rng, B, T)
    N, C = len(rows.index), NH * hs
    bias = layers.attention_bias(idx, mask, 0, np.float64)
    qkv = rng.standard_normal((N, 3 * C)) * 2
    dy = rng.standard_normal((N, C))
    _, cache = layers.attention_forward(qkv, rows, bias, NH)
    directional_check(lambda qkv: layers.attention_forward(qkv, rows, bias, NH)[0],
                      {"qkv": qkv}, {"qkv": layers.attention_backward(dy, cache)}, dy, rng)


@settings(ENGINE)
@given(B=st.integers(1, 3), T=st.integers(1, 7), NH=st.integers(1, 3),
       mask=st.sampled_from(["causal", "full"]), seed=seeds)
def test_attention_weights_are_a_softmax_over_allowed_keys(B, T, NH, mask, seed):
    rng = np.random.default_rng(seed)
    idx, rows = random_batch(rng, B, T)
    hs = 4
    qkv = rng.standard_normal((len(rows.index), 3 * NH * hs)) * 3
    bias = layers.attention_bias(idx, mask, 0, np.float64)
    _, cache = layers.attention_forward(qkv, rows, bias, NH)
    att = cache.att                                                   # (B, NH, T, S)
    np.testing.assert_allclose(att.sum(-1), 1.0, rtol=1e-12)
    allowed = np.ones((T, T), bool) if mask == "full" else np.tril(np.ones((T, T), bool))
    allowed = allowed[None] & (idx != 0)[:, None, :] | np.eye(T, dtype=bool)  # (B, T, S)
    assert np.all(att[~np.broadcast_to(allowed[:, None], att.shape)] == 0)
    real_query = (idx != 0)[:, None, :, None]
    assert np.all((att > 0) | ~np.broadcast_to(allowed[:, None], att.shape) | ~real_query)


@settings(ENGINE)
@given(N=st.integers(1, 10), V=st.integers(2, 9), seed=seeds,
       scale=st.sampled_from([1.0, 30.0]))
def test_cross_entropy_backward(N, V, seed, scale):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((N, V)) * scale
    targets = rng.integers(-1, V, N)                      # -1 is ignored
    _, cache = layers.cross_entropy_forward(logits, targets)
    directional_check(lambda logits: layers.cross_entropy_forward(logits, targets)[0],
                      {"logits": logits}, {"logits": layers.cross_entropy_backward(cache)}, None,
                      rng)


def test_cross_entropy_is_the_mean_over_counted_targets():
    logits = np.array([[0.0, 0.0], [2.0, 0.0], [5.0, 1.0]])
    loss, _ = layers.cross_entropy_forward(logits, np.array([0, -1, 1]))
    expected = (math.log(2) + (math.log(math.exp(5) + math.exp(1)) - 1)) / 2
    assert loss == pytest.approx(expected, rel=1e-14)
    assert layers.cross_entropy_forward(logits, np.array([-1, -1, -1]))[0] == 0.0


def test_cross_entropy_is_stable_for_huge_logits():
    logits = np.array([[1e4, -1e4, 0.0]], dtype=np.float32)
    loss, cache = layers.cross_entropy_forward(logits, np.array([1]))
    assert loss == pytest.approx(2e4, rel=1e-6)
    assert np.isfinite(layers.cross_entropy_backward(cache)).all()
