"""`diagnose.runs.torch_hooks` on models written as most current code is (issue 33): attention
through `F.scaled_dot_product_attention`, hooks named wrong, the probe's cost bounded by
`probe_every` (skipped without torch; the many-seed proof is bench/own_runs.py --family
charlm)."""

from __future__ import annotations

import pytest

from diagnose.metrics import read_metrics
from diagnose.runs.record import RecordError, RunInfo

torch = pytest.importorskip("torch", exc_type=ImportError)

import torch.nn.functional as F  # noqa: E402  (needs torch)
from torch import nn  # noqa: E402

from diagnose.runs.torch_hooks import Hooks, ModelRecorder  # noqa: E402

T, C, H, V = 8, 16, 2, 11


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.qkv = nn.Linear(C, 3 * C)
        self.out = nn.Linear(C, C)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, L, _ = x.shape
        q, k, v = (t.view(B, L, H, C // H).transpose(1, 2) for t in self.qkv(x).split(C, -1))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(B, L, C))


class Tiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(V, C)
        self.blocks = nn.ModuleList(nn.ModuleDict({"attn": Attention(), "act": nn.GELU(),
                                                   "fc": nn.Linear(C, 2 * C),
                                                   "proj": nn.Linear(2 * C, C)})
                                    for _ in range(2))
        self.norm = nn.LayerNorm(C)
        self.head = nn.Linear(C, V)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.emb(x)
        for block in self.blocks:
            h = h + block["attn"](h)
            h = h + block["proj"](block["act"](block["fc"](h)))
        return self.head(self.norm(h))


def train(tmp_path, hooks: Hooks, steps: int = 6, eval_every: int = 2):
    torch.manual_seed(0)
    model = Tiny()
    x = torch.randint(0, V, (4, T))
    y = torch.roll(x, -1, 1)

    def loss_of(a, b):
        return F.cross_entropy(model(a).reshape(-1, V), b.reshape(-1))

    hooks = Hooks(**{**hooks.__dict__, "probe": lambda: loss_of(x, y)})
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    path = tmp_path / "m.jsonl"
    with ModelRecorder(model, path, RunInfo(steps=steps, lr_max=1e-2, eval_every=eval_every,
                                            heads_total=2 * H), hooks) as rec:
        for _ in range(steps):
            model.train()
            loss = loss_of(x, y)
            opt.zero_grad()
            loss.backward()
            rec.clip_grad_norm(1.0)
            opt.step()
            rec.log(lr=1e-2, train_loss=float(loss.detach()), val_loss=None)
    return read_metrics(path)[1]


def test_scaled_dot_product_attention_fills_panel_6(tmp_path):
    """The attention modules call F.scaled_dot_product_attention: during probe passes an
    explicit softmax stands in, so dead heads are counted (not "not recorded"), and the
    training passes use the fused call untouched."""
    records = train(tmp_path, Hooks(blocks=["blocks.0", "blocks.1"], final_norm="norm",
                                    attention=["blocks.0.attn", "blocks.1.attn"],
                                    mlp=["blocks.0.act", "blocks.1.act"]))
    heads = [r["dead_heads"] for r in records]
    assert heads[0] is not None and 0 <= heads[0] <= 2 * H
    assert heads[1] is None and heads[2] is not None
    assert F.scaled_dot_product_attention is torch._C._nn.scaled_dot_product_attention


def test_the_stand_in_computes_what_the_fused_call_does():
    recorder = ModelRecorder.__new__(ModelRecorder)
    recorder._inside, recorder._calls, recorder._probs, recorder._ablate = None, 0, {}, None
    q, k, v = (torch.randn(2, H, T, 4) for _ in range(3))
    for kwargs in ({"is_causal": True}, {}, {"attn_mask": torch.ones(T, T).tril().bool()},
                   {"scale": 0.3}):
        assert torch.allclose(recorder._attention_call(q, k, v, **kwargs),
                              F.scaled_dot_product_attention(q, k, v, **kwargs), atol=1e-5)


def test_probe_every_bounds_the_probes(tmp_path):
    records = train(tmp_path, Hooks(attention=["blocks.0.attn"], probe_every=4), steps=9)
    probed = [r["step"] for r in records if r["dead_heads"] is not None]
    assert probed == [0, 4, 8]


@pytest.mark.parametrize(("attention", "said"), [
    (["blocks.0.fc"], "'blocks.0.fc': attention= names a module that outputs no attention "
                      "probabilities (its output: (4, 8, 32)"),
    (["blocks.0.attn.qkv"], "'blocks.0.attn.qkv': attention= names a module that outputs no "
                            "attention probabilities (its output: (4, 8, 48)"),
])
def test_a_hook_on_the_wrong_module_is_one_line_at_the_first_pass(tmp_path, attention, said):
    """`Hooks(attention=["0"])` naming an nn.Linear: one error line naming the module and
    its output's shape at the first probe pass, not a raw IndexError."""
    with pytest.raises(RecordError) as err:
        train(tmp_path, Hooks(attention=attention))
    assert str(err.value).startswith(said) and "\n" not in str(err.value)


def test_a_bad_probe_every_is_one_line(tmp_path):
    with pytest.raises(RecordError, match="probe_every: expected a whole number"):
        ModelRecorder(Tiny(), tmp_path / "m.jsonl", RunInfo(steps=3, lr_max=0.1, eval_every=1),
                      Hooks(attention=["blocks.0.attn"], probe=lambda: 0.0, probe_every=0))
