"""Does every break of the deck show its signature on every seed? Train N seeds of the deck.

For each seed, the reference and every break of the chosen levels are trained with that same
seed, and the healthy decoy (levels 2 and 3 share it) with seed + DECOY_OFFSET (a decoy that
copied the reference bit for bit would be no decoy). Per level, prints the diagnostician's
confusion matrix against that level's deck and the reference (and the decoy), the same against
the previous seed's reference (a dealt scenario trains each run from its own seed), and, per
break, the min/median/max of each signature figure with how many seeds passed its check. A
promise holds on every seed unless its `[[promises]]` entry gives a `rate` (a "usually": kept
when it holds on at least that share of the seeds, the measured share printed beside it); a
seed where a usual promise does not hold is listed as a data point, not a failure. The last
line says whether every promise was kept at its rate, and the exit status is 1 when one was not.

`--save DIR` keeps every run's records (one gzip pickle a seed) and trains only what the folder
lacks: a run stored with the config and seed this catalog would train is read back, so a new
break costs its own runs only. `--load DIR` reads them back instead of training, after checking
that each stored config is the one this catalog would train: the same numbers, printed again
without the compute (calibrate the checks on one seed range, then prove them on another).

`--figures` also prints, per run kind, the 5th, 50th and 95th percentiles (and the extremes) of
every figure the diagnostician and the reveal read, and of those the catalog's texts quote
(`text_figures`), each run against another seed's reference of its range (the previous one,
the first seed's against the last), as a dealt scenario pairs them: the ranges the texts may
promise. `--first-seed 7000,8000` reads several ranges of `--seeds` each.

Run: python bench/fidelity.py --seeds 20 [--first-seed 0[,1000,...]] [--jobs 2] [--levels 1,2,3]
     [--steps N] [--set lr_max=3e-2] [--save DIR | --load DIR] [--figures]
     [--only big-init,decoy] [--deck DIR]

`--deck DIR` adds a course's own breaks (`DIR/<slug>/break.toml` and `signature.py`, as
`DIAGNOSE_DECK` does for the game): they train, are weighed and checked like the built-in ones,
so `--deck DIR --only <slug>,decoy` proves one new break.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import os
import pickle
import statistics
import sys
import time
import tomllib
from collections import defaultdict
from pathlib import Path

import scenarios
from diagnose.diagnosis.diagnostician import HEALTHY, diagnose_run, figures
from diagnose.diagnosis.fidelity import signature_checks
from diagnose.diagnosis.signatures import FROZEN_MOVE
from diagnose.engine import run_header_fields
from diagnose.game.dealing import RunPlan
from diagnose.game.training import TrainingPool
from scenarios.catalog import DECK_SETTING
from scenarios.config import validate_value
from scenarios.promises import kept_at_rate

DECOY_OFFSET = 1_000_000
REFERENCE, DECOY = "reference", "decoy"


def text_figures(run: list[dict], other: list[dict], floor: float) -> dict[str, float]:
    """The figures the catalog's texts quote beyond the diagnostician's, for `run` against
    `other` (a reference). Counts and steps are floats, NaN where the sign is absent."""
    def vals(records: list[dict]) -> list[float]:
        return [r["val_loss"] for r in records if r["val_loss"] is not None]

    mid = [r["val_loss"] for r in run if r["val_loss"] is not None and 100 <= r["step"] <= 300]
    below = [r["step"] for r in run if r["train_loss"] < floor]
    val_below = [r["step"] for r in run if r["val_loss"] is not None and r["val_loss"] < floor]
    heads = [r["dead_heads"] for r in run if r["dead_heads"] is not None]
    other_heads = [r["dead_heads"] for r in other if r["dead_heads"] is not None]
    at100 = min(100, len(run) - 1, len(other) - 1)
    first = [r["val_loss"] for r in run[1:] if r["val_loss"] is not None]
    other_first = [r["val_loss"] for r in other[1:] if r["val_loss"] is not None]
    nan = float("nan")
    first_sigma, last_sigma = run[0]["spectral_norm"] or {}, run[-1]["spectral_norm"] or {}
    moves = [abs(last_sigma[k] / first_sigma[k] - 1) for k in first_sigma
             if k in last_sigma and first_sigma[k] > 0]
    flat = [move for move in moves if move < FROZEN_MOVE]   # Panel 5's lines that stay put
    return {
        "flat_max_move": max(flat) if flat else nan,                 # how flat: the least flat
        "val_mid_median": statistics.median(mid) if mid else nan,   # Panel 1, steps 100-300
        "loss0_diff": run[0]["train_loss"] - other[0]["train_loss"],
        "final_cost": vals(run)[-1] - vals(other)[-1],               # nats of validation loss
        "first_val_ratio": first[0] / other_first[0] if first and other_first else nan,
        "first_train_below_floor_step": float(below[0]) if below else nan,
        "any_train_below_floor": float(bool(below)),                 # one batch below the floor
        "first_val_below_floor_step": float(val_below[0]) if val_below else nan,
        "res_block0_end": run[-1]["act_mean_abs"][0],                # Panel 4, after block 0
        "residual_100_ratio": run[at100]["act_mean_abs"][-2] / other[at100]["act_mean_abs"][-2],
        "grad0_ratio": run[0]["grad_norm_preclip"] / other[0]["grad_norm_preclip"],
        "grad_first_peak_step": float(max(range(min(6, len(run))),          # Panel 3, steps 0-5
                                          key=lambda s: run[s]["grad_norm_preclip"])),
        "dead_heads_end_excess": heads[-1] - other_heads[-1],
        "dead_heads_any_mid": float(max(heads[1:-1] or [0]) > 0),    # after step 0, before the end
        "dead_heads_any_end": float(heads[-1] > 0),
    }


def cross_seed_figures(ranged: list[list[dict]], header: dict) -> dict[str, dict[str, list]]:
    """Run kind -> figure -> its values over every seed of `ranged` (each range's records, seed
    by seed), each run against the previous seed's reference of its range (the first seed's
    against the last), as a dealt scenario pairs them: the diagnostician's figures and
    `text_figures`."""
    spread: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for kept in (kept for kept in ranged if len(kept) > 1):
        for at, records in enumerate(kept):
            other = kept[at - 1][REFERENCE]   # the first seed's against the last
            for run_name, run in records.items():
                both = figures(run, other, header) | text_figures(run, other,
                                                                  header["entropy_floor"])
                for name, value in both.items():
                    spread[run_name][name].append(value)
    return spread


def plans_for(seed: int, healthy: scenarios.Config, levels: list[int],
              only: set[str] | None = None) -> list[RunPlan]:
    """The reference and each run of `levels` (only those named in `only`, when given)."""
    plans = {REFERENCE: RunPlan(REFERENCE, healthy, seed)}
    for level in levels:
        for slug, brk in scenarios.breaks(level).items():
            if brk.healthy:
                plans[DECOY] = RunPlan(DECOY, healthy, seed + DECOY_OFFSET)
            else:
                plans[slug] = RunPlan(slug, brk.apply(healthy), seed)
    return [plan for name, plan in plans.items()
            if only is None or name == REFERENCE or name in only]


def stored(folder: Path, seed: int, plans: list[RunPlan]) -> dict:
    """The records of `plans` that `folder` holds for `seed`, trained as the plan says."""
    path = folder / f"seed-{seed}.pkl.gz"
    if not path.is_file():
        return {}
    with gzip.open(path, "rb") as stream:
        blob = pickle.load(stream)
    return {plan.run: blob["records"][plan.run] for plan in plans
            if blob["configs"].get(plan.run) == dataclasses.asdict(plan.config)
            and blob["seeds"].get(plan.run) == plan.seed}


def load(folder: Path, seed: int, plans: list[RunPlan]) -> dict:
    records = stored(folder, seed, plans)
    for plan in plans:
        if plan.run not in records:
            sys.exit(f"{folder}/seed-{seed}.pkl.gz: {plan.run} is missing or was trained with "
                     "another config or seed than this catalog's; train it again (--save)")
    return records


def save(folder: Path, seed: int, plans: list[RunPlan], records: dict) -> None:
    """Store `plans`' records for `seed`, beside the runs of other levels already stored."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"seed-{seed}.pkl.gz"
    blob = {"records": {}, "configs": {}, "seeds": {}}
    if path.is_file():
        with gzip.open(path, "rb") as stream:
            blob = pickle.load(stream)
    for plan in plans:
        blob["records"][plan.run] = records[plan.run]
        blob["configs"][plan.run] = dataclasses.asdict(plan.config)
        blob["seeds"][plan.run] = plan.seed
    with gzip.open(path.with_suffix(".tmp"), "wb") as stream:
        pickle.dump(blob, stream)
    path.with_suffix(".tmp").replace(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", default="0", metavar="N[,N...]",
                        help="the first seed of each range of --seeds seeds")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--levels", default=None, metavar="N[,N...]",
                        help="the levels to bench (default: every level of levels.toml, or of "
                             "the file DIAGNOSE_LEVELS names)")
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="try a healthy.toml value without editing it (calibration)")
    keep = parser.add_mutually_exclusive_group()
    keep.add_argument("--save", type=Path, help="keep every run's records in this folder")
    keep.add_argument("--load", type=Path, help="read the records instead of training")
    parser.add_argument("--only", default=None, metavar="SLUG,...",
                        help="train (or read) only these runs beside the reference "
                             "(\"decoy\" for the healthy decoy): a partial bench")
    parser.add_argument("--figures", action="store_true",
                        help="print every figure's percentiles, against another seed's reference")
    parser.add_argument("--deck", type=Path, default=None, metavar="DIR",
                        help="a course's own deck (DIR/<slug>/break.toml and signature.py): "
                             "its breaks join their levels and are proven like the built-in "
                             "ones (the same as DIAGNOSE_DECK=DIR)")
    args = parser.parse_args()
    if args.deck is not None:
        os.environ[DECK_SETTING] = str(args.deck)

    healthy = scenarios.healthy_config()
    changes = {"steps": args.steps} if args.steps else {}
    for item in args.set:
        key, _, value = item.partition("=")
        changes[key] = validate_value(key, tomllib.loads(f"v = {value}")["v"])
    healthy = dataclasses.replace(healthy, **changes)
    if changes:
        print("healthy config with " + ", ".join(f"{k}={v}" for k, v in changes.items()))
    levels = ([int(n) for n in args.levels.split(",")] if args.levels
              else [level.number for level in scenarios.all_levels()])
    only = set(args.only.split(",")) if args.only else None
    header = run_header_fields(healthy)
    rows = {level: [HEALTHY, *(row for row in (DECOY if b.healthy else s
                                               for s, b in scenarios.breaks(level).items())
                               if only is None or row in only)]
            for level in levels}
    confusion = {(lv, t): defaultdict(int) for lv in levels for t in rows[lv]}
    crossed = {(lv, t): defaultdict(int) for lv in levels for t in rows[lv]}
    previous = None   # the last seed's reference: a run against another seed's, as when dealt
    firsts = [int(n) for n in args.first_seed.split(",")]
    ranged: list[list[dict]] = []  # each range's records, for the figures' cyclic pairs
    values = {(lv, t): defaultdict(list) for lv in levels for t in rows[lv]}
    passes = {(lv, t): defaultdict(int) for lv in levels for t in rows[lv]}
    wanted: dict[tuple[int, str], dict[str, str]] = {key: {} for key in values}
    rates: dict[tuple[int, str], dict[str, float]] = {key: {} for key in values}
    started = time.perf_counter()
    pool = TrainingPool(args.jobs) if args.load is None else None
    done = 0
    try:
        for seed in (s for first in firsts for s in range(first, first + args.seeds)):
            if seed in firsts:
                previous = None
                ranged.append([])
            plans = plans_for(seed, healthy, levels, only)
            if args.load is not None:
                if not (args.load / f"seed-{seed}.pkl.gz").is_file():
                    if previous is not None or seed in firsts:
                        print(f"seed {seed}: not stored in {args.load}; this range stops there")
                    previous = None
                    continue
                records = load(args.load, seed, plans)
            else:
                records = stored(args.save, seed, plans) if args.save is not None else {}
                missing = [plan for plan in plans if plan.run not in records]
                if missing:
                    records |= pool.run(missing)
                    if args.save is not None:
                        save(args.save, seed, plans, records)
            reference = records[REFERENCE]
            line, usual = [], []
            if args.figures:
                ranged[-1].append(records)
            for level in levels:
                for row in rows[level]:
                    run = records[REFERENCE if row == HEALTHY else row]
                    truth = HEALTHY if row == DECOY else row
                    deck = scenarios.level(level).deck
                    verdict = diagnose_run(run, reference, header, deck)
                    confusion[level, row][verdict.slug] += 1
                    if previous is not None:
                        other = diagnose_run(run, previous, header, deck)
                        crossed[level, row][other.slug] += 1
                    once = row != HEALTHY or level == levels[0]   # the reference: once
                    for check in signature_checks(truth, run, reference, header) if once else []:
                        values[level, row][check.name].append(check.value)
                        passes[level, row][check.name] += check.passed
                        wanted[level, row][check.name] = check.wanted
                        rates[level, row][check.name] = check.rate
                        if not check.passed:
                            (usual if check.rate < 1 else line).append(
                                f"{row}:{check.name}={check.value:.3g}")
                    if verdict.slug != truth:
                        line.append(f"L{level} {row} read as {verdict.slug}")
            print(f"seed {seed}: {'ok' if not line else 'FAIL ' + ', '.join(line)}"
                  + (f" (usually, not here: {', '.join(usual)})" if usual else ""), flush=True)
            done += 1
            previous = reference
    finally:
        if pool is not None:
            pool.close()
    seconds = time.perf_counter() - started
    spread = cross_seed_figures(ranged, header)

    broken: list[str] = []   # promises under their rate
    how = f"read from {args.load}" if args.load is not None else f"in {seconds:.0f} s"
    print(f"\n{done} seeds (first {args.first_seed}) x {len(plans)} runs x "
          f"{healthy.steps} steps, {how}")
    for level in levels:
        columns = [HEALTHY, *(s for s, b in scenarios.breaks(level).items() if not b.healthy)]
        width = max(len(c) for c in columns + rows[level]) + 2
        print(f"\nlevel {level}: confusion (rows: truth, columns: diagnostician)")
        print(" " * width + "".join(f"{c:>{width}}" for c in columns))
        for row in rows[level]:
            print(f"{row:>{width}}"
                  + "".join(f"{confusion[level, row][c]:>{width}}" for c in columns))
        print(f"level {level}: each run against the previous seed's reference (as when dealt)")
        for row in rows[level]:
            print(f"{row:>{width}}"
                  + "".join(f"{crossed[level, row][c]:>{width}}" for c in columns))
        for row in rows[level]:
            if row == HEALTHY and level != levels[0]:
                continue   # the reference's own checks, printed once
            print(f"\n{row} (level {level})")
            for name, series in values[level, row].items():
                median = statistics.median(series)
                passed, rate = passes[level, row][name], rates[level, row][name]
                held = kept_at_rate(passed, len(series), rate)
                if not held:
                    broken.append(f"{row}:{name} {passed}/{len(series)}")
                print(f"  {name:<22} min {min(series):>10.4g}  median {median:>10.4g}"
                      f"  max {max(series):>10.4g}   passed {passed}/{len(series)}"
                      + (f" = {passed / len(series):.0%}, usually: at least {rate:.0%}"
                         if rate < 1 else "")
                      + f"  (want {wanted[level, row][name]}){'' if held else '  NOT KEPT'}")
    if args.figures:
        print_spread(spread)
    print("\nevery promise kept at its rate" if not broken else
          "\npromises not kept at their rate: " + ", ".join(broken))
    sys.exit(1 if broken else 0)


def percentile(values: list[float], share: float) -> float:
    """The `share` percentile of `values` (linear between the nearest ranks)."""
    ordered = sorted(values)
    at = share * (len(ordered) - 1)
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def print_spread(spread: dict[str, dict[str, list[float]]]) -> None:
    """Every figure of every run kind, against another seed's reference."""
    for run_name, named in spread.items():
        count = len(next(iter(named.values()), []))
        print(f"\n{run_name}: figures against another seed's reference ({count} runs)"
              "\n  name                         min        p5       p50       p95       max")
        for name, series in named.items():
            finite = [v for v in series if v == v and abs(v) != float("inf")]
            if not finite:
                print(f"  {name:<22} no finite value")
                continue
            cells = (min(finite), percentile(finite, 0.05), percentile(finite, 0.5),
                     percentile(finite, 0.95), max(finite))
            print(f"  {name:<22}" + "".join(f"{c:>10.4g}" for c in cells)
                  + (f"   ({len(series) - len(finite)} not finite)"
                     if len(finite) < len(series) else ""))


if __name__ == "__main__":
    main()
