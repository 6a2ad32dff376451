"""Record a PyTorch model's six panels with one object (the optional `[torch]` extra).

    from diagnose.runs.record import RunInfo
    from diagnose.runs.torch_hooks import Hooks, ModelRecorder

    rec = ModelRecorder(model, "runs/mine/metrics.jsonl",
                        RunInfo(steps=2000, lr_max=3e-4, eval_every=100),
                        Hooks(blocks=["h.0", "h.1"], final_norm="ln_f",
                              attention=["h.0.attn.probs", "h.1.attn.probs"],
                              mlp=["h.0.mlp.act", "h.1.mlp.act"], probe=probe_loss))
    for step in range(2000):
        loss = loss_fn(model(x), y)            # the panels' numbers are taken here
        loss.backward()
        rec.clip_grad_norm(1.0)                # pre- and post-clip norms (or rec.grad_norm())
        opt.step(); opt.zero_grad()
        rec.log(lr=lr, train_loss=loss.item(), val_loss=val_or_None)

What it measures, with the game's meanings (docs/files.md), on the weights each step's
training forward pass uses (a forward pre-hook on the model, in training mode only):

- Panel 4: mean |output| of each module named in `blocks` (the residual stream after a block)
  and of `final_norm`.
- Panel 5: the largest singular value of every 2-D parameter, by power iteration warm-started
  from the previous step's vector (`FIRST_ITERATIONS` the first time, `iterations` after).
- Panel 3: `clip_grad_norm` clips as `torch.nn.utils.clip_grad_norm_` and records the global
  norm before and after.
- Panel 6, every `probe_every` steps (default: `eval_every`), step 0 and the last, when the
  model exposes them: a module of `attention` either outputs attention probabilities
  (B, H, T, T), or calls `F.scaled_dot_product_attention` (looked up as
  `torch.nn.functional.scaled_dot_product_attention` when it runs): during the probe passes
  only, an explicit softmax stands in for each such call and captures its probabilities. A
  module of `mlp` must take the MLP's pre-activation as input. What a named module gives is
  checked at the first pass that uses it: an output that is not row-stochastic over [..., T, T]
  (and no attention call inside) is one error line naming the module and its shape. A head is
  dead when its attention is degenerate on most probe queries (near-uniform or collapsed, the
  game's thresholds) and zeroing its probabilities changes `probe()`'s loss by less than 0.01
  nats; a neuron when its
  input is negative on every probe token. Without `attention`, `mlp` and `probe`, Panel 6 is
  "not recorded".

Left out: anything that changes training. The hooks read tensors under `torch.no_grad()`; the
probe runs in eval mode and restores the mode it found. Nothing else in the package imports
this module; it imports without torch (so every module of the package does), and a
`ModelRecorder` made without torch is one error line saying how to install it.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from diagnose.runs.record import Recorder, RecordError, RunInfo
from scenarios.errors import UserError

try:
    import torch
except ImportError:  # the optional [torch] extra is not installed
    torch = None

FIRST_ITERATIONS = 64
HEAD_UNIFORM_ENTROPY = 0.9   # the game's (scenarios/healthy.toml), for the same meaning
HEAD_COLLAPSE_WEIGHT = 0.95
HEAD_QUERY_FRACTION = 0.8
HEAD_ABLATION_NATS = 0.01


@dataclass(frozen=True)
class Hooks:
    """Where the panels' numbers are taken in the model (see the module docstring): the
    modules whose output is the residual stream after each block and after the final norm
    (Panel 4), the modules that output attention probabilities and take the MLP's
    pre-activation, the `probe` loss that tells dead units (Panel 6), and the power
    iterations per step after the first (Panel 5)."""

    blocks: Sequence[str] = ()
    final_norm: str | None = None
    attention: Sequence[str] = ()
    mlp: Sequence[str] = ()
    probe: Callable[[], Any] | None = None
    iterations: int = 4
    probe_every: int | None = None  # steps between dead-unit probes; None: eval_every

    def recorded(self) -> list[str]:
        """The optional metrics keys these hooks fill."""
        return ["grad_norm_preclip", "grad_norm_postclip", "spectral_norm",
                *(["act_mean_abs"] if self.blocks else []),
                *(["dead_heads"] if self.attention else []),
                *(["dead_neurons_frac"] if self.mlp else [])]

    def check(self, modules: dict[str, Any], eval_every: int | None) -> None:
        """Refuse a module the model lacks, or dead units without a probe and an interval."""
        final = (self.final_norm,) if self.final_norm else ()
        for name in (*self.blocks, *final, *self.attention, *self.mlp):
            if name not in modules:
                raise RecordError(f"{name!r}: no module of that name in the model "
                                  f"(model.named_modules() lists them)")
        if (self.attention or self.mlp) and (self.probe is None or not (
                eval_every or self.probe_every)):
            raise RecordError("dead heads and neurons need probe= (a function returning the "
                              "probe batch's loss) and eval_every= (or probe_every=)")
        if self.probe_every is not None and not (
                isinstance(self.probe_every, int) and self.probe_every >= 1):
            raise RecordError(f"probe_every: expected a whole number of at least 1, got "
                              f"{self.probe_every!r:.60}")
        if self.blocks and not self.final_norm:
            raise RecordError("blocks= needs final_norm= too (Panel 4's last line)")


def _probabilities(name: str, output: Any) -> torch.Tensor:
    """The attention probabilities a module of `attention=` outputs, checked: a tensor over
    [..., T, T] whose rows sum to 1 (the keys a query may not see at 0)."""
    probs = output[0] if isinstance(output, tuple) and output else output
    shape = tuple(probs.shape) if isinstance(probs, torch.Tensor) else type(probs).__name__
    ok = (isinstance(probs, torch.Tensor) and probs.ndim >= 3
          and probs.shape[-1] == probs.shape[-2] and probs.is_floating_point())
    if ok:
        p = probs.detach().float()
        ok = bool((p >= 0).all()) and bool(((p.sum(-1) - 1).abs() < 1e-3).all())
    if not ok:
        raise RecordError(
            f"{name!r}: attention= names a module that outputs no attention probabilities "
            f"(its output: {shape}; expected rows summing to 1 over [..., T, T]) and calls no "
            "F.scaled_dot_product_attention: name the module that outputs the softmax, or the "
            "one that calls it")
    return probs


class ModelRecorder:
    """A `Recorder` fed by hooks on an `nn.Module` (see the module docstring)."""

    def __init__(self, model: torch.nn.Module, path: str | os.PathLike[str], info: RunInfo,
                 hooks: Hooks | None = None, record_val_loss: bool = True) -> None:
        """`info`: the run's header, as `Recorder` takes it (its `recorded` keys are added to
        the hooks' own); `record_val_loss`: `log` takes `val_loss` too."""
        if torch is None:
            raise UserError("diagnose.runs.torch_hooks needs PyTorch",
                            "pip install 'diagnose-training[torch]'")
        hooks = hooks or Hooks()
        modules = dict(model.named_modules())
        hooks.check(modules, info.eval_every)
        blocks, final_norm, attention, mlp = (hooks.blocks, hooks.final_norm, hooks.attention,
                                              hooks.mlp)
        self.model = model
        self.steps = int(info.steps)
        self.eval_every = info.eval_every
        self.probe_every = hooks.probe_every or info.eval_every
        self.iterations = int(hooks.iterations)
        self.probe = hooks.probe
        self.matrices = {name: p for name, p in model.named_parameters() if p.ndim == 2}
        recorded = hooks.recorded()
        recorded[3:3] = ["val_loss"] if record_val_loss else []  # where it always stood
        recorded += [key for key in info.recorded if key not in recorded]
        self.recorder = Recorder(path, dataclasses.replace(info, recorded=recorded))
        self._vectors: dict[str, torch.Tensor] = {}
        self._acts: dict[str, float] = {}
        self._measured: dict[str, Any] | None = None
        self._norms: tuple[float, float] | None = None
        self._probing = False
        self._probs: dict[tuple[str, int], torch.Tensor] = {}
        self._inputs: dict[str, torch.Tensor] = {}
        self._ablate: tuple[str, int, int] | None = None  # (module, attention call, head)
        self._inside: str | None = None  # the attention module running (probe passes)
        self._calls = 0                  # its attention calls so far in this pass
        self._act_order = [*blocks, *((final_norm,) if final_norm else ())]
        self._attention, self._mlp = list(attention), list(mlp)
        self._handles = [model.register_forward_pre_hook(self._before_forward)]
        for name in self._act_order:
            self._handles.append(modules[name].register_forward_hook(self._activation(name)))
        for name in self._attention:
            self._handles.append(modules[name].register_forward_pre_hook(self._entering(name)))
            self._handles.append(modules[name].register_forward_hook(self._attention_hook(name)))
        for name in self._mlp:
            self._handles.append(modules[name].register_forward_hook(self._mlp_hook(name)))

    # --- hooks ---------------------------------------------------------------------------

    def _before_forward(self, module: torch.nn.Module, args: Any) -> None:
        if self._probing or not module.training or self._measured is not None:
            return
        step = self._step()
        measured: dict[str, Any] = {"spectral_norm": self.spectral_norms()}
        if self.probe is not None and self.probe_every and (
                step % self.probe_every == 0 or step == self.steps - 1):
            heads, neurons = self.dead_units()
            if self._attention:
                measured["dead_heads"] = heads
            if self._mlp:
                measured["dead_neurons_frac"] = neurons
        self._measured = measured

    def _activation(self, name: str) -> Callable:
        def hook(module: torch.nn.Module, args: Any, output: Any) -> None:
            if self.model.training and not self._probing:
                out = output[0] if isinstance(output, tuple) and output else output
                if not isinstance(out, torch.Tensor):
                    raise RecordError(f"{name!r}: blocks= and final_norm= name modules whose "
                                      f"output is a tensor; this one gives "
                                      f"{type(out).__name__}")
                with torch.no_grad():
                    self._acts[name] = float(out.detach().abs().mean())
        return hook

    def _entering(self, name: str) -> Callable:
        def hook(module: torch.nn.Module, args: Any) -> None:
            if self._probing:
                self._inside, self._calls = name, 0
        return hook

    def _attention_hook(self, name: str) -> Callable:
        def hook(module: torch.nn.Module, args: Any, output: Any) -> Any:
            if not self._probing:
                return None
            self._inside = None
            if self._calls:  # its probabilities came from its attention calls
                return None
            probs = _probabilities(name, output)
            self._probs[(name, 0)] = probs.detach()
            if self._ablate is not None and self._ablate[:2] == (name, 0):
                output = output.clone()
                output[:, self._ablate[2]] = 0.0
                return output
            return None
        return hook

    def _attention_call(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                        attn_mask: torch.Tensor | None = None, dropout_p: float = 0.0,
                        is_causal: bool = False, scale: float | None = None,
                        enable_gqa: bool = False) -> torch.Tensor:
        """`F.scaled_dot_product_attention` during probe passes: the same arithmetic with an
        explicit softmax (no dropout: the probe runs in eval mode), whose probabilities are
        kept for the attention module running, and a head zeroed when ablating."""
        L, S = query.shape[-2], key.shape[-2]
        if enable_gqa and key.shape[-3] != query.shape[-3]:
            repeat = query.shape[-3] // key.shape[-3]
            key, value = (t.repeat_interleave(repeat, dim=-3) for t in (key, value))
        factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
        scores = (query @ key.transpose(-2, -1)) * factor
        if is_causal:
            allowed = torch.ones(L, S, dtype=torch.bool, device=query.device).tril()
            scores = scores.masked_fill(~allowed, float("-inf"))
        if attn_mask is not None:
            scores = (scores.masked_fill(~attn_mask, float("-inf"))
                      if attn_mask.dtype == torch.bool else scores + attn_mask)
        probs = scores.softmax(dim=-1)
        if self._inside is not None:
            call = (self._inside, self._calls)
            self._calls += 1
            self._probs[call] = probs.detach()
            if self._ablate is not None and self._ablate[:2] == call:
                probs = probs.clone()
                probs[:, self._ablate[2]] = 0.0
        return probs @ value

    def _mlp_hook(self, name: str) -> Callable:
        def hook(module: torch.nn.Module, args: Any, output: Any) -> None:
            if self._probing:
                if not args or not isinstance(args[0], torch.Tensor):
                    raise RecordError(f"{name!r}: mlp= names a module whose input is the MLP's "
                                      "pre-activation, a tensor; this one takes "
                                      f"{type(args[0]).__name__ if args else 'nothing'}")
                self._inputs[name] = args[0].detach()
        return hook

    # --- measurements --------------------------------------------------------------------

    def _step(self) -> int:
        return self.recorder.steps_written

    def spectral_norms(self) -> dict[str, float]:
        """Each 2-D parameter's largest singular value, power iteration warm-started."""
        with torch.no_grad():
            return self._spectral_norms()

    def _spectral_norms(self) -> dict[str, float]:
        out = {}
        for name, weight in self.matrices.items():
            w = weight.detach().float()
            v = self._vectors.get(name)
            count = self.iterations
            if v is None:
                generator = torch.Generator().manual_seed(len(self._vectors))
                v = torch.randn(w.shape[1], generator=generator).to(w.device)
                count = FIRST_ITERATIONS
            sigma = math.nan
            for _ in range(count):
                u = w @ v
                sigma = float(u.norm())
                if not math.isfinite(sigma) or sigma == 0:
                    break
                v = w.T @ (u / sigma)
                v = v / v.norm()
            self._vectors[name] = v
            out[name] = sigma
        return out

    def dead_units(self) -> tuple[float, float]:
        """(dead heads, dead share of MLP neurons) on the probe (see the module docstring)."""
        mode = self.model.training
        self.model.eval()
        self._probing = True
        functional = torch.nn.functional
        attention_call = functional.scaled_dot_product_attention
        if self._attention:
            functional.scaled_dot_product_attention = self._attention_call
        try:
            with torch.no_grad():
                loss = float(self.probe())
                heads = 0
                for (name, call), probs in list(self._probs.items()):
                    for head in self._degenerate(probs):
                        self._ablate = (name, call, head)
                        ablated = float(self.probe())
                        self._ablate = None
                        heads += abs(ablated - loss) < HEAD_ABLATION_NATS
                dead = total = 0
                for inputs in self._inputs.values():
                    flat = inputs.reshape(-1, inputs.shape[-1])
                    dead += int((flat < 0).all(0).sum())
                    total += flat.shape[-1]
        finally:
            functional.scaled_dot_product_attention = attention_call
            self._probing = False
            self._inside = None
            self._ablate = None
            self._probs.clear()
            self._inputs.clear()
            self.model.train(mode)
        return float(heads), dead / total if total else math.nan

    @staticmethod
    def _degenerate(probs: torch.Tensor) -> list[int]:
        """The heads whose attention is near-uniform or collapsed on most queries that may see
        two keys or more (the keys a query may see: those with a probability above 0)."""
        p = probs.float()                                          # (B, H, T, T)
        n_keys = (p > 0).sum(-1)                                   # (B, H, T)
        counted = n_keys >= 2
        entropy = -(p * torch.log(torch.where(p > 0, p, torch.ones_like(p)))).sum(-1)
        uniform = entropy >= HEAD_UNIFORM_ENTROPY * torch.log(n_keys.clamp(min=1).float())
        collapsed = p.amax(-1) >= HEAD_COLLAPSE_WEIGHT
        degenerate = (uniform | collapsed) & counted
        share = degenerate.sum((0, 2)) / counted.sum((0, 2)).clamp(min=1)   # (H,)
        return [int(h) for h in torch.nonzero(share >= HEAD_QUERY_FRACTION).flatten()]

    def grad_norm(self) -> float:
        """The global L2 norm of the gradients, recorded as both pre- and post-clip."""
        with torch.no_grad():
            norm = self._global_norm()
        self._norms = (norm, norm)
        return norm

    def clip_grad_norm(self, max_norm: float) -> float:
        """Clip as `torch.nn.utils.clip_grad_norm_`; records the norm before and after."""
        params = [p for p in self.model.parameters() if p.grad is not None]
        pre = float(torch.nn.utils.clip_grad_norm_(params, max_norm))
        with torch.no_grad():
            self._norms = (pre, self._global_norm())
        return pre

    def _global_norm(self) -> float:
        grads = [p.grad.detach().float().norm() for p in self.model.parameters()
                 if p.grad is not None]
        return float(torch.stack(grads).norm()) if grads else math.nan

    # --- the step ------------------------------------------------------------------------

    def log(self, *, lr: float, train_loss: float, val_loss: float | None = None,
            **extra: Any) -> dict[str, Any]:
        """Write this step: what the hooks measured on its forward pass, and the numbers given."""
        if self._measured is None:
            raise RecordError(f"step {self._step()}: no training forward pass since the last "
                              "log (call model.train() and run the step first)")
        if self._norms is None:
            self.grad_norm()
        values = dict(self._measured)
        if self._act_order:
            values["act_mean_abs"] = [self._acts.get(n, math.nan) for n in self._act_order]
        pre, post = self._norms
        if "val_loss" in self.recorder.recorded:
            values["val_loss"] = val_loss
        record = self.recorder.log(lr=lr, train_loss=train_loss, grad_norm_preclip=pre,
                                   grad_norm_postclip=post, **values, **extra)
        self._measured, self._norms = None, None
        self._acts.clear()
        return record

    def close(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self.recorder.close()

    def __enter__(self) -> ModelRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
