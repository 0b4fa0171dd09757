"""Short user programs over torchvision's whole surface (v1 transforms on PIL images and
tensors, v2 with boxes/masks/videos, ops, models, utils, datasets and DataLoader, flow and
segmentation helpers, error messages), kept in tests/vision/s42_programs/. Each runs under
real torch + torchvision and under ``python -m numtorch.run``; their output must be equal."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = os.path.join(HERE, "s42_programs")
SHIM = os.path.join(HERE, "v2_programs", "_torch_shim")


def _run(args, env=None):
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _torch_env():
    # the CPU torch wheel cannot load torchvision's compiled ops without the shim
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([SHIM, env.get("PYTHONPATH", "")])
    return env


@pytest.mark.parametrize("program", sorted(p for p in os.listdir(PROGRAMS) if p.endswith(".py")))
def test_program_prints_what_torchvision_prints(program):
    path = os.path.join(PROGRAMS, program)
    want = _run([path], env=_torch_env())
    got = _run(["-m", "numtorch.run", path])
    assert want.count("\n") >= 5
    assert got == want
