"""`diagnose play` at the command line: its help, and the problems it refuses before the TUI
starts (exit 1, one `Error:` line)."""

import json

from click.testing import CliRunner

from diagnose.cli import cli


def run(*args):
    return CliRunner().invoke(cli, ["play", *args], catch_exceptions=False)


def test_help_has_an_example():
    result = run("--help")
    assert result.exit_code == 0 and "Example:" in result.output and "--seed" in result.output


def test_a_file_is_not_a_scenario_folder(tmp_path):
    (tmp_path / "f").write_text("x")
    result = run("--dir", str(tmp_path / "f"))
    assert result.exit_code == 1
    assert result.output == f"Error: {tmp_path / 'f'}: exists and is not a directory\n"


def test_a_folder_of_other_files_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    result = run("--dir", str(tmp_path))
    assert result.exit_code == 1 and "holds other files, not a scenario" in result.output


def test_a_scenario_with_another_code_is_refused(workspace):
    result = run("--dir", str(workspace), "--seed", "OTHER")
    assert result.exit_code == 1
    assert "holds scenario TUI-FIXTURE, not OTHER" in result.output


def test_a_corrupt_scenario_is_refused(workspace):
    (workspace / "scenario.json").write_text(json.dumps({"schema": "nope"}))
    result = run("--dir", str(workspace))
    assert result.exit_code == 1 and result.output.startswith("Error: ")


def test_a_crash_of_the_app_exits_non_zero_with_one_line(workspace, monkeypatch):
    from diagnose.tui.app import PlayApp
    from diagnose.tui.widgets.series_row import SeriesRow

    def broken(self, y):
        raise RuntimeError("a chart that cannot draw")

    run_app = PlayApp.run
    monkeypatch.setattr(SeriesRow, "render_line", broken)
    monkeypatch.setattr(PlayApp, "run", lambda self: run_app(self, headless=True))
    result = CliRunner().invoke(cli, ["play", "--dir", str(workspace)])
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        "Error: diagnose play stopped on an unexpected error (the traceback is above); your "
        "drafts are kept.")


def test_level_goes_to_its_folder_and_the_next_level_follows(tmp_path, monkeypatch):
    """`play --level 2` opens experiments/19-break-it-level-2; asking for the next level from
    the app (n after a pass) opens level 3's folder beside it."""
    from diagnose.tui.app import PlayApp

    opened = []

    def fake_run(self):
        opened.append((self.directory, self.level))
        self.next_level = 3 if self.level == 2 else None

    monkeypatch.setattr(PlayApp, "run", fake_run)
    monkeypatch.chdir(tmp_path)
    result = run("--level", "2")
    assert result.exit_code == 0, result.output
    assert [(str(d), level) for d, level in opened] == [
        ("experiments/19-break-it-level-2", 2), ("experiments/19-break-it-level-3", 3)]


def test_steps_trains_a_fresh_scenario_shorter(tmp_path, monkeypatch):
    from diagnose.tui.app import PlayApp

    seen = []
    monkeypatch.setattr(PlayApp, "run", lambda self: seen.append(self.steps))
    assert run("--dir", str(tmp_path / "fresh"), "--steps", "60").exit_code == 0
    assert seen == [60]
    result = run("--dir", str(tmp_path / "fresh"), "--steps", "0")
    assert result.exit_code == 2 and "Invalid value for '--steps'" in result.output
