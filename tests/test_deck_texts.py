"""The deck's texts say what was measured: every figure a break's reveal or its row of the
signatures page quotes is a claim of its folder's `claims.toml`, rendered from the figures
measured beside it (`figures.json`; the reference's beside healthy.toml), and every figure the
README's deck section, the page's lab notes or the help quote is a claim of
`bench/deck_texts.py`'s TEXT_CLAIMS; a range or a rate that no claim measured is refused.
Re-measuring is `bench/deck_texts.py --load`."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("deck_texts", ROOT / "bench" / "deck_texts.py")
deck_texts = importlib.util.module_from_spec(_spec)
sys.modules["deck_texts"] = deck_texts  # dataclasses look their module up there
_spec.loader.exec_module(deck_texts)
FIGURES = deck_texts.stored_figures()


def test_every_text_says_what_was_measured_and_nothing_unmeasured():
    assert deck_texts.check(FIGURES["figures"]) == []


def test_the_figures_come_from_the_same_seed_ranges_for_every_run():
    """Every run kind a claim names (and each one measured: the reference, the decoy, every
    break of the package today) was measured on the same seeds, whole ranges of 20, and the
    README names them. A new break that claims nothing needs no figures."""
    claimed = {claim.run for *_, made in deck_texts.claims() for claim in made}
    runs = set(FIGURES["figures"])                  # each kept beside its owner
    assert claimed <= runs and len(runs) >= 15
    ranges = {tuple(map(tuple, kept)) for kept in FIGURES["ranges"].values()}
    assert len(ranges) == 1
    (kept,) = ranges
    assert all(count == 20 for _, count in kept)
    seeds = sum(count for _, count in kept)
    assert seeds >= 40
    assert {run: FIGURES["figures"][run]["loss0"]["n"] for run in runs} == dict.fromkeys(runs,
                                                                                       seeds)
    deck = deck_texts.text_of("README", "deck", "en")
    assert all(f"{first}–{first + count - 1}" in deck for first, count in kept)


def test_every_claim_names_a_measured_figure():
    for owner, field, _, made in deck_texts.claims():
        for claim in made:
            assert claim.figure in FIGURES["figures"][claim.run], (owner, field, str(claim))


@given(st.text(alphabet="abz-_|%0159 ", max_size=30))
def test_a_claim_is_parsed_whole_or_refused_in_one_line(token):
    try:
        claim = deck_texts.Claim.parse(token)
    except ValueError as err:
        assert "\n" not in str(err) and str(err).startswith(repr(token[:60]))
    else:
        assert str(claim) == token and claim.kind in deck_texts.KINDS


@given(st.floats(min_value=-1e7, max_value=1e7, allow_nan=False).filter(lambda v: abs(v) > 1e-6))
def test_a_figure_is_written_to_three_significant_digits_in_both_languages(value):
    en, es = deck_texts.number(value, "en"), deck_texts.number(value, "es")
    assert es == en.replace(",", "_").replace(".", ",").replace("_", ".")
    back = float(en.replace(",", "").replace("−", "-"))
    digits = 2 if abs(value) < 0.01 else 3
    assert math.isclose(back, value, rel_tol=0.51 * 10 ** (1 - digits))


@given(st.lists(st.floats(min_value=-50, max_value=50, allow_nan=False), min_size=1,
                max_size=80))
def test_a_summary_orders_its_percentiles_and_counts_every_run(values):
    stats = deck_texts.summarise(values)
    assert stats["min"] <= stats["p5"] <= stats["p50"] <= stats["p95"] <= stats["max"]
    assert stats["pos"] + stats["zero"] + stats["neg"] == stats["n"] == len(values)
    if all(float(v).is_integer() for v in values):   # a count's percentile is one of its values
        assert {stats["p5"], stats["p50"], stats["p95"]} <= set(values)


_words = st.text(alphabet="abcdefgh ", min_size=1, max_size=12)
_figure = st.floats(min_value=0.011, max_value=99, allow_nan=False)


@given(parts=st.lists(st.tuples(_words, _figure, _figure), min_size=1, max_size=6),
       new=st.lists(_figure, min_size=12, max_size=12), unmeasured=st.booleans())
def test_a_text_holds_its_claims_in_order_and_no_range_beside_them(parts, new, unmeasured):
    """A text made of words and ranges: its ranges are the claims, found in order and
    rewritten in place; one range more, that no claim renders, is refused."""
    ranges = [f"{deck_texts.number(a, 'en')}-{deck_texts.number(b, 'en')}" for _, a, b in parts]
    text = "".join(f"{words}x {quoted} y" for (words, _, _), quoted in zip(parts, ranges,
                                                                          strict=True))
    assert deck_texts.problems_in(text, ranges) == []
    renewed = [f"{deck_texts.number(a, 'en')}-{deck_texts.number(b, 'en')}"
               for a, b in zip(new[::2], new[1::2], strict=False)][:len(ranges)]
    rewritten = deck_texts._rewrite_line(text, ranges, renewed)
    assert deck_texts.problems_in(rewritten, renewed) == []
    if unmeasured:
        assert deck_texts.problems_in(text + " ends 1.5-2.5 times", ranges) == [
            "quotes '1.5-2.5', which no claim measures"]
    else:
        assert deck_texts.problems_in(text + " in 3 of 7 runs", ranges) == [
            "quotes '3 of 7', which no claim measures"]


def test_a_claim_is_found_only_as_a_whole_number():
    text = "ends 0.603-1.2 times, 160 steps, over 60 runs"
    assert deck_texts.locate(text, "60") == text.index("60 runs")
    assert deck_texts.locate(text, "0.6") == -1 and deck_texts.locate(text, "1.2") > 0


def test_the_signatures_are_a_page_of_the_reveal_not_of_the_readme():
    """Issue 32, item 10: the per-break signature tables live in the page the reveal writes
    (both languages, every break of the deck once), never in the README, which a player reads
    before diagnosing; the page's claims are checked above like every text of the deck."""
    import scenarios
    from diagnose.diagnosis.reveal import signatures_page

    readme = "\n".join((ROOT / page).read_text(encoding="utf-8")  # and the students' page
                       for page in ("README.md", "docs/students.md"))
    slugs = set(scenarios.default_catalog().breaks)
    table_rows = [line for line in readme.splitlines()  # "| 1 | bad-init | ...": a deck row
                  if any(re.match(rf"\| [0-9, ]+ \| {slug} \|", line) for slug in slugs)]
    assert table_rows == []
    made = {(owner, field, lang) for owner, field, lang, _ in deck_texts.claims()}
    assert {("signatures", "lab", lang) for lang in ("en", "es")} <= made
    assert {(slug, "page", lang) for slug in slugs for lang in ("en", "es")} <= made
    top = max(level.number for level in scenarios.all_levels())
    for lang in ("en", "es"):
        page = signatures_page(top, lang)
        assert all(page.count(f"| {slug} |") == 1 for slug in slugs), lang
        quoted = [deck_texts.render(claim, FIGURES["figures"], lang)
                  for owner, field, claim_lang, found in deck_texts.claims()
                  if (owner == "signatures" or field == "page") and claim_lang == lang
                  for claim in found]
        assert quoted and all(words in page for words in quoted)
        assert not [w for w in quoted if len(w) > 4 and w in readme]  # "212-255" and the like


def test_a_level_s_page_shows_no_later_level_s_breaks():
    import scenarios
    from diagnose.diagnosis.reveal import signatures_page

    for level in scenarios.all_levels():
        later = {slug for other in scenarios.all_levels() if other.number > level.number
                 for slug in scenarios.breaks(other.number)} - set(scenarios.breaks(level.number))
        for lang in ("en", "es"):
            page = signatures_page(level.number, lang)
            assert all(f"| {slug} |" in page for slug in scenarios.breaks(level.number))
            assert not [slug for slug in later if f"| {slug} |" in page], (level.number, lang)


@given(st.floats(min_value=0, max_value=1e-3, allow_nan=False))
def test_a_bound_is_said_only_while_every_run_stays_under_it(top):
    """"flat to 1e-6" (frozen-block's Panel 5): the text says the bound, and the check refuses
    it as soon as one run's figure reaches it."""
    claim = deck_texts.Claim.parse("frozen-block|flat_max_move|below:1e-6")
    said = deck_texts.render(claim, {"frozen-block": {"flat_max_move": {"max": top}}}, "en")
    problems = deck_texts.problems_in("four lines flat to 1e-6 over the run", [said])
    assert (problems == []) == (top < 1e-6)


def test_a_course_deck_s_break_brings_its_own_claims_and_figures(tmp_path):
    """`bench/deck_texts.py --deck DIR`: a course break's claims.toml and figures.json are
    checked like the package's, and a figure its text no longer says is refused."""
    import shutil
    import subprocess

    deck = tmp_path / "deck"
    shutil.copytree(ROOT / "tests" / "data" / "course-deck", deck,
                    ignore=shutil.ignore_patterns("__pycache__"))
    folder = deck / "huge-init"
    data = folder / "break.toml"
    data.write_text(data.read_text(encoding="utf-8").replace(
        'ten times too large."', 'ten times too large: the loss starts at 300-410."', 1).replace(
        'diez veces más grandes."', 'diez veces más grandes: la pérdida empieza en 300-410."',
        1),
        encoding="utf-8")
    (folder / "claims.toml").write_text('summary = ["huge-init|loss0|range"]\n',
                                        encoding="utf-8")
    stats = {"n": 40, "min": 290.0, "p5": 300.0, "p50": 350.0, "p95": 410.0, "max": 420.0}

    def check() -> subprocess.CompletedProcess:
        (folder / "figures.json").write_text(json.dumps(
            {"ranges": [[7000, 20], [8000, 20]], "figures": {"loss0": stats}}),
            encoding="utf-8")
        return subprocess.run([sys.executable, str(ROOT / "bench" / "deck_texts.py"), "--deck",
                               str(deck)], capture_output=True, text=True, timeout=120)

    said = check()
    assert "huge-init" not in said.stdout, said.stdout
    stats["p95"] = 420.0
    said = check()
    assert said.returncode == 1
    assert "huge-init summary (en): does not say '300-420'" in said.stdout
    assert "huge-init summary (es): does not say '300-420'" in said.stdout
