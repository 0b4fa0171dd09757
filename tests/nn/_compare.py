"""The nn tests' use of :func:`tests.oracle.same`: floats compared to 1e-5, plus the helpers
for warnings and module state.

``same(fn)`` calls ``fn(numtorch)`` and ``fn(torch)`` and compares the results (see
``tests.oracle.describe``): tensors by shape, dtype and values, exceptions by builtin class (and
message when ``messages=True``), modules by repr, with ``numtorch`` read as ``torch``.
"""

import numtorch
from tests import oracle

RTOL, ATOL = 1e-5, 1e-6


def run(fn, lib):
    """``fn(lib)``, or the exception it raised (warnings silenced)."""
    return oracle.run(fn, lib)[0]


def same(fn, messages=True):
    """Assert ``fn(numtorch)`` and ``fn(torch)`` give the same result (floats to 1e-5)."""
    return oracle.same(fn, RTOL, ATOL, messages=messages)


def same_warnings(fn):
    """Assert both libraries emit the same warning categories and messages for ``fn``."""
    out = []
    for lib in (numtorch, oracle.torch):
        result, warned = oracle.run(fn, lib, warns=True)
        if isinstance(result, Exception):
            raise result
        out.append(warned)
    assert out[0] == out[1], f"\nnumtorch: {out[0]}\ntorch:    {out[1]}"
    return out[0]


def copy_state(nt_module, th_module):
    """Load the torch module's state into the numtorch module (via NumPy)."""
    nt_module.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                               for k, v in th_module.state_dict().items()})
