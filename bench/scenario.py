"""Wall time of making scenarios: `diagnose new` (goal <= 8 s, issue 24) and `diagnose deal
--count N`, students per hour for a local deal and a deal on a Dask LocalCluster (`--rate`), and
the first frame of `diagnose play` on a ready scenario (goal <= 700 ms, issue 24), and the
training alone: the same four runs without and with the instruments, no start-up, nothing
written (what only a faster step can shorten).

`diagnose new`'s row gives the median of `--new-runs` scenarios of the default length, and the
part of it that is not training: the median of as many `diagnose new --steps 1` (start-up,
workers, the dealer's check, writing the workspace), and the CPU-seconds a scenario takes.

Runs the real commands in a temporary folder with a temporary DIAGNOSE_HOME. With `--rate`, the
local deal (`--jobs`) and the cluster deal (`--scheduler`, a LocalCluster of `--workers`
one-thread worker processes on this machine) deal `--rate-count` students at each of
`--rate-steps`.

The first frame is `bench/tui.py --first-frame`'s (a fresh process opens the test scenario and
paints its panels headless), the median of `--frames` processes.

Run: python bench/scenario.py [--new-runs 3] [--deal-count 30] [--jobs 2] [--frames 3]
     python bench/scenario.py --new-runs 0 --deal-count 0 --rate [--rate-count 4]
         [--rate-steps 5,400] [--workers 2]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36  # Linux prctl: orphaned descendants become our children
BENCH = Path(__file__).resolve().parent


def adopt_orphans() -> bool:
    """Make this process the subreaper of its descendants (Linux), so that the training
    workers, children of multiprocessing's fork server, which nobody waits for, are ours to
    wait for and their CPU counts; whether it applied."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def timed(command: list[str], cwd: Path, env: dict[str, str], reap: bool = True) -> float:
    """Wall seconds of the command, then (`reap`: when this process has no other children)
    its adopted descendants waited for, so that their CPU counts."""
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    while reap:  # the orphans adopted meanwhile: they end once the command has ended
        try:
            os.wait()
        except ChildProcessError:
            break
    return seconds


def children_cpu() -> float:
    """CPU seconds of every finished and waited-for descendant so far (with `adopt_orphans`,
    the training workers included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new-runs", type=int, default=3)
    parser.add_argument("--deal-count", type=int, default=30, help="0 skips the deal")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rate", action="store_true",
                        help="students per hour, local deal and LocalCluster deal")
    parser.add_argument("--rate-count", type=int, default=4)
    parser.add_argument("--rate-steps", default="5,400")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--frames", type=int, default=3,
                        help="first frames of diagnose play to time (0 skips them)")
    args = parser.parse_args()
    # the diagnose this Python imports (an install, or a tree on PYTHONPATH)
    exe = [sys.executable, "-c", "from diagnose.cli import main; main()"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {**os.environ, "DIAGNOSE_HOME": str(root / "home")}
        whole_cpu = adopt_orphans()
        cpu_before = children_cpu()
        times = [timed([*exe, "new", "--dir", f"ws{i}", "--jobs", str(args.jobs)], root, env)
                 for i in range(args.new_runs)]
        if times:
            cpu = (children_cpu() - cpu_before) / len(times)
            short = [timed([*exe, "new", "--dir", f"short{i}", "--steps", "1", "--jobs",
                            str(args.jobs)], root, env) for i in range(args.new_runs)]
            print(f"diagnose new (four runs of the default length, --jobs {args.jobs}): median "
                  f"{statistics.median(times):.1f} s of {len(times)} (min {min(times):.1f}, "
                  f"max {max(times):.1f}; {statistics.median(short):.1f} s of it with --steps 1); "
                  f"goal <= 8 s; "
                  + (f"{cpu:.1f} CPU-s a scenario" if whole_cpu else "CPU-s not measured")
                  + f" on {os.cpu_count()} cores")
            training_alone(args.jobs)
        if args.frames:
            first_frames(args.frames)
        if args.deal_count:
            subprocess.run([*exe, "keygen", "--out", "course.key"], cwd=root, env=env,
                           check=True, stdout=subprocess.DEVNULL)
            seconds = timed([*exe, "deal", "--key", "course.key", "--out", "bundles",
                             "--count", str(args.deal_count), "--jobs", str(args.jobs)],
                            root, env)
            print(f"diagnose deal --count {args.deal_count} --jobs {args.jobs}: {seconds:.0f} s "
                  f"({seconds / args.deal_count:.1f} s per student)")
        if args.rate:
            rates(exe, root, env, args)


def train_alone(config, seed: int, instruments: bool) -> float:
    """Train one run in this (worker) process through the generator a scenario's worker
    reads (`diagnose.engine.train`, no helper threads), and nothing else; its CPU seconds."""
    from diagnose.engine import train

    start = time.process_time()
    for _ in train(config, seed, instruments=instruments, threads=False):
        pass
    return time.process_time() - start


def ready(_: int) -> None:
    """Import the engine in a fresh worker, so that its start-up is not timed; long enough
    that each worker of the pool takes one."""
    import diagnose.engine  # noqa: F401

    time.sleep(0.5)


def training_alone(jobs: int) -> None:
    """The four runs a level-1 scenario trains (the reference and the lab's three breaks, each
    from its own seed, at the default length), `jobs` worker processes at once, without and
    with the instruments: the wall the training alone takes, with no start-up, no dealer's
    check and nothing written. The part of `diagnose new` that only a faster step can shorten."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import scenarios

    healthy = scenarios.healthy_config()
    configs = [healthy] + [entry.apply(healthy) for entry in scenarios.breaks(1).values()]
    rows = []
    for instruments in (False, True):
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            list(pool.map(ready, range(jobs)))
            start = time.perf_counter()
            cpu = sum(pool.map(train_alone, configs, range(len(configs)),
                               [instruments] * len(configs)))
            rows.append(f"{'with' if instruments else 'without'} instruments "
                        f"{time.perf_counter() - start:.1f} s ({cpu:.1f} CPU-s)")
    print(f"training alone, the same {len(configs)} runs of {healthy.steps} steps, {jobs} "
          f"processes at once (no start-up, nothing written): " + ", ".join(rows))


def first_frames(count: int) -> None:
    """The first frame of `diagnose play` on a ready scenario: ms from process spawn, median of
    `count` fresh processes (each `bench/tui.py --first-frame`)."""
    walls = []
    for _ in range(count):
        start = time.perf_counter()
        subprocess.run([sys.executable, str(BENCH / "tui.py"), "--first-frame"], check=True,
                       stdout=subprocess.DEVNULL, cwd=BENCH.parent)
        walls.append((time.perf_counter() - start) * 1e3)
    print(f"first frame of diagnose play on a ready scenario: median {statistics.median(walls):.0f}"
          f" ms of {count} (min {min(walls):.0f}); goal <= 700 ms")


def rates(exe: list[str], root: Path, env: dict[str, str], args: argparse.Namespace) -> None:
    """Students per hour: a local deal, then a deal on a LocalCluster, at each step count."""
    from distributed import LocalCluster

    if not (root / "rate.key").exists():
        subprocess.run([*exe, "keygen", "--out", "rate.key"], cwd=root, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    count = args.rate_count
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster:
        for steps in (int(s) for s in args.rate_steps.split(",")):
            base = [*exe, "deal", "--key", "rate.key", "--count", str(count), "--steps",
                    str(steps)]
            local = timed([*base, "--out", f"local-{steps}", "--jobs", str(args.jobs)], root,
                          env, reap=False)   # the cluster's processes are our children too
            remote = timed([*base, "--out", f"cluster-{steps}", "--scheduler",
                            cluster.scheduler_address], root, env, reap=False)
            for name, seconds in ((f"local --jobs {args.jobs}", local),
                                  (f"LocalCluster {args.workers} workers", remote)):
                print(f"deal --count {count} --steps {steps:>4} {name:<24}: {seconds:6.1f} s, "
                      f"{count / seconds * 3600:7.0f} students/hour "
                      f"({seconds / count:.1f} s per student)")


if __name__ == "__main__":
    main()
