"""The lab's MiniGPT as a PyTorch `nn.Module`, for `diagnose.runs.torch_hooks`' tests and
`bench/own_runs.py`. The functional port beside it (`torch_gpt.py`) is its spec; a module is
needed for hooks: the residual after each block (`h.i`), the final LayerNorm (`ln_f`), the
attention probabilities (`h.i.attn.probs`, an identity the probabilities pass through) and the
MLP's pre-activation (the input of `h.i.mlp.act`).

The breaks it can hold are the levels 1 and 2 of the catalog: `init_scale` (bad-init,
big-init; `copy_init` takes the engine's own draw), the warmup (the training loop's schedule,
`lr_at`), `attention_mask = "full"` (broken-mask) and `mask_leak = "one-head"` (leaky-mask:
head 0 of the last block sees the whole sequence). Weights are used as x @ W, GPT-2's names.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .torch_gpt import rotate_half


class Attention(nn.Module):
    def __init__(self, C: int, NH: int, leak: str) -> None:
        super().__init__()
        self.NH, self.leak = NH, leak
        self.c_attn = nn.Parameter(torch.zeros(C, 3 * C))
        self.c_proj = nn.Parameter(torch.zeros(C, C))
        self.probs = nn.Identity()  # the hooks read (and the dead-head probe ablates) here

    def forward(self, a: torch.Tensor, allowed: torch.Tensor, full: torch.Tensor,
                cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        B, T, C = a.shape
        hs = C // self.NH
        q, k, v = (a @ self.c_attn).split(C, dim=-1)                        # (B, T, 3C) -> 3x
        q, k, v = (t.view(B, T, self.NH, hs).transpose(1, 2) for t in (q, k, v))  # (B,NH,T,hs)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hs)                # (B, NH, T, T)
        mask = allowed[:, None].expand(B, self.NH, T, T)
        if self.leak == "one-head":
            mask = torch.cat([full[:, None], mask[:, 1:]], dim=1)
        elif self.leak == "all":
            mask = full[:, None].expand(B, self.NH, T, T)
        att = self.probs(scores.masked_fill(~mask, float("-inf")).softmax(dim=-1))
        heads = (att @ v).transpose(1, 2).reshape(B, T, C)
        return heads @ self.c_proj


class MLP(nn.Module):
    def __init__(self, C: int, F_: int) -> None:
        super().__init__()
        self.c_fc = nn.Parameter(torch.zeros(C, F_))
        self.c_fc_bias = nn.Parameter(torch.zeros(F_))
        self.act = nn.GELU(approximate="tanh")  # its input is the pre-activation
        self.c_proj = nn.Parameter(torch.zeros(F_, C))
        self.c_proj_bias = nn.Parameter(torch.zeros(C))

    def forward(self, m: torch.Tensor) -> torch.Tensor:
        return self.act(m @ self.c_fc + self.c_fc_bias) @ self.c_proj + self.c_proj_bias


class Block(nn.Module):
    def __init__(self, C: int, NH: int, F_: int, leak: str) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(C)
        self.attn = Attention(C, NH, leak)
        self.ln_2 = nn.LayerNorm(C)
        self.mlp = MLP(C, F_)

    def forward(self, h, allowed, full, cos, sin):
        h = h + self.attn(self.ln_1(h), allowed, full, cos, sin)
        return h + self.mlp(self.ln_2(h))


class MiniGPT(nn.Module):
    def __init__(self, config) -> None:
        super().__init__()
        C, NH, L = config.d_model, config.n_heads, config.n_layers
        self.config = config
        self.wte = nn.Parameter(torch.zeros(config.vocab_size, C))
        leak = getattr(config, "mask_leak", "none")
        self.h = nn.ModuleList(Block(C, NH, config.d_ff, leak if i == L - 1 else "none")
                               for i in range(L))
        self.ln_f = nn.LayerNorm(C)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        B, T = idx.shape
        C, NH = self.config.d_model, self.config.n_heads
        hs = C // NH
        real = idx != 0
        eye = torch.eye(T, dtype=torch.bool)[None]
        full = real[:, None, :].expand(B, T, T) | eye                      # (B, T, T)
        allowed = full & torch.ones(T, T, dtype=torch.bool).tril()[None]
        if self.config.attention_mask != "causal":
            allowed = full
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, hs, 2, dtype=torch.float64) / hs))
        angles = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)
        angles = torch.cat([angles, angles], dim=-1)
        cos, sin = angles.cos().float(), angles.sin().float()
        h = self.wte[idx]
        for block in self.h:
            h = block(h, allowed, full, cos, sin)
        logits = self.ln_f(h) @ self.wte.T
        targets = targets.masked_fill(~real, -1)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                               ignore_index=-1)

    def optimizer(self) -> torch.optim.AdamW:
        """AdamW, decay on the matrices only (nanoGPT's configure_optimizers)."""
        c = self.config
        decayed = [p for p in self.parameters() if p.dim() == 2]
        others = [p for p in self.parameters() if p.dim() < 2]
        return torch.optim.AdamW([{"params": decayed, "weight_decay": c.weight_decay},
                                  {"params": others, "weight_decay": 0.0}],
                                 lr=c.lr_max, betas=(c.beta1, c.beta2), eps=c.eps)


def copy_init(model: MiniGPT, seed: int) -> MiniGPT:
    """The engine's own initial draw (Xavier normal x init_scale) into the module."""
    from diagnose.engine import init_params

    params = init_params(model.config, seed)
    names = {"wte": model.wte, "ln_f.weight": model.ln_f.weight, "ln_f.bias": model.ln_f.bias}
    for i, block in enumerate(model.h):
        p = f"h.{i}."
        names |= {p + "ln_1.weight": block.ln_1.weight, p + "ln_1.bias": block.ln_1.bias,
                  p + "ln_2.weight": block.ln_2.weight, p + "ln_2.bias": block.ln_2.bias,
                  p + "attn.c_attn.weight": block.attn.c_attn,
                  p + "attn.c_proj.weight": block.attn.c_proj,
                  p + "mlp.c_fc.weight": block.mlp.c_fc, p + "mlp.c_fc.bias": block.mlp.c_fc_bias,
                  p + "mlp.c_proj.weight": block.mlp.c_proj,
                  p + "mlp.c_proj.bias": block.mlp.c_proj_bias}
    with torch.no_grad():
        for name, tensor in names.items():
            tensor.copy_(torch.as_tensor(np.asarray(params[name], dtype=np.float32)))
    return model


def train_recorded(config, seed: int, path, *, model_name: str = "minigpt",
                   threads: int = 1, hooks: bool = True) -> list[float]:
    """Train the module on the course's corpus as a user's loop would, recorded through
    `diagnose.runs.torch_hooks.ModelRecorder`: the config's schedule, clipping and evaluations.
    `hooks=False`: the same loop unrecorded (what the hooks cost). Returns each step's CPU
    seconds (this thread's: torch runs on it with one thread, and a loaded machine's waits
    are not counted)."""
    import contextlib
    import time

    from diagnose.engine import lr_at
    from diagnose.engine.corpus import build_corpus, probe_batch
    from diagnose.runs.record import RunInfo
    from diagnose.runs.torch_hooks import Hooks, ModelRecorder

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    corpus = build_corpus(config)
    model = copy_init(MiniGPT(config), seed)
    opt = model.optimizer()
    probe = tuple(torch.as_tensor(a) for a in probe_batch(config))
    val = tuple(torch.as_tensor(a) for a in corpus.split("val"))
    L = config.n_layers
    recorder = None if not hooks else ModelRecorder(
        model, path,
        RunInfo(steps=config.steps, lr_max=config.lr_max, eval_every=config.eval_every,
                entropy_floor=corpus.entropy_floor, vocab_size=config.vocab_size,
                model=model_name, data="verbs", heads_total=L * config.n_heads,
                neurons_total=L * config.d_ff),
        Hooks(blocks=[f"h.{i}" for i in range(L)], final_norm="ln_f",
              attention=[f"h.{i}.attn.probs" for i in range(L)],
              mlp=[f"h.{i}.mlp.act" for i in range(L)], probe=lambda: model(*probe)))
    batches = corpus.batches("train", config.batch_size, np.random.default_rng([seed, 1]))
    seconds = []
    with recorder or contextlib.nullcontext():
        for step in range(config.steps):
            started = time.thread_time()
            x, y = next(batches)
            model.train()
            lr = lr_at(step, config)
            loss = model(torch.as_tensor(x), torch.as_tensor(y))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if recorder:
                recorder.clip_grad_norm(config.grad_clip)
            else:
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            for group in opt.param_groups:
                group["lr"] = lr
            opt.step()
            val_loss = None
            if step % config.eval_every == 0 or step == config.steps - 1:
                model.eval()
                with torch.no_grad():
                    val_loss = float(model(*val))
            if recorder:
                recorder.log(lr=lr, train_loss=float(loss.detach()), val_loss=val_loss)
            seconds.append(time.thread_time() - started)
    return seconds
