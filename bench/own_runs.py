"""The proof of "your own runs": `diagnose check` on PyTorch runs recorded through
`diagnose.runs.torch_hooks`, on seeds nobody calibrated on.

    python bench/own_runs.py --seeds 20 --first-seed 100             # the course's model
    python bench/own_runs.py --seeds 3 --other --breaks bad-init,no-warmup,broken-mask

An `nn.Module` port of the course's MiniGPT (tests/engine/torch_module.py) is trained healthy
once (seed 0: the reference), then, for each seed, healthy and with each break, every run
recorded by `ModelRecorder` and read by `check_run` against the reference. A break counts as
named when the reading names it (a tie that names it among the two it cannot tell apart is
counted, and counted apart as a tie); a healthy run when the reading is healthy.

`--other` trains a model the game never saw: 4 layers, d_model 128, d_ff 512, batch 16, on the
same corpus. `--family charlm` trains the second model family (bench/charlm.py: written apart
from the game's port, another architecture, the licence texts, no known floor) with its bugs
(`charlm.BUGS`): each run is counted right when it reads as its family (`charlm.FAMILIES`) or
as "differs", healthy when healthy.

    python bench/own_runs.py --family charlm --seeds 10 --keep /tmp/charlm-runs
    python bench/own_runs.py --family charlm --reread /tmp/charlm-runs    # the readings again
    python bench/own_runs.py --family charlm --cost
    python bench/own_runs.py --family charlm --reread /tmp/charlm-runs --store tests/data/charlm

`--store` gzips the reference and the first seed's run of each bug into the tests' data
(tests/test_own_runs_live.py reads them: the stability over truncations, the "differs").

Needs torch (pip install 'diagnose-training[torch]'); one thread per run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LEVELS_1_2 = ("bad-init", "no-warmup", "broken-mask", "big-init", "short-warmup", "leaky-mask")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=100)
    parser.add_argument("--steps", type=int, default=None, help="default: the healthy config's")
    parser.add_argument("--breaks", default=",".join(LEVELS_1_2))
    parser.add_argument("--other", action="store_true", help="the model the game never saw")
    parser.add_argument("--no-healthy", action="store_true",
                        help="train only the breaks (the healthy runs of these seeds are done)")
    parser.add_argument("--cost", action="store_true",
                        help="only time a run with and without the hooks (the README's cost)")
    parser.add_argument("--out", type=Path, default=None, help="write the readings as JSON")
    parser.add_argument("--family", choices=("minigpt", "charlm"), default="minigpt")
    parser.add_argument("--keep", type=Path, default=None,
                        help="train into this folder and keep the runs (charlm)")
    parser.add_argument("--reread", type=Path, default=None,
                        help="read the runs a --keep folder holds again, training none (charlm)")
    parser.add_argument("--reliability", type=Path, nargs="+", default=None, metavar="DIR",
                        help="the reliability table of the readings of runs kept with --keep "
                             "(either family)")
    parser.add_argument("--store", type=Path, default=None,
                        help="gzip the reference and the first seed's runs there (charlm)")
    parser.add_argument("--reference", type=Path, default=None,
                        help="a reference this bench already trained (same model and steps): "
                             "several processes over other seeds or breaks share it")
    args = parser.parse_args()
    if args.reliability:
        reliability(args.reliability, args.first_seed)
        return
    if args.family == "charlm":
        charlm_main(args)
        return

    import scenarios
    from diagnose.runs.check import check_run
    from tests.engine.torch_module import train_recorded

    healthy = scenarios.healthy_config()
    name = "minigpt"
    if args.other:
        healthy = dataclasses.replace(healthy, n_layers=4, d_model=128, d_ff=512, batch_size=16)
        name = "gpt-4x128"
    if args.steps:
        healthy = dataclasses.replace(healthy, steps=args.steps)
    if args.cost:
        cost(healthy, train_recorded)
        return
    catalog = scenarios.breaks(None)
    slugs = [s for s in args.breaks.split(",") if s]
    folder = args.keep or Path(tempfile.mkdtemp(prefix="own-runs-"))
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    reference = args.reference or folder / "reference-0.jsonl"
    if args.reference is None:
        train_recorded(healthy, 0, reference, model_name=name)
    per_run = time.perf_counter() - started
    print(f"{name}: {healthy.steps} steps, reference trained in {per_run:.1f} s", flush=True)
    runs = slugs if args.no_healthy else ["healthy", *slugs]
    results: dict[str, list[dict]] = {s: [] for s in runs}
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for slug in runs:
            config = healthy if slug == "healthy" else catalog[slug].apply(healthy)
            path = folder / f"{slug}-{seed}.jsonl"
            train_recorded(config, seed, path, model_name=name)
            reading = check_run(path, reference)
            named = (reading.kind == "healthy") if slug == "healthy" else (
                slug in reading.resembles and reading.kind == "break")
            results[slug].append({"seed": seed, "named": named,
                                  "resembles": list(reading.resembles),
                                  "confidence": reading.confidence,
                                  "shown_by_reference": list(reading.in_reference)})
            print(f"seed {seed} {slug:13} -> {','.join(reading.resembles) or reading.kind:24} "
                  f"{reading.confidence:.2f} {'ok' if named else 'MISSED'}", flush=True)
    print(f"\n{name}, seeds {args.first_seed}-{args.first_seed + args.seeds - 1}, "
          f"{healthy.steps} steps, {time.perf_counter() - started:.0f} s:")
    for slug, rows in results.items():
        ties = sum(len(r["resembles"]) > 1 for r in rows if r["named"])
        print(f"  {slug:13} named {sum(r['named'] for r in rows)}/{len(rows)}"
              + (f" ({ties} as a tie)" if ties else ""))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


def charlm_main(args: argparse.Namespace) -> None:
    """The second model family: train (or reread) and read every run against seed 0's."""
    sys.path.insert(0, str(ROOT / "bench"))
    import charlm

    steps = args.steps or 400
    if args.cost:
        charlm_cost(charlm, steps)
        return
    folder = args.reread or args.keep or Path(tempfile.mkdtemp(prefix="charlm-"))
    folder.mkdir(parents=True, exist_ok=True)
    bugs = [b for b in args.breaks.split(",") if b] if args.breaks != ",".join(LEVELS_1_2) \
        else list(charlm.BUGS)
    runs = bugs if args.no_healthy else ["healthy", *bugs]
    reference = folder / "reference-0.jsonl"
    started = time.perf_counter()
    if not args.reread and not reference.exists():
        charlm.train(charlm.setup_for("healthy", steps), 0, reference)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    if not args.reread:
        for seed in seeds:
            for bug in runs:
                path = folder / f"{bug}-{seed}.jsonl"
                if not path.exists():
                    charlm.train(charlm.setup_for(bug, steps), seed, path)
                print(f"trained {path.name}", flush=True)
    if args.store:
        from tests.data.make_fidelity import gzip_file

        args.store.mkdir(parents=True, exist_ok=True)
        for name in ["reference-0", *(f"{bug}-{seeds.start}" for bug in runs)]:
            copy = args.store / f"{name}.jsonl"
            copy.write_bytes((folder / f"{name}.jsonl").read_bytes())
            gzip_file(copy)
        return
    table = read_charlm(folder, reference, runs, seeds, charlm.FAMILIES)
    print(f"\n{charlm.MODEL} on {charlm.DATA}, {steps} steps, seeds {seeds.start}-"
          f"{seeds.stop - 1}, {time.perf_counter() - started:.0f} s:")
    for bug, rows in table.items():
        kinds = {}
        for row in rows:
            kinds[row["reading"]] = kinds.get(row["reading"], 0) + 1
        right = sum(row["right"] for row in rows)
        print(f"  {bug:13} right {right}/{len(rows)}  "
              + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    if args.out:
        args.out.write_text(json.dumps(table, indent=1))


def read_charlm(folder: Path, reference: Path, runs: list[str], seeds: range,
                families: dict[str, tuple[str, ...]]) -> dict[str, list[dict]]:
    from diagnose.runs.check import check_run

    table: dict[str, list[dict]] = {}
    for bug in runs:
        for seed in seeds:
            path = folder / f"{bug}-{seed}.jsonl"
            if not path.exists():
                continue
            reading = check_run(path, reference)
            kind = reading.kind
            right = (kind == "healthy") if bug == "healthy" else (
                kind == "differs" or bool(set(reading.resembles) & set(families[bug])))
            row = {"seed": seed, "reading": kind, "resembles": list(reading.resembles),
                   "right": right, "confidence": reading.confidence,
                   "departures": [f"{d.panel}:{d.series}@{d.step}" for d in reading.departures]}
            table.setdefault(bug, []).append(row)
            print(f"seed {seed} {bug:13} -> {kind:8} {','.join(reading.resembles):24} "
                  f"{' '.join(row['departures'][:4])} {'ok' if right else 'WRONG'}", flush=True)
    return table


def reliability(folders: list[Path], first_seed: int) -> None:
    """Is a stated confidence p right about p of the time? Every run of seeds >= first_seed
    (never calibrated on) in `folders` (kept by --keep, either family) is read against its
    folder's reference-0; the readings that state one (a break, or healthy) are binned by the
    percentage `check` used to print (the margin over the runner-up in decades / log10 2,
    capped at 100%; for healthy, how far the nearest signature is), and by the words it prints
    now ("clear", "faint"). A reading is right when it names a break of the run's family (a
    charlm bug: `charlm.FAMILIES`; a catalog break: `check.family`), or healthy for a healthy
    run. A bin off by more than 10 points is marked: its percentage meant nothing."""
    sys.path.insert(0, str(ROOT / "bench"))
    import charlm

    from diagnose.runs.check import check_run, family

    rows: list[tuple[str, float, bool, str | None]] = []
    for folder in folders:
        reference = folder / "reference-0.jsonl"
        for path in sorted(folder.glob("*-*.jsonl")):
            bug, seed = path.stem.rsplit("-", 1)
            if bug == "reference" or int(seed) < first_seed:
                continue
            reading = check_run(path, reference)
            if reading.kind == "differs":
                continue
            allowed = (set(charlm.FAMILIES[bug]) if bug in charlm.FAMILIES
                       else set(family(bug)) if bug != "healthy" else set())
            right = (bug == "healthy") if reading.kind == "healthy" else bool(
                set(reading.resembles) & allowed)
            rows.append((folder.name, reading.confidence, right, reading.sureness or "healthy"))
    print(f"{len(rows)} readings that state a confidence, seeds from {first_seed}, "
          f"{', '.join(f.name for f in folders)}:")
    print("  stated      readings  mean stated  right   off by")
    for low in (0.0, 0.2, 0.4, 0.6, 0.8):
        inside = [r for r in rows if low <= r[1] < low + 0.2 or (low == 0.8 and r[1] == 1.0)]
        if not inside:
            continue
        stated = sum(r[1] for r in inside) / len(inside)
        right = sum(r[2] for r in inside) / len(inside)
        off = abs(stated - right) * 100
        print(f"  {low:.0%}-{low + 0.2:.0%}  {len(inside):9}  {stated:10.0%}  {right:6.0%}  "
              f"{off:5.0f} pts{'  OFF' if off > 10 else ''}")
    print("  words       readings  right")
    for word in ("clear", "faint", "healthy"):
        inside = [r for r in rows if r[3] == word]
        if inside:
            print(f"  {word:10}  {len(inside):8}  {sum(r[2] for r in inside) / len(inside):6.0%}")


def charlm_cost(charlm, steps: int) -> None:
    """What the hooks cost a charlm step: without them, with them probing at every evaluation
    (every 20 steps), every other one (40, the bench's runs) and every 100 steps, alternated
    twice; the training thread's CPU time."""
    import statistics

    setups = {"no hooks": charlm.setup_for("healthy", steps),
              **{f"hooks, probe every {n}": charlm.setup_for("healthy", steps, probe_every=n)
                 for n in (20, 40, 100)}}
    times: dict[str, list[float]] = {k: [] for k in setups}
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(2):
            for label, setup in setups.items():
                times[label] += charlm.train(setup, 7, Path(folder) / f"{round_}{label}.jsonl",
                                             hooks=label != "no hooks")
    base_median = statistics.median(times["no hooks"])
    base_mean = statistics.fmean(times["no hooks"])
    for label, seconds in times.items():
        median, mean = statistics.median(seconds), statistics.fmean(seconds)
        print(f"{label:24} median step {median * 1e3:.2f} ms "
              f"(+{(median / base_median - 1) * 100:.0f}%), mean {mean * 1e3:.2f} ms "
              f"(+{(mean / base_mean - 1) * 100:.0f}%), "
              f"slowest {max(seconds) * 1e3:.1f} ms")


def cost(config, train_recorded) -> None:
    """The hooks' share of a step: the same run with and without them, alternated twice."""
    import statistics

    with tempfile.TemporaryDirectory() as folder:
        times = {True: [], False: []}
        for round_ in range(2):
            for hooks in (False, True):
                seconds = train_recorded(config, 7, Path(folder) / f"{round_}-{hooks}.jsonl",
                                         hooks=hooks)
                times[hooks] += seconds
    plain, hooked = (statistics.median(times[h]) for h in (False, True))
    mean_plain, mean_hooked = (statistics.fmean(times[h]) for h in (False, True))
    print(f"CPU time of the training thread: median step {plain * 1e3:.1f} ms without the "
          f"hooks, {hooked * 1e3:.1f} ms with (+{(hooked / plain - 1) * 100:.0f}%); mean with "
          f"evaluations {mean_plain * 1e3:.1f} / {mean_hooked * 1e3:.1f} ms "
          f"(+{(mean_hooked / mean_plain - 1) * 100:.0f}%)")


if __name__ == "__main__":
    main()
