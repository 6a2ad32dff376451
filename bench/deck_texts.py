"""The numbers the deck's texts quote: measured on stored runs, and found in the texts.

A text may quote a figure measured over many seeds only through a claim: which run kind, which
figure, and how it is stated (a 5th-95th percentile range, a percentile, an extreme, "in k of
n" runs). A break's texts (its summary and reveal, en and es, and its row of the signatures
page's deck table) make the claims of its folder's `claims.toml`, and the figures they are
rendered from are measured into its `figures.json` (`scenarios.claims`: the reference's beside
`healthy.toml`, the decoy's in the healthy folder). The texts outside the catalog (the signatures
page's lab notes, `diagnose/diagnosis/pages/signatures.LANG.md`, docs/course-authors.md's deck
section and the help) make the claims of `TEXT_CLAIMS`. Deleting a break's folder deletes its
claims and figures; a new break brings its own. `tests/test_deck_texts.py` checks that every claim,
rendered from the figures, stands in its text, in order, in both languages.

    python bench/deck_texts.py [--deck DIR]            # check the texts against the figures
    python bench/deck_texts.py --load DIR --first-seed 7000,8000 --seeds 20 [--write]

`--load` measures again from the runs `bench/fidelity.py --save DIR` stored (every break of
every level on every seed, or it stops): each run against the previous seed's reference of its
range, the first seed's against the last, as a dealt scenario pairs them. It prints each
claim's old and new wording; `--write` stores the new figures beside their owners and rewrites
each claim's old wording with the new one: a break's English in its break.toml and each other
language in its own catalog (`tools/break_words.py`'s `texts_of` and `write_texts`), the
signatures pages and the docs. What to claim, and the words around the numbers (when a rate
says "usually" or "in every run"), stay a person's job: read the printout before writing.
`--deck DIR` adds a course's own deck (as DIAGNOSE_DECK does): its breaks' claims and figures
are checked too.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import re
import sys
from importlib import resources
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout's packages first, as the tests import them
from diagnose.diagnosis.reveal import TABLE_ROW  # noqa: E402  (a deck row: its levels, its slug)
from scenarios.claims import (  # noqa: E402
    DECOY,
    FIGURES_FILE,
    KINDS,
    REFERENCE,
    REFERENCE_FIGURES,
    Claim,
    figures_owner,
)

__all__ = ["KINDS", "Claim"]  # the claim's grammar is scenarios.claims'; the tests read it here
# texts outside the catalog: (owner, field, language) -> (file, where it starts, where it ends);
# the help's other languages are its messages' translations (TRANSLATED), not a file's region
# The signatures page the reveal writes beside the solutions file (diagnose/diagnosis/pages/), in
# each language: its lab notes and its deck table, whose rows are their breaks' texts ("page").
PAGE = "diagnose/diagnosis/pages/signatures.{lang}.md"
REGIONS = {
    ("README", "deck", "en"): ("docs/course-authors.md", "### The deck\n",
                               "**The proof of level 2's pool.**"),
    ("help", "text", "en"): ("diagnose/tui/text.py", "HELP = (\n", "\n)\n"),
    ("signatures", "lab", "en"): (PAGE.format(lang="en"), "## The lab\n", "## The deck\n"),
    ("signatures", "deck", "en"): (PAGE.format(lang="en"), "## The deck\n", "\n---\n"),
    ("signatures", "lab", "es"): (PAGE.format(lang="es"), "## El laboratorio\n",
                                  "## La baraja\n"),
    ("signatures", "deck", "es"): (PAGE.format(lang="es"), "## La baraja\n", "\n---\n"),
}
TRANSLATED = {("help", "text", "es")}
LANGS = ("en", "es")
PAGE_FIELD = "page"  # a break's row of the signatures page's deck table

# owner of REGIONS -> field -> the claims it makes, in the order it makes them: "run|figure|kind"
# (`scenarios.claims.Claim`). A break's claims are its folder's claims.toml.
TEXT_CLAIMS: dict[str, dict[str, tuple[str, ...]]] = {
    "README": {
        "deck": ("reference|loss0|n", "reference|any_train_below_floor|pos",
                 "reference|any_train_below_floor|n", "reference|first_train_below_floor_step|min",
                 "reference|first_val_below_floor_step|n", "reference|loss0|n"),
    },
    "signatures": {
        "lab": ("bad-init|loss0|range", "no-warmup|grad_first_peak_step|zero",
                "no-warmup|grad_first_peak_step|n", "no-warmup|final_cost|pos",
                "no-warmup|final_cost|n", "no-warmup|final_cost|range",
                "no-warmup|final_ratio|range", "broken-mask|dead_heads_end_excess|pos",
                "broken-mask|dead_heads_end_excess|n"),
        "deck": ("reference|loss0|n",),  # "measured on 40 seeds"; its rows are their breaks'
    },
    "help": {
        "text": ("reference|any_train_below_floor|pos", "reference|any_train_below_floor|n",
                 "reference|first_train_below_floor_step|min",
                 "reference|grad_first_peak_step|zero", "reference|grad_first_peak_step|n",
                 "no-warmup|grad_first_peak_step|zero", "no-warmup|grad_first_peak_step|n"),
    },}


def number(value: float, lang: str) -> str:
    """A figure as the texts write it: three significant digits (two below 0.01), whole
    numbers from 100 grouped by thousands, in the language's symbols (`scenarios.numbers`:
    12.100,5 in Spanish), a true minus sign."""
    from scenarios.numbers import number as written  # the game's formatter: CLDR's symbols

    if abs(value) >= 100:
        text = written(lang, float(f"{value:.3g}") if abs(value) >= 1000 else value, ",.0f")
    elif abs(value) >= 0.01:
        text = written(lang, value, ".3g")
    else:
        text = written(lang, value, ".2g")
    text = "0" if text.lstrip("-") in ("0", "0.0", "0,0") else text
    return text.replace("-", "−")


def render(claim: Claim, figures: dict, lang: str) -> str:
    """How a text states `claim` with the measured `figures` (run -> figure -> statistics); a
    `KeyError` naming the run and figure when none was measured."""
    try:
        stats = figures[claim.run][claim.figure]
    except KeyError:
        raise KeyError(f"{claim.run}|{claim.figure}") from None
    scale = 100 if claim.percent else 1
    if claim.kind in ("n", "pos", "zero", "neg"):
        return str(stats[claim.kind])
    if claim.kind == "below":   # the bound as written, when every run stays under it
        top = stats["max"] * scale
        return claim.bound if top < float(claim.bound) else (
            f"[max {number(top, lang)}, not below {claim.bound}]")
    if claim.kind != "range":
        return number(stats[claim.kind] * scale, lang)
    low, high = number(stats["p5"] * scale, lang), number(stats["p95"] * scale, lang)
    if low == high:
        return low
    if low.startswith("−") or high.startswith("−"):   # a minus beside a dash reads badly
        return f"{low} {'a' if lang == 'es' else 'to'} {high}"
    return f"{low}-{high}"


def percentile(ordered: list[float], share: float) -> float:
    """Linear between the nearest ranks; a count's percentile is one of its values."""
    if all(float(v).is_integer() for v in ordered):
        return ordered[round(share * (len(ordered) - 1))]
    at = share * (len(ordered) - 1)
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def summarise(values: list[float]) -> dict[str, float | int]:
    finite = sorted(float(v) for v in values if isinstance(v, int | float) and math.isfinite(v))
    if not finite:
        return {"n": 0}
    return {"n": len(finite), "min": finite[0], "p5": percentile(finite, 0.05),
            "p50": percentile(finite, 0.5), "p95": percentile(finite, 0.95), "max": finite[-1],
            "pos": sum(v > 0 for v in finite), "zero": sum(v == 0 for v in finite),
            "neg": sum(v < 0 for v in finite)}


def catalog() -> Any:
    import scenarios

    return scenarios.default_catalog()


def claims() -> list[tuple[str, str, str, list[Claim]]]:
    """(owner, field, language, its claims) for every text that makes claims: each break's
    (its folder's claims.toml) and those of TEXT_CLAIMS."""
    out = []
    for slug, brk in catalog().breaks.items():
        for field, made in brk.claims.texts.items():
            out += [(slug, field, lang, list(made)) for lang in LANGS]
    for owner, fields in TEXT_CLAIMS.items():
        for field, tokens in fields.items():
            out += [(owner, field, lang, [Claim.parse(t) for t in tokens]) for lang in LANGS
                    if (owner, field, lang) in REGIONS or (owner, field, lang) in TRANSLATED]
    return out


def figures_path(run: str) -> Path:
    """Where `run`'s measured figures are kept: beside healthy.toml for the reference, in its
    break's folder otherwise (`scenarios.claims.figures_owner`)."""
    if run == REFERENCE:
        return Path(str(resources.files("scenarios") / REFERENCE_FIGURES))
    owner = catalog().breaks.get(figures_owner(run))
    if owner is None or owner.folder is None:
        raise KeyError(run)
    return Path(str(owner.folder)) / FIGURES_FILE


def stored_figures() -> dict[str, Any]:
    """The figures kept beside their owners: {"ranges": each run's seed ranges, "figures": run ->
    figure -> statistics}, for the reference and every break of the catalog that has them."""
    from scenarios.files import read_json

    runs = [REFERENCE, *(DECOY if brk.healthy else slug for slug, brk in catalog().breaks.items())]
    out: dict[str, Any] = {"ranges": {}, "figures": {}}
    for run in runs:
        path = figures_path(run)
        if path.is_file():
            kept = read_json(path, "a figures file", 1024 * 1024)
            out["ranges"][run] = [list(pair) for pair in kept["ranges"]]
            out["figures"][run] = kept["figures"]
    return out


def _region(owner: str, field: str, lang: str) -> tuple[Path, str, int, int]:
    """A text outside the catalog: its file, the file's text, and where the text lies in it."""
    name, start, end = REGIONS[owner, field, lang]
    path = ROOT / name
    text = path.read_text(encoding="utf-8")
    begin = text.index(start) + len(start)
    return path, text, begin, text.index(end, begin)


def _page_row(slug: str, lang: str) -> tuple[Path, list[str], int]:
    """The signatures page of `lang`, its lines, and the line of `slug`'s row (-1: none)."""
    path = ROOT / PAGE.format(lang=lang)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next((n for n, line in enumerate(lines)
               if (row := TABLE_ROW.match(line)) and row.group(2) == slug), -1)
    return path, lines, at


def _catalog_text(owner: str, field: str, lang: str) -> str:
    brk = catalog().breaks[owner]
    if field == PAGE_FIELD:
        _, lines, at = _page_row(owner, lang)
        return lines[at] if at >= 0 else ""
    if field == "summary":
        return brk.summary[lang]
    if field.startswith("panels."):
        return brk.reveal[lang].panels.get(field.split(".")[1], "")
    return getattr(brk.reveal[lang], field)  # changed, engine_differs, real_world


def _translated_help(lang: str) -> str:
    """The help's sections as the catalog of `lang` translates them, placeholders unfilled."""
    from diagnose.tui.text import HELP
    from scenarios.words import translator

    return "\n\n".join(translator(lang).gettext(section) for section in HELP)


def text_of(owner: str, field: str, lang: str) -> str:
    if (owner, field, lang) in TRANSLATED:
        return _translated_help(lang)
    if (owner, field, lang) in REGIONS:
        _, text, begin, end = _region(owner, field, lang)
        region = text[begin:end]
        if owner == "signatures":  # the deck table's rows are their breaks' texts
            region = "".join(line for line in region.splitlines(keepends=True)
                             if not TABLE_ROW.match(line))
        return region
    return _catalog_text(owner, field, lang)


def locate(text: str, words: str, at: int = 0) -> int:
    """Where `words` stands in `text` from `at` on as whole numbers ("60" is not in "0.603"
    nor in "160"), or -1."""
    found = text.find(words, at)
    while found >= 0:
        before, after = text[max(0, found - 2):found], text[found + len(words):][:2]
        if not (before[-1:].isdigit() or (before[-1:] in (".", ",") and before[:1].isdigit())
                or after[:1].isdigit() or (after[:1] in (".", ",") and after[1:].isdigit())):
            return found
        found = text.find(words, found + 1)
    return -1


def missing(text: str, wanted: list[str]) -> list[str]:
    """The renderings of `wanted` that `text` does not hold in that order."""
    lost, at = [], 0
    for words in wanted:
        found = locate(text, words, at)
        if found < 0:
            lost.append(words)
        else:
            at = found + len(words)
    return lost


# A range ("0.5-1.2", "−1.4 to −0.7", "3 a 5") or a rate ("in 9 of 60") in a text is a measured
# figure, so a claim must render it, unless it names a window ("steps 1-5", "Panels 2-5").
RANGE_OR_RATE = re.compile(r"−?\d+(?:[.,]\d+)*%?(?:-|–| to | a )−?\d+(?:[.,]\d+)*"
                           r"|\b\d+ (?:of|de) \d+\b")
WINDOW = ("step ", "steps ", "paso ", "pasos ", "Panels ", "paneles ")
NOT_FIGURES = {  # (owner, field) -> the ranges there that are not the deck's measurements;
    # a break's own are its claims.toml's `not_figures`
    ("README", "deck"): ("0–19", "1000–1019", "5000–5019", "7000–7019", "8000–8019"),  # seeds
}


def texts() -> list[tuple[str, str, str]]:
    """(owner, field, language) of every text of the deck: each break's summary, reveal and
    row of the signatures page, and the REGIONS."""
    out = [*REGIONS, *TRANSLATED]
    for slug, brk in catalog().breaks.items():
        for lang in LANGS:
            out += [(slug, field, lang) for field in (
                "summary", "changed", "engine_differs", "real_world",
                *(f"panels.{n}" for n in brk.reveal[lang].panels))]
            if PAGE_FIELD in brk.claims.texts or _page_row(slug, lang)[2] >= 0:
                out.append((slug, PAGE_FIELD, lang))
    return out


def problems_in(text: str, wanted: list[str], not_figures: tuple[str, ...] = ()) -> list[str]:
    """What is wrong with one text that must say `wanted` in that order: each rendering it
    lacks, and each range or rate it quotes that none of `wanted` covers."""
    problems = [f"does not say {words!r} (wants {', '.join(map(repr, wanted))})"
                for words in missing(text, wanted)]
    spans, at = [], 0
    for words in wanted:
        found = locate(text, words, at)
        if found >= 0:
            spans.append((found, found + len(words)))
            at = found + len(words)
    for quoted in RANGE_OR_RATE.finditer(text):
        if not (any(a < quoted.end() and quoted.start() < b for a, b in spans)
                or text[:quoted.start()].endswith(WINDOW) or quoted.group() in not_figures):
            problems.append(f"quotes {quoted.group()!r}, which no claim measures")
    return problems


def not_figures(owner: str, field: str) -> tuple[str, ...]:
    brk = catalog().breaks.get(owner)
    return brk.claims.not_figures if brk is not None else NOT_FIGURES.get((owner, field), ())


def check(figures: dict) -> list[str]:
    """One line per claim a text does not state as `figures` (run -> figure -> statistics)
    say, and per range or rate a text states that no claim measured; none when all hold."""
    made = {(owner, field, lang): found for owner, field, lang, found in claims()}
    problems = []
    for owner, field, lang in texts():
        try:
            wanted = [render(claim, figures, lang) for claim in made.get((owner, field, lang), [])]
        except KeyError as err:
            problems.append(f"{owner} {field} ({lang}): no measured figure {err.args[0]} "
                            f"(measure with --load DIR --write)")
            continue
        problems += [f"{owner} {field} ({lang}): {problem}" for problem in problems_in(
            text_of(owner, field, lang), wanted, not_figures(owner, field))]
    return problems


def _rewrite_line(line: str, old: list[str], new: list[str], at: int = 0) -> str:
    """`line` with each of `old`, found in order from `at`, replaced by its `new`."""
    for before, after in zip(old, new, strict=True):
        found = locate(line, before, at)
        if found < 0:
            raise SystemExit(f"cannot find {before!r} in: {line.strip()[:100]}...")
        line = line[:found] + after + line[found + len(before):]
        at = found + len(after)
    return line


def _rendered_before(claim: Claim, old_figures: dict, lang: str, new: str) -> str:
    """A claim as the text states it now: from the stored figures, or, for a claim new since
    they were measured, its new wording (the author wrote it in with the claim)."""
    try:
        return render(claim, old_figures, lang)
    except KeyError:
        return new


def rewrite(old_figures: dict, new_figures: dict) -> None:
    """Replace each claim's old wording by its new one, in place, in order."""
    from scenarios.catalog import text_context

    breaks = catalog().breaks
    edited: dict[str, dict[str, dict[str, str]]] = {}  # a break's texts, every language
    for owner, field, lang, made in claims():
        new = [render(claim, new_figures, lang) for claim in made]
        old = [_rendered_before(claim, old_figures, lang, after) for claim, after in zip(
            made, new, strict=True)]
        if old == new:
            continue
        if (owner, field, lang) in TRANSLATED:  # a catalog's message, found by its English
            print(f"{owner} ({lang}): write {new} for {old} in the translations of "
                  f"scenarios/locale/{lang}/LC_MESSAGES/diagnose.po, then run tools/words.py")
            continue
        if (owner, field, lang) in REGIONS:
            path, text, begin, end = _region(owner, field, lang)
            path.write_text(text[:begin] + _rewrite_line(text[begin:end], old, new)
                            + text[end:], encoding="utf-8")
            continue
        if field == PAGE_FIELD:
            path, lines, at = _page_row(owner, lang)
            if at < 0:
                raise SystemExit(f"{path}: no row of {owner}")
            lines[at] = _rewrite_line(lines[at], old, new)
            path.write_text("".join(lines), encoding="utf-8")
            continue
        if owner not in edited:  # a break's texts are read once, edited claim by claim
            edited[owner] = _break_words().texts_of(breaks[owner])
        texts = edited[owner]
        context = text_context(*field.split("."))  # "panels.4": its catalog's "reveal.panels.4"
        texts[context][lang] = _rewrite_line(texts[context][lang], old, new)
    for owner, texts in edited.items():  # English in break.toml, the rest in its catalog
        _break_words().write_texts(Path(str(breaks[owner].folder)), texts)


# --- a break's texts: English in its break.toml, the other languages in its catalog --------

@functools.cache
def _break_words():
    """tools/break_words.py: reads and writes a break's texts in every language (Babel)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import break_words

    return break_words


def measure(folder: Path, firsts: list[int], seeds: int) -> dict:
    """Every claimed figure over the stored runs, each against another seed's reference, and
    the step-0 loss of every run kind (its count of runs).

    A range stops at its first seed that lacks a run of the deck (every run kind then counts
    the same seeds); `ranges` says which seeds each range gave."""
    sys.path.insert(0, str(ROOT / "bench"))
    import fidelity  # bench/fidelity.py: the loader and the cross-seed pairing

    import scenarios
    from diagnose.engine import run_header_fields

    healthy = scenarios.healthy_config()
    header = run_header_fields(healthy)
    levels = [level.number for level in scenarios.all_levels()]
    ranged = []
    for first in firsts:
        kept = []
        for seed in range(first, first + seeds):
            plans = fidelity.plans_for(seed, healthy, levels)
            records = fidelity.stored(folder, seed, plans)
            if len(records) < len(plans):
                break
            kept.append(records)
        ranged.append(kept)
    spread = fidelity.cross_seed_figures(ranged, header)
    wanted = {(c.run, c.figure) for *_, made in claims() for c in made}
    wanted |= {(run, "loss0") for run in spread}   # how many runs of each kind
    return {"ranges": [[first, len(kept)] for first, kept in zip(firsts, ranged, strict=True)],
            "figures": {run: {figure: summarise(spread[run][figure])
                              for r, figure in sorted(wanted) if r == run}
                        for run in sorted({r for r, _ in wanted} & set(spread))}}


def store(fresh: dict) -> list[Path]:
    """Each run's fresh figures beside its owner (`figures_path`), written whole."""
    from scenarios.files import atomic_write

    written = []
    for run, figures in fresh["figures"].items():
        path = figures_path(run)
        atomic_write(path, json.dumps({"ranges": fresh["ranges"], "figures": figures},
                                      indent=1, sort_keys=True) + "\n")
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", type=Path, help="measure again from this folder of runs")
    parser.add_argument("--first-seed", default="7000,8000", metavar="N[,N...]")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--write", action="store_true",
                        help="store the new figures and rewrite the texts' claims with them")
    parser.add_argument("--deck", type=Path, default=None, metavar="DIR",
                        help="a course's own deck (DIR/<slug>/break.toml), as DIAGNOSE_DECK")
    args = parser.parse_args()
    if args.deck is not None:
        os.environ["DIAGNOSE_DECK"] = str(args.deck)
    stored = stored_figures()
    if args.load is None:
        problems = check(stored["figures"])
        print("\n".join(problems) or f"every claim holds ({len(claims())} texts)")
        sys.exit(1 if problems else 0)
    fresh = measure(args.load, [int(n) for n in args.first_seed.split(",")], args.seeds)
    print("seeds: " + ", ".join(f"{first}-{first + count - 1}" if count else f"{first} (none)"
                                for first, count in fresh["ranges"]))
    for owner, field, lang, made in claims():
        if lang != "en":
            continue
        for claim in made:
            new = render(claim, fresh["figures"], lang)
            try:
                old = render(claim, stored["figures"], lang)
            except KeyError:
                old = "-"
            print(f"{owner:<19} {field:<15} {claim}: {old} -> {new}")
    if args.write:
        rewrite(stored["figures"], fresh["figures"])
        for path in store(fresh):
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
