"""Bounds a user can push: steps, worker processes, and the characters of a scenario code.

Each refusal is one `Error:`/usage line before any training starts; the worker count is
observed on real processes while a real pool trains.
"""

from __future__ import annotations

import multiprocessing
import os

import pytest
from click.testing import CliRunner

import scenarios
from diagnose import platform
from diagnose.cli import cli
from diagnose.game.dealing import ScenarioError, check_code, plan_runs
from diagnose.game.scenario import ScenarioSpec, create_scenario
from diagnose.game.training import TrainingPool, engine_threads
from grading.seal import new_secret
from scenarios import MAX_STEPS

SLUGS = ["bad-init", "no-warmup", "broken-mask"]


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("command", [["new"], ["deal", "--key", "k", "--out", "o", "--count",
                                                "1"]])
def test_steps_above_the_maximum_are_refused(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    result = run(*command, "--steps", str(MAX_STEPS + 1))
    assert result.exit_code == 2
    assert f"{MAX_STEPS + 1} is not in the range 1<=x<={MAX_STEPS}" in result.output
    assert list(tmp_path.iterdir()) == []


def test_the_maximum_is_in_the_help():
    for command in ("new", "deal"):
        assert f"1 to {MAX_STEPS}" in run(command, "--help").output


def test_create_scenario_refuses_too_many_steps(tmp_path):
    with pytest.raises(ScenarioError, match=f"between 1 and {MAX_STEPS}, got 10000000"):
        create_scenario(tmp_path / "ws", ScenarioSpec(steps=10_000_000), secret=new_secret())
    assert list(tmp_path.iterdir()) == []


def test_a_pool_never_starts_more_workers_than_runs():
    secret = new_secret()
    _, plans = plan_runs(secret, "JOBS", scenarios.level(1), 3)
    seen: list[int] = []

    def count(run: str, record: dict) -> None:
        seen.append(sum(p.name.startswith("diagnose-train-")
                        for p in multiprocessing.active_children()))

    with TrainingPool(64) as pool:
        pool.run(plans, on_step=count)
        pool.run(plans[:2], on_step=count)
    assert seen and max(seen) == len(plans) == 4


@pytest.mark.parametrize(("cores", "jobs", "threads"),
                         [(2, 1, True), (2, 2, False), (1, 1, False), (8, 4, True), (8, 5, False)])
def test_runs_use_helper_threads_only_with_a_spare_core_each(monkeypatch, cores, jobs, threads):
    monkeypatch.setattr(platform, "usable_cores", lambda: cores)
    assert engine_threads(jobs) is threads


def test_usable_cores_is_at_least_one():
    assert 1 <= platform.usable_cores() <= (os.cpu_count() or 1)


@pytest.mark.parametrize("code", ["x -->", "a--b", "<b>", "x>y", "two\nlines"])
def test_codes_that_cannot_sit_in_the_diagnoses_comment(code):
    with pytest.raises(ScenarioError, match="'<' and '>'"):
        check_code(code)


def test_new_refuses_such_a_code_at_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("new", "--seed", "x -->", "--steps", "5")
    assert result.exit_code == 1
    assert result.output.startswith("Error: scenario code 'x -->' cannot hold '<', '>' or '--'")
    assert list(tmp_path.iterdir()) == []


def test_ordinary_codes_still_pass():
    for code in ("week 3: lab ü", "7KQ2-M9XF", "a-b-c", "¿qué? (2)"):
        assert check_code(code) == code
