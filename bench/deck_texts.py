"""The numbers the deck's texts quote: measured on stored runs, and found in the texts.

A text of the catalog (a break's summary or reveal, en and es), of the signatures page the
reveal writes (`diagnose/diagnosis/pages/signatures.LANG.md`, en and es) or of the README's deck
section
may quote a measured figure only through a claim of `CLAIMS`: which run kind, which figure, and
how it is stated (a 5th-95th percentile range, a percentile, an extreme, "in k of n" runs).
`bench/deck-figures.json` holds the measured figures; `tests/test_deck_texts.py` checks that
every claim, rendered from it, stands in its text, in order, in both languages.

    python bench/deck_texts.py                       # check the texts against the JSON
    python bench/deck_texts.py --load DIR --first-seed 0,1000,5000 --seeds 20 [--write]

`--load` measures again from the runs `bench/fidelity.py --save DIR` stored (every break of
every level on every seed, or it stops): each run against the previous seed's reference of its
range, the first seed's against the last, as a dealt scenario pairs them. It prints each
claim's old and new wording; `--write` stores the new figures and rewrites each claim's old
wording with the new one: a break's English in its break.toml and each other language in its
own catalog (`tools/break_words.py`'s `texts_of` and `write_texts`), and the README. What to
claim, and the words around the numbers (when a rate says "usually" or "in every run"), stay a
person's job: read the printout before writing.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "bench" / "deck-figures.json"
# texts outside the catalog: (owner, field, language) -> (file, where it starts, where it ends);
# the help's other languages are its messages' translations (TRANSLATED), not a file's region
# The signatures page the reveal writes beside the solutions file (diagnose/diagnosis/pages/), in
# each
# language: its lab notes and its deck table.
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
KINDS = ("range", "p5", "p50", "p95", "min", "max", "n", "pos", "zero", "neg")

# slug (or an owner of REGIONS) -> field -> the claims it makes, in the order it makes them:
# "run|figure|kind", kind one of KINDS, with "%" after it for a share shown in percent. A
# break's field is a key of [reveal.LANG] ("engine_differs"), "panels.N" or "summary", in both
# languages. Figures: `diagnose.diagnosis.diagnostician.figures` and `bench/fidelity.py`'s
# `text_figures`.
CLAIMS: dict[str, dict[str, tuple[str, ...]]] = {
    "bad-init": {
        "engine_differs": ("bad-init|loss0|n",),
        "panels.1": ("bad-init|loss0|range", "bad-init|ln_f_end_ratio|range",
                     "bad-init|final_ratio|range"),
        "panels.3": ("bad-init|grad_early_ratio|range", "bad-init|clip_share|range%"),
        "panels.4": ("bad-init|residual0_ratio|range", "bad-init|residual_end_ratio|range"),
        "panels.5": ("bad-init|spectral0_min_ratio|p5", "bad-init|spectral0_max_ratio|p95",
                     "bad-init|spectral_end_min_ratio|p5", "bad-init|spectral_end_max_ratio|p95"),
        "panels.6": ("bad-init|dead_heads_any_end|pos", "bad-init|dead_heads_any_end|n",
                     "bad-init|dead_neurons_end|range%", "reference|dead_neurons_end|range%"),
    },
    "big-init": {
        "engine_differs": ("big-init|loss0|n",),
        "panels.1": ("big-init|loss0_ratio|range", "big-init|loss0|range",
                     "big-init|first_val_ratio|range", "big-init|final_ratio|range"),
        "panels.3": ("big-init|grad_early_ratio|range",),
        "panels.4": ("big-init|residual0_ratio|range", "big-init|residual_end_ratio|range"),
        "panels.5": ("big-init|spectral0_min_ratio|p5", "big-init|spectral0_max_ratio|p95",
                     "big-init|spectral_end_min_ratio|p5", "big-init|spectral_end_max_ratio|p95"),
    },
    "broken-mask": {
        "panels.6": ("broken-mask|dead_heads_end_excess|pos",
                     "broken-mask|dead_heads_end_excess|n", "reference|dead_heads_any_end|pos",
                     "reference|dead_heads_any_end|n"),
    },
    "decay-everything": {
        "engine_differs": ("decay-everything|final_ratio|range",
                           "decay-everything|final_cost|neg", "decay-everything|final_cost|n",
                           "decay-everything|loss0|n"),
        "panels.1": ("decay-everything|final_ratio|range",),
        "panels.3": ("decay-everything|grad_median_ratio|range",
                     "decay-everything|clip_share|range%", "reference|clip_share|range%"),
        "panels.4": ("decay-everything|residual_end_ratio|range",
                     "decay-everything|ln_f_end_ratio|range"),
        "panels.6": ("decay-everything|dead_heads_peak|max", "decay-everything|dead_heads_peak|n",
                     "reference|dead_heads_peak|max"),
    },
    "frozen-block": {
        "engine_differs": ("frozen-block|final_ratio|range", "frozen-block|loss0|n"),
        "panels.1": ("frozen-block|final_ratio|range", "frozen-block|final_cost|neg",
                     "frozen-block|final_cost|n", "frozen-block|any_train_below_floor|pos",
                     "frozen-block|any_train_below_floor|n",
                     "frozen-block|first_train_below_floor_step|min"),
        "panels.3": ("frozen-block|grad0_ratio|range", "frozen-block|grad_median_ratio|range"),
        "panels.4": ("frozen-block|res_block0_end|range", "reference|res_block0_end|range",
                     "frozen-block|residual_end_ratio|range"),
        "panels.6": ("frozen-block|dead_heads_any_end|pos", "frozen-block|dead_heads_any_end|n",
                     "frozen-block|dead_heads_peak|max", "frozen-block|dead_heads_peak|n",
                     "reference|dead_heads_peak|max"),
    },
    "healthy": {
        "panels.1": ("decoy|final_cost|range", "decoy|final_ratio|range", "decoy|final_cost|n",
                     "reference|any_train_below_floor|pos", "reference|any_train_below_floor|n",
                     "reference|first_train_below_floor_step|min"),
        "panels.3": ("decoy|grad_peak_step|zero", "decoy|grad_peak_step|n",
                     "decoy|clip_share|range%"),
        "panels.6": ("decoy|dead_heads_peak|max", "decoy|dead_heads_peak|n",
                     "reference|dead_heads_peak|max", "decoy|dead_heads_any_end|pos"),
    },
    "high-lr": {
        "engine_differs": ("high-lr|val_mid_median|range", "high-lr|loss0|n"),
        "panels.1": ("high-lr|early_excess|range", "high-lr|val_mid_median|range",
                     "high-lr|final_val|range", "high-lr|final_ratio|range"),
        "panels.3": ("high-lr|clip_share|range%", "reference|clip_share|range%"),
        "panels.4": ("high-lr|residual_end_ratio|range", "high-lr|ln_f_end_ratio|range"),
        "panels.5": ("high-lr|spectral_end_min_ratio|p5", "high-lr|spectral_end_max_ratio|p95"),
        "panels.6": ("high-lr|dead_neurons_end|range%", "high-lr|dead_heads_peak|range",
                     "high-lr|dead_heads_any_mid|pos", "high-lr|dead_heads_any_mid|n",
                     "high-lr|dead_heads_any_end|pos"),
    },
    "leaky-mask": {
        "engine_differs": ("leaky-mask|first_val_below_floor_step|range",
                           "broken-mask|first_val_below_floor_step|range",
                           "leaky-mask|first_val_below_floor_step|n"),
        "panels.6": ("leaky-mask|dead_heads_end_excess|pos", "leaky-mask|dead_heads_end_excess|n"),
    },
    "no-warmup": {
        "engine_differs": ("no-warmup|grad_first_peak_step|zero",
                           "no-warmup|grad_first_peak_step|n", "no-warmup|final_cost|pos",
                           "no-warmup|final_cost|n", "no-warmup|final_cost|range",
                           "no-warmup|loss0|n"),
        "panels.1": ("no-warmup|early_excess|range", "no-warmup|final_cost|range",
                     "no-warmup|final_ratio|range"),
        "panels.3": ("no-warmup|grad_first_peak_step|zero", "no-warmup|grad_first_peak_step|n",
                     "no-warmup|grad_peak_step|zero", "reference|grad_peak_step|zero",
                     "reference|grad_peak_step|n"),
        "panels.4": ("no-warmup|residual_100_ratio|range", "no-warmup|residual_end_ratio|range"),
        "panels.5": ("no-warmup|spectral_jump|range%", "reference|spectral_jump|range%"),
        "panels.6": ("no-warmup|dead_heads_any_end|pos", "no-warmup|dead_heads_any_end|n",
                     "reference|dead_heads_any_end|pos", "reference|dead_heads_any_end|n"),
    },
    "raised-lr": {
        "panels.1": ("raised-lr|early_excess|range", "raised-lr|final_ratio|range",
                     "raised-lr|loss0|n"),
        "panels.3": ("raised-lr|clip_share|range%", "reference|clip_share|range%"),
        "panels.4": ("raised-lr|residual_end_ratio|range", "raised-lr|ln_f_end_ratio|range"),
        "panels.5": ("raised-lr|spectral_end_min_ratio|p5", "raised-lr|spectral_end_max_ratio|p95"),
        "panels.6": ("raised-lr|dead_heads_any_mid|pos", "raised-lr|dead_heads_any_mid|n",
                     "raised-lr|dead_heads_peak|range", "reference|dead_heads_peak|max",
                     "raised-lr|dead_neurons_end|range%"),
    },
    "short-warmup": {
        "engine_differs": ("short-warmup|grad_first_peak_step|zero",
                           "short-warmup|grad_first_peak_step|n",
                           "short-warmup|grad_peak_step|zero", "short-warmup|final_cost|pos",
                           "short-warmup|final_cost|n", "short-warmup|loss0|n"),
        "panels.1": ("short-warmup|early_excess|range", "short-warmup|final_cost|range",
                     "short-warmup|final_ratio|range"),
        "panels.3": ("short-warmup|grad_first_peak_step|zero",
                     "short-warmup|grad_first_peak_step|n", "short-warmup|grad_peak_step|zero",
                     "reference|grad_peak_step|zero", "reference|grad_peak_step|n"),
        "panels.4": ("short-warmup|residual_100_ratio|range",
                     "short-warmup|residual_end_ratio|range"),
        "panels.5": ("short-warmup|spectral_jump|range%", "reference|spectral_jump|range%"),
    },
    "small-init": {
        "panels.1": ("small-init|loss0|range", "reference|loss0|range",
                     "small-init|early_excess|range", "small-init|final_ratio|range",
                     "small-init|loss0|n"),
        "panels.3": ("small-init|grad_early_ratio|range", "small-init|grad_peak_step|pos",
                     "small-init|grad_peak_step|n"),
        "panels.4": ("small-init|residual0_ratio|range", "small-init|residual_end_ratio|range"),
        "panels.5": ("small-init|spectral_jump|range%", "reference|spectral_jump|range%",
                     "small-init|spectral_end_min_ratio|p5",
                     "small-init|spectral_end_max_ratio|p95"),
        "panels.6": ("small-init|dead_heads_any_mid|pos", "small-init|dead_heads_any_mid|n",
                     "small-init|dead_heads_peak|range", "reference|dead_heads_peak|max",
                     "small-init|dead_heads_any_end|pos"),
    },
    "unscaled-attention": {
        "engine_differs": ("unscaled-attention|loss0|n",),
        "panels.1": ("unscaled-attention|final_ratio|range",),
        "panels.3": ("unscaled-attention|grad_median_ratio|range",
                     "unscaled-attention|clip_share|range%", "reference|clip_share|range%"),
        "panels.4": ("unscaled-attention|residual_end_ratio|range",),
        "panels.5": ("unscaled-attention|spectral_end_min_ratio|p5",
                     "unscaled-attention|spectral_end_max_ratio|p95"),
        "panels.6": ("unscaled-attention|dead_heads_any_end|pos",
                     "unscaled-attention|dead_heads_any_end|n",
                     "unscaled-attention|dead_heads_any_mid|pos",
                     "unscaled-attention|dead_heads_any_mid|n",
                     "unscaled-attention|dead_heads_peak|max", "reference|dead_heads_peak|max"),
    },
    "unshifted-targets": {
        "engine_differs": ("unshifted-targets|loss0_diff|range",
                           "unshifted-targets|loss0_diff|neg", "unshifted-targets|loss0_diff|n",
                           "unshifted-targets|loss0|n"),
        "panels.4": ("unshifted-targets|residual_end_ratio|range",),
        "panels.6": ("unshifted-targets|dead_heads_peak|max",
                     "unshifted-targets|dead_heads_peak|n", "reference|dead_heads_peak|max"),
    },
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
        "deck": ("bad-init|loss0|range", "bad-init|residual0_ratio|range",
                 "bad-init|spectral0_min_ratio|p5", "bad-init|spectral0_max_ratio|p95",
                 "bad-init|clip_share|range%", "bad-init|final_ratio|range",
                 "no-warmup|spectral_jump|range%", "no-warmup|early_excess|range",
                 "no-warmup|final_cost|range", "broken-mask|dead_heads_end_excess|pos",
                 "broken-mask|dead_heads_end_excess|n", "big-init|spectral0_min_ratio|p5",
                 "big-init|spectral0_max_ratio|p95", "big-init|residual0_ratio|range",
                 "big-init|loss0_ratio|range", "big-init|final_ratio|range",
                 "small-init|residual0_ratio|range", "small-init|loss0|range",
                 "small-init|early_excess|range", "small-init|dead_heads_any_mid|pos",
                 "small-init|dead_heads_any_mid|n", "small-init|final_ratio|range",
                 "short-warmup|spectral_jump|range%", "short-warmup|final_cost|range",
                 "raised-lr|clip_share|range%", "reference|clip_share|range%",
                 "raised-lr|final_ratio|range", "leaky-mask|first_val_below_floor_step|range",
                 "leaky-mask|dead_heads_end_excess|pos", "leaky-mask|dead_heads_end_excess|n",
                 "high-lr|val_mid_median|range", "high-lr|final_val|range",
                 "high-lr|final_ratio|range", "high-lr|residual_end_ratio|range",
                 "high-lr|spectral_end_min_ratio|p5", "high-lr|spectral_end_max_ratio|p95",
                 "high-lr|dead_neurons_end|range%", "unscaled-attention|clip_share|range%",
                 "unscaled-attention|final_ratio|range",
                 "unscaled-attention|dead_heads_any_mid|pos",
                 "unscaled-attention|dead_heads_any_mid|n", "frozen-block|grad0_ratio|range",
                 "frozen-block|grad_median_ratio|range", "frozen-block|final_ratio|range",
                 "unshifted-targets|loss0_diff|range", "unshifted-targets|loss0_diff|neg",
                 "unshifted-targets|loss0_diff|n", "decay-everything|residual_end_ratio|range",
                 "decay-everything|ln_f_end_ratio|range", "decay-everything|final_ratio|range",
                 "decay-everything|final_cost|neg", "decay-everything|final_cost|n",
                 "decoy|final_cost|range"),
    },
    "help": {
        "text": ("reference|any_train_below_floor|pos", "reference|any_train_below_floor|n",
                 "reference|first_train_below_floor_step|min",
                 "reference|grad_first_peak_step|zero", "reference|grad_first_peak_step|n",
                 "no-warmup|grad_first_peak_step|zero", "no-warmup|grad_first_peak_step|n"),
    },
}


@dataclass(frozen=True)
class Claim:
    run: str
    figure: str
    kind: str
    percent: bool

    @classmethod
    def parse(cls, token: str) -> Claim:
        run, figure, kind = token.split("|")
        claim = cls(run, figure, kind.rstrip("%"), kind.endswith("%"))
        if claim.kind not in KINDS:
            raise ValueError(f"{token}: the kind is not one of {', '.join(KINDS)}")
        return claim


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
    """How a text states `claim` with the measured `figures`."""
    stats = figures[claim.run][claim.figure]
    scale = 100 if claim.percent else 1
    if claim.kind in ("n", "pos", "zero", "neg"):
        return str(stats[claim.kind])
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


def claims() -> list[tuple[str, str, str, list[Claim]]]:
    """(owner, field, language, its claims) for every text that makes claims."""
    out = []
    for owner, fields in CLAIMS.items():
        for field, tokens in fields.items():
            for lang in LANGS:
                if (owner in scenarios_slugs() or (owner, field, lang) in REGIONS
                        or (owner, field, lang) in TRANSLATED):
                    out.append((owner, field, lang, [Claim.parse(t) for t in tokens]))
    return out


def scenarios_slugs() -> set[str]:
    import scenarios

    return set(scenarios.default_catalog().breaks)


def _region(owner: str, field: str, lang: str) -> tuple[Path, str, int, int]:
    """A text outside the catalog: its file, the file's text, and where the text lies in it."""
    name, start, end = REGIONS[owner, field, lang]
    path = ROOT / name
    text = path.read_text(encoding="utf-8")
    begin = text.index(start) + len(start)
    return path, text, begin, text.index(end, begin)


def _catalog_text(owner: str, field: str, lang: str) -> str:
    import scenarios

    brk = scenarios.default_catalog().breaks[owner]
    if field == "summary":
        return brk.summary[lang]
    if field.startswith("panels."):
        return brk.reveal[lang].panels[field.split(".")[1]]
    return getattr(brk.reveal[lang], field)  # changed, engine_differs, real_world


def _translated_help(lang: str) -> str:
    """The help's sections as the catalog of `lang` translates them, placeholders unfilled."""
    sys.path.insert(0, str(ROOT))
    from diagnose.tui.text import HELP
    from scenarios.words import translator

    return "\n\n".join(translator(lang).gettext(section) for section in HELP)


def text_of(owner: str, field: str, lang: str) -> str:
    if (owner, field, lang) in TRANSLATED:
        return _translated_help(lang)
    if (owner, field, lang) in REGIONS:
        _, text, begin, end = _region(owner, field, lang)
        return text[begin:end]
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
NOT_FIGURES = {  # (owner, field) -> the ranges there that are not the deck's measurements
    ("README", "deck"): ("0–19", "1000–1019", "5000–5019"),  # seeds
    ("signatures", "deck"): ("2 of 12", "2 de 12"),  # a config: short-warmup's 2 of 12 steps
    ("bad-init", "real_world"): ("2-5", "2 a 5"),  # real-world bugs, not this engine's runs
}


def texts() -> list[tuple[str, str, str]]:
    """(owner, field, language) of every text of the deck: each break's summary and reveal,
    and the REGIONS."""
    import scenarios

    out = [*REGIONS, *TRANSLATED]
    for slug, brk in scenarios.default_catalog().breaks.items():
        for lang in LANGS:
            out += [(slug, field, lang) for field in (
                "summary", "changed", "engine_differs", "real_world",
                *(f"panels.{n}" for n in brk.reveal[lang].panels))]
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
            problems.append(f"quotes {quoted.group()!r}, which no claim of CLAIMS measures")
    return problems


def check(figures: dict) -> list[str]:
    """One line per claim a text does not state as `figures` say, and per range or rate a
    text states that no claim measured; none when all hold."""
    made = {(owner, field, lang): found for owner, field, lang, found in claims()}
    return [f"{owner} {field} ({lang}): {problem}"
            for owner, field, lang in texts()
            for problem in problems_in(
                text_of(owner, field, lang),
                [render(claim, figures, lang) for claim in made.get((owner, field, lang), [])],
                NOT_FIGURES.get((owner, field), ()))]


def _rewrite_line(line: str, old: list[str], new: list[str], at: int = 0) -> str:
    """`line` with each of `old`, found in order from `at`, replaced by its `new`."""
    for before, after in zip(old, new, strict=True):
        found = locate(line, before, at)
        if found < 0:
            raise SystemExit(f"cannot find {before!r} in: {line.strip()[:100]}...")
        line = line[:found] + after + line[found + len(before):]
        at = found + len(after)
    return line


def rewrite(old_figures: dict, new_figures: dict) -> None:
    """Replace each claim's old wording by its new one, in place, in order."""
    import scenarios
    from scenarios.catalog import text_context

    catalog = scenarios.default_catalog().breaks
    edited: dict[str, dict[str, dict[str, str]]] = {}  # a break's texts, every language
    for owner, field, lang, made in claims():
        old = [render(claim, old_figures, lang) for claim in made]
        new = [render(claim, new_figures, lang) for claim in made]
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
        texts = edited.setdefault(owner, _break_words().texts_of(catalog[owner]))
        context = text_context(*field.split("."))  # "panels.4": its catalog's "reveal.panels.4"
        texts[context][lang] = _rewrite_line(texts[context][lang], old, new)
    for owner, texts in edited.items():  # English in break.toml, the rest in its catalog
        _break_words().write_texts(Path(str(catalog[owner].folder)), texts)


# --- a break's texts: English in its break.toml, the other languages in its catalog --------

def _break_words():
    """tools/break_words.py: reads and writes a break's texts in every language (Babel)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import break_words

    return break_words


def measure(folder: Path, firsts: list[int], seeds: int) -> dict:
    """Every claimed figure over the stored runs, each against another seed's reference.

    A range stops at its first seed that lacks a run of the deck (every run kind then counts
    the same seeds); `ranges` says which seeds each range gave."""
    sys.path.insert(0, str(ROOT / "bench"))
    import fidelity  # bench/fidelity.py: the loader and the cross-seed pairing

    import scenarios
    from diagnose.engine import run_header_fields

    healthy = scenarios.healthy_config()
    header = run_header_fields(healthy)
    ranged = []
    for first in firsts:
        kept = []
        for seed in range(first, first + seeds):
            plans = fidelity.plans_for(seed, healthy, [1, 2, 3])
            records = fidelity.stored(folder, seed, plans)
            if len(records) < len(plans):
                break
            kept.append(records)
        ranged.append(kept)
    spread = fidelity.cross_seed_figures(ranged, header)
    wanted = {(c.run, c.figure) for *_, made in claims() for c in made}
    wanted |= {(run, "loss0") for run, _ in wanted}   # how many runs of each kind
    return {"ranges": [[first, len(kept)] for first, kept in zip(firsts, ranged, strict=True)],
            "figures": {run: {figure: summarise(spread[run][figure])
                              for r, figure in sorted(wanted) if r == run}
                        for run in sorted({r for r, _ in wanted})}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", type=Path, help="measure again from this folder of runs")
    parser.add_argument("--first-seed", default="0,1000,5000", metavar="N[,N...]")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--write", action="store_true",
                        help="store the new figures and rewrite the texts' claims with them")
    args = parser.parse_args()
    stored = json.loads(FIGURES.read_text(encoding="utf-8")) if FIGURES.is_file() else None
    if args.load is None:
        if stored is None:
            sys.exit(f"{FIGURES}: missing; measure with --load DIR")
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
            old = render(claim, stored["figures"], lang) if stored else "-"
            print(f"{owner:<19} {field:<15} {claim.run}|{claim.figure}|{claim.kind}"
                  f"{'%' if claim.percent else ''}: {old} -> {new}")
    if args.write:
        if stored is not None:
            rewrite(stored["figures"], fresh["figures"])
        FIGURES.write_text(json.dumps(fresh, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {FIGURES.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
