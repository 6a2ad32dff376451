"""The lab's MiniGPT: its parameters in one flat buffer, its forward pass and its backward pass.

Decoder-only, pre-LayerNorm, RoPE on q and k, biases only in the MLP, a final LayerNorm, and
an LM head tied to the token embedding (`logits = h @ wte.T`). Weights are used as `x @ W`,
shape (in, out), and named as in GPT-2 so they can be compared with or loaded into PyTorch.

The parameters live in one flat array with named views into it (llm.c's
`malloc_and_point_parameters`), matrices first: the decayed ones are then one slice, and AdamW,
clipping and the grad norm are one vectorised expression each. The gradients use the same
layout. Activations are (N, C): a batch's real tokens only (`Batch` says where they sit in
its (B, T) rows). Given a thread pool, the backward pass computes the weights' gradients on
its worker while it goes on down the layers; the numbers are the same without one.
The layers themselves are in `layers.py`; training is `optim.py` and `train.py`.
"""

from __future__ import annotations

from concurrent.futures import Executor, Future
from typing import NamedTuple

import numpy as np

from diagnose.engine.corpus import PAD_ID
from diagnose.engine.layers import (
    AttentionCache,
    EmbeddingCache,
    GeluCache,
    LayerNormCache,
    LinearCache,
    RopeCache,
    Rows,
    attention_backward,
    attention_bias,
    attention_forward,
    cross_entropy_backward,
    cross_entropy_forward,
    embedding_backward,
    embedding_forward,
    gelu_backward,
    gelu_forward,
    layernorm_backward,
    layernorm_forward,
    linear_backward_input,
    linear_backward_params,
    linear_forward,
    rope_backward,
    rope_forward,
    rope_order,
    rope_table,
)

Params = dict[str, np.ndarray]


def param_shapes(config) -> dict[str, tuple[int, ...]]:
    """Every parameter's name and shape, in GPT-2 order."""
    C, F, V = config.d_model, config.d_ff, config.vocab_size
    shapes: dict[str, tuple[int, ...]] = {"wte": (V, C)}
    for i in range(config.n_layers):
        shapes |= {
            f"h.{i}.ln_1.weight": (C,), f"h.{i}.ln_1.bias": (C,),
            f"h.{i}.attn.c_attn.weight": (C, 3 * C),   # [q | k | v], head h: cols h*hs:(h+1)*hs
            f"h.{i}.attn.c_proj.weight": (C, C),
            f"h.{i}.ln_2.weight": (C,), f"h.{i}.ln_2.bias": (C,),
            f"h.{i}.mlp.c_fc.weight": (C, F), f"h.{i}.mlp.c_fc.bias": (F,),
            f"h.{i}.mlp.c_proj.weight": (F, C), f"h.{i}.mlp.c_proj.bias": (C,),
        }
    shapes |= {"ln_f.weight": (C,), "ln_f.bias": (C,)}
    return shapes


def matrix_names(config) -> list[str]:
    """The weight matrices (and the embedding): decayed by AdamW, watched by Panel 5."""
    return [name for name, shape in param_shapes(config).items() if len(shape) == 2]


def count_params(config) -> int:
    return sum(int(np.prod(shape)) for shape in param_shapes(config).values())


def n_decayed(config) -> int:
    """Length of the flat buffer's leading slice that holds the matrices."""
    shapes = param_shapes(config)
    return sum(int(np.prod(shapes[name])) for name in matrix_names(config))


def point_into(flat: np.ndarray, config) -> Params:
    """Named views into `flat` (matrices first in memory), returned in GPT-2 order."""
    shapes = param_shapes(config)
    order = matrix_names(config) + [n for n, s in shapes.items() if len(s) == 1]
    views, offset = {}, 0
    for name in order:
        size = int(np.prod(shapes[name]))
        views[name] = flat[offset:offset + size].reshape(shapes[name])
        offset += size
    return {name: views[name] for name in shapes}


def frozen_positions(config) -> np.ndarray:
    """The flat buffer's positions of the first `frozen_layers` blocks' parameters (a break:
    the training never updates them)."""
    flat = np.arange(count_params(config))
    views = point_into(flat, config)
    frozen = [views[name].ravel() for name in views
              if name.startswith("h.") and int(name.split(".")[1]) < config.frozen_layers]
    return np.concatenate(frozen) if frozen else np.empty(0, dtype=np.int64)


def flat_of(params: Params) -> np.ndarray:
    """The one buffer every view of `params` points into."""
    flat = params["wte"].base
    if flat is None or flat.ndim != 1 or any(p.base is not flat for p in params.values()):
        raise ValueError("params are not views into one flat buffer (use init_params)")
    return flat


def init_params(config, seed: int) -> Params:
    """Xavier/Glorot normal matrices and embedding times `config.init_scale`, zero biases,
    LayerNorm gains 1; in `config.dtype`. The draw is the same in float32 and float64."""
    rng = np.random.default_rng([seed, 0])
    flat = np.zeros(count_params(config), dtype=config.dtype)
    params = point_into(flat, config)
    for name, p in params.items():
        if p.ndim == 2:
            std = config.init_scale * np.sqrt(2.0 / (p.shape[0] + p.shape[1]))
            p[...] = rng.standard_normal(p.shape) * std
        elif name.startswith("ln_") or ".ln_" in name:
            p[...] = 1.0 if name.endswith("weight") else 0.0
    return params


# --- forward and backward ---------------------------------------------------------------------

class Batch(NamedTuple):
    """What every block needs of a batch: where its real tokens are, each block's attention
    mask, and RoPE's rotations (computed once a forward pass)."""
    rows: Rows           # the N real tokens' places in the (B, T) rows
    biases: tuple[np.ndarray, ...]  # per block: (S, 1, B, T) additive mask, key-major, or
                                    # (S, NH, B, T) when one head's mask differs
    rotation: np.ndarray  # (N, C) complex RoPE rotations of q's and k's heads


def block_biases(idx: np.ndarray, config, dtype) -> tuple[np.ndarray, ...]:
    """Each block's additive mask. `mask_leak` lets the last block (every head, or head 0
    only) see the whole sequence while the others keep `attention_mask`."""
    bias = attention_bias(idx, config.attention_mask, PAD_ID, dtype)   # (S, 1, B, T)
    if config.mask_leak == "none":
        return (bias,) * config.n_layers
    leaky = attention_bias(idx, "full", PAD_ID, dtype)
    if config.mask_leak == "one-head":
        others = np.broadcast_to(bias, (bias.shape[0], config.n_heads - 1, *bias.shape[2:]))
        leaky = np.concatenate([leaky, others], axis=1)                 # (S, NH, B, T)
    return (bias,) * (config.n_layers - 1) + (leaky,)


def attention_scale(config) -> float | None:
    """The attention logits' factor: None for the textbook 1/sqrt(hs) (`attention_forward`'s
    default), 1.0 when `attention_logit_scale` is "1" (the scale forgotten)."""
    return None if config.attention_logit_scale == "1/sqrt(hs)" else 1.0


def batch_of(idx: np.ndarray, config, dtype) -> Batch:
    B, T = idx.shape
    rows = Rows(np.flatnonzero(idx.reshape(-1) != PAD_ID), B, T)   # every x that is not the pad
    positions = rows.index % T
    return Batch(rows, block_biases(idx, config, dtype),
                 rope_table(positions, T, config.d_model, config.n_heads, dtype))


class BlockCache(NamedTuple):
    ln_1: LayerNormCache | None    # None: the block started after its attention (`heads`)
    c_attn: LinearCache | None
    rope: RopeCache | None
    attn: AttentionCache | None
    attn_proj: LinearCache
    ln_2: LayerNormCache
    c_fc: LinearCache
    gelu: GeluCache
    mlp_proj: LinearCache


class GPTCache(NamedTuple):
    batch: Batch
    embed: EmbeddingCache | None
    blocks: list[BlockCache]
    ln_f: LayerNormCache
    head: LinearCache            # head.x is the final LN output (N, C), head.W is wte.T
    residuals: list[np.ndarray]  # (N, C) after each block (Panel 4 reads them)


class Counterfactual(NamedTuple):
    """The dead-head probe's changes to a block's forward pass (training makes none).

    `ablate_head` zeroes one head's output. `heads` (N, C), when given, is what the attention
    computed from this x before (the probe's own forward pass): the block starts after it,
    and the attention's caches are None.
    """
    ablate_head: int | None = None
    heads: np.ndarray | None = None


TRAINING = Counterfactual()  # no change


def block_forward(x: np.ndarray, params: Params, i: int, batch: Batch, config,
                  change: Counterfactual = TRAINING) -> tuple[np.ndarray, BlockCache]:
    """Block i on the real tokens x (N, C): x + attn(ln_1(x)), then + mlp(ln_2(x)), with
    `config`'s heads and attention scale, and the probe's `change` if any."""
    p = f"h.{i}."
    C, NH = x.shape[-1], config.n_heads
    ablate_head, heads = change
    c_ln_1 = c_attn = c_rope = c_heads = None
    if heads is None:
        a, c_ln_1 = layernorm_forward(x, params[p + "ln_1.weight"], params[p + "ln_1.bias"])
        W_attn = params[p + "attn.c_attn.weight"][:, rope_order(C, NH)]  # q, k interleaved
        qkv, c_attn = linear_forward(a, W_attn)                          # (N, C) -> (N, 3C)
        qkv, c_rope = rope_forward(qkv, batch.rotation, out=qkv)         # qkv is ours
        heads, c_heads = attention_forward(qkv, batch.rows, batch.biases[i], NH,
                                           attention_scale(config))      # (N, 3C) -> (N, C)
    elif ablate_head is not None:
        heads = heads.copy()                                             # the caller's stays
    if ablate_head is not None:
        hs = C // NH
        heads[:, ablate_head * hs:(ablate_head + 1) * hs] = 0.0
    o, c_proj = linear_forward(heads, params[p + "attn.c_proj.weight"])
    x = x + o
    m, c_ln_2 = layernorm_forward(x, params[p + "ln_2.weight"], params[p + "ln_2.bias"])
    f, c_fc = linear_forward(m, params[p + "mlp.c_fc.weight"],
                             params[p + "mlp.c_fc.bias"])                 # (N, C) -> (N, F)
    g, c_gelu = gelu_forward(f)
    o, c_mlp = linear_forward(g, params[p + "mlp.c_proj.weight"],
                              params[p + "mlp.c_proj.bias"])              # (N, F) -> (N, C)
    o += x
    return o, BlockCache(c_ln_1, c_attn, c_rope, c_heads, c_proj, c_ln_2, c_fc, c_gelu, c_mlp)


class Later:
    """Gradient work that the rest of the backward pass does not wait for (the weights' and
    biases'): run on `pool`'s worker thread while the backward pass goes on (BLAS and numpy's
    loops release the GIL), or at once when there is no pool. Same numbers either way."""

    def __init__(self, pool: Executor | None) -> None:
        self.pool = pool
        self.pending: list[Future] = []

    def __call__(self, fn, *args) -> None:
        if self.pool is None:
            fn(*args)
        else:
            self.pending.append(self.pool.submit(quietly, fn, *args))

    def wait(self) -> None:
        for future in self.pending:
            future.result()
        self.pending.clear()


def quietly(fn, *args):
    """Run fn under np.errstate(all="ignore") (a worker thread does not inherit the caller's)."""
    with np.errstate(all="ignore"):
        return fn(*args)


def attn_weight_grad(into: np.ndarray, order: np.ndarray, dqkv: np.ndarray,
                     cache: LinearCache) -> None:
    """c_attn's weight gradient, its columns put back from `rope_order`."""
    into[:, order] = linear_backward_params(dqkv, cache)[0]


def block_backward(dx: np.ndarray, cache: BlockCache, grads: Params, i: int,
                   later: Later) -> np.ndarray:
    """Undo `block_forward`, writing block i's parameter gradients into `grads`."""
    p = f"h.{i}."
    # x = x + mlp_proj(gelu(c_fc(ln_2(x))))
    later(linear_backward_params, dx, cache.mlp_proj, grads[p + "mlp.c_proj.weight"],
          grads[p + "mlp.c_proj.bias"])
    dg = linear_backward_input(dx, cache.mlp_proj)
    df = gelu_backward(dg, cache.gelu)
    later(linear_backward_params, df, cache.c_fc, grads[p + "mlp.c_fc.weight"],
          grads[p + "mlp.c_fc.bias"])
    dm = linear_backward_input(df, cache.c_fc)
    dmid, grads[p + "ln_2.weight"][...], grads[p + "ln_2.bias"][...] = \
        layernorm_backward(dm, cache.ln_2)
    dmid += dx
    # x = x + c_proj(attn(rope(c_attn(ln_1(x))))), with W_attn = c_attn[:, rope_order(C, NH)]
    later(linear_backward_params, dmid, cache.attn_proj, grads[p + "attn.c_proj.weight"])
    dheads = linear_backward_input(dmid, cache.attn_proj)
    dqkv = attention_backward(dheads, cache.attn)
    dqkv = rope_backward(dqkv, cache.rope, out=dqkv)                  # dqkv is ours
    C, NH = dheads.shape[-1], cache.attn.qkv.shape[3]
    later(attn_weight_grad, grads[p + "attn.c_attn.weight"], rope_order(C, NH), dqkv,
          cache.c_attn)
    da = linear_backward_input(dqkv, cache.c_attn)
    din, grads[p + "ln_1.weight"][...], grads[p + "ln_1.bias"][...] = \
        layernorm_backward(da, cache.ln_1)
    din += dmid
    return din


def gpt_forward(params: Params, idx: np.ndarray, config, *,
                ablate: tuple[int, int] | None = None,
                resume: tuple[int, np.ndarray] | tuple[int, np.ndarray, np.ndarray] | None = None,
                ) -> tuple[np.ndarray, GPTCache]:
    """Logits (N, V) of the real tokens of idx (B, T), in the order of `batch_of(idx).rows`.

    `ablate=(layer, head)` zeroes one head's output; `resume=(layer, x)` starts at block
    `layer` with residual x (N, C) instead of embedding `idx` (the dead-head probe re-runs
    only the blocks from the ablated one on; the cache's `embed` is then None), and
    `resume=(layer, x, heads)` after that block's attention, whose output on x was `heads`
    (N, C) (zeroing a head changes nothing before it).
    """
    batch = batch_of(idx, config, params["wte"].dtype)
    first, c_embed, heads = 0, None, None
    if resume is None:
        x, c_embed = embedding_forward(idx.reshape(-1)[batch.rows.index], params["wte"])
    else:
        first, x, *known = resume
        heads = known[0] if known else None
    blocks, residuals = [], []
    for i in range(first, config.n_layers):
        head = ablate[1] if ablate is not None and ablate[0] == i else None
        x, c_block = block_forward(x, params, i, batch, config,
                                   Counterfactual(head, heads if i == first else None))
        blocks.append(c_block)
        residuals.append(x)
    h, c_ln_f = layernorm_forward(x, params["ln_f.weight"], params["ln_f.bias"])
    logits, c_head = linear_forward(h, params["wte"].T)              # (N, C) -> (N, V)
    return logits, GPTCache(batch, c_embed, blocks, c_ln_f, c_head, residuals)


def gpt_backward(dlogits: np.ndarray, cache: GPTCache, grads: Params,
                 pool: Executor | None = None) -> None:
    """Undo `gpt_forward`, writing every parameter's gradient into `grads`; the weights' and
    biases' on `pool`'s thread when given."""
    later = Later(pool)
    # logits = h @ wte.T: the tied head's share of wte's gradient, (V, N) @ (N, C)
    later(np.matmul, dlogits.T, cache.head.x, grads["wte"])
    dh = linear_backward_input(dlogits, cache.head)
    # h = ln_f(x)
    dx, grads["ln_f.weight"][...], grads["ln_f.bias"][...] = layernorm_backward(dh, cache.ln_f)
    for i in reversed(range(len(cache.blocks))):
        dx = block_backward(dx, cache.blocks[i], grads, i, later)
    later.wait()
    # x = wte[ids]: the embedding's share
    grads["wte"] += embedding_backward(dx, cache.embed)


def targets_of(y: np.ndarray, batch: Batch) -> np.ndarray:
    """The targets of the real tokens (N,); a pad position predicts nothing."""
    return y.reshape(-1)[batch.rows.index]


def forward_backward(params: Params, x: np.ndarray, y: np.ndarray, config, grads: Params,
                     pool: Executor | None = None) -> tuple[float, GPTCache]:
    """The mean loss of batch (x, y), its gradients written into `grads`, and the forward
    cache (the instruments read activations from it)."""
    logits, cache = gpt_forward(params, x, config)
    loss, c_loss = cross_entropy_forward(logits, targets_of(y, cache.batch))
    gpt_backward(cross_entropy_backward(c_loss), cache, grads, pool)
    return loss, cache


def loss_and_grads(params: Params, x: np.ndarray, y: np.ndarray,
                   config) -> tuple[float, Params]:
    """Mean cross-entropy of next-token targets y given tokens x, both (B, T) ints, and its
    gradient for every parameter, computed in the parameters' dtype.

    A target of -1 is ignored, and so is every position whose x is the pad (id 0), which is
    also masked as a key in attention.
    """
    grads = point_into(np.zeros(count_params(config), dtype=params["wte"].dtype), config)
    loss, _ = forward_backward(params, x, y, config, grads)
    return loss, grads


def loss_of(params: Params, x: np.ndarray, y: np.ndarray, config, *,
            ablate: tuple[int, int] | None = None,
            resume: tuple[int, np.ndarray] | tuple[int, np.ndarray, np.ndarray] | None = None,
            ) -> tuple[float, GPTCache]:
    """Forward only: the mean loss and the cache (validation and the probes)."""
    logits, cache = gpt_forward(params, x, config, ablate=ablate, resume=resume)
    loss, _ = cross_entropy_forward(logits, targets_of(y, cache.batch))
    return loss, cache
