"""The strided input gradient (and strided transposed convolution) as sub-pixel phases.

Why: col2im computes ``w^T gy`` into columns ``prod(kernel)`` times the size of ``gy`` and
adds them back one kernel tap at a time in strided runs of one output row (dcgan's 4x4
stride-2 layers: 4-32 values per run, 16 read-modify-write passes). When the kernel is a
multiple of the stride in each dim, every output phase ``(y % s_h, x % s_w)`` is instead a
stride-1 convolution of ``gy`` with ``T = k / s`` taps per dim (a 2x2 sub-kernel for
k=4, s=2): per phase one GEMM whose result lands straight in that phase's positions, with
no scatter-add at all.

The phases share one operand: ``gy`` turned channels-last and cut into its ``T x T``
windows, ``G[(y, n, x), (t_h, t_w, o)] = gy_padded[y + t_h, n, x + t_w, o]`` (``T*T`` times
``gy``, where col2im's columns are ``k*k`` times). With the rows ordered ``(y, n, x)`` every
position is a constant stride apart, so phase ``(r_h, r_w)``'s rows are one strided view of
``G`` starting ``(d_h, d_w)`` positions in: ``dx`` is computed on rows of ``X`` positions
(``X - width`` junk ones per row, dropped in the copy into ``dx``).

Derivation, per dim: ``dx_pad[s*u + r] = sum_a' gy[u - a'] w[r + s*a']``, so with ``gy``
padded by ``T - 1`` in front, output ``dx[s*v + rho]`` (``q = s*v + rho + lo`` in the padded
frame, ``r = q % s``) reads the window of ``T`` values starting at ``v + (rho + lo) // s``
with the sub-kernel ``w[r + s*(T - 1 - t)]``, ``t < T``.
"""

from ..backend import helpers_for
from . import _intraop

__all__ = []

# Where it applies, measured against col2im (one thread, CPU time, ms, col2im -> here):
# dcgan's 4x4/2 layers at batch 16, dx 16ch 32x32 from 32ch 16x16 3.11 -> 1.47, 16ch 16x16
# from 64ch 8x8 1.18 -> 0.69, 64ch 8x8 from 128ch 4x4 1.19 -> 1.14; at batch 64, 128ch
# 16x16 from 256ch 8x8 61 -> 54; a 6x6/3 kernel 3.47 -> 1.64. Lost, so left out: dx of 3
# channels (dcgan's 16 -> 3 output layer: BLAS's narrow result columns, 2.1 -> 2.3);
# a kernel equal to the stride (one tap per phase: nothing to save on col2im's assignments,
# 6.5 -> 9.4); gy maps under 8 wide with a deep reduction, where the junk column of each
# window row (1 in 5 on 4x4 maps) costs more than the scatter saves (256ch 4x4: 2.0 -> 2.5)
MIN_CHANNELS = 8
MIN_WIDTH = 8
# window rows shorter than this: each column phase gets windows of exactly its positions (no
# junk column), one window copy each. dx from 128ch 4x4 gy, batch 16: 1.30 -> 1.03 ms (median
# of 15); 256ch 4x4 at batch 64 65.6 -> 54.2; 64ch 8x8 1.37 -> 1.24; 32ch 16x16 1.63 -> 1.78
EXACT_BELOW = 16
MAX_NARROW_DEPTH = 512  # T*T*O below MIN_WIDTH
# up to this many dx channels the phases of the shared windows run as one GEMM with s*s*c
# result columns over all window rows (~12% more rows than one phase's): BLAS on 16 result
# columns ran ~70 GF/s; dcgan's 16-channel dx, block of 4 samples, 4 GEMMs 0.236 -> one
# 0.213 ms (one thread, CPU time); session 39 found no gain from 32 channels up
ONE_GEMM_MAX_CHANNELS = 16


def applies(gy, w, stride, dilation, groups):
    """2-d, one group, no dilation, a stride above 1 dividing a larger kernel in each dim,
    floating operands of one dtype, enough dx channels, and wide gy maps or a shallow
    reduction (see the measurements above)."""
    if not (gy.ndim == 4 and w.ndim == 4 and groups == 1 and tuple(dilation) == (1, 1)
            and any(s > 1 for s in stride) and gy.dtype == w.dtype and gy.dtype.char in "fd"
            and w.shape[1] >= MIN_CHANNELS and gy.shape[0] > 0):
        return False
    if not all(k % s == 0 and k > s for k, s in zip(w.shape[2:], stride)):
        return False
    depth = w.shape[0] * (w.shape[2] // stride[0]) * (w.shape[3] // stride[1])
    return gy.shape[3] >= MIN_WIDTH or depth <= MAX_NARROW_DEPTH


def _phases(size, stride, lo, taps):
    """Per output phase ``rho < s`` of one dim: ``(rho, count, start, r)``: its positions in
    dx, the first window's offset in the front-padded gy, and the kernel phase it uses."""
    return [(rho, -(-(size - rho) // stride), (rho + lo) // stride, (rho + lo) % stride)
            for rho in range(min(stride, size))]


def input_grad(xp, gy, w, size, stride, padding, step, res=None):
    """dx of spatial ``size`` for output gradient ``gy`` of the convolution with weight ``w``
    (stride ``stride``, ``(lo, hi)`` padding pairs); ``step`` samples per block."""
    n, o, gh, gw = gy.shape
    c, kh, kw = w.shape[1:]
    (sh, sw), ((lh, _), (lw, _)) = stride, padding
    th, tw = kh // sh, kw // sw
    rows = _phases(size[0], sh, lh, th)
    cols = _phases(size[1], sw, lw, tw)
    ny = max(cnt + d for _, cnt, d, _ in rows)  # window rows of G
    nx = max(cnt + d for _, cnt, d, _ in cols)  # window columns (row length of G)
    depth = th * tw * o
    dtype = gy.dtype
    # per phase the sub-kernel as (t_h, t_w, o) x c GEMM rows: w[o, c, r + s*(T-1-t)]
    sub = w.reshape(o, c, th, sh, tw, sw)[:, :, ::-1, :, ::-1]  # (o, c, t_h, r_h, t_w, r_w)
    wp = xp.ascontiguousarray(sub.transpose(3, 5, 2, 4, 0, 1)).reshape(sh, sw, depth, c)
    dx = xp.empty((n, c) + tuple(size), dtype=dtype) if res is None else res
    if nx >= EXACT_BELOW and c <= ONE_GEMM_MAX_CHANNELS:
        wcat = xp.ascontiguousarray(wp.transpose(2, 0, 1, 3)).reshape(depth, sh * sw * c)
    m0 = min(step, n)
    # gy of a block channels-last, zero-padded: T - 1 in front, up to the windows' reach behind
    py, px = ny + th - 1, nx + tw - 1
    hh, ww = min(gh, ny), min(gw, nx)
    for i in range(0, n, step):
        m = min(step, n - i)
        if i == 0 or m != m0:  # the first block, and a last, partial one: buffers of its size
            pad = xp.zeros((py, m, px, o), dtype=dtype)
            # the windows' strided views, made once per buffer (as_strided costs ~11 us)
            wins = _windows(xp, pad, ny, nx, (th, tw), cols)
            if nx >= EXACT_BELOW:
                # G with one spare row of windows: a phase view reaches d_w positions past it
                g = xp.empty(((ny + 1) * m * nx, depth), dtype=dtype)
                g[ny * m * nx:] = 0
            m0 = m
        _intraop.copy(gy[i:i + m, :, :hh, :ww].transpose(2, 0, 3, 1),
                      pad[th - 1:th - 1 + hh, :, tw - 1:tw - 1 + ww])
        if nx < EXACT_BELOW:
            _exact_phases(xp, wins, wp, rows, cols, stride, ny, dx[i:i + m])
            continue
        # all T x T windows in one copy: (y, n, x, t_h, t_w, o) from the padded block (the
        # phases' GEMMs and copies into dx stay apart: one batched GEMM over a strided view
        # of G measured no faster, and one 6-d copy of every phase into dx 3.5x slower)
        _intraop.copy(wins[0], g[:ny * m * nx].reshape(ny, m, nx, th, tw, o))
        if c <= ONE_GEMM_MAX_CHANNELS:
            # every phase's product in one GEMM over all windows (N = s_h * s_w * c columns)
            z = xp.matmul(g, wcat).reshape(len(g), sh * sw, c)
            for rho_h, cnt_h, dh, rh in rows:
                for rho_w, cnt_w, dw, rw in cols:
                    start = dh * m * nx + dw
                    part = z[start:start + cnt_h * m * nx, rh * sw + rw]
                    part = part.reshape(cnt_h, m, nx, c)[:, :, :cnt_w]
                    _intraop.copy(part.transpose(1, 3, 0, 2), dx[i:i + m, :, rho_h::sh, rho_w::sw])
            continue
        for rho_h, cnt_h, dh, rh in rows:
            for rho_w, cnt_w, dw, rw in cols:
                start = dh * m * nx + dw
                part = g[start:start + cnt_h * m * nx]
                # (positions, c): the transposed product (c, positions), whose copy into dx
                # reads whole rows, measured 1.1-1.6x slower (BLAS on 8-64 result rows)
                z = xp.matmul(part, wp[rh, rw]).reshape(cnt_h, m, nx, c)
                _intraop.copy(z[:, :, :cnt_w].transpose(1, 3, 0, 2),
                              dx[i:i + m, :, rho_h::sh, rho_w::sw])
    return dx


def _windows(xp, pad, ny, nx, taps, cols):
    """Views of the padded block ``pad`` ``(y, n, x, o)`` as its ``T x T`` windows
    ``(ny, n, x, t_h, t_w, o)``: rows of ``EXACT_BELOW`` windows or more, one view of all
    ``nx`` columns (the shared copy); else one per column phase (in ``cols``' order) of that
    phase's exact columns."""
    (th, tw), (_, m, _, o) = taps, pad.shape
    sy, sn, sx, so = pad.strides
    strided = helpers_for(xp).as_strided
    if nx >= EXACT_BELOW:
        return [strided(pad, (ny, m, nx, th, tw, o), (sy, sn, sx, sy, sx, so))]
    return [strided(pad[:, :, dw:], (ny, m, cnt_w, th, tw, o), (sy, sn, sx, sy, sx, so))
            for _, cnt_w, dw, _ in cols]


def _exact_phases(xp, wins, wp, rows, cols, stride, ny, dst):
    """The phases of one block with windows of exactly each column phase's positions: one
    window copy per column phase instead of one shared copy with a junk column per row."""
    sh, sw = stride
    m = dst.shape[0]
    c = wp.shape[3]
    for (rho_w, cnt_w, _, rw), win in zip(cols, wins):
        g = _intraop.copy(win).reshape(ny * m * cnt_w, -1)
        for rho_h, cnt_h, dh, rh in rows:
            z = xp.matmul(g[dh * m * cnt_w:(dh + cnt_h) * m * cnt_w], wp[rh, rw])
            _intraop.copy(z.reshape(cnt_h, m, cnt_w, c).transpose(1, 3, 0, 2),
                          dst[:, :, rho_h::sh, rho_w::sw])
