"""The way between levels is the player's: plain `diagnose play` opens the first level not passed
yet and says which, `--level N` any, a `--dir` bundle its own; a level's folder holding a
scenario graded and failed offers a fresh one at a terminal (a real pty) and keeps the old
under previous/<code>."""

from __future__ import annotations

import os
import shutil

from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.game.progress import failed_scenario, keep_as_previous, load_progress, record_grading
from diagnose.tui.app import PlayApp
from tests.tui.conftest import DATA
from tests.tui.test_keys_pty import PtyPlay


def opened(monkeypatch, *args: str):
    """`diagnose play ARGS` with the app only made, not run: (result, the app)."""
    made = []
    monkeypatch.setattr(PlayApp, "run", lambda self: made.append(self))
    result = CliRunner().invoke(cli, ["play", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result, made[0]


def test_play_opens_the_first_level_not_passed_and_says_which(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result, app = opened(monkeypatch)
    assert result.stderr.startswith("Level 1 (the first not passed yet; --level N plays ")
    assert app.level == 1 and app.directory.name == "19-break-it"
    record_grading(1, "A", 3, 3, counts=True)
    result, app = opened(monkeypatch, "--lang", "es")
    assert result.stderr.startswith("Nivel 2 (el primero sin superar; --level N juega otro)")
    assert app.level == 2 and app.directory.name == "19-break-it-level-2"
    result, app = opened(monkeypatch, "--level", "1")
    assert app.level == 1 and "Level" not in result.stderr  # asked for: nothing to say


def test_a_bundle_keeps_its_own_level(workspace, monkeypatch):
    record_grading(1, "A", 3, 3, counts=True)
    _, app = opened(monkeypatch, "--dir", str(workspace))
    assert app.level == 1 and app.directory == workspace


def test_a_failed_scenario_is_found_and_kept_whole_as_previous(workspace):
    progress, _ = load_progress()
    assert failed_scenario(workspace, 1, progress) is None  # never graded
    record_grading(1, "TUI-FIXTURE", 2, 3, counts=True)
    progress, _ = load_progress()
    assert failed_scenario(workspace, 1, progress) == ("TUI-FIXTURE", "2/3")
    assert failed_scenario(workspace, 2, progress) is None  # another level's folder
    files = sorted(p.relative_to(workspace) for p in workspace.rglob("*"))
    kept = keep_as_previous(workspace, "TUI-FIXTURE")
    assert kept == workspace.parent / "previous" / "TUI-FIXTURE" and not workspace.exists()
    assert sorted(p.relative_to(kept) for p in kept.rglob("*")) == files


def test_at_a_terminal_play_offers_a_fresh_scenario_for_a_failed_one(course, home, tmp_path):
    folder = course / "experiments" / "19-break-it"
    shutil.copytree(DATA / "scenario", folder)
    record_grading(1, "TUI-FIXTURE", 1, 3, counts=True)
    play = PtyPlay(folder, None, args=["--steps", "5"], cwd=course)
    try:
        play.wait(lambda: b"Deal a fresh one" in play.output, "the offer")
        play.write(b"y\r")
        play.wait(lambda: b"Kept in" in play.output, "the old one kept")
        play.wait(lambda: b"training" in play.output, "a fresh scenario training")
        play.write(b"q")
        assert play.process.wait(timeout=60) == 0
    finally:
        play.close()
    kept = course / "experiments" / "previous" / "TUI-FIXTURE"
    assert (kept / "scenario.json").is_file() and (kept / "answer-key.sealed").is_file()
    assert not (folder / "scenario.json").exists()  # quit while training: nothing written
    assert os.environ["DIAGNOSE_HOME"]  # the test's own data folder, the progress in it
