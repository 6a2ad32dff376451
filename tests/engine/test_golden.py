"""The whole model against a committed golden fixture, tensor by tensor, without PyTorch.

`golden.npz` holds PyTorch's loss and gradients (written by `torch_gpt.write_golden`, an
implementation independent of the engine) for the tiny float64 model on a fixed batch with
pads and ignored targets, under both masks. This runs everywhere; test_torch.py needs torch.
"""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from diagnose.engine import loss_and_grads
from diagnose.engine.model import param_shapes

from .helpers import tiny_config

GOLDEN = Path(__file__).with_name("golden.npz")


@pytest.mark.parametrize("mask", ["causal", "full"])
def test_loss_and_grads_match_the_golden_fixture(mask):
    golden = np.load(GOLDEN)
    config = dataclasses.replace(tiny_config(), attention_mask=mask)
    params = {name: golden[f"param/{name}"] for name in param_shapes(config)}
    loss, grads = loss_and_grads(params, golden["x"], golden["y"], config)
    assert loss == pytest.approx(float(golden[f"{mask}/loss"]), rel=1e-12), "loss"
    for name, grad in grads.items():
        np.testing.assert_allclose(grad, golden[f"{mask}/grad/{name}"], rtol=1e-9, atol=1e-13,
                                   err_msg=f"{mask} mask: gradient of {name}")
