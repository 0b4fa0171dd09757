"""Pooling primitives: window max (with torch's indices) over regular or listed windows,
window average, adaptive averaging along one axis, unpooling, and the index gather/scatter pair
that carries max-pool gradients.

These are primitives for speed: every window reduction is a loop over the kernel offsets (one
strided slice of the whole batch per offset), never a loop over output pixels, and every
scatter is an assignment, a strided add per kernel offset or one ``bincount``, never
``np.add.at``. Inputs arrive batched as ``(N, C, *spatial)`` (``nn.functional`` adds the batch
dim and checks every argument). Each backward is another op of this file whose own backward is
the original op again (the gather/scatter pair, the average/spread pair, an adaptive average and
its transpose), so gradients of any order work.

Torch's choices matched here: a window's maximum is its first maximum in row-major order, except
that a NaN wins and the last NaN is the one reported; a window whose real values all equal the
padding value reports its first in-bounds position; indices count positions in the flattened
(unpadded) spatial plane of each channel.
"""

import itertools

import numpy as np

from .. import _dtype
from ..autograd.graph import Op
from ..backend import helpers_for, is_device_array
from . import _intraop, pool_device
from . import conv_samples as _batch_split

__all__ = []

# Loop over kernel offsets while the window has at most this many elements; beyond, copy the
# windows out once and reduce them in one call (large kernels on small outputs, e.g. global
# pooling, would otherwise spend their time in the Python loop).
_LOOP_MAX_WINDOW = 16
# ... when one offset's slice has fewer elements than this (else the loop's per-call overhead
# is negligible) ...
_SMALL_VIEW = 8192
# ... and the copied windows would be at most this much larger than the input itself.
_WINDOW_COPY_FACTOR = 4
# An elementwise pass over one element, in GEMM multiply-adds (the unit of conv_samples' split
# threshold): pools of at least a few hundred thousand elements run split across free cores.
_PASS_WORK = 16
# float64 bins per bincount of an overlapping pool's backward (2 MB: stays in the L2/L3)
_BINCOUNT_BINS = 1 << 18


# ---------------------------------------------------------------------------------------------
# window geometry


def _reach(o, k, s, d):
    """Extent (from the first window's start) that ``o`` windows touch along one dim."""
    return (o - 1) * s + (k - 1) * d + 1


def _right_pad(spatial, kernel, stride, padding, dilation, out):
    """Padding needed past the input's end so every window lies inside the padded array.

    Torch's ceil mode may let the last window run past the right padding; floor mode may stop
    short of it, in which case nothing is added.
    """
    return tuple(max(0, _reach(o, k, s, d) - p - n) if o > 0 else 0
                 for n, k, s, p, d, o in zip(spatial, kernel, stride, padding, dilation, out))


def _padded(xp, x, padding, right, fill):
    """``x`` with ``padding`` (left) and ``right`` elements of ``fill`` around its spatial dims."""
    if not any(padding) and not any(right):
        return x
    sp = x.shape[2:]
    shape = x.shape[:2] + tuple(p + n + r for p, n, r in zip(padding, sp, right))
    out = xp.full(shape, fill, dtype=x.dtype)
    out[(Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(padding, sp))] = x
    return out


def _crop(xp_, padding, spatial):
    """The inverse of ``_padded``: the input region of a padded array."""
    if not any(padding) and all(a == n for a, n in zip(xp_.shape[2:], spatial)):
        return xp_
    return xp_[(Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(padding, spatial))]


def _offset_slices(kernel, stride, dilation, out):
    """For each kernel offset in row-major order, the slices that pick that offset's element
    of every window from the padded input (one strided view of the whole batch)."""
    ranges = [range(k) for k in kernel]
    for js in itertools.product(*ranges):
        yield (Ellipsis,) + tuple(slice(j * d, j * d + (o - 1) * s + 1, s)
                                  for j, s, d, o in zip(js, stride, dilation, out))


def _phase_right(shape, padding, right, kernel, stride, dilation, out):
    """The right padding that lets ``_offset_views`` split every dim into whole stride phases
    (None when every stride is 1: the plain slices are unit-stride already)."""
    if all(s == 1 for s in stride) or 0 in out:
        return None
    return tuple(max(r, -(-_reach(o, k, s, d) // s) * s - p - n) for n, p, r, k, s, d, o in
                 zip(shape, padding, right, kernel, stride, dilation, out))


def _offset_views(xp, a, kernel, stride, dilation, out, phases):
    """For each kernel offset in row-major order, the ``(N, C, *out)`` view of the padded ``a``
    holding that offset's element of every window.

    With ``phases`` (``a`` padded as ``_phase_right`` says) ``a`` is first copied once into
    stride phases ``(s_0, ..., N, C, n_0/s_0, ...)``: every offset is then a unit-stride slice
    of one phase, where a strided slice makes every later pass gather (measured 3x2 passes
    per offset of a 3x3/2 max pool 44 -> 11 ms with the copy, on ResNet's stem output).
    """
    if phases is None:
        return (a[sl] for sl in _offset_slices(kernel, stride, dilation, out))
    nd = len(kernel)
    sizes = [-(-_reach(o, k, s, d) // s) * s for o, k, s, d in zip(out, kernel, stride, dilation)]
    crop = a[(slice(None),) * 2 + tuple(slice(0, z) for z in sizes)]
    split = crop.reshape(a.shape[:2] + tuple(itertools.chain(*((z // s, s) for z, s in
                                                                zip(sizes, stride)))))
    perm = tuple(3 + 2 * i for i in range(nd)) + (0, 1) + tuple(2 + 2 * i for i in range(nd))
    src = split.transpose(perm)
    if is_device_array(a):
        ph = xp.ascontiguousarray(src)
    else:
        ph = _intraop.copy(src)
    lead = (slice(None), slice(None))

    def views():
        for js in itertools.product(*(range(k) for k in kernel)):
            yield ph[tuple((j * d) % s for j, d, s in zip(js, dilation, stride)) + lead +
                     tuple(slice((j * d) // s, (j * d) // s + o)
                           for j, d, s, o in zip(js, dilation, stride, out))]

    return views()


def _plane_strides(spatial):
    """Row-major strides (in elements) of one flattened spatial plane."""
    strides, acc = [], 1
    for n in reversed(spatial):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


def _grid(xp, per_dim):
    """Sum of 1-D integer arrays broadcast against each other, one per spatial dim."""
    nd = len(per_dim)
    total = None
    for i, v in enumerate(per_dim):
        shape = [1] * nd
        shape[i] = v.shape[0]
        v = v.reshape(shape)
        total = v if total is None else total + v
    return total


def _flat_index(xp, local, spatial, kernel, stride, padding, dilation, out):
    """Torch's indices (positions in the unpadded plane) from kernel-offset indices ``local``."""
    ps = _plane_strides(spatial)
    base = _grid(xp, [(xp.arange(o, dtype=np.int64) * s - p) * st
                      for o, s, p, st in zip(out, stride, padding, ps)])
    offs = _grid(xp, [xp.arange(k, dtype=np.int64) * d * st
                      for k, d, st in zip(kernel, dilation, ps)]).reshape(-1)
    flat = xp.take(offs, local)  # measured 20% faster than offs[local] on uint8 offsets
    flat += base
    return flat


def _first_valid_offset(xp, spatial, kernel, stride, padding, dilation, out):
    """Per window, the kernel offset of its first in-bounds element (row-major)."""
    per_dim = []
    mult = 1
    for n, k, s, p, d, o in reversed(list(zip(spatial, kernel, stride, padding, dilation, out))):
        start = xp.arange(o, dtype=np.int64) * s - p
        j = xp.where(start < 0, (-start + d - 1) // d, 0)
        per_dim.append(xp.minimum(j, k - 1) * mult)
        mult *= k
    return _grid(xp, per_dim[::-1])


def _overlaps(kernel, stride, dilation):
    """Whether an input element can belong to two windows."""
    return any(s < (k - 1) * d + 1 for k, s, d in zip(kernel, stride, dilation))


def _windows(xp, xp_, kernel, stride, dilation, out):
    """All windows copied out as ``(N, C, *out, prod(kernel))`` (row-major within a window)."""
    nd = len(kernel)
    eff = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilation))
    axes = tuple(range(2, 2 + nd))
    win = helpers_for(xp).sliding_window_view(xp_, eff, axes)
    pick = (Ellipsis,) + tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(out, stride)) + \
        tuple(slice(None, None, d) for d in dilation)
    win = win[pick]
    return win.reshape(win.shape[:2 + nd] + (int(np.prod(kernel)),))


def _argmax_torch(xp, win, has_nan):
    """Index along the last axis of the first maximum, or of the last NaN if there is one."""
    arg = win.argmax(axis=-1)
    if has_nan:
        nan = xp.isnan(win)
        last = win.shape[-1] - 1 - nan[..., ::-1].argmax(axis=-1)
        arg = xp.where(nan.any(axis=-1), last, arg)
    return arg


def _planes(a):
    """``(N, C, *rest)`` viewed as ``(N*C, prod(rest))`` (also when N*C is 0)."""
    return a.reshape(a.shape[0] * a.shape[1], int(np.prod(a.shape[2:])))


def _has_nan(xp, x):
    if _dtype.np_kind(x.dtype) != "f" or x.size == 0:
        return False
    if xp is not np:  # asking would be a host sync per call: take the NaN-aware path
        return True
    # max() propagates NaN and cannot overflow, so one fast reduction answers the question
    return bool(np.isnan(x.max()))


def _lowest(dtype):
    return -np.inf if _dtype.np_kind(dtype) == "f" else np.iinfo(dtype).min


# ---------------------------------------------------------------------------------------------
# max pooling


def _running_argmax(xp, views, count, has_nan, need_index):
    """Elementwise max over ``count`` equally shaped arrays, and which one torch picks.

    One pass per array over whole-batch arrays: the first maximum stays (strict ``>``), a NaN
    always takes over (so the last NaN is reported, and the value is NaN).
    """
    views = iter(views)
    best = next(views).copy()
    if not need_index:
        for v in views:  # maximum() propagates NaN, which is torch's value
            xp.maximum(best, v, out=best)
        return best, None
    local = xp.zeros(best.shape, dtype=np.uint8 if count <= 256 else np.int64)
    upd = xp.empty(best.shape, dtype=bool)
    step = xp.empty_like(local)
    for k, v in enumerate(views, 1):
        xp.greater(v, best, out=upd)
        if has_nan:
            upd |= xp.isnan(v)
            xp.copyto(best, v, where=upd)
        else:
            xp.maximum(best, v, out=best)
        # k exceeds every index recorded so far, so max(local, k * upd) records it where upd
        # holds: two fast passes, where copyto(local, k, where=upd) measured 20x slower
        xp.multiply(upd, local.dtype.type(k), out=step)
        xp.maximum(local, step, out=local)
    return best, local


def _use_window_copy(n_win, per_view, copy_size, input_size):
    """Whether to copy windows out and reduce them in one call rather than loop over offsets.

    The loop costs a few NumPy calls per kernel offset, the copy a pass over every window
    element: copying wins for large kernels on small outputs (global pooling), as long as the
    copy stays comparable to the input in size.
    """
    return (n_win > _LOOP_MAX_WINDOW and per_view < _SMALL_VIEW and
            copy_size <= _WINDOW_COPY_FACTOR * max(input_size, 1 << 16))


def _max_pool_arrays(xp, x, kernel, stride, padding, dilation, out, need_index):
    """(window maxima, torch's flat indices or None) of a batched ``x``; see :class:`MaxPool`."""
    if is_device_array(x):  # GPU: one kernel (pool_device)
        r = pool_device.max_pool(xp, x, kernel, stride, padding, dilation, out)
        if r is not None:
            return r if need_index else (r[0], None)
    spatial = x.shape[2:]
    right = _right_pad(spatial, kernel, stride, padding, dilation, out)
    fill = _lowest(x.dtype)
    has_nan = _has_nan(xp, x)
    n_win = int(np.prod(kernel))
    per_view = int(np.prod(x.shape[:2] + tuple(out)))
    copy = _use_window_copy(n_win, per_view, per_view * n_win, x.size)
    # the index passes gain from unit-stride views; a bare maximum does not (measured)
    phases = None if copy or not need_index else _phase_right(spatial, padding, right, kernel,
                                                              stride, dilation, out)
    xp_ = _padded(xp, x, padding, right if phases is None else phases, fill)
    if copy:
        win = _windows(xp, xp_, kernel, stride, dilation, out)
        if not need_index:
            return win.max(axis=-1), None  # NaN propagates, as torch's value does
        local = _argmax_torch(xp, win, has_nan)
        y = xp.take_along_axis(win, local[..., None], axis=-1)[..., 0]
    else:
        views = _offset_views(xp, xp_, kernel, stride, dilation, out, phases)
        y, local = _running_argmax(xp, views, n_win, has_nan, need_index)
    if not need_index:
        return y, None
    if any(padding) or any(right):
        # padding must never be reported: where every real value equals the fill, torch
        # gives the window's first in-bounds element
        at_fill = y == fill
        if bool(at_fill.any()):
            first = _first_valid_offset(xp, spatial, kernel, stride, padding, dilation, out)
            local = xp.where(at_fill, first, local)
    return y, _flat_index(xp, local, spatial, kernel, stride, padding, dilation, out)


def _by_samples(x, work, kernel, combine):
    """``kernel(0, n)`` over the batch of ``x``, or ``combine`` of ``kernel(lo, hi)`` over
    parts of the batch on several cores (``conv_samples``: for large work on free cores)."""
    n = x.shape[0]
    k = _batch_split.parts((x,), n, work)
    if k == 1:
        return kernel(0, n)
    return combine(_batch_split.run(kernel, n, k))


class MaxPool(Op):
    """y = max over each window (torch's index rules); dx = grad scattered to the argmax.

    Params: kernel, stride, padding, dilation, out (output spatial size), indices (also return
    torch's int64 indices).
    """

    def forward(self, x):
        self.in_shape = x.shape
        need_index = self.indices or self._recording
        n_win = int(np.prod(self.kernel))

        def part(lo, hi):
            return _max_pool_arrays(self.xp, x[lo:hi], self.kernel, self.stride, self.padding,
                                    self.dilation, self.out, need_index)

        y, flat = _by_samples(x, x.size * n_win * _PASS_WORK, part, lambda res: tuple(
            None if r[0] is None else _batch_split.joined(r) for r in zip(*res)))
        if not need_index:
            return y
        if self._recording:
            self.save(index=flat)
        return (y, flat) if self.indices else y

    def backward(self, grad, *_unused):
        mode = "bincount" if _overlaps(self.kernel, self.stride, self.dilation) else "put"
        return PoolScatter.apply(grad, index=self.saved("index"), shape=self.in_shape, mode=mode,
                                 window=(self.kernel, self.stride, self.padding, self.dilation))


class WindowMax(Op):
    """y = max over windows listed by flat input positions (adaptive and fractional pooling);
    dx = grad scattered to the argmax.

    Params: index (int64 ``(B, L, *out)``: element ``l`` of every window, as positions in the
    flattened plane; B = 1 for windows shared by all planes, N*C for per-plane windows;
    repeated positions allowed), unique (whether windows are disjoint), indices.
    """

    def forward(self, x):
        xp = self.xp
        n, c = x.shape[:2]
        self.in_shape = x.shape
        index = self.index
        length = index.shape[1]
        out = index.shape[2:]
        x2 = _planes(x)
        if index.shape[0] == 1:
            win = x2[:, index[0]]
        else:
            rows = index.reshape(n * c, int(np.prod(index.shape[1:])))
            win = xp.take_along_axis(x2, rows, axis=1).reshape(index.shape)
        has_nan = _has_nan(xp, x)
        need_index = self.indices or self._recording
        if not need_index:
            return win.max(axis=1).reshape((n, c) + out)  # NaN propagates, as in torch
        if _use_window_copy(length, win[:, 0].size, 0, 0):
            moved = xp.moveaxis(win, 1, -1)
            local = _argmax_torch(xp, moved, has_nan)
            y = xp.take_along_axis(moved, local[..., None], axis=-1)[..., 0]
        else:
            y, local = _running_argmax(xp, (win[:, k] for k in range(length)), length, has_nan,
                                       True)
        if index.shape[0] == 1:
            n_out = int(np.prod(out))
            flat = index[0].reshape(length, n_out)[local.reshape(n * c, n_out),
                                                   xp.arange(n_out)]
        else:
            flat = xp.take_along_axis(index, local[:, None].astype(np.int64), axis=1)
        y = y.reshape((n, c) + out)
        flat = flat.reshape((n, c) + out)
        if self._recording:
            self.save(index=flat)
        return (y, flat) if self.indices else y

    def backward(self, grad, *_unused):
        return PoolScatter.apply(grad, index=self.saved("index"), shape=self.in_shape,
                                 mode="put" if self.unique else "bincount")


class PoolScatter(Op):
    """y = zeros(shape) with grad[n, c, o] added at plane position index[n, c, o];
    dgrad = gather of the incoming gradient at the same positions.

    Params: index, shape, mode ("put" when positions never repeat within a plane, so plain
    assignment is enough; "bincount" otherwise).
    """

    def forward(self, g):
        xp = self.xp
        shape = self.shape
        window = getattr(self, "window", None)  # a regular max pool's (from MaxPool)
        if window is not None and is_device_array(g):  # GPU: one kernel (pool_device)
            r = pool_device.max_pool_grad(xp, g, self.index, shape, window, self.mode != "put")
            if r is not None:
                return r
        c = shape[1]
        plane = int(np.prod(shape[2:]))
        res = xp.empty(shape, dtype=g.dtype)
        index = self.index

        def part(lo, hi):
            rows = (hi - lo) * c
            dst = res[lo:hi].reshape(rows, plane)
            if self.mode == "put":
                full = _planes(index[lo:hi]) + xp.arange(0, rows * plane, plane,
                                                         dtype=np.int64)[:, None]
                # written through a view so the result owns its memory (the engine would copy
                # a view before storing it in .grad); one flat index, not a (rows, 1) by
                # (rows, L) pair broadcast per element (the MNIST net's 2x2 pool backward,
                # 64x64x24x24: 2.1 -> 1.3 ms, one thread, CPU time)
                dst[...] = 0
                dst.reshape(-1)[full.reshape(-1)] = g[lo:hi].reshape(-1)
                return
            # Repeated positions must add up. One bincount over plane-offset positions is a
            # single pass (it sums in float64; the assignment rounds once); measured 3-4x
            # faster than a strided add per kernel offset for 3x3 windows with stride 2.
            # A few planes per bincount keep its float64 bins in the cache: ResNet-18's 3x3/2
            # pool backward at 16x64x56x56 5.0 -> 2.7 ms, at 112x112 30 -> 11 ms (one thread,
            # CPU time; the whole batch's bins were 25-100 MB)
            idx, gr = _planes(index[lo:hi]), _planes(g[lo:hi])
            step = max(1, _BINCOUNT_BINS // max(plane, 1))
            offsets = xp.arange(0, min(step, rows) * plane, plane, dtype=np.int64)[:, None]
            for r in range(0, rows, step):
                m = min(step, rows - r)
                full = idx[r:r + m] + offsets[:m]
                dst[r:r + m] = xp.bincount(full.reshape(-1), weights=gr[r:r + m].reshape(-1),
                                           minlength=m * plane).reshape(m, plane)

        _by_samples(g, res.size * _PASS_WORK, part, lambda _: None)
        return res

    def backward(self, gg):
        return PoolGather.apply(gg, index=self.index, shape=self.shape, mode=self.mode)


class PoolGather(Op):
    """y[n, c, o] = x[n, c, index[n, c, o]] in the flattened plane; dx = scatter-add of grad.

    Params as :class:`PoolScatter` (its adjoint).
    """

    def forward(self, x):
        xp = self.xp
        n, c = x.shape[:2]
        out = self.index.shape[2:]
        y = xp.take_along_axis(_planes(x), _planes(self.index), axis=1)
        return y.reshape((n, c) + out)

    def backward(self, grad):
        return PoolScatter.apply(grad, index=self.index, shape=self.shape, mode=self.mode)


class MaxUnpool(Op):
    """y = zeros(shape) with y[n, c, index[n, c, i]] = x[n, c, i] (later writes win);
    dx = grad gathered at the same positions.

    Params: index (int64, x's shape, already range-checked), shape (N, C, *output spatial).
    """

    def forward(self, x):
        xp = self.xp
        n, c = x.shape[:2]
        size = int(np.prod(self.shape[2:]))
        rows = xp.arange(n * c, dtype=np.int64)[:, None]
        index, values = _planes(self.index), _planes(x)
        if xp is np:  # NumPy writes a repeated position in order: the last write wins
            res = xp.zeros(self.shape, dtype=x.dtype)
            res.reshape(n * c, size)[rows, index] = values
            return res
        # On a GPU the threads writing one position race (CuPy leaves the winner undefined):
        # each position takes the input that names it last, found as the largest input
        # position scattered there (an atomic max on int64), then gathered
        last = xp.full((n * c, size), -1, dtype=np.int64)
        order = xp.broadcast_to(xp.arange(index.shape[1], dtype=np.int64), index.shape)
        helpers_for(xp).ufunc_at("maximum", last, (rows, index), order)
        taken = xp.take_along_axis(values, xp.maximum(last, 0), axis=1)
        res = xp.where(last >= 0, taken, xp.zeros((), dtype=x.dtype))
        return res.reshape(self.shape)

    def backward(self, grad):
        return PoolGather.apply(grad, index=self.index, shape=self.shape, mode="bincount")


# ---------------------------------------------------------------------------------------------
# average pooling


def _acc_dtype(dtype):
    """Dtype to sum windows in: float16/bfloat16-like types sum in float32, integers in int64."""
    if _dtype.np_kind(dtype) == "f":
        return np.float32 if dtype.itemsize < 4 else dtype
    return np.int64


def _divide(xp, total, divisor, dtype):
    """total / divisor in ``dtype`` (``total`` is a fresh array, divided in place); integer
    division truncates toward zero, as torch's does."""
    if _dtype.np_kind(dtype) != "f":
        q = xp.abs(total) // divisor
        return xp.where(total < 0, -q, q).astype(dtype, copy=False)
    if not isinstance(divisor, (int, float)):
        divisor = divisor.astype(total.dtype, copy=False)
    xp.divide(total, divisor, out=total)
    return total.astype(dtype, copy=False)


class AvgPool(Op):
    """y = sum over each window / divisor; dx = grad / divisor spread over each window.

    Params: kernel, stride, padding, out, divisor (a number, or an int64 array over the output
    grid), in_shape. Padding is zeros; the divisor already says whether it counts.
    """

    def forward(self, x):
        xp = self.xp
        kernel, stride, padding, out = self.kernel, self.stride, self.padding, self.out
        ones = (1,) * len(kernel)
        right = _right_pad(x.shape[2:], kernel, stride, padding, ones, out)
        acc = _acc_dtype(x.dtype)
        xp_ = _padded(xp, x, padding, right, 0)
        n_win = int(np.prod(kernel))
        if n_win > _LOOP_MAX_WINDOW:
            # a strided window view summed in one call: no copy, no long Python loop
            eff = helpers_for(xp).sliding_window_view(xp_, kernel, tuple(range(2, 2 + len(out))))
            pick = (Ellipsis,) + tuple(slice(0, (o - 1) * s + 1, s) for o, s in
                                       zip(out, stride)) + (slice(None),) * len(out)
            total = eff[pick].sum(axis=tuple(range(-len(out), 0)), dtype=acc)
        else:
            slices = _offset_slices(kernel, stride, ones, out)
            total = xp_[next(slices)].astype(acc, copy=True)
            for sl in slices:
                total += xp_[sl]
        return _divide(xp, total, self.divisor, x.dtype)

    def backward(self, grad):
        return AvgPoolBackward.apply(grad, kernel=self.kernel, stride=self.stride,
                                     padding=self.padding, out=self.out, divisor=self.divisor,
                                     in_shape=self.in_shape)


class AvgPoolBackward(Op):
    """dx = grad / divisor added to every element of each window; its gradient is AvgPool."""

    def forward(self, g):
        xp = self.xp
        kernel, stride, padding, out = self.kernel, self.stride, self.padding, self.out
        spatial = self.in_shape[2:]
        ones = (1,) * len(kernel)
        div = self.divisor
        gd = g / (div if isinstance(div, (int, float)) else div.astype(g.dtype, copy=False))
        if (kernel == stride and not any(padding) and
                all(o * k == n for o, k, n in zip(out, kernel, spatial))):
            # disjoint windows tiling the input exactly: one broadcasting assignment
            res = xp.empty(self.in_shape, dtype=g.dtype)
            tiled = res.reshape(g.shape[:2] + tuple(itertools.chain(*zip(out, kernel))))
            nd = len(out)
            view = (Ellipsis,) + tuple(itertools.chain(*((slice(None), None),) * nd))
            tiled[...] = gd[view]
            return res
        right = _right_pad(spatial, kernel, stride, padding, ones, out)
        res = xp.zeros(g.shape[:2] + tuple(p + n + r for p, n, r in
                                           zip(padding, spatial, right)), dtype=g.dtype)
        # torch walks the output positions in row-major order, adding into each window: an
        # input's contributions arrive in reverse kernel-offset order (rounded after each add)
        for sl in reversed(list(_offset_slices(kernel, stride, ones, out))):
            res[sl] += gd
        return xp.ascontiguousarray(_crop(res, padding, spatial))

    def backward(self, gg):
        in_shape = tuple(gg.shape)
        return AvgPool.apply(gg, kernel=self.kernel, stride=self.stride, padding=self.padding,
                             out=self.out, divisor=self.divisor, in_shape=in_shape)


class AxisWindowSum(Op):
    """y[.., i, ..] = sum_m w[i, m] * x[.., idx[i, m], ..] along ``axis`` (adaptive average
    pooling, one dim at a time); dx is the same kind of sum over the transposed windows.

    Params: axis, idx and w (``(out, M)``: each output's window, padded with zero weights),
    adjoint (the ``(idx, w)`` pair of the transposed map, which is this op's backward).
    """

    def forward(self, x):
        xp, axis, idx, w = self.xp, self.axis, self.idx, self.w
        shape = [1] * x.ndim
        shape[axis] = idx.shape[0]
        acc = None
        for m in range(idx.shape[1]):  # one gather per window offset, whole batch at once
            term = xp.take(x, idx[:, m], axis=axis)
            term *= w[:, m].reshape(shape)
            if acc is None:
                acc = term
            else:
                acc += term
        return acc

    def backward(self, grad):
        idx, w = self.adjoint
        return AxisWindowSum.apply(grad, axis=self.axis, idx=idx, w=w,
                                   adjoint=(self.idx, self.w))


# ---------------------------------------------------------------------------------------------
# entry points used by nn.functional (inputs already checked and batched)


def max_pool(input, kernel, stride, padding, dilation, out, indices):
    """Max pooling of a batched ``(N, C, *spatial)`` tensor; see :class:`MaxPool`."""
    return MaxPool.apply(input, kernel=kernel, stride=stride, padding=padding,
                         dilation=dilation, out=out, indices=indices)


def window_max(input, index, unique, indices):
    """Max over explicitly listed windows; see :class:`WindowMax`."""
    return WindowMax.apply(input, index=index, unique=unique, indices=indices)


def avg_pool(input, kernel, stride, padding, out, divisor):
    """Average pooling of a batched ``(N, C, *spatial)`` tensor; see :class:`AvgPool`."""
    return AvgPool.apply(input, kernel=kernel, stride=stride, padding=padding, out=out,
                         divisor=divisor, in_shape=tuple(input.shape))


def max_unpool(input, index, shape):
    """Place each value at its index in a zero tensor of ``shape``; see :class:`MaxUnpool`."""
    return MaxUnpool.apply(input, index=index, shape=tuple(shape))


def axis_window_sum(input, axis, windows, adjoint):
    """Weighted window sums along one axis; see :class:`AxisWindowSum`."""
    idx, w = windows
    return AxisWindowSum.apply(input, axis=axis, idx=idx, w=w, adjoint=adjoint)
