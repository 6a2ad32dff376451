"""How long one training step takes: forward, backward, clip, AdamW and the instruments.

    python bench/step.py                 # the healthy config, B = 32
    python bench/step.py --steps 100 --no-torch
    python bench/step.py --no-threads --break bad-init

Trains two runs of the same seed side by side, one with the instruments and one without, and
alternates their steps so that both see the same load on a shared machine. Prints issue 24's
rows in one run: the median and the mean ms a step (the mean over whole `eval_every` cycles,
so the evaluation steps' extra work is amortised as in a real run) with, when PyTorch is
importable, the same step in PyTorch eager side by side (same weights and batches, subnormals
flushed as the engine flushes them, 2 threads and 1); the instruments' share of a step; an
evaluation step; the step's arithmetic (the matmuls' GFLOP over the timed batches, padding
included where the step computes it) and the rate that makes; and the peak RSS of the process.

A benchmark, not a test: numbers depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

import scenarios
from diagnose.engine import Trainer, lr_at
from diagnose.engine.corpus import PAD_ID
from diagnose.engine.runtime import denormals_flushable, tune_process

ROOT = Path(__file__).resolve().parent.parent


def timed_steps(trainers: list[Trainer], steps: int,
                turn: int) -> tuple[list[list[float]], list[float]]:
    """Wall ms of each step of each trainer, and each trainer's CPU ms a step (all threads),
    the trainers taking turns `turn` steps at a time (long enough for each to run from its
    own caches, short enough for both to share the machine's load)."""
    times: list[list[float]] = [[] for _ in trainers]
    cpu = [0.0 for _ in trainers]
    for _ in range(0, steps, turn):
        for i, (trainer, out) in enumerate(zip(trainers, times, strict=True)):
            cpu_start = time.process_time()
            for _ in range(turn):
                start = time.perf_counter()
                trainer.step()
                out.append((time.perf_counter() - start) * 1e3)
            cpu[i] += (time.process_time() - cpu_start) * 1e3
    return times, [total / len(out) for total, out in zip(cpu, times, strict=True)]


def step_gflop(N: int, B: int, T: int, config) -> float:
    """The matmuls' GFLOP of one training step on a batch of N real tokens in B rows padded to
    T: forward 2mnk each; backward twice that (the input's gradient and the weights')."""
    C, F, V, NH = config.d_model, config.d_ff, config.vocab_size, config.n_heads
    linear = N * (C * 3 * C + C * C + C * F + F * C) * config.n_layers + N * C * V   # (m n k)
    attention = 2 * B * NH * T * T * (C // NH) * config.n_layers          # scores, weights @ v
    embedding = N * V * C                                                 # its one-hot backward
    return (3 * 2 * (linear + attention) + 2 * embedding) / 1e9


def recording(batches, shapes: list[tuple[int, int, int]]):
    """The batches, each one's (N real tokens, B, T) appended to `shapes` as it is drawn."""
    for x, y in batches:
        shapes.append((int((x != PAD_ID).sum()), *x.shape))
        yield x, y


def torch_times(config, seed: int, steps: int, threads: int) -> list[float]:
    import torch

    sys.path.insert(0, str(ROOT))
    from tests.engine import torch_gpt

    torch.set_num_threads(threads)
    torch.set_flush_denormal(True)   # the arithmetic mode the engine's step runs in
    reference = Trainer(config, seed, instruments=False)    # the same weights and batches
    params = torch_gpt.to_torch(reference.params)
    opt = torch_gpt.optimizer(params, config)
    times = []
    for step in range(steps):
        x, y = next(reference._batches)
        start = time.perf_counter()
        torch_gpt.train_step(params, opt, x, y, lr_at(step, config), config)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60, help="timed steps (default 60)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--break", dest="slug", default=None,
                        help="time a broken config instead (bad-init, no-warmup, broken-mask)")
    parser.add_argument("--no-threads", action="store_true",
                        help="train without the trainers' worker threads")
    parser.add_argument("--no-torch", action="store_true",
                        help="skip PyTorch (timed side by side when it is importable)")
    args = parser.parse_args()

    config = scenarios.healthy_config()
    if args.slug:
        config = scenarios.breaks()[args.slug].apply(config)
    malloc_kept, blas_single = tune_process()
    threads = not args.no_threads
    watched = Trainer(config, args.seed, threads=threads)
    blind = Trainer(config, args.seed, instruments=False, threads=threads)
    shapes: list[tuple[int, int, int]] = []
    watched._batches = recording(watched._batches, shapes)
    timed_steps([watched, blind], args.warmup, 1)
    # start the timed window on an evaluation step, and time whole eval cycles
    cycle = config.eval_every
    while watched.step_index % cycle:
        timed_steps([watched, blind], 1, 1)
    first = watched.step_index
    steps = max(cycle, args.steps // cycle * cycle)
    (on, off), (cpu_on, cpu_off) = timed_steps([watched, blind], steps, cycle)
    gflop = statistics.fmean(step_gflop(*shape, config) for shape in shapes[first:])

    versus = ""
    if not args.no_torch:
        try:
            import torch
        except ImportError:
            versus = " | PyTorch: not importable"
        else:
            medians = [statistics.median(torch_times(config, args.seed, args.warmup + steps,
                                                     n)[args.warmup:]) for n in (2, 1)]
            versus = (f" | PyTorch {torch.__version__.split('+')[0]} eager, 2 threads / 1: "
                      f"median {medians[0]:.1f} / {medians[1]:.1f} ms; numpy's median is "
                      f"{statistics.median(on) / min(medians):.2f}x the faster (goal <= 0.5x)")

    mean_on, mean_off = statistics.fmean(on), statistics.fmean(off)
    median_on, median_off = statistics.median(on), statistics.median(off)
    print(f"config: {args.slug or 'healthy'}, B={config.batch_size}, {steps} steps from step "
          f"{first} (malloc kept: {malloc_kept}, single-threaded BLAS: {blas_single}, "
          f"subnormals flushed: {denormals_flushable()}, worker threads: {threads})")
    print(f"a step with instruments:    median {median_on:6.2f} ms, mean {mean_on:6.2f} ms "
          f"(CPU {cpu_on:6.2f} ms, every thread){versus}")
    print(f"a step without instruments: median {median_off:6.2f} ms, mean {mean_off:6.2f} ms "
          f"(CPU {cpu_off:6.2f} ms)")
    print(f"instruments' share:         {100 * (mean_on - mean_off) / mean_on:5.1f} % of a "
          f"step's wall, {100 * (cpu_on - cpu_off) / cpu_on:.1f} % of its CPU (goal <= 10 %; "
          f"median {100 * (median_on - median_off) / median_on:.1f} % off the evaluation steps)")
    evals = on[::cycle]
    print(f"an evaluation step:         {statistics.median(evals):6.2f} ms "
          f"(val loss, dead heads and neurons, every {cycle} steps)")
    print(f"a step's arithmetic:        {gflop:6.3f} GFLOP of matmuls (the timed batches' mean), "
          f"{gflop / median_off * 1e3:.0f} GFLOP/s at the median step without instruments")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS:                   {peak_mb:6.1f} MB")


if __name__ == "__main__":
    main()
