"""`diagnose play`'s two speed targets, measured headless (Textual's run_test driver).

1. First frame of a ready scenario (target <= 1 s): a fresh Python process imports the app,
   opens the 40-step test scenario and paints the six panels; the time is from the process's
   spawn to that first frame.
2. Key latency while the runs train two at a time, as `diagnose play` does (targets: median
   <= 100 ms, p95 <= 200 ms, the app's own share): a fresh scenario trains for real
   (`create_scenario`); once both training runs stream steps, keys that switch runs, zoom,
   toggle the scale and the reference, and move the cursor are pressed one at a time; each
   latency is from `Pilot.press` to the app idle again with the new frame composed. Pilot's
   own cost (its waits for idle) is measured by an unbound key, pressed as often as the others
   and between them; the app's latency is a key's time less that baseline's median. Both are
   printed. `--all-at-once` first measures with all four runs training at once too.

Run: python bench/tui.py [--all-at-once]     (about a minute; trains in a temporary folder)
"""

from __future__ import annotations

import asyncio
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "tests" / "tui" / "data" / "scenario"
KEYS = ["1", "z", "right", "2", "l", "r", "left", "3", "home", "0", "end", "z", "l", "r"]
UNBOUND = "x"  # a key nothing answers: what Pilot itself costs
ROUNDS = 3


async def first_frame(started: float) -> None:
    from diagnose.tui.app import PlayApp
    from diagnose.tui.panel import PanelBox

    app = PlayApp(SCENARIO)
    async with app.run_test(size=(100, 30)) as pilot:
        while not (app.play.is_mounted and app.play.query(PanelBox).first().border_title):
            await pilot.pause(0.001)
        await pilot.pause()  # the frame itself, composed and written to the (headless) driver
        print(f"{time.perf_counter() - started:.3f}")


def measure_first_frame() -> float:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--first-frame"], check=True,
                         capture_output=True, text=True, cwd=ROOT).stdout
    wall = time.perf_counter() - start
    print(f"first frame of a ready scenario: {wall * 1000:.0f} ms from process spawn "
          f"({float(out.split()[-1]) * 1000:.0f} ms after the interpreter started); "
          "target <= 1000 ms")
    return wall


async def key_latency(folder: Path, jobs: int) -> None:
    from diagnose.tui.app import PlayApp

    app = PlayApp(folder / f"scenario-{jobs}", jobs=jobs)
    async with app.run_test(size=(100, 30)) as pilot:
        while sorted(app.store.count(run) for run in app.store.runs)[-jobs] < 3:
            await pilot.pause(0.1)  # the worker processes start and import numpy first
        latencies, baseline, by_key, cpu = [], [], {}, []
        for key in [k for pressed in KEYS * ROUNDS for k in (UNBOUND, pressed)]:
            start, start_cpu = time.perf_counter(), time.process_time()
            await pilot.press(key)  # returns once the key is handled and the app is idle
            took = time.perf_counter() - start
            if key == UNBOUND:
                baseline.append(took)
            else:
                latencies.append(took)
                by_key.setdefault(key, []).append(took)
                cpu.append(time.process_time() - start_cpu)
            await pilot.pause(0.05)  # steps keep arriving between keys, as they would
        steps = [app.store.count(run) for run in app.store.runs]
        await pilot.press("q")
    floor = statistics.median(baseline)
    own = sorted(max(0.0, t - floor) for t in latencies)
    raw = sorted(latencies)
    print(f"key latency while the runs train, {jobs} at a time ({len(raw)} keys; steps done "
          f"per run {steps}):")
    print(f"  app only (less the unbound key's {ms(floor)} ms): median {ms(median(own))} ms, "
          f"p95 {ms(p95(own))} ms, max {ms(own[-1])} ms; targets <= 100 / 200 ms")
    print(f"  raw (Pilot.press to idle): median {ms(median(raw))} ms, p95 {ms(p95(raw))} ms; "
          f"unbound key: median {ms(floor)} ms, p95 {ms(p95(sorted(baseline)))} ms")
    print(f"  this process's CPU per key: median {ms(median(cpu))} ms")
    print("  raw median by key: " + ", ".join(
        f"{key} {ms(median(times))}" for key, times in by_key.items()))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def median(values: list[float]) -> float:
    return statistics.median(values)


def p95(ordered: list[float]) -> float:
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def main() -> None:
    if "--first-frame" in sys.argv:
        asyncio.run(first_frame(START))
        return
    measure_first_frame()
    folder = Path(tempfile.mkdtemp(prefix="diagnose-bench-"))
    os.environ["DIAGNOSE_HOME"] = str(folder / "home")  # never the user's own secret
    try:
        for jobs in (4, 2) if "--all-at-once" in sys.argv else (2,):  # 2: the game's default
            asyncio.run(key_latency(folder, jobs))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"(os.cpu_count() = {os.cpu_count()}; load average {os.getloadavg()[0]:.1f})")


START = time.perf_counter()

if __name__ == "__main__":  # the training pool spawns processes that import this module
    main()
