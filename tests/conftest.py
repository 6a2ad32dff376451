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
"""

import gc
import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

GC_THRESHOLDS = (50_000, 20, 20)  # Python's defaults are (700, 10, 10)


def pytest_collection_finish(session):
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("diagnose-home")
    monkeypatch.setenv("DIAGNOSE_HOME", str(home))
    return home
