"""Short user programs over torchvision's whole surface (v1 transforms on PIL images and
tensors, v2 with boxes/masks/videos, ops, models, utils, datasets and DataLoader, flow and
segmentation helpers, error messages), kept in tests/vision/s42_programs/. Each runs under
real torch + torchvision and under ``python -m numtorch.run``; their output must be equal."""

import os

import pytest

from .test_v2_programs import HERE, _run, _torch_env

PROGRAMS = os.path.join(HERE, "s42_programs")


@pytest.mark.parametrize("program", sorted(p for p in os.listdir(PROGRAMS) if p.endswith(".py")))
def test_program_prints_what_torchvision_prints(program):
    path = os.path.join(PROGRAMS, program)
    want = _run([path], env=_torch_env())
    got = _run(["-m", "numtorch.run", path])
    assert want.count("\n") >= 5
    assert got == want
