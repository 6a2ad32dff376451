"""Fidelity: with the real default config, every break shows its signature, from the arithmetic.

The lab: a scenario dealt through the game's own path (`create_scenario`, a seed per ID) at
the full default length (the signatures are calibrated there; a shorter run would prove
something else); every check of `diagnose.diagnosis.fidelity` must hold on it and the diagnostician
must name every run. The healthy decoy of levels 2 and 3: one run of the full length from a
seed of its own, read healthy against the dealt reference at every level, as a dealt
scenario pairs them.

Those five runs of 400 steps are stored, made by the real engine (`tests/data/make_fidelity.py`,
as the TUI tests read a stored scenario), and so are the deck's short runs below: training
them took 39 of the suite's 203 CPU-s. The stored runs are the engine's only while it still
writes them: `test_the_engine_still_writes_the_stored_runs` trains each one's first three
steps (bad-init's first) and compares them with the stored values within a few times what
they move between CPU kinds (tests/test_own_runs.py's stored runs too); a change of the
seeds, healthy.toml, a break or the arithmetic's meaning fails there until the data is made
again (and the many-seed proof is run again). A change of the arithmetic's order alone moves
them less than that: the stored runs then stay another machine's honest runs, as they are on
every machine but this one.

The deck's levels 2 and 3: short runs on one seed, each test asserting what a run that short
already shows. The proof on many seeds, and on seeds nobody calibrated on, is
`bench/fidelity.py --seeds 20` (and `--first-seed 1000`).
"""

from __future__ import annotations

import math
import shutil

import pytest

import scenarios
from diagnose.diagnosis.diagnostician import HEALTHY, diagnose_run, figures, findings_for
from diagnose.diagnosis.fidelity import signature_checks
from diagnose.diagnosis.reveal import evidence, open_assignment
from diagnose.engine import Trainer, run_header_fields
from diagnose.game.dealing import RunPlan, plan_runs
from diagnose.workspace import open_workspace
from tests.data import make_fidelity as MAKER  # the stored runs' plans: one definition

DEALT = "dealt"  # a scenario dealt as the game deals it, a seed per ID
SEEDS = (DEALT,)  # the many-seed proof is bench/fidelity.py's; CI's time buys one set here
TRUTHS = (HEALTHY, "bad-init", "no-warmup", "broken-mask")
LAB = scenarios.level(1).deck  # the lab's runs are weighed against the lab's deck
# The engine's first steps against the stored ones: the loss and the pre-clip grad norm of
# steps 0-2. Between OpenBLAS's SkylakeX kernel (this machine's, which wrote them) and its
# Haswell, Sandybridge, Nehalem and Prescott kernels they moved at most 8.0e-6 (small-init;
# 3.3e-6 in the full-length runs), 2026-12-03. bad-init's float32 numbers are ~100x the
# others' and drift fastest: its grad norm moved 3.6e-3 at step 0 but 74% by step 2, its loss
# 4.5e-3 by step 2 (seed 2's), so only its step 0 counts.
FIRST_STEPS = 3
RTOL = 3e-5
STALE = ("the engine no longer writes the stored runs: if that is meant, make them again "
         "(python tests/data/make_fidelity.py) and prove the deck again (bench/fidelity.py)")
RTOL_BAD_INIT = (1e-3, 3e-2)  # (loss, grad norm) at step 0




@pytest.fixture(scope="module")
def header():
    return run_header_fields(scenarios.healthy_config())


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    """The stored dealt scenario, copied and unpacked: its workspace and its truth (ID ->
    slug, from its sealed answer key)."""
    target = tmp_path_factory.mktemp("fidelity") / "ws"
    shutil.copytree(MAKER.DATA / "scenario", target)
    for packed in target.glob("*/metrics.jsonl.gz"):
        MAKER.gunzip_file(packed, packed.with_suffix(""))
        packed.unlink()
    workspace = open_workspace(target)
    return workspace, open_assignment(workspace, MAKER.SECRET)


@pytest.fixture(scope="module")
def trained(dealt):
    """The dealt scenario's runs by truth (the reference as "healthy"), by seed set."""
    workspace, truth = dealt
    by_truth = {slug: workspace.read_run(rid)[1] for rid, slug in truth.items()}
    by_truth[HEALTHY] = workspace.read_run("reference")[1]
    return {DEALT: by_truth}


@pytest.fixture(scope="module")
def decoy(tmp_path_factory):
    """The healthy decoy's stored records (the full default length, a seed of its own)."""
    return MAKER.read_stored(MAKER.DATA / "decoy.jsonl.gz",
                             tmp_path_factory.mktemp("decoy"))[1]


def test_the_engine_still_writes_the_stored_runs(dealt, decoy, deck, tmp_path):
    """Each stored run's first steps, trained again here (the deal's own plans, the decoy's
    seed): the same config and the same numbers within the tolerance across CPU kinds."""
    workspace, truth = dealt
    _, plans = plan_runs(MAKER.SECRET, MAKER.CODE, scenarios.level(1),
                         steps=workspace.steps)
    stored = {plan.run: (plan, workspace.read_run(plan.run)) for plan in plans}
    healthy = scenarios.healthy_config()
    stored["decoy"] = (RunPlan("decoy", healthy, MAKER.DECOY_SEED),
                       (run_header_fields(healthy), decoy))
    for plan in MAKER.deck_plans():
        stored[f"deck {plan.run}"] = (plan, (run_header_fields(plan.config), deck[1][plan.run]))
    for plan in MAKER.own_plans():  # tests/test_own_runs.py's
        packed = MAKER.DATA / "own" / f"{plan.run}.jsonl.gz"
        stored[f"own {plan.run}"] = (plan, MAKER.read_stored(packed, tmp_path))
    for run, (plan, (run_header, records)) in stored.items():
        assert len(records) == plan.config.steps, run
        assert run_header["steps"] == plan.config.steps, run
        chaotic = truth.get(run, plan.run) == "bad-init"
        loss_rtol, grad_rtol = RTOL_BAD_INIT if chaotic else (RTOL, RTOL)
        trainer = Trainer(plan.config, plan.seed, threads=False)
        for step in range(1 if chaotic else FIRST_STEPS):
            got, kept = trainer.step(), records[step]
            where = (run, step, STALE)
            assert got["lr"] == kept["lr"], where
            assert got["train_loss"] == pytest.approx(kept["train_loss"], rel=loss_rtol), where
            assert got["grad_norm_preclip"] == pytest.approx(kept["grad_norm_preclip"],
                                                             rel=grad_rtol), where


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("truth", TRUTHS)
def test_signature_holds(trained, header, seed, truth):
    records = trained[seed]
    checks = signature_checks(truth, records[truth], records[HEALTHY], header)
    assert checks
    # a "usually" promise (a rate below 1) is proven over many seeds by bench/fidelity.py
    failed = [f"{c.name}={c.value:.4g} (want {c.wanted})" for c in checks
              if not c.passed and c.rate == 1]
    assert not failed, f"seed {seed}, {truth}: " + "; ".join(failed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("truth", TRUTHS)
def test_diagnostician_names_the_run(trained, header, seed, truth):
    records = trained[seed]
    verdict = diagnose_run(records[truth], records[HEALTHY], header, LAB)
    assert verdict.slug == truth, verdict.figures
    assert verdict.confidence >= 0.5
    assert verdict.findings and all(f.text["en"] and f.text["es"] for f in verdict.findings)


def test_bad_init_stays_finite_under_a_stable_softmax(trained):
    for records in trained.values():
        assert all(math.isfinite(r["train_loss"]) for r in records["bad-init"])


def test_no_warmup_shows_no_grad_norm_spike(trained):
    """The course promises a spike at steps 1-5; a pre-LN model with Adam peaks at step 0."""
    for records in trained.values():
        run = [r["grad_norm_preclip"] for r in records["no-warmup"][:6]]
        ref_peak = max(r["grad_norm_preclip"] for r in records[HEALTHY][:6])
        assert max(run[1:]) < 2 * ref_peak


def test_findings_speak_both_languages_with_the_runs_numbers(trained, header):
    records = trained[SEEDS[0]]
    fig = figures(records["bad-init"], records[HEALTHY], header)
    lines = findings_for("bad-init", fig, header)
    assert {f.panel for f in lines} >= {1, 3, 4, 5}
    act = next(f for f in lines if f.name == "act0_ratio")
    assert act.value > 50 and f"{act.value:.1e}" in act.text["en"]
    assert "activaciones" in act.text["es"]
    assert findings_for("no-such-break", fig, header) == []


def test_a_dealt_scenario_is_told_apart(dealt):
    workspace, truth = dealt
    ref_header, reference = workspace.read_run("reference")
    assert sorted(truth.values()) == sorted(TRUTHS[1:])
    for rid, slug in truth.items():
        assert diagnose_run(workspace.read_run(rid)[1], reference, ref_header, LAB).slug == slug
    lines = evidence(workspace, "en", truth)
    assert all(lines[rid] for rid in truth)


def test_diagnostician_survives_degenerate_input(header):
    nan = float("nan")
    record = {"step": 0, "lr": nan, "train_loss": nan, "val_loss": None,
              "grad_norm_preclip": float("inf"), "grad_norm_postclip": nan,
              "act_mean_abs": [nan, nan, nan], "spectral_norm": {"wte": nan},
              "dead_heads": None, "dead_neurons_frac": None}
    verdict = diagnose_run([record], [record], header, LAB)
    assert verdict.slug == HEALTHY  # nothing finite to vote on: no break is claimed
    assert math.isfinite(verdict.confidence)
    assert diagnose_run([], [], header, LAB).slug == HEALTHY


def test_the_decoy_is_healthy_at_every_level(trained, decoy, header):
    """At the game's length against the dealt reference (another seed's, as in a dealt
    scenario); a short run is too young for this (at 60 steps level 3 reads it as
    unscaled-attention), so the deck's short runs leave it here."""
    reference = trained[SEEDS[0]][HEALTHY]
    for level in scenarios.all_levels():
        assert diagnose_run(decoy, reference, header, level.deck).slug == HEALTHY


def test_every_break_of_every_deck_votes_from_its_folder(trained, header):
    from diagnose.diagnosis.diagnostician import votes

    records = trained[SEEDS[0]]
    every = [slug for level in scenarios.all_levels() for slug in level.deck]
    weighed = votes(figures(records[HEALTHY], records[HEALTHY], header), every)
    assert list(weighed) == every and all(math.isfinite(v) for v in weighed.values())


# --- the deck's levels 2 and 3, on one seed with short runs ---------------------------------
# The twenty-seed proof at the full length is bench/fidelity.py's (its output is in the deck's
# issue); here each break's stored run is MAKER.DECK_STEPS long (the maker says why that is
# enough), and each test asserts what a run that short already shows, from the same figures
# the diagnostician reads.


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    """(figures by slug against the healthy run, records by slug), from the stored runs."""
    folder = tmp_path_factory.mktemp("deck")
    plans = MAKER.deck_plans()
    records = {plan.run: MAKER.read_stored(MAKER.DATA / "deck" / f"{plan.run}.jsonl.gz",
                                           folder)[1] for plan in plans}
    header = run_header_fields(plans[0].config)
    return {slug: figures(run, records[HEALTHY], header)
            for slug, run in records.items()}, records


def test_big_init_shows_at_step_0(deck):
    fig = deck[0]["big-init"]
    assert fig["spectral0_ratio"] == pytest.approx(3.0, rel=1e-3)
    assert fig["act0_ratio"] >= 3 and fig["loss0_ratio"] >= 1.3
    assert fig["lr_peak_ratio"] == 1


def test_small_init_mirrors_big_init_at_step_0(deck, header):
    fig = deck[0]["small-init"]
    assert fig["spectral0_ratio"] == pytest.approx(0.25, rel=1e-3)
    assert fig["residual0_ratio"] <= 0.5
    assert fig["act0_ratio"] == pytest.approx(1.0, rel=0.05)  # ln_f's line: ~1 whatever init
    assert fig["loss0"] <= header["ln_vocab"] + 0.2 and fig["lr_peak_ratio"] == 1


def test_raised_lr_peaks_three_times_higher_at_the_same_step(deck):
    fig = deck[0]["raised-lr"]
    assert fig["lr_peak_ratio"] == pytest.approx(3.0)
    assert fig["lr_peak_step"] == fig["ref_lr_peak_step"]
    assert fig["lr0_ratio"] == pytest.approx(3.0)   # as a 4-step warmup's would be: Panel 2's
    assert fig["lr0_frac"] < 0.5                      # peak, not its first step, tells them apart


def test_short_warmup_shows_in_the_ramp_and_the_first_update(deck):
    fig = deck[0]["short-warmup"]
    assert fig["lr0_ratio"] == pytest.approx(6.0) and fig["lr0_frac"] == 0.5
    assert fig["spectral_jump"] >= 0.04 > fig["ref_spectral_jump"]


def test_leaky_mask_is_honest_at_first(deck):
    fig = deck[0]["leaky-mask"]
    assert fig["first_val_floor_ratio"] > 1          # above the floor at the first evaluation
    assert fig["lr_peak_ratio"] == 1 and fig["act0_ratio"] == pytest.approx(1.0, rel=0.05)


def test_high_lr_peaks_ten_times_higher_and_inflates_the_residual(deck):
    fig = deck[0]["high-lr"]
    assert fig["lr_peak_ratio"] == pytest.approx(10.0)
    assert fig["residual_end_ratio"] >= 10


def test_frozen_block_leaves_four_lines_flat(deck):
    fig, records = deck
    assert fig["frozen-block"]["least_moved"] < 0.003 < fig["frozen-block"]["ref_least_moved"]
    first, last = records["frozen-block"][0]["spectral_norm"], records["frozen-block"][-1][
        "spectral_norm"]
    flat = [name for name in first if abs(last[name] / first[name] - 1) < 0.003]
    assert sorted(flat) == sorted(n for n in first if n.startswith("h.0."))


def test_unshifted_targets_cross_the_floor_by_the_first_evaluation(deck):
    fig = deck[0]["unshifted-targets"]
    assert fig["first_val_floor_ratio"] < 0.5 < fig["ref_first_val_floor_ratio"]
    assert fig["loss0_ratio"] < 0.9


def test_unscaled_attention_and_decay_everything_leave_panel_2_alone(deck):
    for slug in ("unscaled-attention", "decay-everything"):
        assert deck[0][slug]["lr_peak_ratio"] == 1 and deck[0][slug]["least_moved"] > 0.003


@pytest.mark.parametrize("slug", ["big-init", "small-init", "short-warmup", "raised-lr",
                                  "high-lr", "frozen-block", "unshifted-targets"])
def test_the_diagnostician_names_an_early_signature_among_its_level(deck, header, slug):
    _, records = deck
    level = next(lv for lv in scenarios.all_levels() if slug in lv.deck)
    verdict = diagnose_run(records[slug], records[HEALTHY], header, level.deck)
    assert verdict.slug == slug, verdict.figures
    assert verdict.findings and all(f.text["en"] and f.text["es"] for f in verdict.findings)

