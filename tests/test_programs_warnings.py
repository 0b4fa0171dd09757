"""Warnings real programs see, compared with torch in fresh processes (torch's scalar warning
fires once per process, so each library runs the script in its own interpreter).

pytorch/examples' time_sequence_prediction trains with ``optim.LBFGS``: torch prints no
"Converting a tensor with requires_grad=True to a scalar" warning there, because the optimizer
reads the closure's loss with grad mode off, and ``float()``/``complex()`` warn only while grad
mode is on.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "always",
       "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}

SCRIPT = """
import torch
p = torch.nn.Parameter(torch.tensor([1.0, 2.0], dtype=torch.double))
for search in (None, "strong_wolfe"):
    opt = torch.optim.LBFGS([p], lr=0.8, max_iter=5, line_search_fn=search)
    def closure():
        opt.zero_grad()
        loss = ((p - 0.5) ** 4).sum()
        loss.backward()
        return loss
    print(round(float(opt.step(closure).detach()), 12))
x = torch.tensor(2.0, requires_grad=True) * 3
with torch.no_grad():
    print(float(x), complex(x))
with torch.inference_mode():
    print(float(x))
print("grad mode on")
print(float(x))
print(float(x))
"""


def _run(lib, script, tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(script)
    prefix = [sys.executable] if lib == "torch" else [sys.executable, "-m", "numtorch.run"]
    p = subprocess.run([*prefix, str(path)], check=False, cwd=tmp_path, env=ENV,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    # "prog.py:LINE: UserWarning: ..." names the line that warned
    return p.stdout, [l for l in p.stderr.splitlines() if "Warning:" in l]


def test_scalar_warning_as_torch(tmp_path):
    want_out, want_warn = _run("torch", SCRIPT, tmp_path)
    got_out, got_warn = _run("numtorch", SCRIPT, tmp_path)
    assert got_warn == want_warn
    assert got_out == want_out
