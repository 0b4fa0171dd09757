"""Pooling primitives: window max (with torch's indices), window average, unpooling, and the
index gather/scatter pair that carries max-pool gradients.

These are primitives for speed: every window reduction is a loop over the kernel offsets (one
strided slice of the whole batch per offset), never a loop over output pixels, and every
scatter is an assignment, a strided add per kernel offset or one ``bincount``, never
``np.add.at``. Inputs arrive batched as ``(N, C, *spatial)`` (``nn.functional`` adds the batch
dim and checks every argument). Each backward is another op of this file whose own backward is
the original op again (the gather/scatter pair, the average/spread pair), so gradients of any
order work.

Torch's choices matched here: a window's maximum is its first maximum in row-major order, except
that a NaN wins and the last NaN is the one reported; a window whose real values all equal the
padding value reports its first in-bounds position; indices count positions in the flattened
(unpadded) spatial plane of each channel.
"""

import itertools

import numpy as np

from .._tensor import _make
from ..autograd.graph import Op
from ..backend import helpers_for

__all__ = []

# Loop over kernel offsets while the window has at most this many elements; beyond, copy the
# windows out once and reduce them in one call (large kernels on small outputs, e.g. global
# pooling, would otherwise spend their time in the Python loop).
_LOOP_MAX_WINDOW = 16
# ... unless the copied windows would be this much larger than the input itself.
_WINDOW_COPY_FACTOR = 4


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
    return base + offs[local]


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
    return win.reshape(win.shape[:2 + nd] + (-1,))


def _argmax_torch(xp, win, has_nan):
    """Index along the last axis of the first maximum, or of the last NaN if there is one."""
    arg = win.argmax(axis=-1)
    if has_nan:
        nan = xp.isnan(win)
        last = win.shape[-1] - 1 - nan[..., ::-1].argmax(axis=-1)
        arg = xp.where(nan.any(axis=-1), last, arg)
    return arg


def _has_nan(xp, x):
    # max() propagates NaN and cannot overflow, so one fast reduction answers the question
    return x.dtype.kind == "f" and x.size > 0 and bool(xp.isnan(x.max()))


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


# ---------------------------------------------------------------------------------------------
# max pooling


class MaxPool(Op):
    """y = max over each window (torch's index rules); dx = grad scattered to the argmax.

    Params: kernel, stride, padding, dilation, out (output spatial size), indices (also return
    torch's int64 indices).
    """

    def forward(self, x):
        xp = self.xp
        kernel, stride, padding, dilation, out = (self.kernel, self.stride, self.padding,
                                                  self.dilation, self.out)
        spatial = x.shape[2:]
        self.in_shape = x.shape
        right = _right_pad(spatial, kernel, stride, padding, dilation, out)
        fill = _lowest(x.dtype)
        xp_ = _padded(xp, x, padding, right, fill)
        need_index = self.indices or self._recording
        has_nan = _has_nan(xp, x)
        n_win = int(np.prod(kernel))
        out_numel = int(np.prod(x.shape[:2] + tuple(out)))
        copy_ok = out_numel * n_win <= _WINDOW_COPY_FACTOR * max(x.size, 1 << 16)
        if n_win > _LOOP_MAX_WINDOW and copy_ok:
            win = _windows(xp, xp_, kernel, stride, dilation, out)
            local = _argmax_torch(xp, win, has_nan)
            y = xp.take_along_axis(win, local[..., None], axis=-1)[..., 0]
        else:
            y, local = self._loop(xp, xp_, has_nan, need_index)
        if not need_index:
            return y
        if any(padding) or any(right):
            # padding must never be reported: where every real value equals the fill, torch
            # gives the window's first in-bounds element
            at_fill = y == fill
            if bool(at_fill.any()):
                first = _first_valid_offset(xp, spatial, kernel, stride, padding, dilation, out)
                local = xp.where(at_fill, first, local)
        flat = _flat_index(xp, local, spatial, kernel, stride, padding, dilation, out)
        if self._recording:
            self.save(index=flat, local=local)
        return (y, flat) if self.indices else y

    def _loop(self, xp, xp_, has_nan, need_index):
        slices = _offset_slices(self.kernel, self.stride, self.dilation, self.out)
        best = xp_[next(slices)].copy()
        if not need_index:
            for sl in slices:  # maximum() propagates NaN, which is torch's value
                xp.maximum(best, xp_[sl], out=best)
            return best, None
        local = xp.zeros(best.shape, dtype=np.uint8 if len(self.kernel) and
                         int(np.prod(self.kernel)) < 256 else np.int64)
        upd = xp.empty(best.shape, dtype=bool)
        for k, sl in enumerate(slices, 1):
            s = xp_[sl]
            xp.greater(s, best, out=upd)  # strict: the first maximum stays
            if has_nan:
                upd |= xp.isnan(s)  # any NaN replaces the current pick, so the last one wins
                xp.copyto(best, s, where=upd)
            else:
                xp.maximum(best, s, out=best)
            xp.copyto(local, k, where=upd)
        return best, local

    def backward(self, grad, *_unused):
        geom = (self.kernel, self.stride, self.padding, self.dilation, self.out)
        mode = "window" if _overlaps(self.kernel, self.stride, self.dilation) else "put"
        return PoolScatter.apply(grad, index=self.saved("index"), shape=self.in_shape,
                                 mode=mode, local=self.saved("local"), geom=geom)


class WindowMax(Op):
    """y = max over windows listed by flat input positions (adaptive and fractional pooling);
    dx = grad scattered to the argmax.

    Params: index (int64 ``(B, *out, L)`` with B = 1 for windows shared by all planes or
    N*C for per-plane windows; positions in the flattened plane, repeats allowed), unique
    (whether windows are disjoint), indices.
    """

    def forward(self, x):
        xp = self.xp
        n, c = x.shape[:2]
        self.in_shape = x.shape
        index = self.index
        out = index.shape[1:-1]
        x2 = x.reshape(n * c, -1)
        if index.shape[0] == 1:
            win = x2[:, index[0]]
            index = xp.broadcast_to(index, (n * c,) + index.shape[1:])
        else:
            win = xp.take_along_axis(x2, index.reshape(n * c, -1), axis=1).reshape(index.shape)
        local = _argmax_torch(xp, win, _has_nan(xp, x))[..., None]
        y = xp.take_along_axis(win, local, axis=-1).reshape((n, c) + out)
        flat = xp.take_along_axis(index, local, axis=-1).reshape((n, c) + out)
        if self._recording:
            self.save(index=flat)
        return (y, flat) if self.indices else y

    def backward(self, grad, *_unused):
        return PoolScatter.apply(grad, index=self.saved("index"), shape=self.in_shape,
                                 mode="put" if self.unique else "bincount")


class PoolScatter(Op):
    """y = zeros(shape) with grad[n, c, o] added at plane position index[n, c, o];
    dgrad = gather of the incoming gradient at the same positions.

    Params: index, shape, mode ("put": positions never repeat within a plane; "window": a
    max-pool's overlapping windows, given ``local`` kernel offsets and ``geom``; "bincount":
    anything else).
    """

    def forward(self, g):
        xp = self.xp
        shape = self.shape
        n, c = shape[:2]
        spatial = shape[2:]
        if self.mode == "window":
            kernel, stride, padding, dilation, out = self.geom
            right = _right_pad(spatial, kernel, stride, padding, dilation, out)
            res = xp.zeros(shape[:2] + tuple(p + s + r for p, s, r in
                                             zip(padding, spatial, right)), dtype=g.dtype)
            zero = g.dtype.type(0)
            local = self.local
            for k, sl in enumerate(_offset_slices(kernel, stride, dilation, out)):
                res[sl] += xp.where(local == k, g, zero)
            return xp.ascontiguousarray(_crop(res, padding, spatial))
        plane = int(np.prod(spatial))
        if self.mode == "put":
            res = xp.zeros((n * c, plane), dtype=g.dtype)
            rows = xp.arange(n * c, dtype=np.int64)[:, None]
            res[rows, self.index.reshape(n * c, -1)] = g.reshape(n * c, -1)
            return res.reshape(shape)
        full = self.index.reshape(n * c, -1) + xp.arange(n * c, dtype=np.int64)[:, None] * plane
        res = xp.bincount(full.reshape(-1), weights=g.reshape(-1), minlength=n * c * plane)
        return res.astype(g.dtype, copy=False).reshape(shape)

    def backward(self, gg):
        return PoolGather.apply(gg, index=self.index, shape=self.shape, mode=self.mode,
                                local=self.__dict__.get("local"), geom=self.__dict__.get("geom"))


class PoolGather(Op):
    """y[n, c, o] = x[n, c, index[n, c, o]] in the flattened plane; dx = scatter-add of grad.

    Params as :class:`PoolScatter` (its adjoint).
    """

    def forward(self, x):
        xp = self.xp
        n, c = x.shape[:2]
        out = self.index.shape[2:]
        y = xp.take_along_axis(x.reshape(n * c, -1), self.index.reshape(n * c, -1), axis=1)
        return y.reshape((n, c) + out)

    def backward(self, grad):
        return PoolScatter.apply(grad, index=self.index, shape=self.shape, mode=self.mode,
                                 local=self.__dict__.get("local"),
                                 geom=self.__dict__.get("geom"))


class MaxUnpool(Op):
    """y = zeros(shape) with y[n, c, index[n, c, i]] = x[n, c, i] (later writes win);
    dx = grad gathered at the same positions.

    Params: index (int64, x's shape, already range-checked), shape (N, C, *output spatial).
    """

    def forward(self, x):
        xp = self.xp
        n, c = x.shape[:2]
        res = xp.zeros((n * c, int(np.prod(self.shape[2:]))), dtype=x.dtype)
        rows = xp.arange(n * c, dtype=np.int64)[:, None]
        res[rows, self.index.reshape(n * c, -1)] = x.reshape(n * c, -1)
        return res.reshape(self.shape)

    def backward(self, grad):
        return PoolGather.apply(grad, index=self.index, shape=self.shape, mode="bincount")


# ---------------------------------------------------------------------------------------------
# average pooling


def _acc_dtype(dtype):
    """Dtype to sum windows in: float16/bfloat16-like types sum in float32, integers in int64."""
    if dtype.kind == "f":
        return np.float32 if dtype.itemsize < 4 else dtype
    return np.int64


def _divide(xp, total, divisor, dtype):
    """total / divisor in ``dtype``; integer division truncates toward zero, as torch's."""
    if dtype.kind != "f":
        q = xp.abs(total) // divisor
        return (xp.where(total < 0, -q, q)).astype(dtype, copy=False)
    if isinstance(divisor, (int, float)):
        total *= total.dtype.type(1.0 / divisor) if divisor != 1 else 1
        return total.astype(dtype, copy=False)
    return (total / divisor.astype(total.dtype, copy=False)).astype(dtype, copy=False)


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
        if isinstance(self.divisor, (int, float)):
            gd = g * g.dtype.type(1.0 / self.divisor)
        else:
            gd = g / self.divisor.astype(g.dtype, copy=False)
        if (kernel == stride and not any(padding) and
                all(o * k == n for o, k, n in zip(out, kernel, spatial))):
            # disjoint windows tiling the input exactly: one broadcasting assignment
            tiled = xp.empty(g.shape[:2] + tuple(itertools.chain(*zip(out, kernel))),
                             dtype=g.dtype)
            nd = len(out)
            view = (Ellipsis,) + tuple(itertools.chain(*((slice(None), None),) * nd))
            tiled[...] = gd[view]
            return tiled.reshape(self.in_shape)
        right = _right_pad(spatial, kernel, stride, padding, ones, out)
        res = xp.zeros(g.shape[:2] + tuple(p + n + r for p, n, r in
                                           zip(padding, spatial, right)), dtype=g.dtype)
        for sl in _offset_slices(kernel, stride, ones, out):
            res[sl] += gd
        return xp.ascontiguousarray(_crop(res, padding, spatial))

    def backward(self, gg):
        in_shape = tuple(gg.shape)
        return AvgPool.apply(gg, kernel=self.kernel, stride=self.stride, padding=self.padding,
                             out=self.out, divisor=self.divisor, in_shape=in_shape)


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


def _unused():  # pragma: no cover - keeps _make imported for callers that wrap raw arrays
    return _make
