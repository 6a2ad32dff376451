"""Wall time of making scenarios: `diagnose new` (target <= 20 s) and `diagnose deal --count N`.

Runs the real commands in a temporary folder with a temporary DIAGNOSE_HOME.

Run: python bench/scenario.py [--new-runs 3] [--deal-count 30] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new-runs", type=int, default=3)
    parser.add_argument("--deal-count", type=int, default=30, help="0 skips the deal")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    exe = shutil.which("diagnose") or sys.exit("install first: pip install -e .")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {**os.environ, "DIAGNOSE_HOME": str(root / "home")}
        times = [timed([exe, "new", "--dir", f"ws{i}", "--jobs", str(args.jobs)], root, env)
                 for i in range(args.new_runs)]
        print(f"diagnose new (default config, --jobs {args.jobs}): median "
              f"{statistics.median(times):.1f} s over {len(times)} "
              f"(min {min(times):.1f}, max {max(times):.1f}); target <= 20 s")
        if args.deal_count:
            subprocess.run([exe, "keygen", "--out", "course.key"], cwd=root, env=env,
                           check=True, stdout=subprocess.DEVNULL)
            seconds = timed([exe, "deal", "--key", "course.key", "--out", "bundles",
                             "--count", str(args.deal_count), "--jobs", str(args.jobs)],
                            root, env)
            print(f"diagnose deal --count {args.deal_count} --jobs {args.jobs}: {seconds:.0f} s "
                  f"({seconds / args.deal_count:.1f} s per student)")


if __name__ == "__main__":
    main()
