"""Grade a class of 1,000 in <= 10 s, and read any file up to the 1 MiB cap in <= 2 s.

Builds N bundles in a temp dir (scenario.json and a key sealed with one instructor key: the grader
reads nothing else) and N hand-written-looking submissions in eight shapes, English and
Spanish, with a paragraph of evidence each and a mix of right, wrong, ambiguous and "not sure"
answers. Then times what an instructor runs: `grade_bundles` (match each file to its bundle,
parse, unseal, score, record the attempt) and the gradebook CSV plus Gradescope results.
Building the class is not timed.

Then grows every shape of file a student (or a script) could hand in from 64 KiB to the 1 MiB
cap and reads each at level 1 and again at level 3: a run of every character class (spaces,
tabs, hashes, stars, digits, accents, CRs, ...) inside a line, a label, a heading, a title, an
ID line and a comment (issue 20: "loss" + 20,000 spaces + "x" once took 13 s), and the files
that once cost most (one answer line of break words, 10^5 sections, table rows, nesting,
unclosed comments, the numbered-list fallback). Prints each shape's CPU time at both sizes and
the ratio: linear reading grows x16; the bench fails above x24 or 2 s at 1 MiB.

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


RATIO_LIMIT = 24  # 1 MiB / 64 KiB is 16: linear reading stays near it, quadratic goes to 256
SMALL = 64 * 1024

# Runs of every character class a line can hold, and the marks the grammar reacts to; each is
# grown inside each context below (issue 20: "loss" + 20,000 spaces + "x" once took 13 s).
CLASSES = {"spaces": " ", "tabs": "\t", "hashes": "#", "stars": "*", "underscores": "_",
           "dashes": "-", "quotes": ">", "pipes": "|", "colons": ":", "dots": ".",
           "parens": ")", "brackets": "]", "open brackets": "[", "tildes": "~",
           "backticks": "`", "backslashes": "\\", "digits": "1", "zeros": "0", "letters": "a",
           "accents": "É", "ß": "ß", "em dashes": "—", "arrows": "→", "nbsp": "\u00a0",
           "combining": "\u0301", "bullets": "• ", "label words": "Diagnosis ",
           "ID words": "Run ", "break words": "bad init ", "CRs": "\r", "newlines": "\n",
           "comment openers": "<!--", "checkboxes": "[ ] "}
CONTEXTS = {"a line": ("", "x"), "a label": ("## 01\nloss", "x"), "a heading": ("## 01", "x #"),
            "a title": ("# Diagnoses -", "x"), "an ID line": ("- [x] Run 01", " bad init"),
            "a comment": ("<!-- scenario:", "x -->")}


def _fill(unit: str, head: str = "", tail: str = "", size: int = MAX_BYTES) -> bytes:
    """`head`, then `unit` repeated, then `tail`: as close to `size` as whole units go."""
    room = size - len(head.encode("utf-8")) - len(tail.encode("utf-8"))
    return (head + unit * (room // len(unit.encode("utf-8"))) + tail).encode("utf-8")


def grown_shapes():
    """name -> a function of a size giving that shape's file: every character class in every
    context, nesting, long lines, and the files that once cost the reader most."""
    words = " ".join(w for b in breaks().values() for ws in b.words.values() for w in ws) + " "
    table = "| Run | Diagnosis | Evidence |\n|---|---|---|\n"
    shapes = {f"{cls} in {ctx}": (lambda size, u=unit, h=head, t=tail: _fill(u, h, t, size))
              for cls, unit in CLASSES.items() for ctx, (head, tail) in CONTEXTS.items()}
    fixed = {
        "one answer line of 'bad-init no-warmup '": ("bad-init no-warmup ", "## 01\nDiagnosis: "),
        "one word made of 'init'": ("init", ""),
        "10^5 sections": ("## 01\nbad init\n", ""),
        "sections 01..99, repeated": ("".join(f"## {i:02d}\nDiagnosis: bad init\n"
                                              for i in range(1, 100)), ""),
        "every catalog word, one line": (words, "## 01\n"),
        "every catalog word, a line each": (words.replace(" ", "\n"), "## 01\n"),
        "table rows": ("| 01 | bad init | x |\n", table),
        "nested quotes and bullets": ("> - ", ""),
        "nested brackets": ("[(", ""),
        "scenario comments": ("<!-- scenario: AB -->\n", ""),
        "code fences": ("```\n", ""),
        "struck-out text": ("~~a", ""),
        "numbered list (the fallback)": ("1. bad init\n", ""),
        "numbered evidence in a section": ("2) the loss is 230 at step 0\n", "## 01\nbad init\n"),
        "bare answer labels": ("Diagnosis:\n", ""),
        "accents and ß": ("Fallo: máscara rota, ß, ﬁ \u0301 ", ""),
        "mixed classes": (" \t#*_-:.)]|>a1É→", "## 01\nDiagnosis"),
    }
    shapes.update({name: (lambda size, u=unit, h=head: _fill(u, h, "01: bad init", size))
                   for name, (unit, head) in fixed.items()})
    shapes["no two lines alike"] = lambda size: _distinct(
        "## {n:02d}\nDiagnosis: bad init, step {i}\n", size)
    return shapes


def _distinct(template: str, size: int = MAX_BYTES) -> bytes:
    """Lines that differ (a counter in each), so no reading is shared between them."""
    lines, total, i = [], 0, 0
    while True:
        line = template.format(i=i, n=i % 99 + 1).encode("utf-8")
        if total + len(line) > size:
            return b"".join(lines)
        lines.append(line)
        total, i = total + len(line), i + 1


def _cpu(data: bytes) -> float:
    """CPU seconds to read `data` at level 1 and again at level 3 (what a class grades)."""
    start = time.process_time()
    reading = parse_diagnoses(data)
    reading.at_level(3).answers  # noqa: B018 - the sections, read with the level's words
    return time.process_time() - start


def bench_worst() -> bool:
    """Read each shape at 64 KiB and at 1 MiB; print each time and the ratio. True when every
    1 MiB file reads within the budget and grows linearly. The figures are CPU time, which
    other work on a shared machine does not inflate."""
    _cpu(b"## 01\nbad init\n")  # the vocabularies are compiled once, not timed
    slowest, worst_ratio, failed = 0.0, 0.0, []
    for name, make in grown_shapes().items():
        small, large = _cpu(make(SMALL)), _cpu(make(MAX_BYTES))
        ratio = large / max(small, 1e-3)  # below a millisecond, the clock's grain decides
        slowest, worst_ratio = max(slowest, large), max(worst_ratio, ratio)
        ok = large <= WORST_BUDGET and ratio <= RATIO_LIMIT
        failed += [] if ok else [name]
        print(f"  {name:<44} 64 KiB {small:6.3f} s  1 MiB {large:6.3f} s  "
              f"x{ratio:5.1f}{'' if ok else '  <- OVER'}")
    print(f"slowest 1 MiB file: {slowest:.2f} s CPU (budget {WORST_BUDGET:.0f} s); "
          f"largest growth x{worst_ratio:.1f} (linear is x16, limit x{RATIO_LIMIT})")
    print("every shape within the budget, linear" if not failed else
          f"OVER: {', '.join(failed)}")
    return not failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worst-only", action="store_true",
                        help="only read the worst-case files, no class")
    args = parser.parse_args()
    if args.worst_only:
        raise SystemExit(0 if bench_worst() else 1)

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
    print("every shape of file, grown from 64 KiB to 1 MiB, each read alone:")
    raise SystemExit(0 if bench_worst() else 1)


if __name__ == "__main__":
    main()
