"""Levels as data: the deal of a level's deck, scenario.json's level, grading and reveal
against the scenario's own deck. No training: workspaces are scenario.json and a sealed key."""

from __future__ import annotations

import itertools
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

import scenarios
from diagnose.scenario import ScenarioError, ScenarioSpec, assignment, plan_runs, planned_runs
from grading.grade import grade_workspace, read_scenario, scenario_json
from grading.seal import seal

sys.path.insert(0, str(Path(__file__).parent / "grading"))
from grading_testkit import home_secret  # noqa: E402

SECRET = b"s" * 32


def test_level_one_deal_is_todays_permutation():
    lab = ("bad-init", "no-warmup", "broken-mask")
    for code in ("A", "B", "C", "7KQ2-M9XF"):
        assert assignment(SECRET, code, lab) == assignment(SECRET, code, lab, level=1)


@pytest.mark.parametrize("level", [2, 3])
def test_a_level_deals_three_distinct_slugs_of_its_deck(level):
    deck = sorted(scenarios.breaks(level))
    seen = Counter()
    for n in range(600):
        deal = assignment(SECRET, f"code-{n}", deck, level)
        assert list(deal) == ["01", "02", "03"]
        assert len(set(deal.values())) == 3 and set(deal.values()) <= set(deck)
        assert sum(slug == scenarios.HEALTHY for slug in deal.values()) <= 1
        seen[tuple(deal.values())] += 1
    triples = list(itertools.permutations(deck, 3))
    assert set(seen) <= set(triples)
    if len(triples) <= 120:  # every ordered triple turns up: the deal is spread over them all
        assert len(seen) == len(triples)


def test_level_three_deals_the_decoy_with_its_own_seed():
    deck = sorted(scenarios.breaks(3))
    code = next(f"c{n}" for n in range(500)
                if scenarios.HEALTHY in assignment(SECRET, f"c{n}", deck, 3).values())
    deal, plans = plan_runs(SECRET, code, deck, 20, level=3)
    decoy = next(rid for rid, slug in deal.items() if slug == scenarios.HEALTHY)
    by_run = {p.run: p for p in plans}
    assert by_run[decoy].config == by_run["reference"].config
    assert by_run[decoy].seed != by_run["reference"].seed


def test_spec_checks_its_level():
    assert ScenarioSpec(level=3).breaks == tuple(scenarios.breaks(3))
    assert planned_runs(level=2) == ("reference", "01", "02", "03")
    with pytest.raises(ScenarioError, match="--level must be one of 1, 2, 3, got 4"):
        ScenarioSpec(level=4)
    with pytest.raises(ScenarioError, match="--breaks chooses level 1's breaks"):
        ScenarioSpec(level=2, breaks=("big-init",))


def test_scenario_json_writes_the_level_only_above_one(tmp_path):
    one = scenario_json("C", ["01"], 5, "v", "self-study")
    assert "level" not in one
    assert scenario_json("C", ["01"], 5, "v", "self-study", 1) == one
    (tmp_path / "scenario.json").write_text(one)
    assert read_scenario(tmp_path).level == 1
    (tmp_path / "scenario.json").write_text(scenario_json("C", ["01"], 5, "v", "self-study", 3))
    assert read_scenario(tmp_path).level == 3
    data = json.loads(one) | {"level": 9}
    (tmp_path / "scenario.json").write_text(json.dumps(data))
    with pytest.raises(Exception, match="corrupt"):
        read_scenario(tmp_path)


def _level_workspace(path: Path, truth: dict[str, str], level: int, secret: bytes) -> Path:
    path.mkdir(parents=True)
    (path / "scenario.json").write_text(
        scenario_json("LVL", sorted(truth), 400, "test", "self-study", level))
    (path / "answer-key.sealed").write_text(seal("LVL", truth, secret))
    return path


def test_grading_reads_answers_in_the_scenarios_own_deck(tmp_path):
    secret = home_secret()
    truth = {"01": "big-init", "02": "short-warmup", "03": "leaky-mask"}
    ws = _level_workspace(tmp_path / "ws", truth, 2, secret)
    answers = tmp_path / "d.md"
    # "init", "warmup" and "mask" name a break of level 1 and one of level 2: not ambiguous here
    answers.write_text("## 01\nDiagnosis: init\n## 02\nDiagnosis: warmup\n"
                       "## 03\nDiagnosis: mask\n")
    report = grade_workspace(answers, ws, secret, record=False)
    assert report.score == 3


def test_the_decoys_words_answer_at_level_three(tmp_path):
    secret = home_secret()
    truth = {"01": "healthy", "02": "high-lr", "03": "frozen-block"}
    ws = _level_workspace(tmp_path / "ws", truth, 3, secret)
    answers = tmp_path / "d.md"
    answers.write_text("## 01\nDiagnóstico: sin fallo\n## 02\nDiagnosis: nothing\n"
                       "## 03\nDiagnosis: nothing\n")
    report = grade_workspace(answers, ws, secret, record=False, lang="es")
    assert [r.correct for r in report.results] == [True, False, False]
    assert "Sana (sin fallo)" in report.results[0].verdict


def test_the_reveal_explains_every_dealt_run_the_decoy_too(tmp_path):
    """The TUI fixture's runs relabelled as a level-3 deal: the solutions name the decoy."""
    import shutil

    from diagnose.reveal import render_solutions
    from diagnose.workspace import open_workspace

    ws = tmp_path / "course" / "experiments" / "19-break-it-level-3"
    shutil.copytree(Path(__file__).parent / "tui" / "data" / "scenario", ws)
    truth = {"01": "healthy", "02": "high-lr", "03": "frozen-block"}
    data = json.loads((ws / "scenario.json").read_text()) | {"level": 3}
    (ws / "scenario.json").write_text(json.dumps(data))
    workspace = open_workspace(ws)
    assert workspace.solutions_path.name == "03-three-failures-ref-level-3.md"
    text = render_solutions(workspace, truth, "es")
    assert "## 01 — Sana (sin fallo) (`healthy`)" in text
    assert "`high-lr`" in text and "`frozen-block`" in text
