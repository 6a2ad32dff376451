"""Shared test setup: a derandomized hypothesis profile for CI, a private DIAGNOSE_HOME, and
the garbage collector tuned for a test process.

Every test runs with DIAGNOSE_HOME pointing into its own tmp dir, so no test can touch the
real home directory, even by accident.

The collector: the TUI tests build and drop thousands of widgets, and Textual's bounded caches
keep their styles alive, so a test process's heap grows past 200,000 objects; with Python's
default thresholds its full collections took 12 of the two biggest TUI modules' 37 CPU-s.
After collection every object pytest made is frozen (never scanned again) and the collector
runs less often; a test process has memory to spare. The app and the training processes keep
Python's defaults.

The order: xdist's `--dist loadfile` hands each worker one file at a time, in the order the
files are collected, so the suite lasts at least as long as the file started last plus its own
length. Files are collected longest first (longest-processing-time scheduling): each file's
seconds are measured by every run and kept in pytest's cache (`FILE_SECONDS_KEY`); a file no run
has measured yet takes its figure from `FIRST_RUN_SECONDS`, measured once on two idle cores.
Inside a file the order is unchanged. pyproject passes `--no-loadscope-reorder` so that xdist
keeps this order instead of sorting files by their number of tests.
"""

import gc
import os
from collections import defaultdict

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

GC_THRESHOLDS = (50_000, 20, 20)  # Python's defaults are (700, 10, 10)

FILE_SECONDS_KEY = "diagnose/file-seconds"
# Seconds per file for a clone no run has measured yet (rough, 2026-12-03: only their order
# matters); files not listed count as 0 and keep their collection order after these.
FIRST_RUN_SECONDS = {
    "tests/test_fidelity.py": 70.0,
    "tests/tui/test_app.py": 35.0,
    "tests/test_gradescope.py": 15.0,
    "tests/test_cluster.py": 15.0,
    "tests/tui/test_levels_tui.py": 15.0,
    "tests/test_scenario.py": 14.0,
    "tests/tui/test_newcomer.py": 12.0,
    "tests/tui/test_second_newcomer.py": 10.0,
    "tests/test_classroom.py": 10.0,
    "tests/test_packaging.py": 9.0,
    "tests/test_classroom_records.py": 9.0,
    "tests/test_levels.py": 8.0,
    "tests/tui/test_course_deck_tui.py": 8.0,
    "tests/test_course_deck.py": 5.0,
}


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(session, config, items):
    """The longest files first; a stable sort keeps each file's own order."""
    seconds = dict(FIRST_RUN_SECONDS)
    if getattr(config, "cache", None) is not None:
        seconds.update(config.cache.get(FILE_SECONDS_KEY, {}))
    items.sort(key=lambda item: -seconds.get(file_of(item.nodeid), 0.0))


_measured: defaultdict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report):
    """Setup, call and teardown of every test (the main process sees the workers' reports)."""
    _measured[file_of(report.nodeid)] += report.duration


def pytest_sessionfinish(session, exitstatus):
    cache = getattr(session.config, "cache", None)
    if cache is None or not _measured or hasattr(session.config, "workerinput"):
        return  # an xdist worker leaves the writing to the main process
    seconds = cache.get(FILE_SECONDS_KEY, {})
    seconds.update({name: round(total, 1) for name, total in _measured.items()})
    cache.set(FILE_SECONDS_KEY, seconds)


def pytest_collection_finish(session):
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("diagnose-home")
    monkeypatch.setenv("DIAGNOSE_HOME", str(home))
    # no course deck unless a test sets one (and `--deck` setting it is undone after the test)
    monkeypatch.delenv("DIAGNOSE_DECK", raising=False)
    return home
