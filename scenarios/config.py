"""The frozen training config of one run, and the rules a value must obey.

Holds `Config` (every knob of the lab's MiniGPT and its training, architecture §3), the table each
field is written under in `healthy.toml`, and `validate_value`, which turns a raw TOML value
into the field's type or says exactly what was expected. Reading files is `catalog.py`'s job.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from scenarios.errors import UserError

# Every step's record is held in memory until the scenario is written, and a metrics file of
# MAX_STEPS steps is about 5 MB, far below what the readers accept (diagnose.metrics.MAX_BYTES).
MAX_STEPS = 5000

# The built-in corpus (diagnose.engine.corpus, a fixed table) needs this many symbols and this
# context; tests/test_catalog.py checks these against the engine's table.
CORPUS_SYMBOLS = 35
CORPUS_LONGEST = 32
# Fixed caps on the model's size, so that a catalog that could not train on an ordinary
# machine is refused when it loads (naming the file and key), never by a MemoryError later.
MAX_PARAMS = 4_000_000
MAX_STEP_BYTES = 1024 * 1024 * 1024  # `step_bytes`: the memory one training step may need


# What a break may not override: the run's length and evaluation cadence (the metrics file's
# line count, where its evaluations fall) and the model's shape (its header's `params` and
# `vocab_size`, the length of `act_mean_abs`, the matrices of `spectral_norm`). Every run of a
# scenario writes files of one size and one line count, so the size never names the break;
# a break changes how the model learns (init, optimizer, schedule, mask, data), never this.
SHAPE_SECTIONS = ("model",)
SHAPE_KEYS = ("steps", "eval_every")


class CatalogError(UserError, ValueError):
    """A catalog file is malformed; the message is one line naming the file and the key."""


def _field(section: str, meaning: str, kind: type, accepts: dict[str, Any]) -> Any:
    """A dataclass field that knows its TOML table and what values it accepts."""
    limits = {"minimum": None, "above": None, "maximum": None, "choices": ()} | accepts
    return field(metadata={"section": section, "meaning": meaning, "kind": kind, **limits})


def _int(section: str, meaning: str, *, minimum: int, maximum: int | None = None) -> Any:
    """A whole number from `minimum` to `maximum` (no cap when None)."""
    return _field(section, meaning, int, {"minimum": minimum, "maximum": maximum})


def _float(section: str, meaning: str, *, minimum: float | None = None,
           above: float | None = None, maximum: float | None = None) -> Any:
    """A finite number, at least `minimum` or above `above`, at most `maximum`."""
    return _field(section, meaning, float, {"minimum": minimum, "above": above,
                                            "maximum": maximum})


def _choice(section: str, meaning: str, choices: tuple[str, ...]) -> Any:
    """One of `choices`."""
    return _field(section, meaning, str, {"choices": choices})


@dataclass(frozen=True)
class Config:
    """Everything that decides how one run trains. A break is `dataclasses.replace` of it."""

    # model
    vocab_size: int = _int("model", "character vocabulary size",
                           minimum=CORPUS_SYMBOLS, maximum=512)
    d_model: int = _int("model", "residual stream width C", minimum=2, maximum=1024)
    n_heads: int = _int("model", "attention heads per layer", minimum=1, maximum=32)
    n_layers: int = _int("model", "transformer blocks", minimum=1, maximum=16)
    d_ff: int = _int("model", "feed-forward hidden width", minimum=1, maximum=4096)
    context: int = _int("model", "context length in tokens", minimum=CORPUS_LONGEST,
                        maximum=256)
    # init
    init_scale: float = _float("init", "multiplier on the Xavier std", above=0)
    # optimizer
    beta1: float = _float("optimizer", "AdamW first-moment decay", minimum=0,
                          maximum=0.999999)
    beta2: float = _float("optimizer", "AdamW second-moment decay", minimum=0,
                          maximum=0.999999)
    eps: float = _float("optimizer", "AdamW epsilon", above=0)
    weight_decay: float = _float("optimizer", "decoupled weight decay on matrices",
                                 minimum=0)
    weight_decay_on: str = _choice("optimizer", "what weight decay shrinks",
                                   ("matrices", "everything"))
    # schedule
    lr_max: float = _float("schedule", "peak learning rate", above=0)
    lr_min: float = _float("schedule", "learning rate at the last step", minimum=0)
    warmup_steps: int = _int("schedule", "linear warmup steps (0 = none)", minimum=0,
                             maximum=MAX_STEPS)
    # clipping
    grad_clip: float = _float("clipping", "global gradient norm cap", above=0)
    # training
    batch_size: int = _int("training", "sequences per batch", minimum=1, maximum=1024)
    steps: int = _int("training", "optimizer steps per run", minimum=1,
                      maximum=MAX_STEPS)
    eval_every: int = _int("training", "steps between evaluations", minimum=1,
                           maximum=MAX_STEPS)
    dtype: str = _choice("training", "parameter dtype", ("float32", "float64"))
    frozen_layers: int = _int("training", "blocks, from the first, that never update",
                              minimum=0, maximum=16)
    # attention
    attention_mask: str = _choice("attention", "which keys a query may see",
                                  ("causal", "full"))
    mask_leak: str = _choice("attention", "the last block's mask, where it sees the future",
                             ("none", "one-head", "one-layer"))
    attention_logit_scale: str = _choice("attention", "factor on the attention logits",
                                         ("1/sqrt(hs)", "1"))
    # corpus
    n_examples: int = _int("corpus", "examples drawn from the table", minimum=10,
                           maximum=100_000)
    val_fraction: float = _float("corpus", "held-out share", above=0, maximum=0.9)
    corpus_seed: int = _int("corpus", "seed of the corpus draw", minimum=0,
                            maximum=2**63 - 1)
    target_shift: int = _int("corpus", "how far ahead the target is (1: the next token)",
                             minimum=0, maximum=1)
    # dead units
    head_uniform_entropy: float = _float("dead_units", "share of uniform entropy",
                                         above=0, maximum=1)
    head_collapse_weight: float = _float("dead_units", "largest attention weight",
                                         above=0, maximum=1)
    head_query_fraction: float = _float("dead_units", "share of queries", above=0,
                                        maximum=1)
    head_ablation_nats: float = _float("dead_units", "probe-loss change in nats", minimum=0)
    probe_examples: int = _int("dead_units", "examples in the probe batch", minimum=1,
                               maximum=1024)

    @property
    def head_size(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


FIELDS: dict[str, dataclasses.Field[Any]] = {f.name: f for f in dataclasses.fields(Config)}
SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(f.metadata["section"] for f in FIELDS.values()))


def _describe(value: Any) -> str:
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (dict, list)):
        return "a table" if isinstance(value, dict) else "a list"
    return f"{value!r}"


def expectation(name: str) -> str:
    """What a field accepts, in words: 'a whole number >= 1'."""
    meta = FIELDS[name].metadata
    if meta["choices"]:
        return "one of " + ", ".join(f'"{c}"' for c in meta["choices"])
    words = "a whole number" if meta["kind"] is int else "a number"
    bounds = []
    if meta["minimum"] is not None:
        bounds.append(f">= {meta['minimum']:g}")
    if meta["above"] is not None:
        bounds.append(f"> {meta['above']:g}")
    if meta["maximum"] is not None:
        bounds.append(f"<= {meta['maximum']:g}")
    return words + (" " + " and ".join(bounds) if bounds else "")


def validate_value(name: str, value: Any) -> Any:
    """Return `value` as field `name`'s type, or raise CatalogError (message without the file)."""
    meta = FIELDS[name].metadata
    kind = meta["kind"]
    problem = f"{name}: expected {expectation(name)} ({meta['meaning']}), got {_describe(value)}"
    if kind is str:
        if not isinstance(value, str) or value not in meta["choices"]:
            raise CatalogError(problem)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CatalogError(problem)
    if kind is int and not isinstance(value, int):
        raise CatalogError(problem)
    number = kind(value)
    if isinstance(number, float) and not math.isfinite(number):
        raise CatalogError(problem)
    if meta["minimum"] is not None and number < meta["minimum"]:
        raise CatalogError(problem)
    if meta["above"] is not None and number <= meta["above"]:
        raise CatalogError(problem)
    if meta["maximum"] is not None and number > meta["maximum"]:
        raise CatalogError(problem)
    return number


def count_params(config: Config) -> int:
    """The model's parameters (diagnose.engine.model.param_shapes, counted without numpy)."""
    C, F = config.d_model, config.d_ff
    block = 2 * C + 3 * C * C + C * C + 2 * C + C * F + F + F * C + C
    return config.vocab_size * C + config.n_layers * block + 2 * C


def step_bytes(config: Config) -> int:
    """An upper bound on the memory one training step takes, in bytes.

    The largest batch the engine forwards (a training batch, the whole validation split or the
    probe batch) times what each token keeps per layer (the residual stream's copies, q k v,
    the feed-forward's activations, each head's T x T attention) and the logits, twice for the
    backward pass; plus the parameters, their gradient and AdamW's two moments, and the
    corpus. Sequences are as long as the corpus's longest example, whatever `context`. A test
    measures real steps against it (tests/test_catalog.py): the bound is about twice the peak.
    """
    itemsize = 8 if config.dtype == "float64" else 4
    n_val = max(1, round(config.n_examples * config.val_fraction))
    rows = max(config.batch_size, n_val)  # the probe batch is at most the validation split
    T, C, F = min(config.context, CORPUS_LONGEST), config.d_model, config.d_ff  # no padding
    per_token = config.n_layers * (16 * C + 4 * F + 4 * config.n_heads * T) + 6 * config.vocab_size
    return 2 * rows * T * per_token * itemsize + 8 * count_params(config) * 8 + 32 * 2**20


def check_consistency(config: Config) -> None:
    """Rules that tie fields together; raise CatalogError naming the fields."""
    if config.d_model % config.n_heads:
        raise CatalogError(f"d_model: expected a multiple of n_heads ({config.n_heads}), "
                           f"got {config.d_model}")
    if config.head_size % 2:
        raise CatalogError(f"n_heads: the head size d_model/n_heads must be even for RoPE, "
                           f"got {config.d_model}/{config.n_heads} = {config.head_size}")
    if config.lr_min > config.lr_max:
        raise CatalogError(f"lr_min: expected at most lr_max ({config.lr_max:g}), "
                           f"got {config.lr_min:g}")
    if config.frozen_layers > config.n_layers:
        raise CatalogError(f"frozen_layers: expected at most n_layers ({config.n_layers}), "
                           f"got {config.frozen_layers}")
    if config.mask_leak != "none" and config.attention_mask != "causal":
        raise CatalogError(f"mask_leak: a leak needs attention_mask \"causal\", "
                           f"got {config.attention_mask!r}")
    if config.warmup_steps > config.steps:
        raise CatalogError(f"warmup_steps: expected at most steps ({config.steps}), "
                           f"got {config.warmup_steps}")
    if count_params(config) > MAX_PARAMS:
        raise CatalogError(f"d_model: the model would have {count_params(config):,} parameters "
                           f"(d_model {config.d_model}, n_layers {config.n_layers}, d_ff "
                           f"{config.d_ff}, vocab_size {config.vocab_size}), at most "
                           f"{MAX_PARAMS:,} train here")
    if step_bytes(config) > MAX_STEP_BYTES:
        mib = MAX_STEP_BYTES // 2**20
        raise CatalogError(f"batch_size: a training step would need about "
                           f"{step_bytes(config) / 2**20:,.0f} MiB (batch_size "
                           f"{config.batch_size}, n_examples {config.n_examples}, context "
                           f"{config.context}, d_model {config.d_model}, n_layers "
                           f"{config.n_layers}), at most {mib} MiB train here")
