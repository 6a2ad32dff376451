"""The engine tests' hypothesis profile and shared fixtures.

Property tests use `settings.get_profile("engine")`: derandomized (the same examples on every
run, as numpy's conftest does) unless DIAGNOSE_HYPOTHESIS=random (tests/conftest.py); 25
examples a test, so the whole folder stays fast on one core (ENGINE_EXAMPLES=500 for a longer
hunt).
"""

import os

import pytest
from hypothesis import HealthCheck, settings

import scenarios
from diagnose.engine.runtime import tune_process

settings.register_profile(
    "engine", derandomize=os.environ.get("DIAGNOSE_HYPOTHESIS") != "random", deadline=None,
    print_blob=True,
    max_examples=int(os.environ.get("ENGINE_EXAMPLES", 25)),
    suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="session")
def healthy():
    """The catalog's healthy config (float32, the lab's model and training)."""
    return scenarios.healthy_config()


@pytest.fixture(scope="session", autouse=True)
def tuned_process():
    """Run the tests as the engine trains: single-threaded BLAS, freed memory kept."""
    tune_process()
