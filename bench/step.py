"""How long one training step takes: forward, backward, clip, AdamW and the instruments.

    python bench/step.py                 # the healthy config, B = 32
    python bench/step.py --steps 100 --no-torch
    python bench/step.py --no-threads --break bad-init

Trains three runs of the same seed side by side and alternates their steps, so that all see
the same load on a shared machine: one with the instruments, its records streamed as the app
trains (`engine.train.records`: an evaluation goes on while the next steps train), the same
with each record complete before the next step (`Trainer.step`), and one without instruments.
Prints issue 24's rows in one run: the median and the mean ms a step (the mean over whole
`eval_every` cycles, so the evaluation steps' extra work is amortised as in a real run) with,
when PyTorch is importable, the same step in PyTorch eager side by side (same weights and
batches, subnormals flushed as the engine flushes them, 2 threads and 1); the instruments'
share of a step (wall and CPU); an evaluation alone; the step's arithmetic (the matmuls' GFLOP
over the timed batches, padding included where the step computes it) and the rate that makes;
the same step's matmuls alone (numpy's, and PyTorch's beside it), timed on random operands of
the median batch's shapes; the room the step goal leaves beside numpy's matmuls for everything
else; and the peak RSS of the process.

A benchmark, not a test: numbers depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import functools
import math
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import scenarios
from diagnose.engine import Trainer, lr_at
from diagnose.engine.corpus import PAD_ID
from diagnose.engine.instruments import evaluate
from diagnose.engine.model import quietly
from diagnose.engine.runtime import denormals_flushable, denormals_flushed, tune_process
from diagnose.engine.train import records

ROOT = Path(__file__).resolve().parent.parent


def timed_steps(runs: list[Callable[[], dict]], steps: int,
                turn: int) -> tuple[list[list[float]], list[float]]:
    """Wall ms of each record of each run (a call that returns its next step's record), and
    each run's CPU ms a step (all threads), the runs taking turns `turn` steps at a time (long
    enough for each to run from its own caches, short enough for all to share the machine's
    load). A turn of whole evaluation cycles that starts on an evaluation step ends with no
    evaluation still running, so a run's CPU is its own."""
    times: list[list[float]] = [[] for _ in runs]
    cpu = [0.0 for _ in runs]
    for _ in range(0, steps, turn):
        for i, (run, out) in enumerate(zip(runs, times, strict=True)):
            cpu_start = time.process_time()
            for _ in range(turn):
                start = time.perf_counter()
                run()
                out.append((time.perf_counter() - start) * 1e3)
            cpu[i] += (time.process_time() - cpu_start) * 1e3
    return times, [total / len(out) for total, out in zip(cpu, times, strict=True)]


def evaluation_ms(trainer: Trainer, repeats: int = 5) -> float:
    """Median wall ms of one evaluation (the val loss and the probes) on the trainer's current
    weights, alone on this thread."""
    times = []
    with denormals_flushed():
        for _ in range(repeats):
            start = time.perf_counter()
            quietly(evaluate, trainer.params, trainer._probe, trainer._rest, trainer.config)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def step_gflop(N: int, B: int, T: int, config) -> float:
    """The matmuls' GFLOP of one training step on a batch of N real tokens in B rows padded to
    T: 2 m n k for each of `step_matmuls`' products."""
    return sum(2 * math.prod(a) * b[-1] for a, b in step_matmuls(N, B, T, config)) / 1e9


def step_matmuls(N: int, B: int, T: int, config) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The (a, b) operand shapes of every matmul one training step makes on a batch of N real
    tokens in B rows padded to T, in the engine's order: the four linear layers and the two
    attention products per block, forward then backward (the input's gradient and the
    weights'), the tied head, and the embedding's one-hot backward. `step_gflop` counts them."""
    C, F, V, NH = config.d_model, config.d_ff, config.vocab_size, config.n_heads
    hs = C // NH
    forward: list = []
    backward: list = []
    for _ in range(config.n_layers):
        for fan_in, fan_out in ((C, 3 * C), (C, C), (C, F), (F, C)):       # x @ W
            forward.append(((N, fan_in), (fan_in, fan_out)))
            backward += [((N, fan_out), (fan_out, fan_in)),                 # dy @ W.T
                         ((fan_in, N), (N, fan_out))]                       # x.T @ dy
        forward += [((B, NH, T, hs), (B, NH, hs, T)), ((B, NH, T, T), (B, NH, T, hs))]
        backward += [((B, NH, T, hs), (B, NH, hs, T))] + [((B, NH, T, T), (B, NH, T, hs))] * 3
    forward.append(((N, C), (C, V)))                                        # the head
    backward += [((N, V), (V, C)), ((V, N), (N, C)), ((V, N), (N, C))]      # and the embedding
    return forward + backward


def matmuls_ms(shapes, repeats: int = 30, torch_threads: int | None = None) -> float:
    """Median wall ms of one pass over `shapes`' matmuls on random float32 operands: numpy's
    (the engine's BLAS, one thread), or PyTorch's with `torch_threads` threads."""
    rng = np.random.default_rng(0)
    pairs = [tuple(rng.standard_normal(shape, dtype=np.float32) for shape in pair)
             for pair in shapes]
    matmul = np.matmul
    if torch_threads is not None:
        import torch

        torch.set_num_threads(torch_threads)
        pairs = [tuple(torch.from_numpy(a) for a in pair) for pair in pairs]
        matmul = torch.matmul
    times = []
    with denormals_flushed():
        for _ in range(repeats):
            start = time.perf_counter()
            for a, b in pairs:
                matmul(a, b)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


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
    # the same seed three times: streamed as the app trains (an evaluation goes on while the
    # next steps train), each record complete before the next step, and without instruments
    watched, stepwise, blind = (Trainer(config, args.seed, instruments=instruments,
                                        threads=threads) for instruments in (True, True, False))
    shapes: list[tuple[int, int, int]] = []
    watched._batches = recording(watched._batches, shapes)
    runs = [functools.partial(next, records(watched, 10 ** 9)), stepwise.step,
            functools.partial(next, records(blind, 10 ** 9))]
    timed_steps(runs, args.warmup, 1)
    # start the timed window on an evaluation step, and time whole eval cycles
    cycle = config.eval_every
    while stepwise.step_index % cycle:
        timed_steps(runs, 1, 1)
    first = stepwise.step_index
    steps = max(cycle, args.steps // cycle * cycle)
    (on, on_stepwise, off), (cpu_on, cpu_stepwise, cpu_off) = timed_steps(runs, steps, cycle)
    evaluation = evaluation_ms(stepwise)
    gflop = statistics.fmean(step_gflop(*shape, config) for shape in shapes[first:])

    median_shape = sorted(shapes[first:])[len(shapes[first:]) // 2]   # by N, the real tokens
    products = step_matmuls(*median_shape, config)
    floor = {"numpy": matmuls_ms(products)}
    versus = ""
    if not args.no_torch:
        try:
            import torch
        except ImportError:
            versus = " | PyTorch: not importable"
        else:
            medians = [statistics.median(torch_times(config, args.seed, args.warmup + steps,
                                                     n)[args.warmup:]) for n in (2, 1)]
            floor.update({f"PyTorch, {n} thread{'s' * (n > 1)}": matmuls_ms(products,
                                                                       torch_threads=n)
                          for n in (2, 1)})
            versus = (f" | PyTorch {torch.__version__.split('+')[0]} eager, 2 threads / 1: "
                      f"median {medians[0]:.1f} / {medians[1]:.1f} ms; numpy's median is "
                      f"{statistics.median(on) / min(medians):.2f}x the faster (goal <= 0.5x)")

    mean_on, mean_off = statistics.fmean(on), statistics.fmean(off)
    median_on, median_off = statistics.median(on), statistics.median(off)
    print(f"config: {args.slug or 'healthy'}, B={config.batch_size}, {steps} steps from step "
          f"{first} (malloc kept: {malloc_kept}, single-threaded BLAS: {blas_single}, "
          f"subnormals flushed: {denormals_flushable()}, worker threads: {threads})")
    mean_stepwise = statistics.fmean(on_stepwise)
    print(f"a step with instruments:    median {median_on:6.2f} ms, mean {mean_on:6.2f} ms "
          f"(CPU {cpu_on:6.2f} ms, every thread){versus}")
    print(f"  each record complete before the next step: median "
          f"{statistics.median(on_stepwise):6.2f} ms, mean {mean_stepwise:6.2f} ms (CPU "
          f"{cpu_stepwise:6.2f} ms); an evaluation step "
          f"{statistics.median(on_stepwise[::cycle]):.2f} ms")
    print(f"a step without instruments: median {median_off:6.2f} ms, mean {mean_off:6.2f} ms "
          f"(CPU {cpu_off:6.2f} ms)")
    print(f"instruments' share:         {100 * (mean_on - mean_off) / mean_on:5.1f} % of a "
          f"step's wall, {100 * (cpu_on - cpu_off) / cpu_on:.1f} % of its CPU (goal <= 10 %; "
          f"{100 * (mean_stepwise - mean_off) / mean_stepwise:.1f} % of the wall with each "
          f"record complete before the next step)")
    print(f"an evaluation:              {evaluation:6.2f} ms alone on one thread (val loss, dead "
          f"heads and neurons, every {cycle} steps: {evaluation / cycle:.2f} ms a step)")
    print(f"a step's arithmetic:        {gflop:6.3f} GFLOP of matmuls (the timed batches' mean), "
          f"{gflop / median_off * 1e3:.0f} GFLOP/s at the median step without instruments")
    print("the matmuls alone:           " + ", ".join(f"{ms:.2f} ms {who}" for who, ms in
                                                    floor.items())
          + f" ({median_shape[0]} real tokens, B={median_shape[1]}, T={median_shape[2]}: the "
          f"timed batches' median; {len(products)} products, random operands)")
    if len(floor) > 1:
        goal = 0.5 * min(medians)
        print(f"the goal's room:             0.5x PyTorch's step is {goal:.2f} ms: "
              f"{goal - floor['numpy']:.2f} ms beside numpy's matmuls for the rest of the step "
              f"(LayerNorm, GELU, softmax, RoPE, AdamW, the loss, the instruments, the calls), "
              f"which takes {median_on - floor['numpy']:.2f} ms now")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS:                   {peak_mb:6.1f} MB")


if __name__ == "__main__":
    main()
