"""Gradients fitted to the tensors they belong to: the implicit and checked root gradients of
a backward call, and an op's gradient summed down from a broadcast shape and cast to its
input's dtype (the engine does this once for every op, so ops never undo broadcasting).
"""

import re

import numpy as np

from .. import _dtype, backend
from . import graph
from .grad_mode import _state as _grad_state

_BROADCAST = (re.compile(r"operands could not be broadcast together with shapes "
                         r"\(([\d, ]*)\) \(([\d, ]*)\) ?$"),
              re.compile(r"Mismatch is between arg \d+ with shape \(([\d, ]*)\) and arg \d+ "
                         r"with shape \(([\d, ]*)\)"))


def reraise_numpy(err):
    """Raise torch's error in place of NumPy's broadcasting ``ValueError`` from a backward
    formula (an unpack hook of ``saved_tensors_hooks`` that hands back a tensor of another
    shape makes one): ``The size of tensor a (2) must match ... dimension 0``."""
    if type(err) is not ValueError:
        return
    for pattern in _BROADCAST:
        m = pattern.search(str(err))
        if m is None:
            continue
        a, b = ([int(v) for v in g.replace(" ", "").split(",") if v] for g in m.groups())
        n = max(len(a), len(b))
        a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of "
                                   f"tensor b ({b[i]}) at non-singleton dimension {i}") from None
        return


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def root_grads(outputs, grad_outputs, create_graph, fn_name):
    """Check/complete the output gradients (implicit ones only for scalar outputs)."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._array.dtype.kind not in "fV":  # complex outputs need a gradient too
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs "
                                   f"but got {out.dtype}")
            g = graph._make(_ones_like(out._array))
        else:
            if not isinstance(g, graph.Tensor):
                raise TypeError(f"gradients can be either Tensors or None, but got "
                                f"{type(g).__name__}")
            if g._array.shape != out._array.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"torch.Size({_shape_str(g.shape)}) and output[{i}] has a "
                                   f"shape of torch.Size({_shape_str(out.shape)}).")
            if (g._array.dtype.kind == "c") != (out._array.dtype.kind == "c"):
                raise RuntimeError(f"For complex Tensors, both grad_output and output are "
                                   f"required to have the same dtype. Mismatch in dtype: "
                                   f"grad_output[{i}] has a dtype of {g.dtype} and output[{i}] "
                                   f"has a dtype of {out.dtype}.")
        grads.append(g)
    return grads


def _ones_like(a):
    if type(a) is np.ndarray:
        return np.ones(a.shape, dtype=a.dtype)
    if backend.is_meta(a):
        return np.ones_like(a)  # a meta array (no data) again
    return backend.xp_of(a).ones(a.shape, dtype=a.dtype)


def fit(g, meta, node, i):
    """Sum a broadcast gradient down to the input's shape and cast it to the input's dtype."""
    shape, np_dtype = meta
    gshape = g._array.shape
    if gshape != shape:
        a = g._array
        if type(a) is np.ndarray and not _grad_state.enabled and a.dtype.kind == "f":
            # no graph is built: the sum on the array (a Sum node per broadcast bias or
            # norm parameter cost more than the arithmetic on small layers)
            g = graph._make(_sum_to_array(a, shape, node, i))
        else:
            g = _sum_to(g, shape, node, i)
    if g._array.dtype != np_dtype:
        want = _dtype._FROM_NP[np_dtype]
        if want._category >= _dtype._FLOAT:
            if g.dtype.is_complex and not want.is_complex:
                g = g.real
            g = g.to(want)
    return g


def _summed_dims(gshape, shape, node, i):
    """The dims of a gradient of shape ``gshape`` summed to fit ``shape`` (None: it only
    lacks leading size-1 dims)."""
    lead = len(gshape) - len(shape)
    if lead < 0:
        # a gradient with fewer dims than its input may only add leading size-1 dims
        if all(s == 1 for s in shape[:-lead]) and (not gshape or gshape == shape[-lead:]):
            return None
        _bad_grad(node, i, gshape, shape)
    dims = list(range(lead))
    for k, s in enumerate(shape):
        gs = gshape[lead + k]
        if s == gs:
            continue
        if s == 1:
            dims.append(lead + k)
        else:
            _bad_grad(node, i, gshape, shape)
    return dims


def _sum_to_array(a, shape, node, i):
    dims = _summed_dims(a.shape, shape, node, i)
    if dims:
        sum_array = _SUM_ARRAY[0]
        if sum_array is None:  # (imported once, not per call: ~1 us each)
            from ..ops.reduction import sum_array

            _SUM_ARRAY[0] = sum_array
        a = np.ascontiguousarray(sum_array(a, tuple(dims), len(dims) > len(a.shape) - len(shape)))
    return a if a.shape == shape else a.reshape(shape)


_SUM_ARRAY = [None]  # ops.reduction.sum_array, imported on first use (import order)


def _sum_to(g, shape, node, i):
    gshape = g._array.shape
    lead = len(gshape) - len(shape)
    dims = _summed_dims(gshape, shape, node, i)
    if dims is None:
        return g.reshape(shape)
    if dims:
        # only leading dims summed (a bias, a norm's weight): the sum has the input's shape
        # already, a fresh array the engine may adopt (a reshaped view it would copy)
        g = g.sum(dim=tuple(dims), keepdim=len(dims) > lead)
    if g._array.shape != shape:
        g = g.reshape(shape)
    return g


def _bad_grad(node, i, gshape, shape):
    raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                       f"{_shape_str(gshape)} but expected shape compatible with "
                       f"{_shape_str(shape)}")
