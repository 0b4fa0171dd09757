"""One CuPy kernel that writes a convolution's im2col columns straight from its input.

Written with xp, the columns of a zero-padded convolution cost three launches and three
passes: a zero-filled padded buffer, the copy of the input into it, and the copy of the
strided window view into GEMM order. Here each thread takes one (channel, sample, output
position) and loops over the kernel taps, reading its input value (or zero, in the padding)
for each: one launch, one pass, no padded buffer. Only data moves, so the columns are the xp
code's exactly.

The columns are the GEMM operand ``(g, C/g * K, N * L)`` (rows in the weight's order, one
column per sample and output position) of both the forward (``W @ cols``) and the weight
gradient (``gy @ cols^T``: cuBLAS reads the transposed operand as it is). Memory access: the
threads of a warp take consecutive output positions, so each tap's stores are consecutive
addresses and, for stride 1, so are its loads; the index math (three 32-bit divisions) runs
once per thread, not once per element (the previous kernel's seven 64-bit division chains
per element made it compute-bound: 15.7 of 37 ms of a ResNet-18 step's device time on an
H200). The kernel source depends on the number of spatial dims only (built once each).
:func:`im2col` returns None (the caller runs its xp code) when the kernel does not apply or
cannot be built.
"""

from ._cupy_kernels import _OPTIONS, ENABLED, FLOATS, _kernel, _launch

_INT_MAX = (1 << 31) - 1


def _source(nd):
    """The im2col body for ``nd`` spatial dims: thread ``i`` is (channel c, column q) of the
    (C, N * L) grid, column q = (sample n, output position o0, o1, ...)."""
    d = range(nd)
    lines = ["const unsigned int t = (unsigned int)i;",
             "const unsigned int c = t / NL;",
             "const unsigned int q = t - c * NL;",
             "const unsigned int n = q / L;",
             "unsigned int o = q - n * L;"]
    for k in reversed(d):
        if k:
            lines += [f"const int o{k} = (int)(o % O{k});", f"o /= O{k};"]
        else:
            lines.append("const int o0 = (int)o;")
    space = " * ".join(f"(ptrdiff_t)S{k}" for k in d)
    lines.append(f"const ptrdiff_t src = ((ptrdiff_t)n * C + c) * {space};")
    lines.append("ptrdiff_t dst = (ptrdiff_t)c * KK * NL + q;")
    lines += [f"const int b{k} = o{k} * st{k} - pd{k};" for k in d]
    for k in d:
        pad = "    " * k
        inside = f"b{k} + k{k} * dl{k}"
        lines += [f"{pad}for (int k{k} = 0; k{k} < K{k}; ++k{k}) {{",
                  f"{pad}    const int s{k} = {inside};",
                  f"{pad}    const bool in{k} = " + (f"in{k - 1} && " if k else "") +
                  f"s{k} >= 0 && s{k} < S{k};"]
    flat = "s0"
    for k in range(1, nd):
        flat = f"({flat}) * S{k} + s{k}"
    pad = "    " * nd
    lines += [f"{pad}col[dst] = in{nd - 1} ? x[src + {flat}] : (T)0;", f"{pad}dst += NL;"]
    for k in reversed(d):
        lines.append("    " * k + "}")
    return "\n".join(lines)


def _make(nd):
    def make(cp):
        # (the outermost output dim's size is implied: L / the others)
        dims = ", ".join(f"int32 S{k}, int32 K{k}, " + (f"int32 O{k}, " if k else "") +
                         f"int32 st{k}, int32 pd{k}, int32 dl{k}" for k in range(nd))
        return cp.ElementwiseKernel(f"raw T x, int32 C, int32 NL, int32 L, int32 KK, {dims}",
                                    "raw T col", _source(nd), f"numtorch_im2col{nd}",
                                    options=_OPTIONS)
    return make


def im2col(x, kernel, stride, padding, dilation, groups, out):
    """The im2col columns of ``x`` (N, C, *S) for a convolution with window
    ``kernel``, ``stride``, ``padding`` ((lo, hi) per dim), ``dilation`` and ``groups`` whose
    output spatial shape is ``out``, as a contiguous ``(g, C/g * K, N * L)`` array; None when
    the kernel does not apply."""
    from . import _cupy

    nd = len(kernel)
    if not ENABLED[0] or x.ndim != nd + 2 or x.size == 0 or nd not in (1, 2, 3):
        return None
    n, c = x.shape[:2]
    kk, length = _size(kernel), _size(out)
    nl = n * length
    if c * kk * nl > _INT_MAX or x.size > _INT_MAX or not nl:
        return None  # the kernel's 32-bit index math
    name = f"numtorch_im2col{nd}"
    if _kernel(name, _make(nd)) is None:
        return None
    if not x.flags.c_contiguous:  # (channels-last): one copy, not the xp code's three
        x = _cupy.cp.ascontiguousarray(x)
    col = _cupy.cp.empty((groups, c // groups * kk, nl), dtype=x.dtype)
    args = [x, c, nl, length, kk]
    for j, (s, k, o, st, (lo, _), dl) in enumerate(zip(x.shape[2:], kernel, out, stride,
                                                        padding, dilation)):
        args += [s, k, o, st, lo, dl] if j else [s, k, st, lo, dl]
    return col if _launch(name, None, *args, col, size=c * nl) else None


def _size(shape):
    p = 1
    for s in shape:
        p *= s
    return p


# -- col2im: the input gradient of a strided convolution ---------------------------------------
def _col2im_source(nd):
    """Each input-gradient element sums the column entries of the taps whose window covers
    it, in the order the xp code's per-tap strided adds reach it (taps in C order, from 0).
    Index math in 32 bits (the caller checks the sizes): 64-bit division and modulo, emulated
    in many instructions on a GPU, made the previous version compute-bound."""
    d = range(nd)
    lines = ["unsigned int r = (unsigned int)i;"]
    for k in reversed(d):
        lines.append(f"const int s{k} = (int)(r % S{k});")
        lines.append(f"r /= S{k};")
    lines += ["const int c = (int)(r % C);", "const int nn = (int)(r / C);", "T acc = 0;"]
    depth = 0
    for k in d:
        pad = "    " * depth
        lines += [f"{pad}for (int k{k} = 0; k{k} < K{k}; ++k{k}) {{",
                  f"{pad}    const int t{k} = s{k} + pd{k} - k{k} * dl{k};",
                  f"{pad}    if (t{k} < 0 || t{k} % st{k} != 0) continue;",
                  f"{pad}    const int o{k} = t{k} / st{k};",
                  f"{pad}    if (o{k} >= O{k}) continue;"]
        depth += 1
    flat = "(ptrdiff_t)c"
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
        dims = ", ".join(f"int32 S{k}, int32 K{k}, int32 O{k}, int32 st{k}, int32 pd{k}, "
                         f"int32 dl{k}" for k in range(nd))
        return cp.ElementwiseKernel(f"raw T cols, int32 N, int32 C, {dims}", "T dx",
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
            cols.dtype not in FLOATS or not cols.size or cols.size > _INT_MAX or \
            n * c * _size(size) > _INT_MAX:
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
