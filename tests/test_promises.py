"""A break's fidelity promises are data (break.toml's `[[promises]]`, `scenarios.promises`):
validated when the catalog loads, their figures where the signature loads, and built into
`Promise`s by `Signature.checks` in the table's order, computed ones placed by name.

Real files throughout: the package's catalog copied to a temporary folder and edited, course
decks written beside it, the stored deck runs of tests/data/fidelity/ read as the fidelity
tests read them."""

from __future__ import annotations

import gzip
import json
import math
import shutil
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import scenarios
from diagnose.cli import cli
from diagnose.diagnosis.diagnostician import HEALTHY, figure_names, figures
from diagnose.diagnosis.fidelity import signature_checks
from diagnose.diagnosis.signatures import load_signature, promised
from diagnose.engine import run_header_fields
from diagnose.metrics import read_metrics
from scenarios import CatalogError, load_catalog
from scenarios.catalog import DECK_SETTING
from scenarios.files import loads_toml
from scenarios.promises import (
    COMPARISONS,
    COMPUTED,
    RATE,
    PromiseSpec,
    kept_at_rate,
    parse_promises,
)
from tests.test_course_deck import BREAK_TOML, SIGNATURE_PY, write_course_deck

PACKAGED = Path(str(resources.files("scenarios")))
DECK_RUNS = Path(__file__).resolve().parent / "data" / "fidelity" / "deck"
SHOWN = "deck/some-break/break.toml"


@pytest.fixture(scope="module")
def deck_runs(tmp_path_factory):
    """The stored 40-step runs of the deck's breaks and their healthy reference, and the
    header they were trained with."""
    folder = tmp_path_factory.mktemp("promises")
    runs = {}
    for packed in sorted(DECK_RUNS.glob("*.jsonl.gz")):
        path = folder / packed.name[:-len(".gz")]
        with gzip.open(packed, "rb") as source, path.open("wb") as out:
            shutil.copyfileobj(source, out)
        runs[packed.name[:-len(".jsonl.gz")]] = read_metrics(path)[1]
    header = run_header_fields(scenarios.healthy_config())
    return runs, {**header, "steps": len(runs[HEALTHY])}


@pytest.fixture
def catalog_dir(tmp_path):
    """The package's catalog, break code included, in a folder of its own."""
    root = tmp_path / "scenarios"
    shutil.copytree(PACKAGED, root, ignore=shutil.ignore_patterns("*.po", "*.mo", "__pycache__"))
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# --- the package's breaks ------------------------------------------------------------------

def test_every_break_keeps_its_promises_in_the_order_of_its_break_toml(deck_runs):
    runs, header = deck_runs
    for slug, brk in scenarios.breaks(None).items():
        run = runs.get(slug, runs[HEALTHY])
        fig = figures(run, runs[HEALTHY], header)
        checks = signature_checks(slug, run, runs[HEALTHY], header)
        assert brk.promises and [c.name for c in checks] == [s.name for s in brk.promises], slug
        for check, spec in zip(checks, brk.promises, strict=True):
            if spec.comparison != COMPUTED:
                assert check.wanted == spec.wanted, slug
                assert check.value == fig[spec.name] or math.isnan(fig[spec.name]), slug


def test_the_figure_names_are_those_of_a_real_run(deck_runs):
    runs, header = deck_runs
    assert figure_names() == set(figures(runs["big-init"], runs[HEALTHY], header))


# --- a promise table, generated ------------------------------------------------------------

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True)
NUMBERS = st.floats(allow_nan=False, allow_infinity=False) | st.integers(-2**62, 2**62)
WANTED = st.text(st.characters(blacklist_categories=("Cs", "Cc"), max_codepoint=0xFFFF),
                 min_size=1, max_size=30).filter(str.strip)


@st.composite
def entries(draw) -> dict:
    """One valid `[[promises]]` table: a bound on a figure, or a computed promise's place."""
    rate = draw(st.none() | st.floats(min_value=1e-6, max_value=1) | st.just(1))
    usually = {} if rate is None else {RATE: rate}   # a "usually": the share of seeds
    if draw(st.booleans()):
        return {COMPUTED: draw(NAMES), **usually}
    comparison = draw(st.sampled_from(COMPARISONS))
    bound = sorted([draw(NUMBERS), draw(NUMBERS)]) if comparison == "between" else draw(NUMBERS)
    return {"figure": draw(NAMES), comparison: bound, "wanted": draw(WANTED), **usually}


def unique(tables: list[dict]) -> list[dict]:
    seen, kept = set(), []
    for table in tables:
        name = table.get("figure", table.get(COMPUTED))
        if name not in seen:
            seen.add(name)
            kept.append(table)
    return kept


@given(st.lists(entries(), max_size=16).map(unique))
def test_a_valid_table_reads_as_written(tables):
    specs = parse_promises(SHOWN, tables)
    assert len(specs) == len(tables)
    for spec, table in zip(specs, tables, strict=True):
        if COMPUTED in table:
            assert spec == PromiseSpec(table[COMPUTED], COMPUTED, rate=table.get(RATE, 1))
            continue
        (comparison,) = set(table) & set(COMPARISONS)
        bound = table[comparison]
        assert spec == PromiseSpec(table["figure"], comparison,
                                   tuple(bound) if comparison == "between" else (bound,),
                                   table["wanted"].strip(), table.get(RATE, 1))


def as_toml(tables: list[dict]) -> str:
    """The tables as break.toml writes them (a TOML basic string is JSON's, BMP aside)."""
    lines = []
    for table in tables:
        lines.append("[[promises]]")
        lines += [f"{key} = {json.dumps(value, ensure_ascii=False)}"
                  for key, value in table.items()]
    return "\n".join(lines) + "\n"


@given(st.lists(entries(), max_size=16).map(unique))
def test_a_table_written_in_toml_reads_as_the_same_table(tables):
    text = as_toml(tables)
    assert parse_promises(SHOWN, loads_toml(text).get("promises")) == parse_promises(SHOWN, tables)


# each way to spoil a valid bound entry, and the words its one line must say
SPOILED = {
    "two comparisons": (lambda t: {**t, "at_most": 1.0}, "expected exactly one of"),
    "no comparison": (lambda t: {k: v for k, v in t.items() if k not in COMPARISONS},
                      "expected exactly one of at_least, at_most, above, below, between, got 0"),
    "a key typo": (lambda t: {**t, "at_lest": 1}, "'at_lest': unknown key, expected one of"),
    "a string bound": (lambda t: {**t, t["_c"]: "2"}, "expected"),
    "a boolean bound": (lambda t: {**t, t["_c"]: True}, "expected"),
    "a NaN bound": (lambda t: {**t, t["_c"]: math.nan}, "expected"),
    "an infinite bound": (lambda t: {**t, t["_c"]: -math.inf}, "expected"),
    "no wanted": (lambda t: {k: v for k, v in t.items() if k != "wanted"},
                  "wanted: expected one line of text"),
    "an empty wanted": (lambda t: {**t, "wanted": " "}, "wanted: expected one line of text"),
    "two lines wanted": (lambda t: {**t, "wanted": "a\nb"}, "wanted: expected one line of text"),
    "no figure": (lambda t: {k: v for k, v in t.items() if k != "figure"},
                  "figure: expected a name in lowercase"),
    "a figure that is no name": (lambda t: {**t, "figure": "Final Ratio"},
                                 "figure: expected a name in lowercase"),
    "computed beside a bound": (lambda t: {**t, COMPUTED: "same_lr"}, 'computed = "<name>" stands'),
    "a rate above 1": (lambda t: {**t, RATE: 1.5}, "rate: expected the share of seeds"),
    "a rate of 0": (lambda t: {**t, RATE: 0}, "rate: expected the share of seeds"),
    "a percent rate": (lambda t: {**t, RATE: 75}, "rate: expected the share of seeds"),
    "a boolean rate": (lambda t: {**t, RATE: True}, "rate: expected the share of seeds"),
}


@given(st.lists(entries(), max_size=5).map(unique), entries().filter(lambda t: COMPUTED not in t),
       st.sampled_from(sorted(SPOILED)), st.data())
def test_a_spoiled_entry_is_refused_in_one_line_naming_file_and_entry(valid, entry, how, data):
    (comparison,) = set(entry) & set(COMPARISONS)
    spoil, said = SPOILED[how]
    bad = spoil({**entry, "_c": comparison})
    bad.pop("_c", None)
    at = data.draw(st.integers(0, len(valid)))
    tables = [*valid[:at], bad, *valid[at:]]
    with pytest.raises(CatalogError) as caught:
        parse_promises(SHOWN, tables)
    text = str(caught.value)
    assert "\n" not in text and text.startswith(f"{SHOWN}: [[promises]] {at + 1}: "), text
    assert said in text, text


@given(NUMBERS, NUMBERS)
def test_between_wants_its_low_end_first(a, b):
    low, high = sorted([a, b])
    table = {"figure": "final_ratio", "between": [high, low], "wanted": "x"}
    if low == high:
        assert parse_promises(SHOWN, [table])[0].bounds == (low, low)
        return
    with pytest.raises(CatalogError, match=r"between: expected low <= high, got \["):
        parse_promises(SHOWN, [table])


@pytest.mark.parametrize("listed, said", [
    ({"figure": "final_ratio"}, "[[promises]]: expected up to 16 tables, one per promise"),
    ([1], "[[promises]]: expected up to 16 tables, one per promise"),
    ([{COMPUTED: "same_lr"}] * 2, "[[promises]] 2: same_lr is already promised above"),
    ([{"figure": "final_ratio", "between": [1], "wanted": "x"}],
     "[[promises]] 1: between: expected [low, high], two finite numbers"),
    ([{"figure": "final_ratio", "between": 1, "wanted": "x"}],
     "[[promises]] 1: between: expected [low, high], two finite numbers"),
    ([{"figure": "final_ratio", "at_least": 2**64, "wanted": "x"}],
     "[[promises]] 1: at_least: expected a finite number, got 18446744073709551616"),
])
def test_a_table_of_the_wrong_shape_is_refused(listed, said):
    with pytest.raises(CatalogError) as caught:
        parse_promises(SHOWN, listed)
    assert str(caught.value).startswith(f"{SHOWN}: {said}")


FIG = st.floats(allow_infinity=True) | st.integers(-10, 10)


@given(st.sampled_from(COMPARISONS), FIG, FIG, FIG)
def test_a_bound_holds_exactly_when_its_comparison_does(comparison, value, a, b):
    if any(isinstance(x, float) and math.isnan(x) for x in (a, b)) or math.inf in (a, b) or (
            -math.inf in (a, b)):
        a, b = 0.0, 1.0
    low, high = sorted([a, b])
    bounds = (low, high) if comparison == "between" else (a,)
    got = promised({"f": value}, PromiseSpec("f", comparison, bounds, "w"))
    holds = {"at_least": lambda: value >= a, "at_most": lambda: value <= a,
             "above": lambda: value > a, "below": lambda: value < a,
             "between": lambda: low <= value <= high}[comparison]()
    nan = isinstance(value, float) and math.isnan(value)
    assert got.passed == (holds and not nan)
    assert (got.name, got.wanted) == ("f", "w")


# --- through the catalog, the signature and the CLI ----------------------------------------

@pytest.mark.parametrize("old, new, said", [
    ("[[promises]]\nfigure", "[[promise]]\nfigure",
     "promise: unknown key, expected one of slug, healthy,"),
    ("at_least = 2\n", "at_least = 2\nat_most = 3\n",
     "[[promises]] 1: expected exactly one of at_least, at_most, above, below, between, got 2"),
    ("at_least = 2\n", "", "[[promises]] 1: expected exactly one of"),
    ("at_least = 2\n", 'at_least = "2"\n', "[[promises]] 1: at_least: expected a finite number"),
    ("at_least = 2\n", "at_least = nan\n", "[[promises]] 1: at_least: expected a finite number"),
    ("at_least = 2\n", "between = [3, 2]\n", "[[promises]] 1: between: expected low <= high"),
    ('wanted = ">= 2x at step 0"\n', 'want = ">= 2x at step 0"\n',
     "[[promises]] 1: 'want': unknown key"),
    ('computed = "same_lr"', 'computed = "same_lr"\nwanted = "x"',
     '[[promises]] 4: computed = "<name>" stands alone'),
])
def test_a_break_toml_with_a_bad_promise_does_not_load(catalog_dir, old, new, said):
    edit(catalog_dir / "breaks" / "big-init" / "break.toml", old, new)
    with pytest.raises(CatalogError) as caught:
        load_catalog(catalog_dir)
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(f"scenarios/breaks/big-init/break.toml: {said}"), text


def test_an_unknown_figure_is_refused_where_the_signature_loads(catalog_dir):
    edit(catalog_dir / "breaks" / "big-init" / "break.toml", '"act0_ratio"', '"act0_ration"')
    brk = load_catalog(catalog_dir).breaks["big-init"]
    with pytest.raises(CatalogError) as caught:
        load_signature(brk)
    assert str(caught.value) == (
        "scenarios/breaks/big-init/break.toml: [[promises]] 2: figure: 'act0_ration' is not a "
        "figure of diagnose.diagnosis.diagnostician.figures; did you mean act0_ratio?")


def test_a_computed_promise_is_placed_by_name_both_ways(catalog_dir, deck_runs):
    runs, header = deck_runs
    toml = catalog_dir / "breaks" / "broken-mask" / "break.toml"
    edit(toml, '[[promises]]\ncomputed = "train_val_gap"\n', "")
    brk = load_catalog(catalog_dir).breaks["broken-mask"]
    fig = figures(runs[HEALTHY], runs[HEALTHY], header)
    with pytest.raises(CatalogError) as caught:
        load_signature(brk).checks(fig, runs[HEALTHY], runs[HEALTHY], header)
    assert str(caught.value) == (
        "scenarios/breaks/broken-mask/break.toml: [[promises]]: signature.py computes "
        'train_val_gap, which no entry places (computed = "train_val_gap")')
    edit(toml, 'computed = "same_lr"', 'computed = "same_lrs"')
    brk = load_catalog(catalog_dir).breaks["broken-mask"]
    with pytest.raises(CatalogError) as caught:
        load_signature(brk).checks(fig, runs[HEALTHY], runs[HEALTHY], header)
    assert str(caught.value) == (
        'scenarios/breaks/broken-mask/break.toml: [[promises]] computed = "same_lrs": '
        "signature.py computes no promise of that name")


COURSE_PROMISES = """
[[promises]]
figure = "spectral0_ratio"
at_least = 8
wanted = ">= 8x at step 0"

[[promises]]
computed = "same_lr"
"""
CODE_WITHOUT_CHECKS = SIGNATURE_PY[:SIGNATURE_PY.index("    def checks(")]


def test_a_course_break_may_promise_in_its_data_alone(tmp_path, monkeypatch, deck_runs):
    runs, header = deck_runs
    deck = write_course_deck(tmp_path / "deck", BREAK_TOML + COURSE_PROMISES, CODE_WITHOUT_CHECKS)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    checks = signature_checks("huge-init", runs["big-init"], runs[HEALTHY], header)
    assert [(c.name, c.wanted, c.passed) for c in checks] == [
        ("spectral0_ratio", ">= 8x at step 0", False), ("same_lr", "the reference's schedule",
                                                          True)]


def test_a_course_break_that_overrides_checks_keeps_its_own(tmp_path, monkeypatch, deck_runs):
    runs, header = deck_runs
    deck = write_course_deck(tmp_path / "deck", BREAK_TOML + COURSE_PROMISES)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    checks = signature_checks("huge-init", runs["big-init"], runs[HEALTHY], header)
    assert [(c.name, c.wanted) for c in checks] == [("spectral0_ratio", ">= 8x at step 0")]


def test_a_course_break_with_no_promises_at_all_is_refused(tmp_path, monkeypatch):
    deck = write_course_deck(tmp_path / "deck", BREAK_TOML, CODE_WITHOUT_CHECKS)
    monkeypatch.setenv(DECK_SETTING, str(deck))
    out = CliRunner().invoke(cli, ["breaks"], catch_exceptions=False)
    assert out.exit_code == 1
    assert out.output == (f"Error: {deck}/huge-init/signature.py: HugeInit does not define "
                          "checks (nor does its break.toml list [[promises]])\n")


def test_a_course_break_with_a_bad_promise_is_one_error_line(tmp_path, monkeypatch):
    deck = write_course_deck(tmp_path / "deck",
                             BREAK_TOML + COURSE_PROMISES.replace("at_least = 8", "above = []"))
    monkeypatch.setenv(DECK_SETTING, str(deck))
    out = CliRunner().invoke(cli, ["breaks"], catch_exceptions=False)
    assert out.exit_code == 1
    assert out.output == (f"Error: {deck}/huge-init/break.toml: [[promises]] 1: above: "
                          "expected a finite number, got []\n")


@given(st.integers(1, 500), st.floats(min_value=1e-6, max_value=1), st.data())
def test_a_usual_promise_is_kept_from_its_rate_of_seeds_on(seeds, rate, data):
    """`rate` 0.75 over 40 seeds: kept on 30, not on 29; rate 1: on every seed only; a miss
    below the rate's count is a data point, and more passes never unkeep it."""
    passed = data.draw(st.integers(0, seeds))
    least = next(k for k in range(seeds + 1) if k / seeds >= rate - 1e-9)
    assert kept_at_rate(passed, seeds, rate) == (passed >= least)
    assert kept_at_rate(seeds, seeds, rate) and not kept_at_rate(0, seeds, 1)
    assert kept_at_rate(passed, seeds, 1) == (passed == seeds)
    assert not kept_at_rate(0, 0, rate)   # no seed proves nothing


def test_the_usual_promises_of_the_package_are_rates_below_one():
    """A "usually" of a reveal (more dead heads than the reference at the end) is a rate in
    break.toml, not a promise on every seed; a check built from it carries the rate."""
    usual = {slug: {spec.name: spec.rate for spec in brk.promises if spec.rate < 1}
             for slug, brk in scenarios.breaks(None).items()}
    assert usual["broken-mask"].keys() == {"dead_heads_excess"}
    assert usual["leaky-mask"].keys() == {"dead_heads_excess"}
    assert all(0.5 <= rate < 1 for rates in usual.values() for rate in rates.values())
