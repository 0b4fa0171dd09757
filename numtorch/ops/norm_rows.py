"""Layer norm's row form on the CPU: the normalised dims are the trailing ones of a contiguous
array, so each row of ``n`` values is one group and the rows are independent.

The rows go in blocks of about ``_BLOCK`` values, so a block's passes reuse the cache rather
than memory, and the blocks may be shared out over the intra-op threads (``_intraop``). The
block grid does not depend on the thread count, so neither do the values.

Measured (one thread, CPU time, float32, medians of 5 processes' medians; the general
path before -> this): forward alone (768, 128) 168 -> 136 us, (8192, 128) 1.36 -> 0.84 ms,
(8192, 512) 6.3 -> 4.7 ms; forward + backward 418 -> 431 us, 4.57 -> 4.33 ms and
15.5 -> 14.0 ms. How:

- The variance in one pass as mean(x^2) - mean^2; a block with a row where that subtraction
  could cancel (mean^2 above ``_ONE_PASS`` times the variance, or no positive variance)
  takes the two-pass variance of the centred rows instead, so the relative error stays
  within a few float32 roundings. With a graph the forward saves x itself and the row means,
  not a centred copy (two passes and an array fewer: recorded (768, 128) 121 -> 95 us), and
  the backward works from x, except in blocks with a row mean above ``_ONE_PASS`` ** 0.5
  standard deviations, which centre their rows first (no cancellation either way).
- NumPy's broadcasting loops over (rows, 1) or (n,) operands run at 1.5-2x the time of a
  same-shape operation; per-row times per-column factors are made full blocks by a GEMM
  instead, and per-row or per-column terms are added in place by an accumulating GEMM
  (``backend._blas_gemm``: NumPy's own OpenBLAS through ctypes, one pass where NumPy needs two):
  ``y = x (invstd w) + [-mean invstd, 1] @ [w; b]`` is two passes (no graph (768, 128):
  109 -> 86 us).
- The backward's weight and bias gradients are summed per block while it is in the cache
  (a fixed grid, added in order), not in two more passes over the whole arrays; its input
  gradient is p - xhat sum(p xhat) / n - invstd sum(gy w) / n with p = gy (invstd w), the
  factor and the xc term's row factor made full blocks by GEMMs, the last row term added by
  an accumulating GEMM (no h = gy w pass, no broadcast loops): (768, 128) 176 -> 147 ->
  140 us.
- Up to ``_SMALL_CALLS`` values (one block) both directions are whole-array NumPy calls with
  broadcast operands: there the per-call cost, not the passes, is what counts.
"""

import numpy as np

from ..backend import _blas_gemm as norm_blas
from . import _intraop
from ._intraop import run_split

_BLOCK = 1 << 18  # values per block: (1024, 128) is one block; 4M values: 16 blocks. Each
# block costs ~20 NumPy calls (~20 us): 256K measured faster than 128K and 64K (one thread,
# (768, 768) forward 474 -> 409 us, (16384, 384) 6.7 -> 5.6 ms), the rows still in L2
_ROW_PASSES = 3  # a row pass costs ~6 passes over the values: split from a third of the size
# One block (up to 256K values: nanoGPT's (768, 128)) is shared out in row parts when its
# element-passes reach 2 * _intraop._MIN_PART: from ~44K values forward, ~26K backward (one
# thread, CPU, (768, 128) float32: forward ~100 us, input gradient ~150 us; a hand-off costs
# 6-16 us). The parts start at multiples of _ROW_ALIGN rows and the last keeps the rows left
# over (BLAS's matrix-vector kernels take the rows in groups, each row keeps its place in a
# group, so its bits; a part of one row would go another way: measured). The weight and
# bias gradients (sums over the rows) stay whole, after the parts.
_FWD_PASSES = 6
_BWD_PASSES = 10
_ROW_ALIGN = 64
_ONE_PASS = 16.0  # mean^2 <= _ONE_PASS * var: mean(x^2) - mean^2 loses < 5 bits
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_SCRATCH_BYTES = 1 << 22  # arrays past this (memory-bound): the GEMM-made factor block goes
# into a reused scratch block and one multiply writes the output, rather than the GEMM
# writing the output block and a multiply in place (its first touch of fresh memory):
# (64, 256, 384) forward 6.0 -> 4.8 ms; (12, 64, 768) (2.4 MB, in the L3) is 3% faster
# the other way
_SMALL_CALLS = 1 << 14  # values: below, whole-array broadcast calls (``_small_forward``,
# ``_small_backward``): the block form's fixed cost (~30 us) passes their broadcasts' ~25K


# Each row's sum of squares: NumPy 2's vecdot is one BLAS dot per row, 2-3x einsum's
# sum-of-products loop ((768, 768) float32: 43 against 107 us; (1024, 128) 11.5 against 21)
_row_dots = (lambda a: np.vecdot(a, a)) if hasattr(np, "vecdot") else \
    (lambda a: np.einsum("ij,ij->i", a, a))


def applies(op, x, w, b):
    """Whether the row form computes ``op`` (a ``NormalizeAffine``): the normalised dims are
    the trailing ones of a contiguous CPU float32/float64 array with more than one value per
    row, no batch statistics are wanted, and the weight and bias (if any) are elementwise
    over the row in the input's dtype."""
    k = len(op.dims)
    nd = x.ndim
    if not (k and type(x) is np.ndarray and x.dtype in _FLOATS and op.n > 1 and x.size
            and op.dims == tuple(range(nd - k, nd)) and x.flags.c_contiguous
            and getattr(op, "stats", None) is None):
        return False
    for p in (w, b):
        # elementwise over the row: n values, none along the leading (batch) dims
        if p is not None and (type(p) is not np.ndarray or p.size != op.n or
                              p.dtype != x.dtype or p.ndim > nd or
                              any(s != 1 for s in p.shape[:max(p.ndim - k, 0)])):
            return False
    return True


def _grid(rows, n):
    """(rows per block, number of blocks)."""
    step = max(1, _BLOCK // n)
    return step, -(-rows // step)


def _run(part, blocks, step, n):
    """``part(lo, hi)`` over block indices: split across the intra-op threads only while
    two cores are free (``_intraop._cores_taken``)."""
    if blocks < 2 or _intraop._cores_taken():
        part(0, blocks)
    else:
        run_split(part, blocks, step * n * _ROW_PASSES)


def _row_parts(rows, unit):
    """Whether one block of ``rows`` rows of ``unit`` element-passes each is worth sharing
    out in row parts (``_ROW_ALIGN`` rows at a time) while two cores are free."""
    return rows >= 2 * _ROW_ALIGN and _intraop.parts(
        rows // _ROW_ALIGN, _ROW_ALIGN * unit) > 1 and not _intraop._cores_taken()


def _coefs(w, b, n, dt):
    """The (2, n) GEMM operand [w; b] (ones and zeros where absent)."""
    v = np.empty((2, n), dtype=dt)
    v[0] = 1 if w is None else w.reshape(n)
    v[1] = 0 if b is None else b.reshape(n)
    return v


def _stats(xs, ones, count, eps, inv):
    """Per row of the block ``xs``: the mean, and the invstd into ``inv`` (both (r,));
    returns (mean, ok), ok False when the block needs the two-pass variance (see the module
    docstring). The sum of squares comes first (``_row_dots``); BLAS's matrix-vector product
    then finds the rows in the cache."""
    var = _row_dots(xs)
    mean = np.matmul(xs, ones)
    mean /= count
    var /= count
    m2 = mean * mean
    var -= m2
    m2 *= xs.dtype.type(1 / _ONE_PASS)
    if not np.greater(var, m2).all():  # also var <= 0 and NaN
        return mean, False
    var += eps
    np.sqrt(var, out=var)
    np.divide(1, var, out=inv)
    return mean, True


def _centred(xs, mean, ds, count, eps, inv):
    """The two-pass statistics: ``ds = xs - mean`` and the invstd of the centred rows into
    ``inv``."""
    np.subtract(xs, mean.reshape(-1, 1), out=ds)
    var = _row_dots(ds)
    var /= count
    var += eps
    np.sqrt(var, out=var)
    np.divide(1, var, out=inv)


def _small_forward(op, x, w, b):
    """``forward`` for a few values: the same two-pass form in whole-array calls with
    broadcast operands (their per-call cost, not the passes, is what counts here)."""
    n = op.n
    dt = x.dtype
    rows = x.size // n
    count = dt.type(n)
    x2 = x.reshape(rows, n)
    data_out = np.empty_like(x)  # x's shape, not a view of (rows, n) (see forward)
    xc = data_out.reshape(rows, n)
    y_out = np.empty_like(x)
    y = y_out.reshape(rows, n)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        mean = np.add.reduce(x2, axis=1)
        mean /= count
        np.subtract(x2, mean.reshape(rows, 1), out=xc)
        var = _row_dots(xc)
        var /= count
        var += dt.type(op.eps)
        np.sqrt(var, out=var)
        invstd = np.divide(1, var).reshape(rows, 1)
        np.multiply(xc, invstd, out=y)
        if w is not None:
            y *= w.reshape(n)
        y += 0 if b is None else b.reshape(n)  # also turns -0 into +0, as torch
    return y_out, data_out, invstd


def forward(op, x, w, b):
    """NormalizeAffine.forward in row form; saves x, w, the invstd and (when recording) the
    centred rows for the backward."""
    if x.size <= min(_SMALL_CALLS, _BLOCK):  # one block (nothing to share out)
        y_out, data_out, invstd = _small_forward(op, x, w, b)
        _save(op, x, w, b, data_out if op._recording else None, invstd, None)
        return y_out
    n = op.n
    dt = x.dtype
    size = dt.itemsize
    rows = x.size // n
    x2 = x.reshape(rows, n)
    y_out = np.empty_like(x)  # x's shape, not a view of (rows, n): accumulators copy views
    y = y_out.reshape(rows, n)
    record = op._recording
    means = np.empty(rows, dtype=dt) if record else None
    invstd = np.empty((rows, 1), dtype=dt)
    inv1 = invstd.reshape(rows)
    v = _coefs(w, b, n, dt)  # [w; b]
    ones = norm_blas.ones(n, dt)[0]
    count = dt.type(n)
    eps = dt.type(op.eps)
    step, blocks = _grid(rows, n)
    gemm = norm_blas.gemm_fn(dt)
    row_bytes = n * size
    py, pv, pinv = norm_blas.ptr(y), norm_blas.ptr(v), norm_blas.ptr(inv1)
    w_row = v[:1]

    big = x.nbytes > _SCRATCH_BYTES

    def rows_of(a0, z0, centre=False):
        """The blocks of rows [a0, z0) (or rows [a0, z0) of the one block, in a row part);
        ``centre``: the two-pass variance whatever the rows. Returns whether every block
        took the one-pass statistics."""
        r0 = min(step, z0 - a0)
        u = np.empty((2, r0), dtype=dt)  # [-mean invstd; 1]
        u[1] = 1
        pu = norm_blas.ptr(u)
        s = None  # scratch for a block's centred rows (two-pass variance)
        one_pass = True
        if big:  # the (invstd w) block's scratch
            f = np.empty((r0, n), dtype=dt)
            pf = norm_blas.ptr(f)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            for a in range(a0, z0, step):
                z = min(z0, a + step)
                r = z - a
                xs, ys, inv = x2[a:z], y[a:z], inv1[a:z]
                mean, ok = _stats(xs, ones, count, eps, inv)
                if record:
                    means[a:z] = mean
                src = xs
                if not ok or centre:  # y = xc (invstd w) + b
                    one_pass = False
                    if s is None:
                        s = np.empty((r0, n), dtype=dt)
                    src = s[:r]
                    _centred(xs, mean, src, count, eps, inv)
                    mean[:] = 0
                # y = x (invstd w) + (b - mean invstd w): [-mean invstd, 1] @ [w; b] added
                off = a * row_bytes
                if big:
                    fb = f[:r]
                    gemm(fb, inv.reshape(1, r), w_row, 0, pf, pinv + a * size, pv)
                    np.multiply(src, fb, out=ys)
                else:
                    gemm(ys, inv.reshape(1, r), w_row, 0, py + off, pinv + a * size, pv)
                    ys *= src
                np.multiply(mean, inv, out=u[0, :r])
                np.negative(u[0, :r], out=u[0, :r])
                gemm(ys, u[:, :r], v, 1, py + off, pu, pv)
        return one_pass

    if blocks == 1 and _row_parts(rows, n * _FWD_PASSES):
        # one block in row parts: a block's rows take the two-pass variance if any of them
        # needs it, so parts that took the one-pass form are redone if another part did not
        done = []

        units = rows // _ROW_ALIGN  # (the last takes the rows left over)

        def row_part(lo, hi):
            a, z = lo * _ROW_ALIGN, rows if hi == units else hi * _ROW_ALIGN
            done.append((a, z, rows_of(a, z)))

        _intraop.run_split(row_part, units, _ROW_ALIGN * n * _FWD_PASSES)
        if not all(d[2] for d in done):
            for a, z, one_pass in done:
                if one_pass:
                    rows_of(a, z, centre=True)
    else:
        _run(lambda lo, hi: rows_of(lo * step, min(rows, hi * step)), blocks, step, n)
    # the backward works from x itself and the means (no centred copy: two passes and an
    # array fewer), except in blocks whose means could cancel (``backward``)
    _save(op, x, w, b, x if record else None, invstd, means)
    return y_out


def _invstd(ds, count, eps, inv):
    """(mean(ds^2) + eps)^(-1/2) per row of the centred block ``ds`` into ``inv``."""
    var = _row_dots(ds)
    var /= count
    var += eps
    np.sqrt(var, out=var)
    np.divide(1, var, out=inv)


def _save(op, x, w, b, data, invstd, means):
    kept = x.shape[:x.ndim - len(op.dims)] + (1,) * len(op.dims)
    op.w_shape = None if w is None else w.shape
    op.b_shape = None if b is None else b.shape
    if w is None:
        op.save_inputs(x)
    else:
        op.save_inputs(x, w)
    # data: the centred rows (means None), or x itself with the row means
    op.save(data=data, centered=True, invstd=invstd.reshape(kept), mean=means)


def grads_apply(op, gy, w, data):
    """Whether ``backward`` computes the gradients for the output gradient ``gy`` from the
    saved normalised values ``data`` of ``op`` (a NormalizeAffine or its backward op)."""
    if not (type(data) is np.ndarray and type(gy) is np.ndarray and
            data.dtype == gy.dtype and data.shape == gy.shape and data.flags.c_contiguous and
            applies(op, gy, w, None)):
        return False
    # the bias too must be elementwise over the row (a per-channel bias with no weight is not)
    bs = getattr(op, "b_shape", None)
    k = len(op.dims)
    return bs is None or (int(np.prod(bs)) == op.n and len(bs) <= gy.ndim and
                          all(d == 1 for d in bs[:max(len(bs) - k, 0)]))


def _small_backward(gy, w, data, invstd, n, outs, w_shape, b_shape):
    """``backward`` for a few values in whole-array calls with broadcast operands: the same
    operations in the same order as one block of ``backward`` (the same bits)."""
    dt = gy.dtype
    rows = gy.size // n
    g2 = gy.reshape(rows, n)
    d2 = data.reshape(rows, n)
    inv = invstd.reshape(rows)
    results = {}
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if "b" in outs:
            results["b"] = np.matmul(norm_blas.ones(rows, dt)[0], g2).reshape(b_shape)
        if "x" in outs or "w" in outs:
            t = np.multiply(g2, d2)
            if "w" in outs:
                results["w"] = np.matmul(inv, t).reshape(w_shape)
        if "x" in outs:
            w1 = norm_blas.ones(n, dt)[0] if w is None else w.reshape(n)
            m = dt.type(-1.0 / n)
            kx = np.matmul(t, w1)  # sum(h xc), h = gy w
            kx *= inv
            kx *= inv
            kx *= inv
            kx *= m
            kh = np.matmul(g2, w1)  # sum(h)
            kh *= inv
            kh *= m
            gx_out = np.empty(gy.shape, dtype=dt)
            gx = gx_out.reshape(rows, n)
            np.multiply(inv.reshape(rows, 1), w1, out=gx)
            gx *= g2
            np.multiply(kx.reshape(rows, 1), d2, out=t)
            gx += t
            gx += kh.reshape(rows, 1)
            results["x"] = gx_out
    out = tuple(results[k] for k in outs)
    return out if len(out) > 1 else out[0]


def backward(gy, w, data, invstd, n, outs, w_shape, b_shape, mean=None):
    """NormalizeAffineBackward.forward in row form, from the saved centred rows xc = x - mean
    (``mean`` None) or from x itself (``data``) and the row means: with t = gy xc,
    gw = sum_rows(invstd t), gb = sum_rows(gy) (per block, then the blocks in order) and
    gx = gy (invstd w) - xc invstd^3 (t w) / n - invstd (gy w) / n, the row sums t w and
    gy w matrix-vector products. From x, t w = (gy x) w - mean (gy w) and the weight
    gradient's mean term is (-invstd mean) @ gy; a block with a row whose mean exceeds
    ``_ONE_PASS`` ** 0.5 standard deviations (where those differences would cancel) forms its
    centred rows first. Returns the gradients named in ``outs`` ("x", "w", "b"), a tuple when
    more than one."""
    if gy.size <= min(_SMALL_CALLS, _BLOCK):
        if mean is not None:
            data = data.reshape(-1, n) - mean.reshape(-1, 1)
        return _small_backward(gy, w, data, invstd, n, outs, w_shape, b_shape)
    dt = gy.dtype
    size = dt.itemsize
    rows = gy.size // n
    g2 = gy.reshape(rows, n)
    d2 = data.reshape(rows, n)
    inv2 = np.ascontiguousarray(invstd.reshape(rows))  # a GEMM operand (no copy: ours)
    want_x, want_w, want_b = "x" in outs, "w" in outs, "b" in outs
    gx_out = np.empty(gy.shape, dtype=dt) if want_x else None  # not a view (see forward)
    gx = gx_out.reshape(rows, n) if want_x else None
    step, blocks = _grid(rows, n)
    gw_parts = np.empty((blocks, n), dtype=dt) if want_w else None
    gb_parts = np.empty((blocks, n), dtype=dt) if want_b else None
    ones, pones = norm_blas.ones(n, dt)
    w1 = ones if w is None else np.ascontiguousarray(w.reshape(n))
    w_row = w1.reshape(1, n)
    ones_row = ones.reshape(1, n)
    ones_r = norm_blas.ones(min(step, rows), dt)[0]
    minus_inv_n = dt.type(-1.0 / n)
    gemm = norm_blas.gemm_fn(dt)
    row_bytes = n * size
    if want_x:
        pgx, pw, pinv = norm_blas.ptr(gx), norm_blas.ptr(w1), norm_blas.ptr(inv2)

    big = gy.nbytes > _SCRATCH_BYTES
    raw = mean is not None  # data is x itself
    if raw:
        m2 = np.multiply(mean, inv2)
        m2 *= m2  # mean^2 / (var + eps) per row: a block centres its rows above _ONE_PASS

    def rows_of(a0, z0, part_only=False, centre=False, prods=None):
        """The blocks of rows [a0, z0), or (``part_only``: a row part of the one block) only
        the input gradient of rows [a0, z0), with gy * xc into ``prods`` for the weight
        gradient (when wanted) and ``centre`` the block's choice of centred rows."""
        r0 = min(step, z0 - a0)
        u = np.empty((2, r0), dtype=dt)  # the row factors (rows of ``gemm``'s u)
        s = np.empty((r0, n), dtype=dt) if (want_x or want_w) else None
        if want_x:
            pu, ps = norm_blas.ptr(u), norm_blas.ptr(s)
        if raw:
            c2 = np.empty(r0, dtype=dt)  # -invstd mean: gw's mean term is c2 @ gy
            sums = np.empty(n, dtype=dt)
            xc = None
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            for a in range(a0, z0, step):
                z = min(z0, a + step)
                k = a // step
                r = z - a
                gs, ds, inv = g2[a:z], d2[a:z], inv2[a:z]
                off = a * row_bytes
                if raw:
                    ms = mean[a:z]
                    if centre if part_only else not (m2[a:z] <= _ONE_PASS).all():
                        # (NaN too: the centred form)
                        if xc is None:
                            xc = np.empty((r0, n), dtype=dt)
                        ds = xc[:r]
                        np.subtract(g2.dtype.type(0), ms.reshape(r, 1), out=ds)
                        ds += d2[a:z]
                        ms = None
                else:
                    ms = None
                if want_b and not part_only:  # a matrix-vector product: half the rounding
                    np.matmul(ones_r[:r], gs, out=gb_parts[k])  # error of a GEMM's
                if ms is not None and want_w and not part_only:
                    np.multiply(ms, inv, out=c2[:r])
                    np.negative(c2[:r], out=c2[:r])
                    np.matmul(c2[:r], gs, out=sums)
                if not (want_x or want_w):
                    continue
                t = s[:r] if prods is None else prods[a:z]
                np.multiply(gs, ds, out=t)
                if want_w and not part_only:
                    np.matmul(inv, t, out=gw_parts[k])
                    if ms is not None:
                        gw_parts[k] += sums
                if not want_x:
                    continue
                kx = np.matmul(t, w1, out=u[0, :r])  # sum(h xc), h = gy w
                kh = np.matmul(gs, w1, out=u[1, :r])  # sum(h)
                if ms is not None:
                    kx -= ms * kh
                kx *= inv
                kx *= inv
                kx *= inv
                kx *= minus_inv_n
                kh *= inv
                kh *= minus_inv_n
                if ms is not None:
                    kh -= kx * ms  # xc a + c = x a + (c - mean a)
                out = gx[a:z]
                t = s[:r]  # free now (a row part keeps the products in ``prods``)
                if big:  # the (invstd w) block there (see _SCRATCH_BYTES)
                    gemm(t, inv.reshape(1, r), w_row, 0, ps, pinv + a * size, pw)
                    np.multiply(gs, t, out=out)
                else:
                    gemm(out, inv.reshape(1, r), w_row, 0, pgx + off, pinv + a * size, pw)
                    out *= gs  # gy (invstd w)
                # xc times a GEMM-made block of its row factor: cheaper than a broadcast
                gemm(t, u[:1, :r], ones_row, 0, ps, pu, pones)
                t *= ds
                out += t
                gemm(out, u[1:, :r], ones_row, 1, pgx + off, pu + u.strides[0], pones)

    if want_x and blocks == 1 and _row_parts(rows, n * _BWD_PASSES):
        # one block in row parts: the input gradient per row, the weight and bias sums over
        # the rows afterwards, whole (the same calls as the block's, so the same bits)
        centre = raw and not (m2 <= _ONE_PASS).all()
        prods = np.empty((rows, n), dtype=dt) if want_w else None
        units = rows // _ROW_ALIGN  # (the last takes the rows left over)
        _intraop.run_split(
            lambda lo, hi: rows_of(lo * _ROW_ALIGN, rows if hi == units else hi * _ROW_ALIGN,
                                   True, centre, prods),
            units, _ROW_ALIGN * n * _BWD_PASSES)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            if want_b:
                np.matmul(ones_r, g2, out=gb_parts[0])
            if want_w:
                np.matmul(inv2, prods, out=gw_parts[0])
                if raw and not centre:
                    c2 = np.multiply(mean, inv2)
                    np.negative(c2, out=c2)
                    gw_parts[0] += np.matmul(c2, g2)
    else:
        _run(lambda lo, hi: rows_of(lo * step, min(rows, hi * step)), blocks, step, n)
    results = {}
    if want_x:
        results["x"] = gx_out
    # one block: its sums are the result (fresh arrays, no copy)
    if want_w:
        results["w"] = (gw_parts[0] if blocks == 1 else gw_parts.sum(0)).reshape(w_shape)
    if want_b:
        results["b"] = (gb_parts[0] if blocks == 1 else gb_parts.sum(0)).reshape(b_shape)
    out = tuple(results[k] for k in outs)
    return out if len(out) > 1 else out[0]
