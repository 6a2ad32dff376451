"""Snapshots of a finished scenario (the 40-step fixture), at the smallest supported terminal
and at a large one. Review a change with `pytest tests/tui --snapshot-update` and the report."""

from diagnose.tui.app import PlayApp
from tests.tui.screen import drawn


async def first_frame(pilot) -> None:
    """The panels drawn (they come on the redraw timer): a snapshot taken before shows empty
    boxes, on a machine slower to start the app."""
    await drawn(pilot, pilot.app)


def test_dashboard_at_80x24(workspace, snap_compare):
    assert snap_compare(PlayApp(workspace), terminal_size=(80, 24), run_before=first_frame)


def test_a_run_with_its_reference_and_cursor_at_160x48(workspace, snap_compare):
    assert snap_compare(PlayApp(workspace), terminal_size=(160, 48),
                        press=["2", "r", "z", "home", "right", "right"])


def test_detail_view_at_80x24(workspace, snap_compare):
    assert snap_compare(PlayApp(workspace), terminal_size=(80, 24), press=["3", "enter"])


def test_a_run_with_its_reference_without_colour_at_80x24(workspace, snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")  # Textual reads it when the app is made
    assert snap_compare(PlayApp(workspace), terminal_size=(80, 24), press=["1", "r", "tab"])


def test_the_form_without_colour_at_80x24(workspace, snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(PlayApp(workspace), terminal_size=(80, 24),
                        press=["2", "d", "down", "enter"])


def test_a_run_at_120x40(workspace, snap_compare):
    assert snap_compare(PlayApp(workspace), terminal_size=(120, 40), press=["3", "tab", "tab"])
