"""A second model family for `bench/own_runs.py --family charlm`, written apart from the game's
port: a character language model on the licence texts under /usr/share/common-licenses (a
real text, read offline, whose entropy nobody knows), trained by an ordinary PyTorch loop and
recorded through `diagnose.runs.torch_hooks.ModelRecorder`.

Not the course's MiniGPT: learned position embeddings instead of rotary ones, an untied output
head, `nn.Linear` layers with biases, attention through `F.scaled_dot_product_attention` (so
Panel 6 comes from the recorder's stand-in softmax during probe passes), AdamW with a linear
warmup and a cosine decay, decay on the matrices only. Small enough that a 400-step run takes
a few seconds of one CPU thread.

The breaks (`BUGS`) are code changes a person makes, not the game's config keys: weights x10
at init, no warmup with the peak x5, the causal mask removed, `zero_grad()` forgotten, the
peak x10 with the warmup kept, weight decay 0.5 on every parameter, targets not shifted.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

LICENCES = Path("/usr/share/common-licenses")
MODEL = "charlm-2x64"
DATA = "common-licenses"


@dataclass(frozen=True)
class Setup:
    d_model: int = 64
    heads: int = 4
    layers: int = 2
    context: int = 32
    batch: int = 16
    steps: int = 400
    lr_max: float = 6e-3
    warmup: int = 40
    weight_decay: float = 0.1
    decay_all: bool = False
    init_gain: float = 1.0
    causal: bool = True
    zero_grad: bool = True
    shift: bool = True
    clip: float = 1.0
    eval_every: int = 20
    probe_every: int | None = 40  # dead units every other evaluation


# what each bug changes in the healthy setup (a person's code change, said as one)
BUGS = {
    "init-x10": {"init_gain": 10.0},
    "no-warmup-x5": {"warmup": 0, "lr_max": 3e-2},
    "no-mask": {"causal": False},
    "no-zero-grad": {"zero_grad": False},
    "lr-x10": {"lr_max": 6e-2},
    "decay-all": {"decay_all": True, "weight_decay": 0.5},
    "unshifted": {"shift": False},
}
# the catalog's families each bug may read as (besides "differs"); () = only "differs"
FAMILIES = {
    "healthy": (),
    "init-x10": ("big-init", "bad-init"),
    "no-warmup-x5": ("no-warmup", "short-warmup", "raised-lr", "high-lr"),
    "no-mask": ("broken-mask", "leaky-mask", "unshifted-targets"),
    "no-zero-grad": (),
    "lr-x10": ("high-lr", "raised-lr"),
    "decay-all": ("decay-everything",),
    "unshifted": ("unshifted-targets", "broken-mask", "leaky-mask"),
}


def corpus() -> tuple[torch.Tensor, torch.Tensor, int]:
    """(train ids, validation ids, vocabulary size): every licence text, 90% / 10%."""
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in sorted(LICENCES.iterdir()) if p.is_file() and not p.is_symlink())
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([index[c] for c in text], dtype=torch.long)
    cut = int(len(ids) * 0.9)
    return ids[:cut], ids[cut:], len(chars)


class Attention(nn.Module):
    def __init__(self, d: int, heads: int, causal: bool) -> None:
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=-1)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        return self.out(y.transpose(1, 2).reshape(B, T, C))


class Mlp(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.fc = nn.Linear(d, 4 * d)
        self.act = nn.GELU()
        self.proj = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(self.act(self.fc(x)))


class Block(nn.Module):
    def __init__(self, d: int, heads: int, causal: bool) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads, causal)
        self.mlp = Mlp(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class CharLM(nn.Module):
    def __init__(self, vocab: int, s: Setup) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, s.d_model)
        self.pos = nn.Embedding(s.context, s.d_model)
        self.blocks = nn.ModuleList(Block(s.d_model, s.heads, s.causal) for _ in range(s.layers))
        self.norm = nn.LayerNorm(s.d_model)
        self.head = nn.Linear(s.d_model, vocab, bias=False)
        for p in self.parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02 * s.init_gain)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        h = self.tok(x) + self.pos(torch.arange(x.shape[1]))
        for block in self.blocks:
            h = block(h)
        logits = self.head(self.norm(h))
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def lr_at(step: int, s: Setup) -> float:
    if step < s.warmup:
        return s.lr_max * (step + 1) / s.warmup
    progress = (step - s.warmup) / max(1, s.steps - 1 - s.warmup)
    return s.lr_max * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def batch(ids: torch.Tensor, s: Setup, g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    starts = torch.randint(0, len(ids) - s.context - 1, (s.batch,), generator=g)
    x = torch.stack([ids[i:i + s.context] for i in starts])
    y = torch.stack([ids[i + 1:i + 1 + s.context] for i in starts]) if s.shift else x
    return x, y


def setup_for(bug: str, steps: int = 400, **extra) -> Setup:
    return replace(Setup(steps=steps, **extra), **BUGS.get(bug, {}))


def train(s: Setup, seed: int, path: Path | None, *, hooks: bool = True) -> list[float]:
    """Train one run (recorded to `path` through ModelRecorder when `hooks`); returns each
    step's CPU seconds on this thread."""
    import contextlib

    from diagnose.runs.record import RunInfo
    from diagnose.runs.torch_hooks import Hooks, ModelRecorder

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    train_ids, val_ids, vocab = corpus()
    model = CharLM(vocab, s)
    matrices = [p for p in model.parameters() if p.dim() == 2]
    others = [p for p in model.parameters() if p.dim() < 2]
    groups = ([{"params": list(model.parameters()), "weight_decay": s.weight_decay}]
              if s.decay_all else
              [{"params": matrices, "weight_decay": s.weight_decay},
               {"params": others, "weight_decay": 0.0}])
    opt = torch.optim.AdamW(groups, lr=s.lr_max, betas=(0.9, 0.95))
    g = torch.Generator().manual_seed(seed)
    fixed = torch.Generator().manual_seed(12345)  # the same validation and probe batches
    val = [batch(val_ids, replace(s, batch=32), fixed) for _ in range(4)]
    probe = batch(val_ids, s, fixed)
    names = [f"blocks.{i}" for i in range(s.layers)]
    recorder = None if not hooks else ModelRecorder(
        model, path,
        RunInfo(steps=s.steps, lr_max=s.lr_max, eval_every=s.eval_every, vocab_size=vocab,
                model=MODEL, data=DATA, heads_total=s.layers * s.heads,
                neurons_total=s.layers * 4 * s.d_model),
        Hooks(blocks=names, final_norm="norm", attention=[f"{n}.attn" for n in names],
              mlp=[f"{n}.mlp.act" for n in names], probe=lambda: model(*probe),
              probe_every=s.probe_every))
    seconds = []
    with recorder or contextlib.nullcontext():
        for step in range(s.steps):
            started = time.thread_time()
            model.train()
            x, y = batch(train_ids, s, g)
            lr = lr_at(step, s)
            for group in opt.param_groups:
                group["lr"] = lr
            loss = model(x, y)
            if s.zero_grad:
                opt.zero_grad(set_to_none=True)
            loss.backward()
            if recorder:
                recorder.clip_grad_norm(s.clip)
            else:
                torch.nn.utils.clip_grad_norm_(model.parameters(), s.clip)
            opt.step()
            val_loss = None
            if step % s.eval_every == 0 or step == s.steps - 1:
                model.eval()
                with torch.no_grad():
                    val_loss = sum(float(model(*b)) for b in val) / len(val)
            if recorder:
                recorder.log(lr=lr, train_loss=float(loss.detach()), val_loss=val_loss)
            seconds.append(time.thread_time() - started)
    return seconds
