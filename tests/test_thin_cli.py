"""The thin CLI's library side: each command's work is one call with an options object, heard
through a small report of callbacks (no click, no CliRunner here), and the command line's
modules stay small (issue 36, "A thin CLI")."""

from __future__ import annotations

import sys

import pytest

from diagnose.classroom.cluster import ClusterError, ClusterOptions
from diagnose.classroom.deal import DealOptions, DealReport, deal_class
from grading.manifest import read_manifest
from grading.seal import new_secret, write_key_file
from scenarios.errors import UsageProblem, UserError


@pytest.fixture
def key(tmp_path):
    path = tmp_path / "course.key"
    write_key_file(path, new_secret())
    return path


# --- deal -----------------------------------------------------------------------------------

def test_deal_class_deals_tells_each_student_and_resumes(tmp_path, key):
    heard: list[tuple[str, str, bool]] = []
    bars: list[tuple[int, str]] = []
    steps_seen: list[str] = []

    def progress(make, steps, title):
        bars.append((steps, title))
        return make(lambda run, record: steps_seen.append(run))

    report = DealReport(student=lambda *said: heard.append(said), progress=progress)
    out = tmp_path / "bundles"
    done = deal_class(DealOptions(key, out, count=2, steps=2), report)
    assert [name for name, _ in done.rows] == ["student-01", "student-02"]
    assert done.manifest == out / "manifest.csv" and done.seconds > 0
    assert [(row.student, row.code) for row in read_manifest(out)] == done.rows
    assert heard == [(name, code, False) for name, code in done.rows]
    assert bars == [(2, "dealing 2 scenarios")]
    assert {run.split("/")[0] for run in steps_seen} == {"student-01", "student-02"}
    heard.clear()
    again = deal_class(DealOptions(key, out, count=2, steps=2), report)  # nothing to train
    assert again.rows == done.rows
    assert heard == [(name, code, True) for name, code in done.rows]


def test_deal_class_without_a_report_is_silent_and_refuses_before_training(tmp_path, key):
    out = tmp_path / "bundles"
    roster = tmp_path / "roster.csv"
    roster.write_text("ana,ana@example.org,9\n", encoding="utf-8")
    with pytest.raises(UserError, match="level"):
        deal_class(DealOptions(key, out, roster=roster, steps=1))
    assert not out.exists()


@pytest.mark.parametrize(("roster", "count"), [(None, None), ("roster.csv", 3)])
def test_deal_options_take_exactly_one_of_a_roster_or_a_count(tmp_path, key, roster, count):
    with pytest.raises(UsageProblem, match="exactly one of --roster FILE or --count N"):
        DealOptions(key, tmp_path, roster=roster and tmp_path / roster, count=count)


def test_a_deal_on_a_cluster_without_dask_is_one_clear_error(tmp_path, key, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails
    out = tmp_path / "bundles"
    with pytest.raises(ClusterError, match="needs dask.distributed, which is not installed"):
        deal_class(DealOptions(key, out, count=1, steps=1,
                               cluster=ClusterOptions("tcp://127.0.0.1:8786")))
    assert not (out / "manifest.csv").exists()  # nothing dealt


def test_a_deal_on_an_unreachable_cluster_deals_nothing(tmp_path, key):
    out = tmp_path / "bundles"
    warned: list[str] = []
    with pytest.raises(ClusterError, match="127.0.0.1:1"):
        deal_class(DealOptions(key, out, count=1, steps=1, cluster=ClusterOptions(
            "tcp://127.0.0.1:1", connect_timeout=2)), DealReport(warning=warned.append))
    assert not (out / "manifest.csv").exists() and warned == []
