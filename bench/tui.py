"""`diagnose play`'s two speed targets, measured headless (Textual's run_test driver).

1. First frame of a ready scenario (target <= 1 s): a fresh Python process imports the app,
   opens the 40-step test scenario and paints the six panels; the time is from the process's
   spawn to that first frame.
2. Key latency while four runs train (target <= 100 ms): a fresh scenario trains for real
   (`create_scenario`), first with one worker process per run, so all four train at once (the
   heaviest load the screen meets), then two at a time as `diagnose play` does; once every run
   that trains streams steps, keys that switch
   runs, zoom, toggle the scale and the reference, and move the cursor are pressed one at a
   time; each latency is from the key's arrival to the app idle again with the new frame
   composed.

Run: python bench/tui.py            (about a minute; trains in a temporary folder)
"""

from __future__ import annotations

import asyncio
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
ROUNDS = 3


async def first_frame(started: float) -> None:
    from diagnose.tui.app import PlayApp
    from diagnose.tui.panel import PanelBox

    app = PlayApp(SCENARIO)
    async with app.run_test(size=(100, 30)) as pilot:
        while not (app.play.is_mounted and app.play.query(PanelBox).first().border_title):
            await pilot.pause(0.001)
        app.screen._compositor.render_strips()  # the frame itself, composed
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
        latencies, by_key, cpu = [], {}, []
        for key in ["x", *KEYS * ROUNDS]:  # "x" does nothing: the harness's own floor
            start, start_cpu = time.perf_counter(), time.process_time()
            await pilot.press(key)  # returns once the key is handled and the app is idle
            by_key.setdefault(key, []).append(time.perf_counter() - start)
            if key != "x":
                latencies.append(by_key[key][-1])
                cpu.append(time.process_time() - start_cpu)
            await pilot.pause(0.05)  # steps keep arriving between keys, as they would
        steps = [app.store.count(run) for run in app.store.runs]
        await pilot.press("q")
    latencies.sort()
    print(f"key latency while four runs train, {jobs} at a time ({len(latencies)} keys, "
          f"steps done per run "
          f"{steps}): median {statistics.median(latencies) * 1000:.0f} ms, p95 "
          f"{latencies[int(0.95 * len(latencies)) - 1] * 1000:.0f} ms, max "
          f"{latencies[-1] * 1000:.0f} ms; target <= 100 ms")
    print(f"  this process's CPU per key: median {statistics.median(cpu) * 1000:.0f} ms; "
          f"an unbound key (the harness alone): {by_key['x'][0] * 1000:.0f} ms")
    print("  median by key: " + ", ".join(
        f"{key} {statistics.median(times) * 1000:.0f}" for key, times in by_key.items()
        if key != "x"))


def main() -> None:
    if sys.argv[1:] == ["--first-frame"]:
        asyncio.run(first_frame(START))
        return
    measure_first_frame()
    folder = Path(tempfile.mkdtemp(prefix="diagnose-bench-"))
    os.environ["DIAGNOSE_HOME"] = str(folder / "home")  # never the user's own secret
    try:
        for jobs in (4, 2):  # all four at once (the heaviest load), then the game's default
            asyncio.run(key_latency(folder, jobs))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"(os.cpu_count() = {os.cpu_count()}; load average {os.getloadavg()[0]:.1f})")


START = time.perf_counter()

if __name__ == "__main__":  # the training pool spawns processes that import this module
    main()
