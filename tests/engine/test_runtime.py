"""The thread's arithmetic mode the engine trains in: subnormals flushed to zero inside a step
and in the engine's helper threads, the caller's own mode untouched (runtime.py)."""

from __future__ import annotations

import dataclasses
import threading

import numpy as np
import pytest

from diagnose.engine import Trainer
from diagnose.engine.runtime import denormals_flushable, denormals_flushed

pytestmark = pytest.mark.skipif(not denormals_flushable(),
                                reason="no known way to flush subnormals on this machine")

TINY = np.float32(1e-38)  # a normal float32 whose half is subnormal


def halved() -> float:
    return float(TINY * np.float32(0.5))


def test_the_block_flushes_and_the_thread_gets_its_own_mode_back():
    assert halved() > 0
    with denormals_flushed():
        assert halved() == 0.0
        with denormals_flushed():
            assert halved() == 0.0
        assert halved() == 0.0           # the inner block restored the outer block's mode
    assert halved() > 0


def test_an_error_inside_the_block_restores_the_mode():
    with pytest.raises(ZeroDivisionError), denormals_flushed():
        1 / 0  # noqa: B018
    assert halved() > 0


def test_a_running_thread_keeps_its_own_mode():
    go, seen = threading.Event(), []
    worker = threading.Thread(target=lambda: go.wait(10) and seen.append(halved()))
    worker.start()
    with denormals_flushed():
        go.set()
        worker.join()
    assert seen and seen[0] > 0


def test_a_step_flushes_in_the_engine_and_leaves_the_caller_as_it_was(healthy):
    config = dataclasses.replace(healthy, steps=3)
    trainer = Trainer(config, 0)
    seen = []
    trainer._pool.submit(lambda: seen.append(halved())).result()   # a helper thread
    trainer.step()
    assert seen == [0.0]
    assert halved() > 0
