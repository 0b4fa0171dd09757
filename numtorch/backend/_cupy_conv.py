"""One CuPy kernel that writes a convolution's im2col columns straight from its input.

Written with xp, the columns of a zero-padded convolution cost three launches and three
passes: a zero-filled padded buffer, the copy of the input into it, and the copy of the
strided window view into GEMM order; and the weight gradient built the padded input a second
time. Here each column element reads its input value (or zero, in the padding) itself: one
launch, one pass, no padded buffer. Only data moves, so the columns are the xp code's exactly.

Two layouts, the GEMM operands of ``ops/conv_device.py``: ``"rows"`` for the forward,
``(g, C/g, *K, N, *out)``, and ``"cols"`` for the weight gradient, ``(g, N, *out, C/g, *K)``.
The kernel source depends on the number of spatial dims and the layout (built once each);
sizes come as int64 scalars. :func:`im2col` returns None (the caller runs its xp code) when
the kernel does not apply or cannot be built.
"""

from ._cupy_kernels import _OPTIONS, ENABLED, _kernel, _launch


def _source(nd, layout):
    d = range(nd)
    split = ["ptrdiff_t r = i;"]

    def take(name, size):
        split.append(f"const ptrdiff_t {name} = r % {size}; r /= {size};")

    inner = ([(f"o{k}", f"O{k}") for k in d], [("nn", "N")],
             [(f"k{k}", f"K{k}") for k in d], [("c", "CG")])
    if layout == "cols":  # (g, N, *out, C/g, *K): the kernel taps vary fastest
        inner = ([(f"k{k}", f"K{k}") for k in d], [("c", "CG")],
                 [(f"o{k}", f"O{k}") for k in d], [("nn", "N")])
    for part in inner:
        for name, size in reversed(part):
            take(name, size)
    split.append("const ptrdiff_t ch = r * CG + c;")
    src = [f"const ptrdiff_t s{k} = o{k} * st{k} + k{k} * dl{k} - pd{k};" for k in d]
    inside = " && ".join(f"s{k} >= 0 && s{k} < S{k}" for k in d)
    flat = "nn * C + ch"
    for k in d:
        flat = f"({flat}) * S{k} + s{k}"
    return "\n".join(split + src + [f"col = ({inside}) ? x[{flat}] : (T)0;"])


def _make(nd, layout):
    def make(cp):
        dims = ", ".join(f"int64 S{k}, int64 K{k}, int64 O{k}, int64 st{k}, int64 pd{k}, "
                         f"int64 dl{k}" for k in range(nd))
        return cp.ElementwiseKernel(f"raw T x, int64 N, int64 C, int64 CG, {dims}", "T col",
                                    _source(nd, layout), f"numtorch_im2col_{layout}",
                                    options=_OPTIONS)
    return make


def im2col(x, kernel, stride, padding, dilation, groups, out, layout):
    """The im2col columns of ``x`` (N, C, *S) for a convolution with window ``kernel``,
    ``stride``, ``padding`` ((lo, hi) per dim), ``dilation`` and ``groups`` whose output
    spatial shape is ``out``, as a contiguous ``(g, C/g * K, N * L)`` (``layout="rows"``) or
    ``(g, N * L, C/g * K)`` (``"cols"``) array; None when the kernel does not apply."""
    from . import _cupy

    nd = len(kernel)
    if not ENABLED[0] or x.ndim != nd + 2 or x.size == 0 or nd not in (1, 2, 3):
        return None
    n, c = x.shape[:2]
    cg = c // groups
    ck, nl = cg * _size(kernel), n * _size(out)
    shape = (groups, ck, nl) if layout == "rows" else (groups, nl, ck)
    name = f"numtorch_im2col_{layout}{nd}"
    k = _kernel(name, _make(nd, layout))
    if k is None:
        return None
    col = _cupy.cp.empty(shape, dtype=x.dtype)
    args = [x, n, c, cg]
    for s, kk, o, st, (lo, _), dl in zip(x.shape[2:], kernel, out, stride, padding, dilation):
        args += [s, kk, o, st, lo, dl]
    return col if _launch(name, None, *args, col) else None


def _size(shape):
    p = 1
    for s in shape:
        p *= s
    return p


# -- col2im: the input gradient of a strided convolution ---------------------------------------
def _col2im_source(nd):
    """Each input-gradient element sums the column entries of the taps whose window covers
    it, in the order the xp code's per-tap strided adds reach it (taps in C order, from 0)."""
    d = range(nd)
    lines = ["ptrdiff_t r = i;"]
    for k in reversed(d):
        lines.append(f"const ptrdiff_t s{k} = r % S{k};")
        lines.append(f"r /= S{k};")
    lines += ["const ptrdiff_t c = r % C;", "const ptrdiff_t nn = r / C;", "T acc = 0;"]
    depth = 0
    for k in d:
        pad = "    " * depth
        lines += [f"{pad}for (ptrdiff_t k{k} = 0; k{k} < K{k}; ++k{k}) {{",
                  f"{pad}    const ptrdiff_t t{k} = s{k} + pd{k} - k{k} * dl{k};",
                  f"{pad}    if (t{k} < 0 || t{k} % st{k} != 0) continue;",
                  f"{pad}    const ptrdiff_t o{k} = t{k} / st{k};",
                  f"{pad}    if (o{k} >= O{k}) continue;"]
        depth += 1
    flat = "c"
    for k in d:
        flat = f"({flat}) * K{k} + k{k}"
    flat = f"({flat}) * N + nn"
    for k in d:
        flat = f"({flat}) * O{k} + o{k}"
    lines.append("    " * depth + f"acc = acc + cols[{flat}];")
    for k in reversed(d):
        lines.append("    " * k + "}")
    lines.append("dx = acc;")
    return "\n".join(lines)


def _make_col2im(nd):
    def make(cp):
        dims = ", ".join(f"int64 S{k}, int64 K{k}, int64 O{k}, int64 st{k}, int64 pd{k}, "
                         f"int64 dl{k}" for k in range(nd))
        return cp.ElementwiseKernel(f"raw T cols, int64 N, int64 C, {dims}", "T dx",
                                    _col2im_source(nd), "numtorch_col2im", options=_OPTIONS)
    return make


def col2im(cols, n, c, size, kernel, out, stride, padding, dilation):
    """The input gradient ``(n, c, *size)`` from the GEMM columns ``cols`` (contiguous
    ``(c, *kernel, n, *out)``) of a convolution with ``stride``, ``padding`` ((lo, hi) per
    dim) and ``dilation``: one launch where the xp code zero-fills a padded buffer, adds each
    tap's columns into a strided view of it and crops it; the same sums in the same order.
    None when the kernel does not apply."""
    from . import _cupy

    nd = len(kernel)
    if not ENABLED[0] or nd not in (1, 2, 3) or not cols.flags.c_contiguous or \
            cols.dtype.name not in ("float32", "float64") or not cols.size:
        return None
    name = f"numtorch_col2im{nd}"
    k = _kernel(name, _make_col2im(nd))
    if k is None:
        return None
    dx = _cupy.cp.empty((n, c) + tuple(size), dtype=cols.dtype)
    args = [cols, n, c]
    for s, kk, o, st, (lo, _), dl in zip(size, kernel, out, stride, padding, dilation):
        args += [s, kk, o, st, lo, dl]
    return dx if _launch(name, None, *args, dx) else None
