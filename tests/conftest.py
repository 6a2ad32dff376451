"""Shared test setup: hypothesis's examples the same on every run, a private DIAGNOSE_HOME, the
garbage collector tuned for a test process, and the project's bytecode written once a session.

Hypothesis: the README's test command runs the same examples on every run and every machine
(derandomized), so a fresh clone is green or red for its code, not for its luck. A random
search is a choice: `DIAGNOSE_HYPOTHESIS=random python -m pytest` (one found that a log axis
labelled seven values where it had room for one; `tests/test_ticks.py` keeps that example).

Every test runs with DIAGNOSE_HOME pointing into its own tmp dir, so no test can touch the
real home directory, even by accident.

The collector: the TUI tests build and drop thousands of widgets, and Textual's bounded caches
keep their styles alive, so a test process's heap grows past 200,000 objects; with Python's
default thresholds its full collections took 12 of the two biggest TUI modules' 37 CPU-s.
After collection every object pytest made is frozen (never scanned again) and the collector
runs less often; a test process has memory to spare. The app and the training processes keep
Python's defaults.

The order: xdist hands each worker one unit of work at a time, in the order the units are
collected (`--dist loadgroup`: every test is marked with its unit as its `xdist_group`), so the
suite lasts at least as long as the unit started last plus its own length. A unit is a file, or
the part of a file that shares one costly module fixture (`SPLIT_BY_FIXTURE`: test_cluster's
LocalCluster starts four processes), or a share of a long file of independent tests
(`SPLIT_IN_PARTS`), so that no worker carries two long units end to end. Units are collected
longest first (longest-processing-time scheduling): each unit's seconds are measured by
every run and kept in pytest's cache (`UNIT_SECONDS_KEY`); a unit no run has measured yet
takes its figure from `FIRST_RUN_SECONDS`, measured once on two idle cores. Inside a unit the
order is the file's. pyproject passes `--no-loadscope-reorder` so that xdist keeps this order
instead of sorting units by their number of tests.

The bytecode: where PYTHONDONTWRITEBYTECODE is set (CI images, this project's machines), every
process the suite starts (the xdist workers, each `python -m diagnose`, `dask worker`, venv and
training process) compiled our three packages from source, about 0.1 CPU-s each. The controller
(or the only process) compiles them once into their `__pycache__` (ignored by git, skipped by
both wheel builders); Python reads a cached file only while its source is unchanged, and the
setting still keeps every other process from writing one. The pytest processes themselves
write their bytecode: pytest rewrites the asserts of every test module and of the test
plugins' packages (hypothesis's 73 modules, imported below) before it runs them, and with
the setting each worker rewrote and compiled about 190 modules again on every run, 2.2 CPU-s
of its 3.4 CPU-s of collection. pytest keeps what it rewrote beside the source, as it does
everywhere (`__pycache__/*.pyc` with its own tag, read back only while the source is
unchanged): the controller writes hypothesis's as it imports this file, before the workers
start; the first worker to collect a test module writes it for every later run.
"""

import sys

sys.dont_write_bytecode = False  # this process's bytecode and pytest's rewrites (docstring)

import compileall  # noqa: E402
import gc  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
from collections import defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from budget import RANDOM_EXAMPLES, SAME_DEFAULT  # noqa: E402  (tests/budget.py)
from hypothesis import settings  # noqa: E402

from scenarios.catalog import DECK_SETTING  # noqa: E402
from scenarios.levels import LEVELS_SETTING  # noqa: E402

settings.register_profile("same", derandomize=True, deadline=None, print_blob=True,
                          max_examples=SAME_DEFAULT)
settings.register_profile("random", deadline=None, print_blob=True)
settings.load_profile("random" if RANDOM_EXAMPLES else "same")

PACKAGES = ("diagnose", "grading", "scenarios")  # compiled once a session (module docstring)


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        return  # an xdist worker: the controller compiled them before it started the workers
    root = Path(__file__).resolve().parents[1]
    for package in PACKAGES:
        compileall.compile_dir(root / package, quiet=2, workers=1)


GC_THRESHOLDS = (50_000, 20, 20)  # Python's defaults are (700, 10, 10)

UNIT_SECONDS_KEY = "diagnose/unit-seconds"
# Seconds per unit for a clone no run has measured yet (a run on two idle cores,
# 2026-12-05: only their order matters); units not listed count as 0 and keep their
# collection order after these.
FIRST_RUN_SECONDS = {
    "tests/test_cluster.py:local_cluster": 14.5,
    "tests/test_gradescope.py": 13.7,
    "tests/tui/test_app.py:1": 12.6,
    "tests/test_packaging.py": 11.9,
    "tests/tui/test_second_newcomer.py": 11.3,
    "tests/tui/test_level_four.py": 11.1,
    "tests/tui/test_keys_pty.py": 11.1,
    "tests/test_cluster.py": 10.2,
    "tests/tui/test_form_keys.py": 9.8,
    "tests/tui/test_newcomer.py": 8.7,
    "tests/tui/test_levels_tui.py": 8.6,
    "tests/tui/test_app.py:2": 8.2,
    "tests/test_dashboard.py": 7.9,
    "tests/tui/test_reveal_in_app.py": 7.4,
    "tests/test_own_runs_live.py": 7.2,
    "tests/tui/test_watch.py": 6.8,
    "tests/test_platform.py": 6.1,
    "tests/grading/test_grading_properties.py": 6.0,
    "tests/test_levels.py": 5.7,
    "tests/test_classroom_records.py": 5.5,
    "tests/test_sizes.py": 4.8,
    "tests/tui/test_rows.py": 4.8,
    "tests/test_promises.py": 4.7,
    "tests/tui/test_small_screen.py": 4.6,
    "tests/tui/test_snapshots.py": 4.0,
    "tests/tui/test_course_deck_tui.py": 3.8,
    "tests/test_scenario.py": 3.6,
    "tests/test_classroom.py": 3.0,
    "tests/test_instructor_week.py": 2.9,
    "tests/test_course_deck.py": 2.7,
    "tests/test_metrics.py": 2.5,
    "tests/test_show.py": 2.4,
    "tests/engine/test_train.py": 2.4,
    "tests/tui/test_watch_live.py": 2.4,
    "tests/test_own_runs.py": 2.3,
    "tests/grading/test_grading_trust.py": 2.1,
    "tests/test_catalog_bounds.py": 2.1,
    "tests/tui/test_whatif_reads.py": 2.1,
    "tests/grading/test_manifest.py": 2.0,
    "tests/test_reading_fuzz.py": 2.0,
    "tests/test_catalog.py": 1.8,
    "tests/test_lint.py": 1.8,
    "tests/test_fidelity.py": 1.7,
    "tests/test_words.py": 1.5,
    "tests/tui/test_words_tui.py": 1.5,
    "tests/test_levels_as_data.py": 1.5,
    "tests/test_phrases.py": 1.4,
    "tests/test_fields.py": 1.4,
    "tests/grading/test_grading_ledger.py": 1.2,
    "tests/grading/test_grading_collect.py": 1.2,
    "tests/tui/test_spanish_keys.py": 1.2,
    "tests/engine/test_instruments.py": 1.1,
    "tests/grading/test_grading_linear.py": 1.1,
    "tests/tui/test_footer.py": 1.1,
    "tests/tui/test_play_levels_cli.py": 1.1,
    "tests/engine/test_model.py": 1.0,
    "tests/grading/test_grading_speed.py": 1.0,
    "tests/test_shape.py": 1.0,
}
# file -> module fixtures: the tests that use one of them are a unit of their own
SPLIT_BY_FIXTURE = {
    "tests/test_cluster.py": ("local_cluster",),
}
SPLIT_IN_PARTS = {"tests/tui/test_app.py": 2}  # file -> parts, each a run of its tests


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def units_of(items) -> dict[str, str]:
    """Each test's unit (by node id), from the tables above."""
    by_file: defaultdict[str, list] = defaultdict(list)
    for item in items:
        by_file[file_of(item.nodeid)].append(item)
    units = {}
    for file, tests in by_file.items():
        parts = SPLIT_IN_PARTS.get(file, 1)
        for index, item in enumerate(tests):
            fixtures = [f for f in SPLIT_BY_FIXTURE.get(file, ()) if f in item.fixturenames]
            units[item.nodeid] = (f"{file}:{fixtures[0]}" if fixtures else
                                  f"{file}:{index * parts // len(tests) + 1}" if parts > 1 else
                                  file)
    return units


_unit_of_test: dict[str, str] = {}


def unit_of_report(nodeid: str) -> str:
    """A report's unit: xdist's workers append `@<group>` to the node id (its rule: an `@`
    after any `]`); a run without xdist names it in `_unit_of_test`."""
    if nodeid.rfind("@") > nodeid.rfind("]"):
        return nodeid.rsplit("@", 1)[1]
    return _unit_of_test.get(nodeid, file_of(nodeid))


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the marks into the node ids
def pytest_collection_modifyitems(session, config, items):
    """The longest units first; a stable sort keeps each unit's own order."""
    units = units_of(items)
    _unit_of_test.update(units)
    if config.pluginmanager.hasplugin("xdist"):
        for item in items:
            item.add_marker(pytest.mark.xdist_group(units[item.nodeid]))
    seconds = dict(FIRST_RUN_SECONDS)
    if getattr(config, "cache", None) is not None:
        seconds.update(config.cache.get(UNIT_SECONDS_KEY, {}))
    items.sort(key=lambda item: -seconds.get(units[item.nodeid], 0.0))


_measured: defaultdict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report):
    """Setup, call and teardown of every test (the main process sees the workers' reports)."""
    _measured[unit_of_report(report.nodeid)] += report.duration


def pytest_sessionfinish(session, exitstatus):
    cache = getattr(session.config, "cache", None)
    if cache is None or not _measured or hasattr(session.config, "workerinput"):
        return  # an xdist worker leaves the writing to the main process
    seconds = cache.get(UNIT_SECONDS_KEY, {})
    seconds.update({name: round(total, 1) for name, total in _measured.items()})
    cache.set(UNIT_SECONDS_KEY, seconds)


def pytest_collection_finish(session):
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("diagnose-home")
    monkeypatch.setenv("DIAGNOSE_HOME", str(home))
    forget_settings(monkeypatch)
    return home


@pytest.fixture
def fixture_course(tmp_path, private_home, monkeypatch):
    """The TUI's 40-step fixture scenario (tests/tui/data) in a course folder,
    tmp_path/experiments/19-break-it, the working directory, with its self-study key."""
    data = Path(__file__).resolve().parent / "tui" / "data"
    shutil.copyfile(data / "home" / "self-study.key", private_home / "self-study.key")
    os.chmod(private_home / "self-study.key", 0o600)
    ws = Path(shutil.copytree(data / "scenario", tmp_path / "experiments" / "19-break-it"))
    monkeypatch.chdir(tmp_path)
    return ws


def forget_settings(monkeypatch) -> None:
    """No course deck or levels file unless a test sets one, and none after it: `--deck` sets
    the variable itself. (delenv of an absent variable records nothing to undo, so the setenv
    first: its undo removes whatever the test left, before the next module's fixtures read
    the catalog; a random hypothesis run found a course deck's break in the fidelity deck.)"""
    for setting in (DECK_SETTING, LEVELS_SETTING):
        monkeypatch.setenv(setting, "")
        monkeypatch.delenv(setting)
