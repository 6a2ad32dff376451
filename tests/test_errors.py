"""Every failure the user can fix is one `Error:` line at the CLI's door, never a traceback.

The domain raises `scenarios.errors.UserError` where the problem is known; `diagnose.cli`
catches it once. These tests break things a course author or a student meets — a typo in a
break's TOML, a folder that cannot be written, a module that fails to import — and check what
each command says and leaves behind.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import scenarios
import scenarios.catalog
from diagnose.cli import cli
from scenarios import load_catalog
from scenarios.errors import UsageProblem, UserError

DATA = Path(__file__).resolve().parent / "tui" / "data"
TYPO = "scenarios/breaks/no-warmup/break.toml: [override] warmup_stepz: not a key of healthy.toml"


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def broken_catalog(tmp_path, monkeypatch):
    """The shipped catalog with one typo in a break's override, as a course author makes it."""
    root = tmp_path / "catalog"
    root.mkdir()
    shutil.copy(Path(scenarios.__file__).parent / "healthy.toml", root)
    shutil.copytree(Path(scenarios.__file__).parent / "breaks", root / "breaks")
    path = root / "breaks" / "no-warmup" / "break.toml"
    path.write_text(path.read_text().replace("warmup_steps = 0", "warmup_stepz = 0"))
    monkeypatch.setattr(scenarios.catalog, "default_catalog", lambda: load_catalog(root))
    monkeypatch.setattr(scenarios, "default_catalog", scenarios.catalog.default_catalog)
    return root


@pytest.fixture
def key_file(tmp_path):
    result = invoke("keygen", "--out", str(tmp_path / "course.key"))
    assert result.exit_code == 0, result.output
    return tmp_path / "course.key"


@pytest.mark.parametrize("command", [
    ["new", "--steps", "3"],
    ["play"],
    ["breaks"],
])
def test_a_typo_in_a_break_is_one_line_everywhere(broken_catalog, tmp_path, command):
    target = tmp_path / "ws"
    result = invoke(*command, "--dir", str(target)) if command[0] != "breaks" \
        else invoke(*command)
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == f"Error: {TYPO}"
    assert "Traceback" not in result.output
    assert not target.exists()


def test_a_typo_in_a_break_stops_a_deal_before_any_bundle(broken_catalog, tmp_path, key_file):
    out = tmp_path / "bundles"
    result = invoke("deal", "--key", str(key_file), "--out", str(out), "--count", "2",
                    "--steps", "3")
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == f"Error: {TYPO}"
    assert not out.exists() or not any(out.iterdir())


@pytest.fixture
def revealable(tmp_path, private_home):
    """A finished self-study scenario (the TUI tests' recorded one) and its secret."""
    key = private_home / "self-study.key"
    shutil.copyfile(DATA / "home" / "self-study.key", key)
    os.chmod(key, 0o600)
    course = tmp_path / "course"
    workspace = course / "experiments" / "19-break-it"
    shutil.copytree(DATA / "scenario", workspace)
    return course, workspace


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0,
                    reason="root writes through permission bits")
def test_reveal_into_an_unwritable_folder_is_one_line(revealable):
    course, workspace = revealable
    os.chmod(course, 0o500)
    try:
        result = invoke("reveal", "--dir", str(workspace))
    finally:
        os.chmod(course, 0o700)
    assert result.exit_code == 1
    assert result.output.startswith("Error: ")
    assert "cannot be written" in result.output and "Traceback" not in result.output
    assert not (workspace / "reveal.json").exists()  # nothing recorded: nothing was shown


def test_reveal_where_the_solutions_path_is_a_folder_is_one_line(revealable):
    """The same failure, reachable as root too: the solutions file's place is taken."""
    course, workspace = revealable
    (course / "solutions" / "03-three-failures-ref.md").mkdir(parents=True)
    result = invoke("reveal", "--dir", str(workspace))
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and "cannot be written" in result.output
    assert not (workspace / "reveal.json").exists()


def test_a_module_that_fails_to_import_is_not_swallowed(tmp_path, monkeypatch):
    """`new` must not report success without dashboards: a broken import is a bug, loudly."""
    monkeypatch.setitem(sys.modules, "diagnose.views.dashboard", None)  # import raises ImportError
    target = tmp_path / "ws"
    with pytest.raises(ImportError):
        invoke("new", "--dir", str(target), "--steps", "3", "--jobs", "1")
    assert not target.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ws")]


def test_the_error_family_says_its_hint_on_the_same_line():
    err = UserError("roster.csv: 'José' and 'Jose' are one student", hint="rename one")
    assert str(err) == "roster.csv: 'José' and 'Jose' are one student (rename one)"
    assert issubclass(UsageProblem, UserError)
    from diagnose.game.dealing import ScenarioError
    from diagnose.home import HomeError
    from diagnose.metrics import MetricsError
    from diagnose.runs.show import ShowError, StepsError
    from diagnose.workspace import WorkspaceError
    from grading import GradeError, SealError
    from scenarios import CatalogError

    for kind in (HomeError, MetricsError, ScenarioError, ShowError, WorkspaceError,
                 GradeError, SealError, CatalogError):
        assert issubclass(kind, UserError), kind
    assert issubclass(StepsError, UsageProblem)
