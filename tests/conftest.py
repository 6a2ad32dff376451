"""Shared test setup: a derandomized hypothesis profile for CI, and a private DIAGNOSE_HOME.

Every test runs with DIAGNOSE_HOME pointing into its own tmp dir, so no test can touch the
real home directory, even by accident.
"""

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("diagnose-home")
    monkeypatch.setenv("DIAGNOSE_HOME", str(home))
    return home
