"""What several engine tests share: a tiny float64 config and the directional check."""

from __future__ import annotations

import dataclasses

import numpy as np

import scenarios


def tiny_config(**changes):
    """A model small enough for whole-model finite differences, in float64."""
    base = dict(vocab_size=11, d_model=8, n_heads=2, n_layers=2, d_ff=12, context=7,
                dtype="float64")
    return dataclasses.replace(scenarios.healthy_config(), **(base | changes))


def directional_check(f, inputs: dict[str, np.ndarray], grads: dict[str, np.ndarray],
                      upstream: np.ndarray | None, rng: np.random.Generator, *,
                      eps: float = 1e-4, rtol: float = 1e-6, atol: float = 1e-9) -> None:
    """Check `grads` (the backward of f at `inputs` for `upstream`) along random directions.

    For each input x with direction d: d/dh <upstream, f(x + h d)> at h = 0 by finite
    differences must equal <grad_x, d> (HIPS/autograd's `check_vjp`, llm.c's random dout).
    f returns an array (contracted with `upstream`) or a scalar loss (`upstream` None).
    The five-point stencil in float64 is good to about 1e-11: its truncation error is
    O(eps^4), its rounding that of an O(1) objective divided by eps.
    """
    def objective(values):
        out = f(**values)
        return float(out if upstream is None else np.sum(out * upstream))

    for name, x in inputs.items():
        d = rng.standard_normal(x.shape)
        at = {h: objective(dict(inputs, **{name: x + h * eps * d})) for h in (-2, -1, 1, 2)}
        numeric = (8 * (at[1] - at[-1]) - (at[2] - at[-2])) / (12 * eps)
        analytic = float(np.sum(grads[name] * d))
        assert abs(numeric - analytic) <= atol + rtol * max(abs(numeric), abs(analytic)), (
            f"gradient of {name!r}: backward says {analytic:.10g}, "
            f"finite differences {numeric:.10g}")
