"""A user training loop over the new datasets (tests/vision/datasets_a_programs/), run under
real torch + torchvision 0.28 and under ``python -m numtorch.run``: the printed reprs,
classes, errors, batches and losses must be the same."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAM = os.path.join(HERE, "datasets_a_programs", "fine_tune_loop.py")
SHIM = os.path.join(HERE, "v2_programs", "_torch_shim")


def _run(args, env=None):
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_training_loop_prints_what_torchvision_prints():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SHIM, os.environ.get("PYTHONPATH", "")]))
    want = _run([PROGRAM], env=env)
    got = _run(["-m", "numtorch.run", PROGRAM])
    assert want.count("\n") > 8
    # the dataset reprs name the temporary root, which differs between the two runs
    strip = lambda out: "\n".join(l for l in out.splitlines() if "Root location" not in l)  # noqa: E731,E741
    assert strip(got) == strip(want)
