"""The thin CLI's library side: each command's work is one call with an options object, heard
through a small report of callbacks (no click, no CliRunner here), and the command line's
modules stay small (issue 36, "A thin CLI")."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.classroom.answers import RevealClassOptions, reveal_to_class
from diagnose.classroom.cluster import ClusterError, ClusterOptions
from diagnose.classroom.deal import DealOptions, DealReport, deal_class
from diagnose.classroom.grading import (
    ClassOutputs,
    GradeClassOptions,
    GradeFileOptions,
    grade_class_files,
    grade_file,
)
from diagnose.cli import cli
from diagnose.game.dealing import planned_runs
from diagnose.game.progress import choose_level_to_play, load_progress
from diagnose.game.routes import Route
from diagnose.game.scenario import ScenarioSpec
from diagnose.game.self_study import NewOptions, RevealOptions, new_scenario, reveal_self_study
from diagnose.home import self_study_secret
from diagnose.workspace import open_workspace
from grading.grade import open_key, read_scenario
from grading.layout import level_dir
from grading.manifest import read_manifest
from grading.seal import new_secret, write_key_file
from scenarios import breaks
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

    def progress(make, labels, steps, title):
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


# --- grade ----------------------------------------------------------------------------------


def diagnoses(folder: Path, ws: Path, name: str = "ana-diagnoses.md") -> Path:
    truth = open_key(read_scenario(ws), self_study_secret())
    path = folder / name
    path.write_text("<!-- scenario: TUI-FIXTURE -->\n" + "".join(
        f"## {rid}\nDiagnosis: {slug}\n" for rid, slug in truth.items()))
    return path


def test_grade_file_takes_the_route_its_options_choose(fixture_course, tmp_path):
    file = diagnoses(tmp_path, fixture_course)
    checked = grade_file(GradeFileOptions(file, check=True))
    assert checked.route is Route.CHECK and checked.check is not None
    assert checked.self_study is None  # nothing kept
    assert not open_workspace(fixture_course).revealed
    asked: list[str] = []
    graded = grade_file(GradeFileOptions(file, lang="es"),
                        lambda scenario: asked.append(scenario.code))
    assert graded.route is Route.SELF_STUDY and asked == ["TUI-FIXTURE"]
    assert graded.self_study is not None and graded.self_study.report.score == 3
    assert graded.self_study.solutions is not None and graded.self_study.solutions.is_file()


def test_a_self_study_grading_stopped_before_it_records_keeps_nothing(fixture_course, tmp_path):
    class No(Exception):
        pass

    def refuse(scenario):
        raise No

    with pytest.raises(No):
        grade_file(GradeFileOptions(diagnoses(tmp_path, fixture_course)), refuse)
    assert not open_workspace(fixture_course).revealed and load_progress()[0][1].scenarios == {}


def test_grade_file_without_a_scenario_says_pass_dir(tmp_path, private_home, monkeypatch):
    monkeypatch.chdir(tmp_path)
    file = tmp_path / "ana-diagnoses.md"
    file.write_text("## 01\nDiagnosis: healthy\n")
    with pytest.raises(UserError, match="no scenario found next to .*; pass --dir"):
        grade_file(GradeFileOptions(file))
    assert grade_file(GradeFileOptions(file, check=True)).check is not None


def test_grade_class_files_grades_a_folder_of_files_and_writes_the_gradebook(tmp_path, key):
    bundles = tmp_path / "bundles"
    ((student, code),) = deal_class(DealOptions(key, bundles, count=1, steps=2)).rows
    inbox = tmp_path / "submission_123456"  # an LMS's submission folder: the files in it
    inbox.mkdir()
    (inbox / f"{student}-diagnoses.md").write_text(f"<!-- scenario: {code} -->\n## 01\nDiagnosis: "
                                        "healthy\n")
    book = tmp_path / "grades.csv"
    result = grade_class_files(GradeClassOptions((inbox,), bundles, key,
                                                 outputs=ClassOutputs(gradebook=book)))
    assert [(g.student, g.error) for g in result.graded] == [(student, "")]
    assert result.students == 1 and result.failed == 0 and book.is_file()
    rebuilt = grade_class_files(GradeClassOptions((), bundles, key,
                                                  outputs=ClassOutputs(gradebook=book)))
    assert rebuilt.graded == [] and rebuilt.students == 1


# --- reveal ---------------------------------------------------------------------------------

def test_reveal_self_study_reveals_and_writes_each_what_if_page(fixture_course, private_home):
    from tests.tui.conftest import deal_again

    deal_again(fixture_course, private_home, 3)  # the same deal, short: each dose trains 3 steps
    trained: list[tuple[list[str], int, str]] = []
    pages: list[tuple[str, Path]] = []

    def progress(make, labels, steps, title):
        trained.append((labels, steps, title))
        return make(None)

    revealed = reveal_self_study(RevealOptions(fixture_course, "es", what_if=True), progress,
                                 lambda run, page: pages.append((run, page)))
    truth = open_key(read_scenario(fixture_course), self_study_secret())
    assert revealed.assignment == truth and revealed.solutions.is_file()
    assert open_workspace(fixture_course).revealed
    assert revealed.titles("es") == {rid: breaks(revealed.level)[slug].title["es"]
                                     for rid, slug in truth.items()}
    assert pages and all(page.is_file() and run in truth for run, page in pages)
    assert [title for _, _, title in trained] == [f"¿y si…? {run}" for run, _ in pages]
    again: list[str] = []
    reveal_self_study(RevealOptions(fixture_course, "en", what_if=True),
                      lambda make, labels, steps, title: again.append(title))
    assert again == []  # every dose cached: nothing trains twice


def test_reveal_self_study_refuses_an_instructors_bundle(tmp_path, key):
    ((student, _),) = deal_class(DealOptions(key, tmp_path / "bundles", count=1, steps=2)).rows
    bundle = tmp_path / "bundles" / student / "experiments" / "19-break-it"
    with pytest.raises(UserError, match="dealt by an instructor"):
        reveal_self_study(RevealOptions(bundle))
    handed = reveal_to_class(RevealClassOptions(key, tmp_path / "bundles",
                                                out=tmp_path / "back"))
    assert list(handed.files) == [student] and handed.files[student].is_file()
    assert handed.files[student].parent == tmp_path / "back" / student


# --- new and play's level -------------------------------------------------------------------

def test_new_scenario_makes_the_spec_under_the_callers_bars(tmp_path, private_home):
    heard: list[tuple[tuple[str, ...], int, str]] = []

    def progress(make, labels, steps, title):
        heard.append((tuple(labels), steps, title))
        return make(None)

    target = tmp_path / "ws"
    spec = ScenarioSpec(code="week-3", steps=2, lang="es", level=2)
    made = new_scenario(NewOptions(target, spec, jobs=1), progress)
    assert (made.workspace.code, made.workspace.level, made.workspace.steps) == ("week-3", 2, 2)
    assert made.workspace.path == target and made.seconds > 0
    assert heard == [(planned_runs(level=2), 2, "escenario week-3")]
    assert tuple(made.workspace.runs) == planned_runs(level=2)
    with pytest.raises(UserError, match="--force"):
        new_scenario(NewOptions(target, spec, jobs=1))
    again = new_scenario(NewOptions(target, spec, jobs=1, force=True))  # silent without bars
    assert again.workspace.code == "week-3"


def test_choose_level_to_play_says_the_first_level_not_passed(tmp_path, private_home):
    told: list[str] = []
    base = tmp_path / "experiments" / "19-break-it"
    assert choose_level_to_play(base, None, "en", tell=told.append) == (base, 1)
    assert told == ["Level 1 (the first not passed yet; --level N plays another)."]
    told.clear()
    assert choose_level_to_play(base, 2, "en", tell=told.append) == (level_dir(2, base), 2)
    assert told == []


@pytest.mark.parametrize("fresh", [True, False])
def test_a_failed_scenario_is_kept_aside_only_when_a_fresh_one_is_wanted(fixture_course, tmp_path,
                                                                       fresh):
    truth = open_key(read_scenario(fixture_course), self_study_secret())
    wrong = tmp_path / "ana-diagnoses.md"
    slugs = list(truth.values())
    wrong.write_text("<!-- scenario: TUI-FIXTURE -->\n" + "".join(
        f"## {rid}\nDiagnosis: {slug}\n" for rid, slug in zip(truth, slugs[1:] + slugs[:1],
                                                              strict=True)))
    grade_file(GradeFileOptions(wrong))
    told: list[str] = []
    asked: list[str] = []
    chosen = choose_level_to_play(fixture_course, 1, "en", tell=told.append,
                                  fresh_wanted=lambda q: asked.append(q) or fresh)
    assert chosen == (fixture_course, 1) and len(asked) == 1
    assert "holds scenario TUI-FIXTURE, graded 0/3" in asked[0]
    kept = fixture_course.parent / "previous" / "TUI-FIXTURE"
    assert kept.is_dir() is fresh and (fixture_course / "scenario.json").exists() is not fresh
    assert told == ([f"Kept in {kept}."] if fresh else [])


# --- what only the command line knows -------------------------------------------------------

@pytest.mark.parametrize("given", list(itertools.product((False, True), repeat=3)))
def test_deal_pairs_the_tls_files_before_anything_is_read(tmp_path, given):
    """--tls-ca-file and --tls-cert go together (--tls-key only beside --tls-cert): any other
    combination is bad usage (exit 2), refused before the key (missing here) is read."""
    pem = tmp_path / "x.pem"
    pem.write_text("not read")
    flags = [arg for flag, on in zip(("--tls-ca-file", "--tls-cert", "--tls-key"), given,
                                     strict=True) if on for arg in (flag, str(pem))]
    result = CliRunner().invoke(cli, ["deal", "--key", str(tmp_path / "none.key"), "--out",
                                      str(tmp_path / "out"), "--count", "1", "--scheduler",
                                      "tls://127.0.0.1:1", *flags])
    ca, cert, key = given
    paired = ca == cert and (cert or not key)
    assert result.exit_code == (1 if paired else 2), result.output
    assert ("no such key file" in result.output) is paired
    assert not (tmp_path / "out").exists()
