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

import pytest

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


def _warnings_seen(lib, script, tmp_path):
    """The program's output and warnings as ``(where, category and text, source line
    shown)``; ``where`` is the program's line, or "inside the library" (torch's and
    numtorch's own files differ in names and line numbers)."""
    path = tmp_path / "prog.py"
    path.write_text(script)
    prefix = [sys.executable] if lib == "torch" else [sys.executable, "-m", "numtorch.run"]
    p = subprocess.run([*prefix, str(path)], check=False, cwd=tmp_path, env=ENV,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    err = p.stderr.splitlines()
    seen = []
    for i, line in enumerate(err):
        if "Warning:" not in line:
            continue
        where, rest = line.split(": ", 1)
        file, lineno = where.rsplit(":", 1)
        place = (lineno if file.endswith("prog.py") else "inside the library")
        shown = err[i + 1].strip() if i + 1 < len(err) and err[i + 1].startswith("  ") else None
        seen.append((place, rest.split(" (Triggered internally")[0], shown))
    return p.stdout, seen


SPARSE = """
import torch
i = torch.tensor([[0, 1], [1, 0]]); v = torch.tensor([1., 2.])
torch.sparse_coo_tensor(i, v, (2, 2), check_invariants=False)
torch.sparse_coo_tensor(i, v, (2, 2))
torch.sparse_coo_tensor(i, v)
for form in [(i, v, torch.Size([2, 2])), (i, v, (2, 2)), (), (2, 3), (i, v), (i, v)]:
    torch.sparse.FloatTensor(*form)
for ci in (True, False, None):
    for idx in ([[5, 0]], [[-1, 0]]):
        try:
            torch.sparse_coo_tensor(idx, [1., 2.], (2,), check_invariants=ci)
            print(ci, idx, "built")
        except RuntimeError as e:
            print(ci, idx, e)
try:
    torch.sparse_coo_tensor([[-1, 0]], [1., 2.])
except RuntimeError as e:
    print(e)
with torch.sparse.check_sparse_tensor_invariants():
    print(torch.sparse.check_sparse_tensor_invariants.is_enabled())
    try:
        torch.sparse_coo_tensor([[5, 0]], [1., 2.], (2,))
    except RuntimeError as e:
        print(e)
print(torch.sparse.check_sparse_tensor_invariants.is_enabled())
"""

SPARSE_CHOSEN = """
import torch
torch.sparse.check_sparse_tensor_invariants.disable()
torch.sparse_coo_tensor([[0, 1]], [1., 2.], (2,))
@torch.sparse.check_sparse_tensor_invariants()
def f():
    return torch.sparse.check_sparse_tensor_invariants.is_enabled()
print(f(), torch.sparse.check_sparse_tensor_invariants.is_enabled())
"""


@pytest.mark.parametrize("script", [SPARSE, SPARSE_CHOSEN])
def test_sparse_invariant_checks_and_warnings_as_torch(script, tmp_path):
    """gcn: torch warns once per process that sparse invariant checks are implicitly
    disabled (not when the program chose, not for an explicit check_invariants, not from the
    legacy torch.sparse.FloatTensor, which warns its own deprecation once per form)."""
    assert _warnings_seen("numtorch", script, tmp_path) == \
        _warnings_seen("torch", script, tmp_path)


PIN = """
import torch
ds = torch.utils.data.TensorDataset(torch.arange(4.))
for kw in [dict(), dict(num_workers=1), dict(pin_memory_device="cpu"),
           dict(num_workers=1, persistent_workers=True)]:
    loader = torch.utils.data.DataLoader(ds, batch_size=2, pin_memory=True, **kw)
    for epoch in range(2):
        print([b[0].tolist() for b in loader])
print(list(torch.utils.data.DataLoader(ds, batch_size=2, pin_memory_device="cpu")))
"""


def test_dataloader_pin_memory_warnings_as_torch(tmp_path):
    """pin_memory=True without an accelerator: torch's text, once per iterator, reported at
    the iterator's ``super().__init__(loader)`` line inside dataloader.py."""
    assert _warnings_seen("numtorch", PIN, tmp_path) == _warnings_seen("torch", PIN, tmp_path)
