"""The learning-rate schedule, global-norm clipping and AdamW, over flat buffers.

The schedule is one pure function with its three cases labelled (nanoGPT's `get_lr`). Clipping
and AdamW work in place on the flat parameter and gradient buffers of `model.py`, so each is a
few vectorised expressions. Weight decay is decoupled (AdamW) and touches only the leading
slice of the buffer that holds the matrices and the embedding (nanoGPT's
`configure_optimizers`); bias correction counts from step 1. Nothing here knows the model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


def lr_at(step: int, config) -> float:
    """The learning rate applied at step `step` (0-based)."""
    warmup, last = config.warmup_steps, config.steps - 1
    # 1) linear warmup: lr_max * (t + 1) / warmup, reaching lr_max at t = warmup - 1
    if step < warmup:
        return config.lr_max * ((step + 1) / warmup)  # the fraction first: exact lr_max at the end
    # 2) past the last step: lr_min
    if step > last:
        return config.lr_min
    # 3) cosine from lr_max at t = warmup down to lr_min at t = steps - 1
    ratio = (step - warmup) / max(last - warmup, 1)
    coeff = 0.5 * (1.0 + math.cos(math.pi * ratio))
    # a weighted mean, exact at both ends (lr_min + coeff * (lr_max - lr_min) misses lr_max)
    return coeff * config.lr_max + (1.0 - coeff) * config.lr_min


def clip_grad_norm(grads: np.ndarray, max_norm: float) -> tuple[float, float]:
    """Scale the flat gradient in place so its L2 norm is at most `max_norm`.

    Returns the norm before and after. As in PyTorch, the scale is max_norm / (norm + 1e-6)
    when below 1; a non-finite norm turns the gradient non-finite (the run shows it).
    """
    norm = float(np.sqrt(np.dot(grads, grads)))
    scale = max_norm / (norm + 1e-6)
    if not scale >= 1.0:  # also true when norm is nan
        grads *= grads.dtype.type(scale)
        return norm, norm * scale
    return norm, norm


@dataclass(frozen=True)
class AdamW:
    """The optimizer's settings: `config`'s betas, eps and weight decay, and how long the
    flat buffer's decayed leading slice is."""

    beta1: float
    beta2: float
    eps: float
    weight_decay: float
    n_decay: int  # params[:n_decay] is decayed

    @classmethod
    def of(cls, config, n_decay: int) -> AdamW:
        return cls(config.beta1, config.beta2, config.eps, config.weight_decay, n_decay)


class AdamState(NamedTuple):
    m: np.ndarray        # first moment, flat like the parameters
    v: np.ndarray        # second moment
    scratch: np.ndarray  # a buffer like the parameters, so that an update allocates nothing


def adam_state(params: np.ndarray) -> AdamState:
    return AdamState(np.zeros_like(params), np.zeros_like(params), np.empty_like(params))


def adamw_update(params: np.ndarray, grads: np.ndarray, state: AdamState, step: int, lr: float,
                 adamw: AdamW) -> None:
    """One AdamW update in place; `step` counts from 1 (bias correction).

    p <- p * (1 - lr * wd)                   (the decayed slice only, decoupled)
    p <- p - lr * m_hat / (sqrt(v_hat) + eps)
    """
    b1, b2 = adamw.beta1, adamw.beta2
    m, v, scratch = state
    m *= b1
    np.multiply(grads, 1.0 - b1, out=scratch)
    m += scratch                                   # m = b1 m + (1 - b1) g
    v *= b2
    np.multiply(grads, grads, out=scratch)
    scratch *= 1.0 - b2
    v += scratch                                   # v = b2 v + (1 - b2) g^2
    # m_hat / (sqrt(v_hat) + eps) with m_hat = m / (1 - b1^t), v_hat = v / (1 - b2^t)
    np.sqrt(v, out=scratch)
    scratch *= 1.0 / math.sqrt(1.0 - b2 ** step)
    scratch += adamw.eps
    np.divide(m, scratch, out=scratch)
    params[:adamw.n_decay] *= 1.0 - lr * adamw.weight_decay
    scratch *= lr / (1.0 - b1 ** step)
    params -= scratch
