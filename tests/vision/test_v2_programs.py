"""User programs in the style of torchvision's v2 tutorials (tests/vision/v2_programs/), run
under real torch + torchvision and under ``python -m numtorch.run``: what they print (values,
boxes, types, reprs, error messages) must be the same."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = os.path.join(HERE, "v2_programs")


def _torch_env():
    # the CPU torch wheel cannot load torchvision's compiled ops: a sitecustomize that imports
    # torchvision with torch.library.register_fake briefly replaced (as conftest.py does)
    shim = os.path.join(PROGRAMS, "_torch_shim")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([shim, env.get("PYTHONPATH", "")])
    return env


def _run(args, env=None):
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.parametrize("program", ["getting_started.py", "detection.py"])
def test_program_prints_what_torchvision_prints(program):
    path = os.path.join(PROGRAMS, program)
    want = _run([path], env=_torch_env())
    got = _run(["-m", "numtorch.run", path])
    assert want.count("\n") > 10
    assert got == want
