"""bench/programs' harness on small self-contained programs (tests/run_programs), under real
torch and under ``python -m numtorch.run``: the patterns of the real clients it runs."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = REPO / "tests" / "run_programs"
TIMED = REPO / "bench" / "programs" / "_timed.py"
ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
           PYTHONPATH=str(REPO))


def _run(lib, args, cwd, env=ENV):
    cmd = [sys.executable] + (["-m", "numtorch.run"] if lib == "numtorch" else []) + args
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_timed_runs_unseeded_program_to_torchs_losses(tmp_path):
    runs = {}
    for lib in ("torch", "numtorch"):
        record = tmp_path / f"{lib}.json"
        out = _run(lib, [str(TIMED), str(record), "torch", str(PROGRAMS / "loss_curve.py")],
                   tmp_path)
        runs[lib] = [float(v) for v in re.findall(r"loss ([\d.]+)", out)]
        timing = json.loads(record.read_text())
        times = [t for t, line in timing["lines"] if "loss" in line]
        assert len(times) == 30 and times == sorted(times)
        assert timing["start"] <= times[0] <= timing["end"]
    assert len(runs["torch"]) == 30
    assert runs["numtorch"] == pytest.approx(runs["torch"], rel=1e-5, abs=1e-6)
    # the same program, run twice, prints the same: the seeding happened before it
    again = _run("numtorch", [str(TIMED), str(tmp_path / "again.json"), "torch",
                              str(PROGRAMS / "loss_curve.py")], tmp_path)
    assert [float(v) for v in re.findall(r"loss ([\d.]+)", again)] == runs["numtorch"]


@pytest.mark.parametrize("force", ["", "1"])
def test_numpy_array_checkpoint_as_torch(tmp_path, force):
    env = dict(ENV, TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=force)
    outs = [_run(lib, [str(PROGRAMS / "numpy_checkpoint.py"), str(tmp_path / f"{lib}.pt")],
                 tmp_path, env) for lib in ("torch", "numtorch")]
    assert outs[0] == outs[1]
    assert ("loaded:" if force else "refused:") in outs[0]


def test_fabricated_data_is_deterministic(tmp_path):
    sys.path.insert(0, str(REPO / "bench" / "programs"))
    try:
        import fabricate
    finally:
        sys.path.pop(0)
    import numpy as np

    for d in ("a", "b"):
        fabricate.mnist(str(tmp_path / d), np.random.default_rng(1234))
        fabricate.wikitext(str(tmp_path / d), np.random.default_rng(1234))
    for rel in ("mnist/MNIST/raw/train-images-idx3-ubyte", "mnist/MNIST/raw/t10k-labels-idx1-ubyte",
                "wikitext-2/train.txt"):
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    raw = (tmp_path / "a" / "mnist/MNIST/raw/train-labels-idx1-ubyte").read_bytes()
    assert raw[:4] == b"\x00\x00\x08\x01" and int.from_bytes(raw[4:8], "big") == len(raw) - 8
