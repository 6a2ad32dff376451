"""A level is one entry: a level 4 of four runs made of existing breaks, added in a levels
file of its own (`DIAGNOSE_LEVELS`), is dealt and trained (5 steps), played, reviewed, graded
and revealed as 4/4 (every count from the level's entry), recorded in `progress` and named in
the app's title, and no file of the package changes."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from click.testing import CliRunner

import scenarios
from diagnose.cli import cli
from diagnose.diagnosis.reveal import open_assignment
from diagnose.game.progress import load_progress
from diagnose.tui.app import PlayApp
from diagnose.tui.screens.review import ReviewScreen
from diagnose.workspace import open_workspace
from tests.tui.screen import screen_text
from tests.tui.test_app import SMALL, until

LEVEL_FOUR = """
[[level]]
number = 4
name = { en = "the lab's mirrors", es = "los espejos del laboratorio" }
deck = ["bad-init", "small-init", "no-warmup", "short-warmup"]
decoy = true
deal = "draw"
runs = 4
"""


def footer(app) -> str:
    return screen_text(app).splitlines()[-1]


def cli_run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def package_files() -> dict[str, bytes]:
    root = Path(str(resources.files("scenarios")))
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.toml"))}


async def test_a_level_four_in_one_entry_is_dealt_graded_recorded_and_titled(
        tmp_path, monkeypatch):
    before = package_files()
    levels = tmp_path / "levels.toml"
    packaged = (resources.files("scenarios") / "levels.toml").read_text(encoding="utf-8")
    levels.write_text(packaged + LEVEL_FOUR, encoding="utf-8")
    monkeypatch.setenv("DIAGNOSE_LEVELS", str(levels))
    monkeypatch.chdir(tmp_path)

    listing = cli_run("breaks").output
    assert "Level 4: the lab's mirrors" in listing
    assert "Nivel 4: los espejos del laboratorio" in cli_run("breaks", "--lang", "es").output

    out = cli_run("new", "--level", "4", "--steps", "5", "--seed", "L4", "--jobs", "2")
    assert out.exit_code == 0, out.output
    ws = tmp_path / "experiments" / "19-break-it-level-4"  # the entry's default suffix
    assert json.loads((ws / "scenario.json").read_text())["level"] == 4
    truth = open_assignment(open_workspace(ws))
    assert list(truth) == ["01", "02", "03", "04"] and len(set(truth.values())) == 4
    assert set(truth.values()) <= set(scenarios.level(4).slugs)

    answers = tmp_path / "Ana-diagnoses-level-4.md"
    answers.write_text("<!-- scenario: L4 -->\n" + "".join(
        f"## {rid}\nDiagnosis: {slug}\n" for rid, slug in truth.items()))
    out = cli_run("grade", "--yes", str(answers))  # found by its scenario comment, beside level 1's
    assert out.exit_code == 0, out.output
    assert "Score: 4/4" in out.output and "3/3" not in out.output
    assert "Level 4 passed (4/4 on the first attempt)" in out.output
    assert (ws.parent.parent / "solutions" / "03-four-failures-ref-level-4.md").exists()
    shown = cli_run("progress").output
    assert "Level 4: passed\n  scenarios played: 1\n  first-attempt scores: 4/4\n" in shown
    assert "Next: diagnose play\n" in shown  # level 1 is not passed yet

    app = PlayApp(ws, name="Ana")
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        # the first frame: 30 s, not 10 (a full suite on a loaded machine took longer)
        await until(pilot, lambda: "scenario L4 · level 4" in screen_text(app), tries=1500)
        assert "0 01 02 03 04 runs" in footer(app) or "01234 runs" in footer(app)
        await pilot.press("4")
        await until(pilot, lambda: "04 · step 5/5" in screen_text(app))
        await pilot.press("g")  # the review: four rows
        assert isinstance(app.screen, ReviewScreen) and len(app.screen.rows) == 4
        await pilot.press("escape", "n")  # the last level: there is no next one
        await until(pilot, lambda: "Level 4 is the last level" in screen_text(app))
    assert app.next_level is None

    monkeypatch.delenv("DIAGNOSE_LEVELS")  # back to the package's three levels
    out = cli_run("new", "--level", "4", "--steps", "5")
    assert out.exit_code == 2
    assert "Invalid value for '--level': '4' is not a level (the levels: 1, 2, 3;" in out.output
    progress, warnings = load_progress()  # level 4's record is kept, not an unreadable file
    assert not warnings and progress[4].passed and sorted(progress) == [1, 2, 3, 4]
    assert "Level 4" not in cli_run("progress").output
    out = cli_run("grade", "--yes", str(answers), "--dir", str(ws))
    assert out.exit_code == 1
    assert out.output.startswith(f"Error: {ws / 'scenario.json'}: level 4 is not one of the "
                                 "levels (1, 2, 3)")
    assert package_files() == before
