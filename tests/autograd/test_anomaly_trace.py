"""Anomaly mode's "Traceback of forward call" shows the user's frames as torch's does: no
frames of the ``python -m numtorch.run`` launcher before the program, none of numtorch's
internals after the user's call (torch's ops have no Python frames)."""

import os
import re
import subprocess
import sys

import pytest

PROGRAM = '''
import torch


def blow_up(q):
    return torch.sqrt(q - 2)


def main():
    q = torch.tensor([1.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        try:
            {expr}.sum().backward()
        except RuntimeError as e:
            print("raised", e)


main()
'''


def _trace(stderr):
    text = stderr.split("Traceback of forward call that caused the error:\n", 1)[1]
    frames = []
    for line in text.splitlines():
        if not line.startswith("  "):
            break
        frames.append(line.strip())
    return frames


@pytest.mark.parametrize("expr", ["q.sqrt().neg().sqrt()", "blow_up(q)", "(-q).pow(0.5)"])
def test_trace_is_the_users_frames(tmp_path, expr):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM.format(expr=expr))
    env = dict(os.environ, PYTHONWARNINGS="default")
    env.pop("PYTHONPATH", None)
    ran = {}
    for lib, cmd in (("torch", [sys.executable, str(prog)]),
                     ("numtorch", [sys.executable, "-m", "numtorch.run", str(prog)])):
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=300, check=False)
        assert p.returncode == 0, p.stderr
        ran[lib] = (p.stdout, _trace(p.stderr))
    assert ran["numtorch"][0] == ran["torch"][0]
    frames = ran["numtorch"][1]
    assert frames == ran["torch"][1]
    assert not any(re.search(r"numtorch|runpy", f) for f in frames), frames
