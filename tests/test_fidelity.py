"""Fidelity: with the real default config, every break shows its signature, from the arithmetic.

Two sets of runs, each trained once for the module at the full default length (the signatures
are calibrated there; a shorter run would prove something else): the reference and the three
breaks on one shared seed, and a scenario dealt through the game's own path (`create_scenario`,
a seed per ID). On both, every check of `diagnose.fidelity` must hold and the diagnostician must
name every run. `bench/fidelity.py --seeds 20` runs the same checks on twenty seeds.
"""

from __future__ import annotations

import base64
import math

import pytest

import scenarios
from diagnose.diagnostician import HEALTHY, diagnose_run, figures, findings_for
from diagnose.engine import run_header_fields
from diagnose.fidelity import signature_checks
from diagnose.reveal import evidence, open_assignment
from diagnose.scenario import RunPlan, ScenarioSpec, TrainingPool, create_scenario

SEED = 101
DEALT = "dealt"  # the second set of seeds: a scenario dealt as the game deals it, a seed per ID
SEEDS = (SEED, DEALT)
TRUTHS = (HEALTHY, "bad-init", "no-warmup", "broken-mask")


@pytest.fixture(scope="module")
def header():
    return run_header_fields(scenarios.healthy_config())


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    """A scenario dealt through `create_scenario`, trained once for the module: its
    workspace, its truth (ID -> slug) and its runs by truth, which `trained` shares."""
    secret = base64.urlsafe_b64encode(bytes(range(32)))  # fixed: the same runs every time
    workspace = create_scenario(tmp_path_factory.mktemp("fidelity") / "ws",
                                ScenarioSpec(code="FIDELITY-1"), secret=secret)
    truth = open_assignment(workspace, secret)
    return workspace, truth


@pytest.fixture(scope="module")
def trained(dealt):
    """Runs by truth for each seed set: one shared seed for all four, and the dealt scenario."""
    healthy = scenarios.healthy_config()
    catalog = scenarios.breaks()
    plans = [RunPlan(HEALTHY, healthy, SEED)]
    plans += [RunPlan(slug, catalog[slug].apply(healthy), SEED) for slug in TRUTHS[1:]]
    with TrainingPool(2) as pool:
        shared = pool.run(plans)
    workspace, truth = dealt
    by_truth = {slug: workspace.read_run(rid)[1] for rid, slug in truth.items()}
    by_truth[HEALTHY] = workspace.read_run("reference")[1]
    return {SEED: shared, DEALT: by_truth}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("truth", TRUTHS)
def test_signature_holds(trained, header, seed, truth):
    records = trained[seed]
    checks = signature_checks(truth, records[truth], records[HEALTHY], header)
    assert checks
    failed = [f"{c.name}={c.value:.4g} (want {c.wanted})" for c in checks if not c.passed]
    assert not failed, f"seed {seed}, {truth}: " + "; ".join(failed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("truth", TRUTHS)
def test_diagnostician_names_the_run(trained, header, seed, truth):
    records = trained[seed]
    verdict = diagnose_run(records[truth], records[HEALTHY], header)
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
        assert diagnose_run(workspace.read_run(rid)[1], reference, ref_header).slug == slug
    lines = evidence(workspace, "en", truth)
    assert all(lines[rid] for rid in truth)


def test_diagnostician_survives_degenerate_input(header):
    nan = float("nan")
    record = {"step": 0, "lr": nan, "train_loss": nan, "val_loss": None,
              "grad_norm_preclip": float("inf"), "grad_norm_postclip": nan,
              "act_mean_abs": [nan, nan, nan], "spectral_norm": {"wte": nan},
              "dead_heads": None, "dead_neurons_frac": None}
    verdict = diagnose_run([record], [record], header)
    assert verdict.slug == HEALTHY  # nothing finite to vote on: no break is claimed
    assert math.isfinite(verdict.confidence)
    assert diagnose_run([], [], header).slug == HEALTHY


def test_the_known_breaks_are_those_it_votes_on(trained, header):
    from diagnose.diagnostician import KNOWN, _votes

    records = trained[SEEDS[0]]
    assert set(_votes(figures(records[HEALTHY], records[HEALTHY], header))) == set(KNOWN)
