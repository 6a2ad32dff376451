"""Grade a class of 1,000 in <= 10 s, and read any file up to the 1 MiB cap in <= 2 s.

Builds N bundles in a temp dir (scenario.json and a key sealed with one instructor key: the grader
reads nothing else) and N hand-written-looking submissions in eight shapes, English and
Spanish, with a paragraph of evidence each and a mix of right, wrong, ambiguous and "not sure"
answers. Then times what an instructor runs: `grade_bundles` (match each file to its bundle,
parse, unseal, score, record the attempt) and the gradebook CSV plus Gradescope results.
Building the class is not timed.

Then reads the worst files a student (or a script) could hand in, each filled to the 1 MiB cap:
one huge answer line repeating break words (once ~110 s: the reader was quadratic in the
mentions), 10^5 sections, every catalog word repeated, many table rows, deep nesting, unclosed
comments, and the numbered-list fallback that reads a file twice. Prints each time.

Run: python bench/grade.py [--count 1000] [--seed 0] [--worst-only]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import grading
from grading.diagnoses import MAX_BYTES, parse_diagnoses
from grading.seal import new_secret, seal
from scenarios import breaks

WORST_BUDGET = 2.0  # seconds to read one file of any shape up to MAX_BYTES

SLUGS = ("bad-init", "no-warmup", "broken-mask")
SAY = {"bad-init": ("bad init", "Xavier ×100", "mala inicialización"),
       "no-warmup": ("no warmup", "sin warm-up", "missing LR warmup"),
       "broken-mask": ("broken mask", "máscara causal rota", "it sees the future")}
EVIDENCE = ("Panel 1 starts at {a:.1f} and ends at {b:.3f}; the reference ends at 0.32. "
            "Panel 3 peaks at step {s} with a pre-clip norm of {a:.0f}. Panel 5's largest "
            "sigma moves x{b:.2f} in the first five steps. Panel 6: {s} dead heads of 8. ")


def answer_words(rng: random.Random, truth: str) -> str:
    roll = rng.random()
    if roll < 0.6:
        return rng.choice(SAY[truth])
    if roll < 0.8:
        return rng.choice(SAY[rng.choice([s for s in SLUGS if s != truth])])
    if roll < 0.9:
        return f"{rng.choice(SAY[truth])}, not {rng.choice(SAY['no-warmup'])}"  # ambiguous
    return "not sure"


def submission(rng: random.Random, name: str, code: str, truth: dict[str, str]) -> str:
    ids = sorted(truth)
    words = {i: answer_words(rng, truth[i]) for i in ids}
    notes = {i: EVIDENCE.format(a=rng.uniform(4, 250), b=rng.uniform(0, 3), s=rng.randint(0, 9))
             * rng.randint(1, 4) for i in ids}
    comment = f"<!-- scenario: {code} -->\n" if rng.random() < 0.7 else ""
    shape = rng.randrange(8)
    if shape == 0:  # what the TUI writes
        return grading.format_diagnoses(name, code, {i: (truth[i] if "not" not in words[i]
                                                         else None, notes[i]) for i in ids},
                                        rng.choice(["en", "es"]))
    if shape == 1:
        body = "".join(f"## {i}\n**Diagnosis:** {words[i]}\n**Evidence:** {notes[i]}\n\n"
                       for i in ids)
    elif shape == 2:
        body = "".join(f"### Experimento {int(i)}\nDiagnóstico: {words[i]}\n{notes[i]}\n\n"
                       for i in ids)
    elif shape == 3:
        body = "".join(f"{i}: {words[i]}\n" for i in ids) + "\n" + notes[ids[0]]
    elif shape == 4:
        body = "| Run | Diagnosis | Evidence |\n|---|---|---|\n" + "".join(
            f"| {i} | {words[i]} | {notes[i]} |\n" for i in ids)
    elif shape == 5:
        body = "".join(f"## Run {i}\n{notes[i]}So: {words[i]}.\n\n" for i in ids)
    elif shape == 6:
        body = "".join(f"**{i}** — {words[i]}\n\n```\n# {notes[i]}\n```\n" for i in ids)
    else:
        body = "".join(f"- Run {int(i)}: {words[i]}\n" for i in ids) + notes[ids[-1]]
    return f"# Diagnoses — {name}\n{comment}\n{body}"


def build(root: Path, count: int, rng: random.Random, key: bytes) -> list[Path]:
    bundles, subs = root / "bundles", root / "submissions"
    subs.mkdir(parents=True)
    manifest, files = ["student,code"], []
    for n in range(count):
        name, code = f"student{n:04d}", f"{rng.getrandbits(32):08X}"
        truth = dict(zip(("01", "02", "03"), rng.sample(SLUGS, 3), strict=True))
        workspace = bundles / name / grading.DEFAULT_DIR
        workspace.mkdir(parents=True)
        (workspace / "scenario.json").write_text(json.dumps({
            "schema": "diagnose.scenario/1", "code": code, "engine_version": "bench",
            "steps": 400, "ids": ["01", "02", "03"], "key": "instructor"}))
        (workspace / "answer-key.sealed").write_text(seal(code, truth, key))
        manifest.append(f"{name},{code}")
        file = subs / f"{name}-diagnoses.md"
        file.write_text(submission(rng, name, code, truth), encoding="utf-8")
        files.append(file)
    (bundles / "manifest.csv").write_text("\n".join(manifest) + "\n")
    return files


def _fill(unit: str, head: str = "", tail: str = "") -> bytes:
    """`head`, then `unit` repeated, then `tail`: as close to MAX_BYTES as whole units go."""
    room = MAX_BYTES - len(head.encode("utf-8")) - len(tail.encode("utf-8"))
    return (head + unit * (room // len(unit.encode("utf-8"))) + tail).encode("utf-8")


def worst_cases() -> dict[str, bytes]:
    """The shapes that once cost the reader most, each as large as a diagnoses file may be."""
    words = " ".join(w for b in breaks().values() for ws in b.words.values() for w in ws) + " "
    table = "| Run | Diagnosis | Evidence |\n|---|---|---|\n"
    return {
        "one answer line of 'bad-init no-warmup '": _fill("bad-init no-warmup ",
                                                          "## 01\nDiagnosis: "),
        "one line, no spaces": _fill("x"),
        "one word made of 'init'": _fill("init"),
        "a heading of spaces": _fill(" ", "# ", "x"),
        "10^5 sections": _fill("## 01\nbad init\n"),
        "sections 01..99, repeated": _fill("".join(f"## {i:02d}\nDiagnosis: bad init\n"
                                                   for i in range(1, 100))),
        "every catalog word, one line": _fill(words, "## 01\n"),
        "every catalog word, a line each": _fill(words.replace(" ", "\n"), "## 01\n"),
        "table rows": _fill("| 01 | bad init | x |\n", table),
        "nested quotes": _fill("> ", "", "01: bad init"),
        "nested bullets": _fill("- ", "", "01: bad init"),
        "unclosed comment openers": _fill("<!--"),
        "scenario comments": _fill("<!-- scenario: AB -->\n"),
        "code fences": _fill("```\n"),
        "struck-out text": _fill("~~a"),
        "numbered list (read twice)": _fill("1. bad init\n"),
        "bare answer labels": _fill("Diagnosis:\n"),
        "accents and ß": _fill("Fallo: máscara rota, ß, ﬁ \u0301 "),
        "no two lines alike": _distinct("## {n:02d}\nDiagnosis: bad init, step {i}\n"),
    }


def _distinct(template: str) -> bytes:
    """Lines that differ (a counter in each), so no reading is shared between them."""
    lines, size, i = [], 0, 0
    while True:
        line = template.format(i=i, n=i % 99 + 1).encode("utf-8")
        if size + len(line) > MAX_BYTES:
            return b"".join(lines)
        lines.append(line)
        size, i = size + len(line), i + 1


def bench_worst() -> float:
    """Read each worst case once and print its time; the slowest. The figure held to the
    budget is the process's CPU time, which other work on a shared machine does not inflate;
    wall-clock time is shown beside it."""
    parse_diagnoses(b"## 01\nbad init\n")  # the vocabulary is compiled once, not timed
    slowest = 0.0
    for name, data in worst_cases().items():
        wall, cpu = time.perf_counter(), time.process_time()
        parse_diagnoses(data)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        slowest = max(slowest, cpu)
        print(f"  {name:<42} {len(data) / 1024:5.0f} KiB  {cpu:5.2f} s CPU  ({wall:5.2f} s wall)")
    verdict = "within" if slowest <= WORST_BUDGET else "OVER"
    print(f"slowest worst case: {slowest:.2f} s CPU -> {verdict} the {WORST_BUDGET:.0f} s budget")
    return slowest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worst-only", action="store_true",
                        help="only read the worst-case files, no class")
    args = parser.parse_args()
    if args.worst_only:
        bench_worst()
        return

    rng, key = random.Random(args.seed), new_secret()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = build(root, args.count, rng, key)
        size = sum(f.stat().st_size for f in files) / len(files)

        start = time.perf_counter()
        graded = grading.grade_bundles(files, root / "bundles", key)
        graded_at = time.perf_counter()
        rows = grading.gradebook_rows(root / "bundles", key)
        grading.write_gradebook(rows, root / "grades.csv")
        grading.write_gradescope(rows, graded, root / "gradescope")
        seconds = time.perf_counter() - start

    errors = [g.error for g in graded if g.error]
    scores = [g.report.score for g in graded if g.report]
    print(f"{len(files)} submissions ({size / 1024:.1f} KiB on average), "
          f"{len(errors)} refused, mean score {sum(scores) / max(len(scores), 1):.2f}/3")
    print(f"graded into their bundles: {graded_at - start:.2f} s "
          f"({1000 * (graded_at - start) / len(files):.2f} ms each)")
    print(f"plus gradebook CSV and Gradescope results: {seconds:.2f} s in all "
          f"-> {'within' if seconds <= 10 else 'OVER'} the 10 s budget for 1,000")
    if errors:
        print("first refusal:", errors[0])
    print("worst files, each read alone:")
    bench_worst()


if __name__ == "__main__":
    main()
