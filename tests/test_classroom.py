"""Dealing a class you can trust: roster names that cannot collide, one set of settings per
bundles folder, and a manifest that only grows.

Rosters are read from real files (FIFOs and devices included); deals train real, short runs.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import unicodedata

import pytest
from click.testing import CliRunner

from diagnose.classroom import deal as classroom
from diagnose.cli import cli
from diagnose.game.dealing import ScenarioError

STEPS = "1"  # any length deals the same folders; one step trains the least


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def roster_of(tmp_path, text: str):
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    return path


# --- the roster ----------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "message"), [
    ("Jose\nJosé\n", r":2: 'José' is the same student as 'Jose' \(line 1\)"),
    ("ana\nａｎａ\n", r":2: 'ａｎａ' is the same student as 'ana' \(line 1\)"),
    ("ANA\nana\n", r":2: 'ana' repeats 'ANA' \(line 1\)"),
])
def test_names_must_differ_after_student_key(tmp_path, text, message):
    with pytest.raises(ScenarioError, match=message):
        classroom.read_roster(roster_of(tmp_path, text))


def test_a_name_typed_in_nfd_is_kept_in_nfc(tmp_path):
    nfd = unicodedata.normalize("NFD", "José")
    assert nfd != "José"
    students = classroom.read_roster(roster_of(tmp_path, f"{nfd}\nana\n"))
    assert [s.name for s in students] == ["José", "ana"]


@pytest.mark.parametrize("name", ["manifest.csv", "MANIFEST.csv", "deal-settings.json",
                                  ".hidden", ".."])
def test_names_of_the_folders_own_files_are_refused(tmp_path, name):
    with pytest.raises(ScenarioError, match=rf":2: '{name}' is not a safe directory name"):
        classroom.read_roster(roster_of(tmp_path, f"ana\n{name}\n"))


def test_deal_refuses_a_reserved_name_before_writing(tmp_path):
    key = tmp_path / "course.key"
    assert run("keygen", "--out", str(key)).exit_code == 0
    out = tmp_path / "bundles"
    result = run("deal", "--key", str(key), "--out", str(out), "--roster",
                 str(roster_of(tmp_path, "ana\nmanifest.csv\n")), "--steps", STEPS)
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and "'manifest.csv' is not a safe" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_roster_that_is_not_a_regular_file_is_refused_unread(tmp_path):
    fifo = tmp_path / "roster.fifo"
    os.mkfifo(fifo)  # opening it to read would block forever
    with pytest.raises(ScenarioError, match="not a roster file \\(not a regular file\\)"):
        classroom.read_roster(fifo)
    if sys.platform.startswith("linux"):
        with pytest.raises(ScenarioError, match="/dev/zero: not a roster file"):
            classroom.read_roster("/dev/zero")


def test_csv_rosters(tmp_path):
    plain = classroom.read_roster(roster_of(tmp_path, "# class A\nana\n\nbeto\n"))
    assert plain == [classroom.RosterEntry("ana"), classroom.RosterEntry("beto")]
    with_header = classroom.read_roster(roster_of(
        tmp_path, "name,email,level\nana,ana@uni.es,2\nbeto,,\ncarla,c@x.org\n"))
    assert with_header == [classroom.RosterEntry("ana", "ana@uni.es", "2"),
                           classroom.RosterEntry("beto"), classroom.RosterEntry("carla", "c@x.org")]
    reordered = classroom.read_roster(roster_of(tmp_path, "name,level\nana,3\n"))
    assert reordered == [classroom.RosterEntry("ana", "", "3")]
    no_header = classroom.read_roster(roster_of(tmp_path, "ana,ana@uni.es\n"))
    assert no_header == [classroom.RosterEntry("ana", "ana@uni.es")]
    for text, message in [("ana,not-an-email\n", r":1: 'not-an-email' is not an email"),
                          ("ana,a@b.c,1,en,y\n", r":1: expected at most 4 columns"),
                          ("ana,a@b.c,1,fr\n", r":1: lang 'fr': expected en, es"),
                          ("ana,a@b.c,beginner\n", r":1: level 'beginner': expected 1, 2, 3"),
                          ("name,phone\nana,1\n", r":1: a header row has the columns")]:
        with pytest.raises(ScenarioError, match=message):
            classroom.read_roster(roster_of(tmp_path, text))


# --- settings and the manifest ---------------------------------------------------------------

@pytest.fixture
def key(tmp_path):
    path = tmp_path / "course.key"
    assert run("keygen", "--out", str(path)).exit_code == 0
    return path


def manifest_rows(out):
    with (out / "manifest.csv").open(newline="", encoding="utf-8") as stream:
        return list(csv.reader(stream))


def test_a_redeal_with_other_settings_is_refused(tmp_path, key):
    out = tmp_path / "bundles"
    result = run("deal", "--key", str(key), "--out", str(out), "--count", "2", "--steps", STEPS)
    assert result.exit_code == 0, result.output
    settings = json.loads((out / "deal-settings.json").read_text())
    assert settings["steps"] == int(STEPS) and settings["lang"] == "en"
    assert set(settings) == {"schema", "steps", "lang", "key", "engine_version", "deck"}
    result = run("deal", "--key", str(key), "--out", str(out), "--count", "3", "--steps", "10",
                 "--lang", "es")
    assert result.exit_code == 1
    assert result.output == (f"Error: {out}: dealt with other settings (--steps {STEPS} here, 10 "
                             "now; --lang en here, es now); deal with the same settings or into "
                             "another --out folder\n")
    assert not (out / "student-03").exists()
    other = tmp_path / "other.key"
    assert run("keygen", "--out", str(other)).exit_code == 0
    result = run("deal", "--key", str(other), "--out", str(out), "--count", "3",
                 "--steps", STEPS)
    assert result.exit_code == 1 and "key fingerprint" in result.output


def test_the_manifest_only_grows(tmp_path, key):
    out = tmp_path / "bundles"
    roster = roster_of(tmp_path, "name,email\nana,ana@uni.es\nbeto,\n")
    result = run("deal", "--key", str(key), "--out", str(out), "--roster", str(roster),
                 "--steps", STEPS)
    assert result.exit_code == 0, result.output
    first = manifest_rows(out)
    assert first[0] == ["student", "code", "email", "level", "lang"]
    assert [r[0] for r in first[1:]] == ["ana", "beto"] and first[1][2] == "ana@uni.es"
    roster = roster_of(tmp_path, "carla\n")
    result = run("deal", "--key", str(key), "--out", str(out), "--roster", str(roster),
                 "--steps", STEPS)
    assert result.exit_code == 0, result.output
    rows = manifest_rows(out)
    assert rows[:3] == first and [r[0] for r in rows[1:]] == ["ana", "beto", "carla"]
    result = run("deal", "--key", str(key), "--out", str(out), "--roster",
                 str(roster_of(tmp_path, "Ana\n")), "--steps", STEPS)
    assert result.exit_code == 1
    assert "'Ana' is the same student as 'ana', already dealt in manifest.csv" in result.output
    assert manifest_rows(out) == rows


def test_a_folder_without_its_settings_is_refused_not_read_from_its_bundles(tmp_path, key):
    out = tmp_path / "bundles"
    assert run("deal", "--key", str(key), "--out", str(out), "--count", "1",
               "--steps", STEPS).exit_code == 0
    (out / "deal-settings.json").unlink()  # as an older diagnose left it
    result = run("deal", "--key", str(key), "--out", str(out), "--count", "2", "--steps", STEPS)
    assert result.exit_code == 1
    assert "but not its deal-settings.json" in result.output
    assert not (out / "student-02").exists()


def test_a_roster_level_deals_that_deck_and_a_changed_level_is_refused(tmp_path, key):
    out = tmp_path / "bundles"
    roster = roster_of(tmp_path, "name,email,level\nana,,3\nbeto,,\n")
    result = run("deal", "--key", str(key), "--out", str(out), "--roster", str(roster),
                 "--steps", STEPS, "--level", "2")
    assert result.exit_code == 0, result.output
    levels = {name: json.loads((out / name / "experiments" / "19-break-it" / "scenario.json")
                               .read_text())["level"] for name in ("ana", "beto")}
    assert levels == {"ana": 3, "beto": 2}
    assert [row[3] for row in manifest_rows(out)[1:]] == ["3", "2"]
    roster = roster_of(tmp_path, "name,level\nana,1\n")
    result = run("deal", "--key", str(key), "--out", str(out), "--roster", str(roster),
                 "--steps", STEPS)
    assert result.exit_code == 1
    assert result.output == (f"Error: {out}: ana was dealt level 3, not 1; deal with the same "
                             "settings or into another --out folder\n")


# --- grading a dealt class: the instructor's side is the truth (issue 20) ---------------------

def test_a_dealt_class_is_graded_from_the_key_and_the_manifest_alone(tmp_path, key,
                                                                     monkeypatch):
    """Issue 20's reproductions on a real deal, under issue 34's rule: the README's one-file
    command records in the ledger, deleting attempts.jsonl resets nothing, and a bundle copied
    over a classmate's is said and never believed: ana is graded against her own scenario."""
    import shutil
    from pathlib import Path

    from grading.dealt import derive
    from grading.manifest import read_manifest
    from grading.seal import read_key_file

    monkeypatch.chdir(tmp_path)
    assert run("deal", "--key", str(key), "--out", "bundles", "--roster",
               str(roster_of(tmp_path, "ana\nbob\n")), "--steps", STEPS).exit_code == 0
    secret = read_key_file(key)
    bundle = {s: os.path.join("bundles", s, "experiments", "19-break-it") for s in ("ana", "bob")}
    truth = {row.student: derive(secret, row, Path("bundles")).truth
             for row in read_manifest(Path("bundles"))}
    right = {s: "".join(f"## {i}\nDiagnosis: {slug}\n" for i, slug in truth[s].items())
             for s in bundle}
    (tmp_path / "ana.md").write_text("## 01\nDiagnosis: not sure\n")
    result = run("grade", "ana.md", "--dir", bundle["ana"], "--key", str(key))
    assert result.exit_code == 0 and "Score: 0/3" in result.output
    os.remove(os.path.join(bundle["ana"], "attempts.jsonl"))  # the student's doing
    (tmp_path / "ana.md").write_text(right["ana"])
    result = run("grade", "--key", str(key), "--bundles", "bundles", "ana.md")
    assert result.exit_code == 0
    assert result.output.startswith("ana  3/3  ana.md  (This one counts: it replaces attempt 1 "
                                    "(0/3)")

    (tmp_path / "bob.md").write_text(right["bob"])
    assert run("grade", "--key", str(key), "--bundles", "bundles", "bob.md").exit_code == 0
    shutil.rmtree(bundle["ana"])
    shutil.copytree(bundle["bob"], bundle["ana"])  # cp -a bob's bundle over ana's
    (tmp_path / "ana.md").write_text(right["bob"])  # bob's answers: not ana's truth
    result = run("grade", "--key", str(key), "--bundles", "bundles", "ana.md",
                 "--gradebook", "grades.csv")
    assert result.exit_code == 0
    codes = {row[0]: row[1] for row in manifest_rows(tmp_path / "bundles")[1:]}
    assert f"says scenario {codes['bob']} for {codes['ana']}" in result.output
    with open("grades.csv", newline="", encoding="utf-8") as stream:
        ana = next(csv.DictReader(stream))
    expected = sum(truth["ana"][i] == truth["bob"][i] for i in truth["ana"])
    assert (ana["student"], ana["code"], ana["score"]) == ("ana", codes["ana"], str(expected))


def test_a_roster_repeating_an_email_in_another_case_is_refused_naming_both_lines(tmp_path):
    """Issue 34, reproduction 8: `ana,a@x.org` and `bea,A@X.org` once dealt bea a bundle that
    Gradescope matched to ana's key."""
    roster = roster_of(tmp_path, "name,email\nana,a@x.org\nbea,A@X.org\n")
    with pytest.raises(ScenarioError) as refused:
        classroom.read_roster(roster)
    assert str(refused.value) == (f"{roster}:3: 'bea' has the email 'A@X.org', as 'ana' has "
                                  "(line 2); emails are compared without case: give each "
                                  "student their own")
