"""The dashboard's instruments (Panels 4-6 and the validation loss of Panel 1).

They read a step, never change it: each takes the weights the step's forward pass used and its
cache, and returns plain Python numbers (non-finite values stay nan/inf; they are data).

- `act_mean_abs`: mean |residual| after each block and mean |final LN output|, on real tokens.
- `SpectralNorms`: each weight matrix's largest singular value by block power iteration, the
  block kept between steps (many iterations at the first measurement, then a dozen a step).
- `dead_units`: on the fixed probe batch, the dead heads of architecture §4 (degenerate
  attention *and* no effect on the probe loss when ablated) and dead MLP neurons (GELU input
  < 0 on every token).
- `evaluate`: the validation loss and the dead units for the price of one forward pass of the
  val split (the probe is its first examples), plus the ablations of the degenerate heads.

How often each runs (every step, or every `eval_every`) is `train.py`'s decision.
"""

from __future__ import annotations

import math

import numpy as np

from diagnose.engine.corpus import PAD_ID
from diagnose.engine.model import GPTCache, Params, loss_of

KEPT = 4               # vectors kept per matrix between measurements (the top Ritz vectors)
FRESH = 2              # random vectors beside them
ITERATIONS = 12        # a step's power iterations on that block
FIRST_SQUARINGS = 10   # the first measurement starts from random vectors: 1024 iterations


def act_mean_abs(cache: GPTCache) -> list[float]:
    """[mean |x| after block 0, after block 1, ..., mean |final LN output|] over real tokens."""
    return [float(np.abs(a).mean()) for a in (*cache.residuals, cache.head.x)]  # (N, C) -> ()


class SpectralNorms:
    """Largest singular value of named matrices by block power iteration, the block kept
    between calls.

    Every matrix here has one side of length C, so sigma_max(W)^2 is the largest eigenvalue of
    its C x C Gram matrix G (W W^T or W^T W). A call reads sigma off the span of a few vectors
    (Rayleigh-Ritz: the largest eigenvalue of G on the span, a lower bound that converges to
    the true one). The first call starts from random vectors and runs 2**FIRST_SQUARINGS
    iterations by repeated squaring. Every later call starts from the KEPT top Ritz vectors of
    the call before and FRESH random ones, and runs ITERATIONS plain iterations (G times a
    thin block, not G squared): a step moves the weights little, and a block converges at the
    rate lambda_(KEPT+1)/lambda_1 however closely the top values tie, while the fresh vectors
    catch a direction the block has not seen (the first steps without warmup). Within 0.15%
    of the SVD at every step of every break's 400-step runs tried (the first update is the
    hardest); tests/engine holds it to 1% against numpy.linalg.norm(W, 2) on generated ties,
    drifts and jumps. The Gram matrices are half of the cost (real arithmetic: 13 MFLOP).
    """

    def __init__(self, names: list[str], C: int, seed: int = 0) -> None:
        self.names = names
        self.C = C                               # every matrix's side of length d_model
        self._rng = np.random.default_rng(seed)  # private: the training's draws are untouched
        self._kept: np.ndarray | None = None     # (M, C, KEPT) orthonormal columns per matrix

    def measure(self, params: Params) -> dict[str, float]:
        mats = [params[name] for name in self.names]
        grams, peaks, scales, usable = self._grams(mats)    # (M, C, C), (M,), (M,), (M,)
        M, C, dtype = len(mats), self.C, grams.dtype
        power = grams / peaks[:, None, None]                         # entries in [-1, 1]
        if self._kept is None:
            for _ in range(FIRST_SQUARINGS):
                power = power @ power                                # G^(2^k), rescaled
                power /= np.abs(power).max((1, 2), keepdims=True)
            block = power @ self._rng.standard_normal((M, C, KEPT + FRESH), dtype=dtype)
        else:
            fresh = self._rng.standard_normal((M, C, FRESH), dtype=dtype)
            block = np.concatenate([self._kept, fresh], axis=-1)     # (M, C, KEPT + FRESH)
            for _ in range(ITERATIONS):
                block = power @ block
        basis, _ = np.linalg.qr(block)                               # orthonormal columns
        values, vectors = np.linalg.eigh(basis.swapaxes(1, 2) @ grams @ basis)  # G on the span
        ritz = basis @ vectors[:, :, -KEPT:]                          # (M, C, KEPT)
        if not usable.all():  # a non-finite or zero matrix: its block starts afresh
            restart, _ = np.linalg.qr(self._rng.standard_normal((M, C, KEPT), dtype=dtype))
            ritz = np.where(usable[:, None, None], ritz, restart)
        self._kept = ritz
        sigmas = {}
        for name, W, good, top, scale in zip(self.names, mats, usable, values[:, -1], scales,
                                             strict=True):
            if good:
                sigmas[name] = math.sqrt(max(float(top), 0.0) * scale)
            else:  # a non-finite or zero matrix: say which
                sigmas[name] = math.nan if np.isnan(W).any() else (
                    math.inf if np.isinf(W).any() else 0.0)
        return sigmas

    def _grams(self, mats: list[np.ndarray],
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Each matrix's C x C Gram matrix, of W / s when W W^T would overflow (scale s^2), its
        largest |entry|, and whether it is usable (finite, not zero); unusable ones are stood
        in for by I."""
        stacked = np.empty((len(mats), self.C, self.C), mats[0].dtype)
        scales = np.ones(len(mats))
        for i, W in enumerate(mats):
            if W.shape[0] == self.C:
                np.matmul(W, W.T, out=stacked[i])
            else:
                np.matmul(W.T, W, out=stacked[i])
        peaks = np.abs(stacked).max((1, 2))               # nan or inf when a Gram is not finite
        for i in np.flatnonzero(~np.isfinite(peaks)):
            W = mats[i]
            if np.isfinite(W).all():  # W W^T overflowed: the Gram of W / s, scale s^2
                s = float(np.abs(W).max())
                W = W / s
                stacked[i] = W @ W.T if W.shape[0] == self.C else W.T @ W
                scales[i], peaks[i] = s * s, np.abs(stacked[i]).max()
        usable = np.isfinite(peaks) & (peaks > 0)
        stacked[~usable] = np.eye(self.C, dtype=stacked.dtype)
        peaks[~usable] = 1.0
        return stacked, peaks, scales, usable


def degenerate_heads(cache: GPTCache, idx: np.ndarray, config) -> np.ndarray:
    """(n_layers, NH) bool: the head's attention is degenerate on at least
    `head_query_fraction` of the probe's queries.

    A query is degenerate when its attention is near-uniform (entropy at least
    `head_uniform_entropy` times ln of the number of keys it may see) or collapsed (largest
    weight at least `head_collapse_weight`). Only real queries that may see two keys or more
    count: a query that sees one key (position 0 under the causal mask) is trivially both.
    """
    out = []
    for bias, block in zip(cache.batch.biases, cache.blocks, strict=True):
        n_keys = (bias == 0).sum(0)                          # (S, 1|NH, B, T) -> (1|NH, B, T)
        counted = (idx != PAD_ID) & (n_keys >= 2)                    # (1|NH, B, T)
        uniform_entropy = np.log(np.maximum(n_keys, 1))              # (1|NH, B, T)
        weights = block.attn.weights                                 # (S, NH, B, T) key-major
        plogp = weights * np.log(np.where(weights > 0, weights, 1))
        entropy = -plogp.sum(0)                                      # (NH, B, T)
        uniform = entropy >= config.head_uniform_entropy * uniform_entropy
        collapsed = weights.max(0) >= config.head_collapse_weight    # (NH, B, T)
        degenerate = (uniform | collapsed) & counted
        share = degenerate.sum((1, 2)) / np.maximum(counted.sum((1, 2)), 1)  # (NH,)
        out.append(share >= config.head_query_fraction)
    return np.array(out)


def dead_units(params: Params, probe: tuple[np.ndarray, np.ndarray], config, *,
               forward: tuple[float, GPTCache] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Which heads (n_layers, NH) and which MLP neurons (n_layers, F) are dead on the probe.

    A head is dead when its attention is degenerate and zeroing its output changes the probe
    loss by less than `head_ablation_nats`; a neuron when its GELU input is negative on every
    real token of the probe. `forward` is the probe's (loss, cache) if the caller has it.
    """
    x, y = probe
    loss, cache = forward or loss_of(params, x, y, config)
    heads = degenerate_heads(cache, x, config)
    for layer, head in zip(*np.nonzero(heads), strict=True):
        # Ablate: zero the head's output and re-run from there on. The residual entering the
        # block (its first LayerNorm cached it) and every head's output (c_proj's input) are
        # the probe's: only the block's projection and what follows are computed again.
        block = cache.blocks[layer]
        ablated, _ = loss_of(params, x, y, config, ablate=(int(layer), int(head)),
                             resume=(int(layer), block.ln_1.x, block.attn_proj.x))
        heads[layer, head] = abs(ablated - loss) < config.head_ablation_nats
    neurons = np.array([(block.gelu.x < 0).all(0) for block in cache.blocks])  # (N, F) -> (F,)
    return heads, neurons


def validation_loss(params: Params, val: tuple[np.ndarray, np.ndarray], config) -> float:
    """The mean loss over every target of the val split, as one padded batch."""
    loss, _ = loss_of(params, *val, config)
    return loss


def targets_in(batch: tuple[np.ndarray, np.ndarray]) -> int:
    x, y = batch
    return int(((y >= 0) & (x != PAD_ID)).sum())


def evaluate(params: Params, probe: tuple[np.ndarray, np.ndarray],
             rest: tuple[np.ndarray, np.ndarray] | None,
             config) -> tuple[float, np.ndarray, np.ndarray]:
    """The validation loss and the dead units, the val split given as the probe (its first
    examples) and the rest: the probe's forward pass serves both, so an evaluation costs one
    forward pass of the val split, and the ablations."""
    probe_loss, probe_cache = loss_of(params, *probe, config)
    val_loss = probe_loss
    if rest is not None:
        rest_loss, _ = loss_of(params, *rest, config)
        n_probe, n_rest = targets_in(probe), targets_in(rest)
        val_loss = (probe_loss * n_probe + rest_loss * n_rest) / (n_probe + n_rest)
    heads, neurons = dead_units(params, probe, config, forward=(probe_loss, probe_cache))
    return val_loss, heads, neurons
