"""The schedule's boundaries and shape, global-norm clipping, and one AdamW step by hand."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnose.engine import lr_at
from diagnose.engine.optim import AdamW, adam_state, adamw_update, clip_grad_norm

ENGINE = settings.get_profile("engine")


def test_schedule_boundaries(healthy):
    c = dataclasses.replace(healthy, lr_max=1.0, lr_min=0.1, warmup_steps=20, steps=400)
    assert lr_at(0, c) == pytest.approx(1 / 20)           # warmup starts above 0
    assert lr_at(18, c) == pytest.approx(19 / 20)
    assert lr_at(19, c) == 1.0                            # warmup - 1 reaches lr_max
    assert lr_at(20, c) == 1.0                            # the cosine starts at lr_max
    assert lr_at(399, c) == pytest.approx(0.1, abs=1e-15)   # the last step is lr_min
    assert lr_at(400, c) == 0.1                           # past the end: lr_min
    middle = 20 + (399 - 20) / 2
    assert lr_at(int(middle), c) == pytest.approx(0.55, abs=0.01)


def test_no_warmup_starts_at_lr_max(healthy):
    c = dataclasses.replace(healthy, warmup_steps=0)
    assert lr_at(0, c) == c.lr_max
    assert lr_at(1, c) < c.lr_max
    assert lr_at(c.steps - 1, c) == pytest.approx(c.lr_min, abs=1e-15)


def test_the_healthy_schedule(healthy):
    lrs = [lr_at(s, healthy) for s in range(healthy.steps)]
    assert lrs[0] == pytest.approx(healthy.lr_max / healthy.warmup_steps, rel=1e-15)
    assert max(lrs) == healthy.lr_max  # reached exactly, at the end of warmup
    assert lrs[healthy.warmup_steps - 1] == lrs[healthy.warmup_steps] == healthy.lr_max


@settings(ENGINE)
@given(steps=st.integers(1, 500), warmup_share=st.floats(0, 1),
       lr_max=st.floats(1e-5, 1.0), min_share=st.floats(0, 1))
def test_schedule_stays_in_range_and_is_monotone(healthy, steps, warmup_share, lr_max, min_share):
    c = dataclasses.replace(healthy, steps=steps, warmup_steps=int(warmup_share * steps),
                            lr_max=lr_max, lr_min=lr_max * min_share)
    lrs = np.array([lr_at(s, c) for s in range(steps)])
    warm, decay = lrs[:c.warmup_steps], lrs[c.warmup_steps:]
    tol = 1e-12 * lr_max
    assert np.all(warm > 0) and np.all(warm <= c.lr_max + tol)
    assert np.all(np.diff(warm) > 0)
    assert np.all(decay >= c.lr_min - tol) and np.all(decay <= c.lr_max + tol)
    assert np.all(np.diff(decay) <= tol)


@settings(ENGINE)
@given(n=st.integers(1, 50), scale=st.floats(1e-3, 1e3), max_norm=st.floats(0.1, 10),
       seed=st.integers(0, 2**32 - 1))
def test_clipping_caps_the_norm_and_keeps_the_direction(n, scale, max_norm, seed):
    g = np.random.default_rng(seed).standard_normal(n) * scale
    before = g.copy()
    pre, post = clip_grad_norm(g, max_norm)
    assert pre == pytest.approx(np.linalg.norm(before), rel=1e-12)
    assert post == pytest.approx(np.linalg.norm(g), rel=1e-9)
    assert post <= max_norm * (1 + 1e-9)
    if pre <= max_norm:
        assert np.array_equal(g, before)                 # untouched, bit for bit
    else:
        np.testing.assert_allclose(g / post, before / pre, rtol=1e-9)


def test_clipping_a_non_finite_gradient_keeps_it_non_finite():
    with np.errstate(all="ignore"):                  # as in training
        g = np.array([1.0, np.nan, 2.0])
        pre, _ = clip_grad_norm(g, 1.0)
        assert math.isnan(pre) and np.isnan(g).all()
        g = np.array([np.inf, 1.0])
        pre, _ = clip_grad_norm(g, 1.0)
        assert pre == math.inf


def test_adamw_two_steps_by_hand(healthy):
    c = dataclasses.replace(healthy, beta1=0.9, beta2=0.95, eps=1e-8, weight_decay=0.1)
    p0 = np.array([1.0, -2.0, 0.5, 3.0])      # the first two are "matrices", decayed
    grads = [np.array([0.1, -0.2, 0.3, 0.0]), np.array([-0.4, 0.1, 0.2, 0.5])]
    lrs = [0.01, 0.02]

    p, state = p0.copy(), adam_state(p0)
    for step, (g, lr) in enumerate(zip(grads, lrs, strict=True), start=1):
        adamw_update(p, g.copy(), state, step, lr, AdamW.of(c, 2))

    expected, m, v = p0.copy(), np.zeros(4), np.zeros(4)
    for t, (g, lr) in enumerate(zip(grads, lrs, strict=True), start=1):
        m = 0.9 * m + 0.1 * g
        v = 0.95 * v + 0.05 * g * g
        m_hat, v_hat = m / (1 - 0.9**t), v / (1 - 0.95**t)
        expected[:2] -= lr * 0.1 * expected[:2]           # decoupled decay, matrices only
        expected -= lr * m_hat / (np.sqrt(v_hat) + 1e-8)
    np.testing.assert_allclose(p, expected, rtol=1e-13)
    np.testing.assert_allclose(state.m, m, rtol=1e-13)
    np.testing.assert_allclose(state.v, v, rtol=1e-13)


def test_adamw_first_step_moves_each_weight_by_about_lr(healthy):
    c = dataclasses.replace(healthy, weight_decay=0.0)
    g = np.array([1e-3, -5.0, 2.0])
    p = np.zeros(3)
    adamw_update(p, g, adam_state(p), 1, 0.01, AdamW.of(c, 0))
    np.testing.assert_allclose(p, -0.01 * np.sign(g), rtol=1e-4)   # bias correction from 1
