"""Training that streams: one step at a time, each step's metrics record as soon as it is done.

`Trainer(config, seed).step()` runs step s: forward → backward → clip → AdamW update, then (only
diagnostics from there on) the instruments read what they need. Record s describes the
weights step s's forward pass used (after s updates): the instruments read a copy of them taken
before the update, so they can never touch the training. The lr and the post-clip norm are the
ones applied at step s. `train(config, seed)` yields the records of a whole run in step order,
each once it is complete; closing the generator cancels it between steps.

The record has exactly `diagnose.metrics.STEP_KEYS`, in that order. A diverging run never
raises: every step runs under `np.errstate(all="ignore")`, non-finite values are recorded as
nan/inf. With `instruments=False` the instruments' values are None (lr, the batch's loss and
the grad norms are always real) and the weights are bit-identical.

A Trainer owns two worker threads (unless threads=False). One computes the weights'
gradients while the main thread goes on down the backward pass, and the spectral norms of the
copied weights; the other runs the evaluation steps' forward pass of val and the probes on
its own copy while the step trains and, when the record is streamed (`train`, `records`),
while the next steps train too (at most AHEAD of them): its record follows once it is done,
so a run does not stall on its evaluation steps. `step()` returns each record complete. BLAS
is single-threaded (`runtime.py`) and every job writes its own arrays, so the numbers do not
depend on any of this.

`seed` decides the initialisation and the batch order; the corpus is the same for every seed.
"""

from __future__ import annotations

import collections
import math
import weakref
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from diagnose.engine.corpus import build_corpus, probe_batch
from diagnose.engine.instruments import SpectralNorms, act_mean_abs, evaluate
from diagnose.engine.model import (
    count_params,
    flat_of,
    forward_backward,
    frozen_positions,
    init_params,
    matrix_names,
    n_decayed,
    point_into,
    quietly,
)
from diagnose.engine.optim import AdamW, adam_state, adamw_update, clip_grad_norm, lr_at
from diagnose.engine.runtime import denormals_flushed, flush_denormals, tune_process


class Trainer:
    """One run of `config` from `seed`, stepped by the caller."""

    def __init__(self, config, seed: int, *, instruments: bool = True,
                 threads: bool = True) -> None:
        tune_process()
        self.config = config
        self.seed = seed
        self.corpus = build_corpus(config)
        self.params = init_params(config, seed)
        self.step_index = 0
        self._flat = flat_of(self.params)
        self._grads_flat = np.zeros_like(self._flat)
        self._grads = point_into(self._grads_flat, config)
        self._adam = adam_state(self._flat)
        # the decayed leading slice: the matrices, or the whole buffer (a break)
        self._adamw = AdamW.of(config, n_decayed(config) if config.weight_decay_on == "matrices"
                               else self._flat.size)
        # a frozen block (a break) is out of the optimizer, as with requires_grad=False: no
        # gradient (the recorded norms leave it out), no update, no decay
        self._frozen = frozen_positions(config)
        self._frozen_values = self._flat[self._frozen]
        self._batches = self.corpus.batches("train", config.batch_size,
                                            np.random.default_rng([seed, 1]))
        # worker threads: one for the weights' gradients and the spectral norms, one for the
        # evaluations (the validation loss and the probes), which take a forward pass of val;
        # without them (threads=False) the same work runs in turn on the caller's thread
        self._pool = self._eval_pool = None
        if threads:
            # (each sets its thread's arithmetic as the step sets the caller's, runtime.py)
            self._pool, self._eval_pool = (
                ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"diagnose-{name}",
                                   initializer=flush_denormals) for name in ("grads", "eval"))
            for pool in (self._pool, self._eval_pool):
                weakref.finalize(self, pool.shutdown, wait=False)
        self._instruments = instruments
        if instruments:
            self._seen_flat = np.empty_like(self._flat)   # the weights the forward pass used
            self._seen = point_into(self._seen_flat, config)
            self._spectral = SpectralNorms(matrix_names(config), config.d_model)
            self._probe = probe_batch(config)                       # the first of val
            rest = np.arange(len(self._probe[0]), len(self.corpus.val))
            self._rest = self.corpus.batch("val", rest) if len(rest) else None

    def is_eval_step(self, step: int) -> bool:
        return step % self.config.eval_every == 0 or step == self.config.steps - 1

    def step(self) -> dict[str, Any]:
        """Run one training step and return its metrics record."""
        return self.advance().result()

    def advance(self) -> PendingRecord:
        """Run one training step; its record, whose evaluation (an evaluation step's) may
        still be running on the worker thread while the caller goes on to the next step."""
        config, s = self.config, self.step_index
        x, y = next(self._batches)
        lr = lr_at(s, config)
        evaluation = None
        with np.errstate(all="ignore"), denormals_flushed():  # subnormals: runtime.py
            if self._instruments:  # a copy of the weights this step uses, measured meanwhile
                np.copyto(self._seen_flat, self._flat)
                spectral = submit(self._pool, self._spectral.measure, self._seen)
                if self.is_eval_step(s):   # on its own copy: the next step overwrites _seen
                    seen = point_into(self._seen_flat.copy(), config)
                    evaluation = submit(self._eval_pool, evaluate, seen, self._probe,
                                        self._rest, config)
            loss, cache = forward_backward(self.params, x, y, config, self._grads, self._pool)
            if self._frozen.size:
                self._grads_flat[self._frozen] = 0.0
            preclip, postclip = clip_grad_norm(self._grads_flat, config.grad_clip)
            adamw_update(self._flat, self._grads_flat, self._adam, s + 1, lr, self._adamw)
            if self._frozen.size:
                self._flat[self._frozen] = self._frozen_values
            # --- the update is done: below only diagnostics, reading the copy and the cache
            record = {"step": s, "lr": lr, "train_loss": loss, "val_loss": None,
                      "grad_norm_preclip": preclip, "grad_norm_postclip": postclip,
                      "act_mean_abs": None, "spectral_norm": None, "dead_heads": None,
                      "dead_neurons_frac": None}
            if self._instruments:
                record["act_mean_abs"] = act_mean_abs(cache)
                record["spectral_norm"] = spectral.result()
        self.step_index += 1
        return PendingRecord(record, evaluation)


class PendingRecord:
    """A step's record, complete once its evaluation (if it has one) is done."""

    def __init__(self, record: dict[str, Any], evaluation: Future | Deferred | None) -> None:
        self._record, self._evaluation = record, evaluation

    def done(self) -> bool:
        """Whether `result()` returns without waiting for a worker thread."""
        return self._evaluation is None or self._evaluation.done()

    def result(self) -> dict[str, Any]:
        if self._evaluation is not None:
            val_loss, heads, neurons = self._evaluation.result()
            self._record["val_loss"] = val_loss
            self._record["dead_heads"] = int(heads.sum())
            self._record["dead_neurons_frac"] = float(neurons.mean())
            self._evaluation = None
        return self._record


class Deferred:
    """fn(*args), computed when its result is asked for: a thread-less stand-in for a Future,
    so that without threads the instruments run after the update, in the step's order. It
    runs in the arithmetic a pool's thread would (errors ignored, subnormals flushed), wherever
    the caller asks."""

    def __init__(self, fn, *args) -> None:
        self.fn, self.args = fn, args

    def result(self):
        with denormals_flushed():
            return quietly(self.fn, *self.args)

    def done(self) -> bool:
        return True   # nothing to wait for: the caller computes it when it asks


def submit(pool: ThreadPoolExecutor | None, fn, *args) -> Future | Deferred:
    """fn(*args) on the pool's thread, or later on the caller's without a pool."""
    return Deferred(fn, *args) if pool is None else pool.submit(quietly, fn, *args)


def train(config, seed: int, *, instruments: bool = True,
          threads: bool = True) -> Iterator[dict[str, Any]]:
    """Yield each step's record of a whole run, in step order, as soon as it is complete
    (`records`)."""
    trainer = Trainer(config, seed, instruments=instruments, threads=threads)
    yield from records(trainer, config.steps)


AHEAD = 8   # steps that may train while an evaluation step's record waits for its evaluation


def records(trainer: Trainer, steps: int) -> Iterator[dict[str, Any]]:
    """Run `steps` steps of `trainer` and yield their records in step order, each as soon as
    it is complete: with worker threads, an evaluation goes on while the next steps train (at
    most AHEAD of them), and its record follows. The records are those of `step()`."""
    waiting: collections.deque[PendingRecord] = collections.deque()
    for _ in range(steps):
        waiting.append(trainer.advance())
        while waiting and (waiting[0].done() or len(waiting) > AHEAD):
            yield waiting.popleft().result()
    while waiting:
        yield waiting.popleft().result()


def run_header_fields(config) -> dict[str, Any]:
    """The metrics header's fields that follow from the config (the caller adds `run`)."""
    return {"steps": config.steps, "params": count_params(config),
            "vocab_size": config.vocab_size, "lr_max": config.lr_max,
            "eval_every": config.eval_every,
            "entropy_floor": build_corpus(config).entropy_floor,
            "ln_vocab": math.log(config.vocab_size)}
