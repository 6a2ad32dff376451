"""Does every break show its signature on every seed? Train N scenarios with the default config.

For each seed, the reference and each break are trained with that same seed; prints the
diagnostician's confusion matrix and, per break, the min/median/max of each signature figure
with how many seeds passed its check.

Run: python bench/fidelity.py --seeds 20 [--jobs 2] [--steps N] [--first-seed 0]
     [--set lr_max=3e-2 --set lr_min=3e-3]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
import tomllib
from collections import defaultdict

import scenarios
from diagnose.diagnostician import HEALTHY, diagnose_run
from diagnose.engine import run_header_fields
from diagnose.fidelity import signature_checks
from diagnose.scenario import RunPlan, TrainingPool
from scenarios.config import validate_value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="try a healthy.toml value without editing it (calibration)")
    args = parser.parse_args()

    healthy = scenarios.healthy_config()
    changes = {"steps": args.steps} if args.steps else {}
    for item in args.set:
        key, _, value = item.partition("=")
        changes[key] = validate_value(key, tomllib.loads(f"v = {value}")["v"])
    healthy = dataclasses.replace(healthy, **changes)
    if changes:
        print("healthy config with " + ", ".join(f"{k}={v}" for k, v in changes.items()))
    catalog = scenarios.breaks()
    header = run_header_fields(healthy)
    truths = [HEALTHY, *catalog]
    confusion: dict[str, dict[str, int]] = {t: defaultdict(int) for t in truths}
    values: dict[str, dict[str, list[float]]] = {t: defaultdict(list) for t in truths}
    passes: dict[str, dict[str, int]] = {t: defaultdict(int) for t in truths}
    wanted: dict[str, dict[str, str]] = {t: {} for t in truths}
    started = time.perf_counter()
    with TrainingPool(args.jobs) as pool:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            plans = [RunPlan("reference", healthy, seed)]
            plans += [RunPlan(slug, brk.apply(healthy), seed) for slug, brk in catalog.items()]
            records = pool.run(plans)
            reference = records["reference"]
            line = []
            for truth in truths:
                run = records["reference" if truth == HEALTHY else truth]
                verdict = diagnose_run(run, reference, header)
                confusion[truth][verdict.slug] += 1
                for check in signature_checks(truth, run, reference, header):
                    values[truth][check.name].append(check.value)
                    passes[truth][check.name] += check.passed
                    wanted[truth][check.name] = check.wanted
                    if not check.passed:
                        line.append(f"{truth}:{check.name}={check.value:.3g}")
                if verdict.slug != truth:
                    line.append(f"{truth} read as {verdict.slug}")
            print(f"seed {seed}: {'ok' if not line else 'FAIL ' + ', '.join(line)}", flush=True)
    seconds = time.perf_counter() - started

    print(f"\n{args.seeds} seeds x {len(plans)} runs x {healthy.steps} steps in {seconds:.0f} s")
    print("\nconfusion (rows: truth, columns: diagnostician)")
    print(f"{'':>12}" + "".join(f"{t:>13}" for t in truths))
    for truth in truths:
        print(f"{truth:>12}" + "".join(f"{confusion[truth][p]:>13}" for p in truths))
    for truth in truths:
        print(f"\n{truth}")
        for name, series in values[truth].items():
            median = statistics.median(series)
            print(f"  {name:<22} min {min(series):>10.4g}  median {median:>10.4g}"
                  f"  max {max(series):>10.4g}   passed {passes[truth][name]}/{len(series)}"
                  f"  (want {wanted[truth][name]})")


if __name__ == "__main__":
    main()
