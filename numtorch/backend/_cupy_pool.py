"""Max pooling on a GPU in one kernel each way (``ops/pool_device.py``).

Written with xp, a max pool with indices walks the kernel offsets: five passes per offset (the
comparison, the NaN test, the masked copy, the index bookkeeping) plus the padding copy and the
index arithmetic, about 30 launches for a 2x2 pool and its gradient scatter 3-5 more; LeNet's
two pools were 72 of its step's launches. Here each output element scans its window and each
input element gathers the gradients of the windows that picked it.

The forward makes torch's choices as the xp code does: the first maximum in row-major order,
a NaN wins and the last NaN is reported, a window whose values are all -inf reports its first
in-bounds position; only comparisons, so values and indices are the xp code's exactly. The
gradient sums the windows that picked an element in the order of the outputs, in float64,
rounded once (the xp code's bincount); where windows cannot overlap it copies the one value.
The helpers return None (the caller runs its xp code) outside float32/float64 contiguous
inputs or when a kernel cannot be built here.
"""

import numpy as np

from ._cupy_kernels import ENABLED, FLOATS, _OPTIONS, _run as _call

_FLOATS = FLOATS  # dtypes: NumPy's dtype.name is slow
_I64 = np.dtype(np.int64)


def _geometry_params(nd):
    return ", ".join(f"int64 S{k}, int64 K{k}, int64 O{k}, int64 st{k}, int64 pd{k}, "
                     f"int64 dl{k}" for k in range(nd))


def _unravel(names, sizes):
    """Split ``i`` into the named indices (last varies fastest); ``r`` is left with the rest."""
    lines = ["ptrdiff_t r = i;"]
    for name, size in reversed(list(zip(names, sizes))):
        lines.append(f"const ptrdiff_t {name} = r % {size}; r /= {size};")
    return lines


def _flat(names, sizes):
    flat = names[0]
    for name, size in zip(names[1:], sizes[1:]):
        flat = f"({flat}) * {size} + {name}"
    return flat


def _forward_source(nd):
    d = range(nd)
    lines = _unravel([f"o{k}" for k in d], [f"O{k}" for k in d])
    plane = " * ".join(f"S{k}" for k in d)
    lines += [f"const ptrdiff_t base = r * {plane};",
              "T best = (T)(-CUDART_INF); ptrdiff_t arg = -1;"]
    for k in d:
        pad = "    " * k
        lines += [f"{pad}for (ptrdiff_t k{k} = 0; k{k} < K{k}; ++k{k}) {{",
                  f"{pad}    const ptrdiff_t s{k} = o{k} * st{k} - pd{k} + k{k} * dl{k};",
                  f"{pad}    if (s{k} < 0 || s{k} >= S{k}) continue;"]
    inner = "    " * nd
    lines += [f"{inner}const ptrdiff_t pos = {_flat([f's{k}' for k in d], [f'S{k}' for k in d])};",
              f"{inner}const T v = x[base + pos];",
              f"{inner}if (arg < 0) arg = pos;",
              f"{inner}if (v > best || isnan(v)) {{ best = v; arg = pos; }}"]
    lines += ["    " * k + "}" for k in reversed(d)]
    lines.append("y = best; idx = arg;")
    return "\n".join(lines)


def _grad_source(nd):
    d = range(nd)
    lines = _unravel([f"s{k}" for k in d], [f"S{k}" for k in d])
    outs = " * ".join(f"O{k}" for k in d)
    lines += [f"const ptrdiff_t base = r * {outs};",
              f"const ptrdiff_t pos = {_flat([f's{k}' for k in d], [f'S{k}' for k in d])};",
              "double acc = 0; T one = (T)0; int n = 0;"]
    # descending taps: the windows in ascending output order, as the xp code's bincount adds
    for k in d:
        pad = "    " * k
        lines += [f"{pad}for (ptrdiff_t k{k} = K{k} - 1; k{k} >= 0; --k{k}) {{",
                  f"{pad}    const ptrdiff_t t{k} = s{k} + pd{k} - k{k} * dl{k};",
                  f"{pad}    if (t{k} < 0 || t{k} % st{k} != 0) continue;",
                  f"{pad}    const ptrdiff_t o{k} = t{k} / st{k};",
                  f"{pad}    if (o{k} >= O{k}) continue;"]
    inner = "    " * nd
    lines += [f"{inner}const ptrdiff_t o = base + "
              f"{_flat([f'o{k}' for k in d], [f'O{k}' for k in d])};",
              f"{inner}if (idx[o] == pos) {{ const T v = g[o]; if (n == 0) one = v; "
              "acc += (double)v; ++n; }"]
    lines += ["    " * k + "}" for k in reversed(d)]
    lines.append("dx = overlap ? (T)acc : one;")
    return "\n".join(lines)


def _make_forward(nd):
    def make(cp):
        return cp.ElementwiseKernel(f"raw T x, {_geometry_params(nd)}", "T y, int64 idx",
                                    _forward_source(nd), "numtorch_max_pool",
                                    options=_OPTIONS)
    return make


def _make_grad(nd):
    def make(cp):
        return cp.ElementwiseKernel(f"raw T g, raw int64 idx, int32 overlap, "
                                    f"{_geometry_params(nd)}", "T dx", _grad_source(nd),
                                    "numtorch_max_pool_grad", options=_OPTIONS)
    return make


def _geometry(spatial, kernel, out, stride, padding, dilation):
    args = []
    for s, k, o, st, p, dl in zip(spatial, kernel, out, stride, padding, dilation):
        args += [int(s), int(k), int(o), int(st), int(p), int(dl)]
    return args


def max_pool(x, kernel, stride, padding, dilation, out):
    """``(y, idx)``: the window maxima of ``x`` (N, C, *spatial) and torch's flat indices in
    each plane, in one launch; None when the kernel does not apply."""
    from . import _cupy

    nd = len(kernel)
    if not (ENABLED[0] and x.dtype in _FLOATS and x.ndim == nd + 2 and nd in (1, 2, 3)
            and x.flags.c_contiguous and x.size and all(o > 0 for o in out)):
        return None
    shape = x.shape[:2] + tuple(out)
    y = _cupy.cp.empty(shape, dtype=x.dtype)
    idx = _cupy.cp.empty(shape, dtype="int64")
    args = _geometry(x.shape[2:], kernel, out, stride, padding, dilation)
    r = _call(f"numtorch_max_pool{nd}", _make_forward(nd), x, *args, y, idx)
    return None if r is None else (y, idx)


def max_pool_grad(g, idx, shape, kernel, stride, padding, dilation, overlap):
    """The input gradient ``(N, C, *spatial)`` = ``shape`` of a max pool whose outputs picked
    the flat positions ``idx``, from the output gradient ``g``, in one launch; None when the
    kernel does not apply."""
    from . import _cupy

    nd = len(kernel)
    if not (ENABLED[0] and g.dtype in _FLOATS and g.ndim == nd + 2 and nd in (1, 2, 3)
            and g.flags.c_contiguous and idx.flags.c_contiguous and idx.shape == g.shape
            and idx.dtype == _I64 and g.size):
        return None
    dx = _cupy.cp.empty(shape, dtype=g.dtype)
    args = _geometry(shape[2:], kernel, g.shape[2:], stride, padding, dilation)
    r = _call(f"numtorch_max_pool_grad{nd}", _make_grad(nd), g, idx, int(bool(overlap)),
              *args, dx)
    return None if r is None else dx
