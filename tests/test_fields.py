"""Every field read from a file is validated, and a full disk is one line (issue 34, item 12):
a drafts file whose `choice` is a list (play crashed on Ctrl+S), a key saved with a UTF-8 BOM
("not a diagnose key"), and a full disk while `new` or `deal` writes the dashboards (an
OSError traceback). Run headers are in tests/test_escape.py.
"""

from __future__ import annotations

import errno
import json
import pathlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from diagnose.cli import cli
from diagnose.tui.drafts import DRAFTS_FILE, SCHEMA, Draft, Drafts
from grading.seal import new_secret, read_key_file, write_key_file

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)


def drafts_file(folder: Path, answers) -> Path:
    (folder / DRAFTS_FILE).write_text(json.dumps({"schema": SCHEMA, "answers": answers}),
                                      encoding="utf-8")
    return folder


@pytest.mark.parametrize("answer", [{"choice": ["no-warmup"]}, {"choice": {"a": 1}},
                                    {"choice": 3}, {"evidence": ["x"]}, ["no-warmup"], "x"])
def test_a_draft_of_the_wrong_kind_is_moved_aside_with_a_warning(tmp_path, answer):
    drafts = Drafts.load(drafts_file(tmp_path, {"01": answer}))
    assert drafts.answers == {} and drafts.warning is not None
    assert (tmp_path / f"{DRAFTS_FILE}.corrupt").exists()
    drafts.set_answer("01", "no-warmup", "Panel 2")  # Ctrl+S: saves, no crash
    assert Drafts.load(tmp_path).answer("01") == Draft("no-warmup", "Panel 2")


@given(JSON)
def test_any_drafts_file_loads_to_drafts_of_the_form_s_kinds(tmp_path_factory, answers):
    folder = tmp_path_factory.mktemp("drafts")
    drafts = Drafts.load(drafts_file(folder, answers))
    for run, draft in drafts.answers.items():
        assert isinstance(run, str) and isinstance(draft.evidence, str)
        assert draft.choice is None or isinstance(draft.choice, str)
    drafts.save()


def test_drafts_as_the_form_writes_them_still_open(tmp_path):
    drafts_file(tmp_path, {"01": {"choice": "no-warmup", "evidence": "lr"},
                           "02": {"choice": None, "evidence": ""}, "03": {"choice": "unsure"}})
    drafts = Drafts.load(tmp_path)
    assert drafts.warning is None and drafts.answer("01") == Draft("no-warmup", "lr")
    assert drafts.answer("03") == Draft("unsure", "")


def test_a_key_saved_with_a_bom_is_read(tmp_path):
    secret = new_secret()
    write_key_file(tmp_path / "plain.key", secret)
    bom = tmp_path / "bom.key"
    bom.write_bytes(b"\xef\xbb\xbf" + (tmp_path / "plain.key").read_bytes().replace(b"\n",
                                                                                   b"\r\n"))
    bom.chmod(0o600)
    assert read_key_file(bom) == read_key_file(tmp_path / "plain.key") == secret


def _full_disk(monkeypatch, name: str):
    """Writing a dashboard fails as on a full disk (every other write goes through)."""
    real = pathlib.Path.write_bytes

    def write_bytes(self, data):
        if self.name == name:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(pathlib.Path, "write_bytes", write_bytes)


@pytest.mark.slow
def test_a_full_disk_during_new_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    _full_disk(monkeypatch, "dashboard.html")
    target = tmp_path / "ws"
    result = CliRunner().invoke(cli, ["new", "--dir", str(target), "--steps", "1", "--seed",
                                      "FULL-DISK"], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[-1] == (f"Error: {target}: cannot be written (No space "
                                              "left on device); nothing was kept")
    assert list(tmp_path.iterdir()) == []  # the staging folder is gone


@pytest.mark.slow
def test_a_full_disk_during_deal_is_one_line_and_keeps_no_half_bundle(tmp_path, monkeypatch):
    _full_disk(monkeypatch, "dashboard.html")
    write_key_file(tmp_path / "course.key", new_secret())
    (tmp_path / "roster.csv").write_text("ana\n", encoding="utf-8")
    out = tmp_path / "bundles"
    result = CliRunner().invoke(cli, ["deal", "--key", str(tmp_path / "course.key"),
                                      "--roster", str(tmp_path / "roster.csv"), "--out",
                                      str(out), "--steps", "1", "--jobs", "1"],
                                catch_exceptions=False)
    assert result.exit_code == 1, result.output
    assert "cannot be written (No space left on device); nothing was kept" in result.output
    assert "Traceback" not in result.output
    assert not list(out.rglob("*.partial")) and not list(out.rglob("dashboard.html"))
