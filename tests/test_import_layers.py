"""The tensor core is a leaf of the import graph: ``autograd.graph`` and the ops import
``Tensor`` and ``_make`` from it normally, and it imports none of them at load time."""

import ast
import pathlib

import numtorch
from numtorch._tensor import _make
from numtorch.autograd import graph

ROOT = pathlib.Path(numtorch.__file__).parent
CORE = ["_tensor.py", "_tensor_math.py", "_tensor_memory.py", "_tensor_layout.py",
        "_grad_state.py"]
ABOVE = ("numtorch.ops", "numtorch.autograd", "numtorch._creation", "numtorch._sampling",
         "numtorch._random", "numtorch._ranges", "numtorch.nn", "numtorch.linalg")


def _load_time_imports(path):
    """Absolute names of the modules a file imports at module level."""
    pkg = "numtorch"
    names = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = pkg + ("." + base if base else "")
            names += [f"{base}.{a.name}" for a in node.names] if not node.module else [base]
    return names


def test_tensor_core_imports_only_leaves():
    for f in CORE:
        bad = [n for n in _load_time_imports(ROOT / f) if n.startswith(ABOVE)]
        assert not bad, f"{f} imports {bad} at load time"


def test_graph_holds_the_real_tensor_class():
    assert graph.Tensor is numtorch.Tensor
    assert graph._make is _make
    assert type(_make(numtorch.zeros(1)._array)) is numtorch.Tensor
