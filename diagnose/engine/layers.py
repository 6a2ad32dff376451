"""The model's layers, each a pair of pure functions side by side: forward and backward.

`*_forward(inputs, params) -> (out, cache)` and `*_backward(dout, cache) -> (dinputs, dparams)`,
no hidden state; a cache is a small NamedTuple holding only what backward needs. Each backward
step names, in a comment, the forward line it undoes. Dimension letters: B batch, T time
(S for keys), C channels (d_model), NH heads, hs head size, V vocabulary, F feed-forward width,
N the real (non-pad) tokens of a batch. Every function computes in its inputs' dtype (float32
for training, float64 in the tests).

Position-wise layers see only the batch's real tokens, packed as (N, ...): padding does no
work. Attention scatters them back into their (B, T) rows. Array code is written to allocate
little (in-place updates, matmuls for short-row reductions, which numpy's reduce does slowly):
the speed of a step is mostly how few passes over memory it makes. The linear layer's backward
comes in two halves, the input's gradient and the parameters' (`linear_backward` is both), so
that the model can compute the second off its critical path.

Here: embedding, layernorm, linear, GELU (tanh), RoPE, causal/full self-attention with padded
keys masked, and cross-entropy over a stable log-softmax. The wiring into a GPT is `model.py`.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

LN_EPS = 1e-5
GELU_C = math.sqrt(2.0 / math.pi)
GELU_A = 0.044715
ROPE_BASE = 10000.0


@functools.lru_cache(maxsize=64)
def filled(n: int, value: float, dtype: np.dtype) -> np.ndarray:
    """A read-only vector of n values (reductions as matmuls reuse it)."""
    out = np.full(n, value, dtype)
    out.flags.writeable = False
    return out


def sum_rows(x: np.ndarray) -> np.ndarray:
    """Sum over the rows, as a matmul: (N, D) -> (D,)."""
    return filled(x.shape[0], 1.0, x.dtype) @ x


# --- embedding --------------------------------------------------------------------------------

class EmbeddingCache(NamedTuple):
    ids: np.ndarray  # (N,) token ids
    V: int


def embedding_forward(ids: np.ndarray, wte: np.ndarray) -> tuple[np.ndarray, EmbeddingCache]:
    x = wte[ids]  # (N,) -> (N, C)
    return x, EmbeddingCache(ids, wte.shape[0])


def embedding_backward(dx: np.ndarray, cache: EmbeddingCache) -> np.ndarray:
    # x = wte[ids]: each row of wte collects the gradient of every token that read it, summed
    # as a one-hot matmul (one BLAS call rather than a scatter-add).
    onehot = np.zeros((cache.ids.size, cache.V), dtype=dx.dtype)  # (N, V)
    onehot[np.arange(cache.ids.size), cache.ids] = 1
    return onehot.T @ dx                                          # (V, N) @ (N, C) -> (V, C)


# --- layernorm --------------------------------------------------------------------------------

class LayerNormCache(NamedTuple):
    x: np.ndarray     # (N, C) the input
    mean: np.ndarray  # (N, 1)
    rstd: np.ndarray  # (N, 1)
    w: np.ndarray     # (C,) the gain


def layernorm_forward(x: np.ndarray, w: np.ndarray,
                      b: np.ndarray) -> tuple[np.ndarray, LayerNormCache]:
    mean_of = filled(x.shape[-1], 1.0 / x.shape[-1], x.dtype)  # a matvec takes row means
    mean = (x @ mean_of)[:, None]                       # (N, C) -> (N, 1)
    xc = x - mean
    var = (xc * xc) @ mean_of                           # (N,)
    var += LN_EPS
    rstd = (1.0 / np.sqrt(var))[:, None]                # (N, 1)
    norm = xc
    norm *= rstd                                        # norm = (x - mean) * rstd
    y = norm * w
    y += b
    return y, LayerNormCache(x, mean, rstd, w)


def layernorm_backward(dy: np.ndarray,
                       cache: LayerNormCache) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, mean, rstd, w = cache
    C = x.shape[-1]
    norm = x - mean                          # recomputed: norm = (x - mean) * rstd
    norm *= rstd
    # y = norm * w + b
    dy_norm = dy * norm
    db, dw = sum_rows(dy), sum_rows(dy_norm)
    dnorm = dy * w
    # norm = (x - mean) * rstd, with mean and rstd functions of x:
    # dx = rstd * (dnorm - mean(dnorm) - norm * mean(dnorm * norm)), the three paths; both
    # means are matvecs with w / C, since dnorm = dy * w.
    w_over_C = w / C
    dnorm -= (dy @ w_over_C)[:, None]                   # mean(dnorm), (N,)
    norm *= (dy_norm @ w_over_C)[:, None]               # mean(dnorm * norm), (N,)
    dnorm -= norm
    dnorm *= rstd
    return dnorm, dw, db


# --- linear -----------------------------------------------------------------------------------

class LinearCache(NamedTuple):
    x: np.ndarray  # (N, in)
    W: np.ndarray  # (in, out)
    bias: bool     # whether there was a bias (it needs a gradient)


def linear_forward(x: np.ndarray, W: np.ndarray,
                   b: np.ndarray | None = None) -> tuple[np.ndarray, LinearCache]:
    y = x @ W               # (N, in) @ (in, out) -> (N, out)
    if b is not None:
        y += b
    return y, LinearCache(x, W, b is not None)


def linear_backward(dy: np.ndarray, cache: LinearCache,
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    dW, db = linear_backward_params(dy, cache)
    return linear_backward_input(dy, cache), dW, db


def linear_backward_input(dy: np.ndarray, cache: LinearCache) -> np.ndarray:
    # y = x @ W + b
    return dy @ cache.W.T                  # (N, out) @ (out, in) -> (N, in)


def linear_backward_params(dy: np.ndarray, cache: LinearCache, dW: np.ndarray | None = None,
                           db: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """The weight and bias gradients, into `dW` and `db` when given. Nothing downstream in the
    backward pass needs them, so the model computes them off its critical path."""
    # y = x @ W + b
    dW = np.matmul(cache.x.T, dy, out=dW)  # (in, N) @ (N, out) -> (in, out)
    if cache.bias:
        db = np.matmul(filled(dy.shape[0], 1.0, dy.dtype), dy, out=db)  # (out,)
    return dW, db


# --- GELU (tanh approximation) ----------------------------------------------------------------

class GeluCache(NamedTuple):
    x: np.ndarray  # the input (the probe reads it: a neuron is dead when it is never > 0)
    t: np.ndarray  # tanh(u), u = GELU_C * (x + GELU_A x^3)


def gelu_forward(x: np.ndarray) -> tuple[np.ndarray, GeluCache]:
    t = x * x
    t *= GELU_C * GELU_A
    t += GELU_C
    t *= x                            # u = GELU_C * (x + GELU_A x^3)
    np.tanh(t, out=t)
    y = t + 1.0
    y *= x
    y *= 0.5                          # y = 0.5 x (1 + t)
    return y, GeluCache(x, t)


def gelu_backward(dy: np.ndarray, cache: GeluCache) -> np.ndarray:
    x, t = cache
    # y = 0.5 x (1 + t): dy/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) du/dx,
    # with du/dx = GELU_C (1 + 3 GELU_A x^2)
    dx = x * x
    dx *= 3 * GELU_A * GELU_C
    dx += GELU_C                      # du/dx
    dx *= x
    sech2 = t * t
    np.subtract(1.0, sech2, out=sech2)
    dx *= sech2                       # x (1 - t^2) du/dx
    dx += t
    dx += 1.0
    dx *= 0.5
    dx *= dy
    return dx


# --- rotary position embedding (rotate-half, per head) ----------------------------------------
#
# RoPE rotates each head's pairs (i, i + hs/2) of q and k by angle t * base^(-2i/hs) at position
# t. Written as complex numbers z_i = x_i + 1j x_(i + hs/2), that is z_i * exp(1j t theta_i):
# one complex multiply, if each pair sits side by side. So the c_attn weight's q and k columns
# are used in `rope_order` (each head's halves interleaved: 0, hs/2, 1, hs/2 + 1, ...); q k^T
# is unchanged by the same permutation of q's and k's columns within each head, and v and the
# heads' outputs keep their order.

@functools.cache
def rope_order(C: int, NH: int) -> np.ndarray:
    """The permutation of c_attn's 3C columns that interleaves each q and k head's halves."""
    hs = C // NH
    h = hs // 2
    within = np.stack([np.arange(h), np.arange(h) + h], axis=1).reshape(-1)   # (hs,)
    qk = (np.arange(2 * NH)[:, None] * hs + within[None, :]).reshape(-1)      # (2C,)
    order = np.concatenate([qk, np.arange(2 * C, 3 * C)])
    order.flags.writeable = False
    return order


@functools.cache
def rope_rotations(T: int, C: int, NH: int, dtype: np.dtype) -> np.ndarray:
    """exp(1j t theta_i) for positions t < T, (T, C) complex: q's heads, then k's."""
    hs = C // NH
    theta = ROPE_BASE ** (-np.arange(0, hs, 2) / hs)                  # (hs/2,)
    rotation = np.exp(1j * np.arange(T)[:, None] * theta[None, :])    # (T, hs/2)
    table = np.tile(rotation, 2 * NH).astype(np.result_type(dtype, np.complex64))
    table.flags.writeable = False
    return table                                                      # (T, 2 NH hs/2) = (T, C)


def rope_table(positions: np.ndarray, T: int, C: int, NH: int, dtype) -> np.ndarray:
    """The rotations of tokens at `positions` (N,), each < T: (N, C) complex."""
    return rope_rotations(T, C, NH, np.dtype(dtype))[positions]


class RopeCache(NamedTuple):
    table: np.ndarray  # (N, C) complex


def rope_forward(qkv: np.ndarray, table: np.ndarray,
                 out: np.ndarray | None = None) -> tuple[np.ndarray, RopeCache]:
    """Rotate q and k of qkv (N, 3C), columns in `rope_order`; v passes through. Into `out`
    when given (`out=qkv` rotates in place, for a caller that owns qkv)."""
    C = qkv.shape[1] // 3
    if out is None:
        out = qkv.copy()
    elif out is not qkv:
        out[...] = qkv
    z = out.view(table.dtype)                                         # (N, 3C/2) complex
    z[:, :C] *= table                                                 # q and k: (N, C) complex
    return out, RopeCache(table)


def rope_backward(dy: np.ndarray, cache: RopeCache,
                  out: np.ndarray | None = None) -> np.ndarray:
    """The gradient of qkv, into `out` when given (`out=dy` in place)."""
    C = dy.shape[1] // 3
    # y = x * exp(1j t theta): a rotation, so the gradient rotates back by the conjugate
    if out is None:
        out = dy.copy()
    elif out is not dy:
        out[...] = dy
    dz = out.view(cache.table.dtype)
    dz[:, :C] *= cache.table.conj()
    return out


# --- self-attention ---------------------------------------------------------------------------

class Rows(NamedTuple):
    """Where a batch's N real tokens sit in its (B, T) rows."""
    index: np.ndarray  # (N,) flat positions in B*T
    B: int
    T: int


@functools.cache
def visible(T: int, mask: str, dtype: np.dtype) -> np.ndarray:
    """The mask's own part, key-major (S, 1, 1, T): 0 where query t may read key s, else -inf;
    "causal" allows s <= t, "full" every s."""
    allowed = np.tril(np.ones((T, T), bool)) if mask == "causal" else np.ones((T, T), bool)
    out = np.where(allowed.T, 0.0, -np.inf).astype(dtype)[:, None, None, :]
    out.flags.writeable = False
    return out


def attention_bias(idx: np.ndarray, mask: str, pad_id: int, dtype) -> np.ndarray:
    """The additive mask, key-major (S, 1, B, T): 0 where query t may read key s, else -inf.

    A pad key is never visible, except to itself so that a pad query (whose output nobody
    reads) never has an empty row.
    """
    B, T = idx.shape
    keys = idx.T                                                      # (S, B)
    pad_keys = np.where(keys == pad_id, -np.inf, 0.0).astype(dtype)[:, None, :, None]
    bias = np.empty((T, 1, B, T), dtype)        # C order: the scores add it in long runs
    np.add(visible(T, mask, np.dtype(dtype)), pad_keys, out=bias)     # (S, 1, B, T)
    diagonal = np.arange(T)
    bias[diagonal, :, :, diagonal] = 0.0                              # every token sees itself
    return bias


class AttentionCache(NamedTuple):
    qkv: np.ndarray      # (B, T, 3, NH, hs) the real tokens' q, k, v in their rows, pads 0
    weights: np.ndarray  # (S, NH, B, T) softmax over the keys, key-major
    rows: Rows
    scale: float         # the logits' factor: 1/sqrt(hs), or another (a break's)

    @property
    def att(self) -> np.ndarray:
        """The attention weights as (B, NH, T, S) (a view; the probes read it)."""
        return self.weights.transpose(2, 1, 3, 0)


def attention_forward(qkv: np.ndarray, rows: Rows, bias: np.ndarray, NH: int,
                      scale: float | None = None) -> tuple[np.ndarray, AttentionCache]:
    """Multi-head attention from the real tokens' [q | k | v] (N, 3C) to the heads' outputs
    (N, C), head h in columns h*hs:(h+1)*hs.

    The logits are k q^T * scale, scale 1/sqrt(hs) unless given; `bias` is (S, 1, B, T) for
    every head alike or (S, NH, B, T) per head.

    The scores are stored key-major, (S, NH, B, T): the softmax reduces over the outermost
    axis, which numpy does fast (a short last axis it reduces slowly), and the mask (S, 1, B, T)
    adds in long contiguous runs.
    """
    N, C3 = qkv.shape
    B, T, C = rows.B, rows.T, C3 // 3
    hs = C // NH
    if scale is None:
        scale = 1.0 / math.sqrt(hs)
    padded = np.zeros((B, T, 3, NH, hs), qkv.dtype)
    padded.reshape(B * T, C3)[rows.index] = qkv                     # (N, 3C) -> (B, T, 3C)
    q, k, v = (padded[:, :, j].transpose(0, 2, 1, 3) for j in range(3))  # (B, NH, T, hs) views
    qT = np.empty((B, NH, hs, T), qkv.dtype)
    np.multiply(q.swapaxes(-1, -2), scale, out=qT)                  # q^T * scale
    scores = np.empty((T, NH, B, T), qkv.dtype)                     # (S, NH, B, T)
    np.matmul(k, qT, out=scores.transpose(2, 1, 0, 3))              # k q^T * scale
    scores += bias
    scores -= scores.max(0)                                         # stable: max score is 0
    weights = np.exp(scores, out=scores)
    weights /= weights.sum(0)                                       # softmax over the keys
    y = np.empty((B, T, NH, hs), qkv.dtype)
    np.matmul(weights.transpose(2, 1, 3, 0), v, out=y.transpose(0, 2, 1, 3))  # (B, NH, T, hs)
    y = y.reshape(B * T, C)[rows.index]                             # (B, T, C) -> (N, C)
    return y, AttentionCache(padded, weights, rows, scale)


def attention_backward(dy: np.ndarray, cache: AttentionCache) -> np.ndarray:
    padded, weights, rows, scale = cache
    B, T, _, NH, hs = padded.shape
    q, k, v = (padded[:, :, j].transpose(0, 2, 1, 3) for j in range(3))
    # y = y.reshape(B * T, C)[rows.index]
    dpadded = np.zeros((B, T, NH, hs), dy.dtype)
    dpadded.reshape(B * T, NH * hs)[rows.index] = dy
    dheads = dpadded.transpose(0, 2, 1, 3)                          # (B, NH, T, hs)
    dqkv = np.empty((B, T, 3, NH, hs), dy.dtype)
    dq, dk, dv = (dqkv[:, :, j].transpose(0, 2, 1, 3) for j in range(3))
    # y = weights^T v, per head
    dweights = np.empty_like(weights)                               # (S, NH, B, T)
    dheads_T = np.ascontiguousarray(dheads.swapaxes(-1, -2))         # (B, NH, hs, T)
    np.matmul(v, dheads_T, out=dweights.transpose(2, 1, 0, 3))
    np.matmul(weights.transpose(2, 1, 0, 3), dheads, out=dv)        # (B, NH, S, hs)
    # weights = softmax(scores) over the keys: dscores = w * (dw - sum_s(dw * w))
    dweights -= np.einsum("shbt,shbt->hbt", dweights, weights)
    dscores = dweights
    dscores *= weights
    # scores = k q^T * scale + bias (no gradient to the bias)
    dscores *= scale
    np.matmul(dscores.transpose(2, 1, 0, 3), q, out=dk)             # (B, NH, S, hs)
    np.matmul(dscores.transpose(2, 1, 3, 0), k, out=dq)             # (B, NH, T, hs)
    # padded[rows.index] = qkv
    return dqkv.reshape(B * T, 3 * NH * hs)[rows.index]            # (N, 3C)


# --- cross-entropy ----------------------------------------------------------------------------

class CrossEntropyCache(NamedTuple):
    probs: np.ndarray    # (N, V) softmax of the logits
    targets: np.ndarray  # (N,), -1 where ignored
    n: int               # targets that count


def cross_entropy_forward(logits: np.ndarray,
                          targets: np.ndarray) -> tuple[float, CrossEntropyCache]:
    """Mean of -log softmax(logits)[target] over the targets != -1 (0.0 if there are none)."""
    logp = logits - logits.max(-1, keepdims=True)                  # stable: max logit is 0
    probs = np.exp(logp)
    sumexp = probs @ np.ones((logits.shape[-1], 1), logits.dtype)  # (N, V) -> (N, 1)
    logp -= np.log(sumexp)                                          # log-softmax
    probs /= sumexp
    valid = targets >= 0
    n = int(valid.sum())
    picked = logp[np.nonzero(valid)[0], targets[valid]]             # (n,)
    loss = -float(picked.sum()) / max(n, 1)
    return loss, CrossEntropyCache(probs, targets, n)


def cross_entropy_backward(cache: CrossEntropyCache) -> np.ndarray:
    probs, targets, n = cache
    valid = targets >= 0
    # loss = -mean(logp[target]), logp = log-softmax(logits): softmax minus one-hot, per target
    dlogits = probs * valid[:, None].astype(probs.dtype)
    rows = np.nonzero(valid)[0]
    dlogits[rows, targets[valid]] -= 1.0
    dlogits *= 1.0 / max(n, 1)
    return dlogits
