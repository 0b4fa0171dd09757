"""Run one function on numtorch and on torch and compare what comes out (nn tests' helper).

``same(fn)`` calls ``fn(numtorch)`` and ``fn(torch)`` and compares the results after
normalising them: tensors become (shape, dtype, values), exceptions their builtin class (and
message when ``messages=True``), modules their repr, and every string has ``numtorch``
replaced by ``torch`` (class paths in reprs and messages).
"""

import warnings

import numpy as np
import torch

import numtorch


def _builtin_base(exc):
    for c in type(exc).__mro__:
        if c.__module__ == "builtins":
            return c.__name__
    return "Exception"


class _Values:
    """Tensor values that compare equal within float tolerance (exactly for ints/bools)."""

    def __init__(self, arr):
        self.arr = np.asarray(arr)

    def __eq__(self, other):
        a, b = self.arr, other.arr
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc":
            return bool(np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
        return bool(np.array_equal(a, b))

    def __repr__(self):
        return repr(self.arr.tolist())


def norm(x):
    """A comparable, library-independent description of ``x``."""
    if isinstance(x, (numtorch.Tensor, torch.Tensor)):
        kind = "Parameter" if isinstance(x, (numtorch.nn.Parameter, torch.nn.Parameter)) \
            else "Tensor"
        arr = x.detach().numpy()
        return (kind, tuple(x.shape), str(x.dtype), _Values(arr), bool(x.requires_grad))
    if isinstance(x, BaseException):
        return ("raise", _builtin_base(x), str(x).replace("numtorch", "torch"))
    if isinstance(x, (numtorch.nn.Module, torch.nn.Module)):
        return ("module", repr(x).replace("numtorch", "torch"))
    if isinstance(x, str):
        return x.replace("numtorch", "torch")
    if isinstance(x, dict):
        return ("dict", [(norm(k), norm(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [norm(v) for v in x]
    if isinstance(x, type):
        return ("type", x.__name__)
    if isinstance(x, (numtorch.Size, torch.Size)):
        return ("size", tuple(x))
    if isinstance(x, (numtorch.dtype, torch.dtype)):
        return str(x)
    return x


def run(fn, lib):
    """``fn(lib)``, or the exception it raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception is the result being compared
        return e


def _strip_message(x):
    if isinstance(x, tuple) and len(x) == 3 and x[0] == "raise":
        return x[:2]
    if isinstance(x, tuple):
        return tuple(_strip_message(v) for v in x)
    if isinstance(x, list):
        return [_strip_message(v) for v in x]
    return x


def same(fn, messages=True):
    """Assert ``fn(numtorch)`` and ``fn(torch)`` give the same normalised result."""
    a, b = norm(run(fn, numtorch)), norm(run(fn, torch))
    if not messages:
        a, b = _strip_message(a), _strip_message(b)
    assert a == b, f"\nnumtorch: {a}\ntorch:    {b}"
    return a


def same_warnings(fn):
    """Assert both libraries emit the same warning categories and messages for ``fn``."""
    out = []
    for lib in (numtorch, torch):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            fn(lib)
        out.append([(w.category.__name__, str(w.message).replace("numtorch", "torch"))
                    for w in rec])
    assert out[0] == out[1], f"\nnumtorch: {out[0]}\ntorch:    {out[1]}"
    return out[0]


def copy_state(nt_module, th_module):
    """Load the torch module's state into the numtorch module (via NumPy)."""
    nt_module.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                               for k, v in th_module.state_dict().items()})
