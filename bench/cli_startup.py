"""How long `diagnose --help` takes from a cold process: the median of 10 runs (target <= 0.3 s).

Run: python bench/cli_startup.py
"""

import shutil
import statistics
import subprocess
import sys
import time

RUNS = 10


def main() -> None:
    exe = shutil.which("diagnose")
    command = [exe, "--help"] if exe else [sys.executable, "-m", "diagnose.cli", "--help"]
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    print(f"diagnose --help: median {statistics.median(times) * 1000:.0f} ms over {RUNS} runs "
          f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}); target <= 300 ms")


if __name__ == "__main__":
    main()
