"""An independent PyTorch implementation of the lab's MiniGPT, for the reference tests and the
side-by-side benchmark. Written from the spec, not from the numpy code: autograd, PyTorch's
layer_norm, gelu(approximate="tanh"), cross_entropy, clip_grad_norm_ and AdamW.

Same semantics as `diagnose.engine`: GPT-2 names, weights used as x @ W, RoPE (rotate-half,
base 10000) on q and k, pad keys masked (a pad query may read itself), positions whose input
is the pad predict nothing, tied head. Imported only where torch is installed.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F


def to_torch(params: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {name: torch.tensor(np.array(p), requires_grad=True) for name, p in params.items()}


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


def loss(params: dict[str, torch.Tensor], x: np.ndarray, y: np.ndarray, config) -> torch.Tensor:
    idx, targets = torch.as_tensor(x), torch.as_tensor(y)
    B, T = idx.shape
    C, NH = config.d_model, config.n_heads
    hs = C // NH
    dtype = params["wte"].dtype
    real = idx != 0
    allowed = torch.ones(T, T, dtype=torch.bool)
    if config.attention_mask == "causal":
        allowed = allowed.tril()
    allowed = (allowed[None] & real[:, None, :]) | torch.eye(T, dtype=torch.bool)[None]
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, hs, 2, dtype=torch.float64) / hs))
    angles = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)
    angles = torch.cat([angles, angles], dim=-1)
    cos, sin = angles.cos().to(dtype), angles.sin().to(dtype)

    h = params["wte"][idx]
    for i in range(config.n_layers):
        block = {name.removeprefix(f"h.{i}."): t for name, t in params.items()
                 if name.startswith(f"h.{i}.")}
        a = F.layer_norm(h, (C,), block["ln_1.weight"], block["ln_1.bias"], eps=1e-5)
        q, k, v = (a @ block["attn.c_attn.weight"]).split(C, dim=-1)
        q, k, v = (t.view(B, T, NH, hs).transpose(1, 2) for t in (q, k, v))
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hs)
        att = scores.masked_fill(~allowed[:, None], float("-inf")).softmax(dim=-1)
        heads = (att @ v).transpose(1, 2).reshape(B, T, C)
        h = h + heads @ block["attn.c_proj.weight"]
        m = F.layer_norm(h, (C,), block["ln_2.weight"], block["ln_2.bias"], eps=1e-5)
        f = m @ block["mlp.c_fc.weight"] + block["mlp.c_fc.bias"]
        g = F.gelu(f, approximate="tanh")
        h = h + g @ block["mlp.c_proj.weight"] + block["mlp.c_proj.bias"]
    h = F.layer_norm(h, (C,), params["ln_f.weight"], params["ln_f.bias"], eps=1e-5)
    logits = h @ params["wte"].T
    targets = targets.masked_fill(~real, -1)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                           ignore_index=-1)


def optimizer(params: dict[str, torch.Tensor], config) -> torch.optim.AdamW:
    """AdamW with decay on the matrices only (nanoGPT's configure_optimizers)."""
    decayed = [p for p in params.values() if p.dim() == 2]
    others = [p for p in params.values() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decayed, "weight_decay": config.weight_decay},
                              {"params": others, "weight_decay": 0.0}],
                             lr=config.lr_max, betas=(config.beta1, config.beta2),
                             eps=config.eps)


def train_step(params: dict[str, torch.Tensor], opt: torch.optim.AdamW, x: np.ndarray,
               y: np.ndarray, lr: float, config) -> tuple[float, float]:
    """forward, backward, clip, AdamW at `lr`: (loss, pre-clip norm)."""
    opt.zero_grad(set_to_none=True)
    value = loss(params, x, y, config)
    value.backward()
    norm = torch.nn.utils.clip_grad_norm_(list(params.values()), config.grad_clip)
    for group in opt.param_groups:
        group["lr"] = lr
    opt.step()
    return float(value.detach()), float(norm)


def write_golden(path) -> None:
    """Write the golden fixture of test_golden.py: PyTorch's loss and gradients of the tiny
    float64 model (both masks) on a fixed batch with pads and ignored targets.

        python -c "from tests.engine.torch_gpt import write_golden; \
                   write_golden('tests/engine/golden.npz')"
    """
    import dataclasses

    from diagnose.engine import init_params

    from .helpers import tiny_config

    rng = np.random.default_rng(2024)
    x = rng.integers(1, 11, (3, 7))
    y = rng.integers(0, 11, (3, 7))
    for row, length in enumerate((7, 5, 2)):
        x[row, length:], y[row, length:] = 0, -1
    y[0, 2] = y[1, 0] = -1
    params = init_params(tiny_config(), 7)
    for p in params.values():                    # off the init: biases and gains matter too
        p += 0.1 * rng.standard_normal(p.shape)
    arrays = {"x": x, "y": y} | {f"param/{name}": p for name, p in params.items()}
    for mask in ("causal", "full"):
        config = dataclasses.replace(tiny_config(), attention_mask=mask)
        tparams = to_torch(params)
        value = loss(tparams, x, y, config)
        value.backward()
        arrays[f"{mask}/loss"] = np.array(float(value.detach()))
        for name, t in tparams.items():
            arrays[f"{mask}/grad/{name}"] = t.grad.numpy()
    np.savez_compressed(path, **arrays)
