"""Drafts: written whole on every change, read back, a corrupt file moved aside."""

import json

from diagnose.tui.diagnoses import diagnoses_path, file_stem
from diagnose.tui.drafts import DRAFTS_FILE, UNSURE, Draft, Drafts


def test_every_change_is_on_disk_and_reads_back(tmp_path):
    drafts = Drafts.load(tmp_path)
    drafts.set_answer("01", "no-warmup", "Panel 2 starts at lr_max")
    again = Drafts.load(tmp_path)
    assert again.answer("01") == Draft("no-warmup", "Panel 2 starts at lr_max")
    assert again.answer("02").empty
    assert [p.name for p in tmp_path.iterdir()] == [DRAFTS_FILE]  # no temp file left behind


def test_in_memory_until_attached(tmp_path):
    drafts = Drafts()
    drafts.set_answer("02", UNSURE, "ñandú ✓")
    assert not (tmp_path / DRAFTS_FILE).exists()
    drafts.attach(tmp_path)
    assert Drafts.load(tmp_path).answer("02") == Draft(UNSURE, "ñandú ✓")


def test_a_corrupt_file_is_moved_aside_not_overwritten(tmp_path):
    (tmp_path / DRAFTS_FILE).write_text("{not json", encoding="utf-8")
    drafts = Drafts.load(tmp_path)
    assert drafts.warning and not drafts.answers
    assert (tmp_path / (DRAFTS_FILE + ".corrupt")).read_text(encoding="utf-8") == "{not json"
    (tmp_path / DRAFTS_FILE).write_text(json.dumps({"schema": "other"}), encoding="utf-8")
    assert Drafts.load(tmp_path).warning


def test_the_grader_gets_every_id_with_not_sure_as_none():
    drafts = Drafts(answers={"01": Draft("bad-init", "σ≈190"), "02": Draft(UNSURE, "hm")})
    assert drafts.for_grader(("01", "02", "03")) == {
        "01": ("bad-init", "σ≈190"), "02": (None, "hm"), "03": (None, "")}


def test_the_file_goes_next_to_experiments_else_to_the_current_directory(tmp_path):
    course = tmp_path / "course"
    assert diagnoses_path(course / "experiments" / "19-break-it", "Ana María", 1) == (
        course.resolve() / "Ana-María-diagnoses.md")
    assert diagnoses_path(tmp_path / "bundle", "Ana", 1, cwd=tmp_path / "here") == (
        tmp_path / "here" / "Ana-diagnoses.md")
    assert file_stem(" ../x/y ") == "x-y" and file_stem("///") == "student"
