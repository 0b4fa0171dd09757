"""Primitives for padding and resampling (``F.pad``, ``F.interpolate``, ``F.grid_sample``).

Why primitives (design doc, section 8):

* ``ConstantPad`` writes the input into a filled output in one copy; as a composite of ``cat``
  it would copy once per padded dim and side. Its gradient is again a constant pad (with the
  pads negated: padding becomes cropping and back), so it closes under differentiation.
* ``Resample`` computes ``y[..., j, ...] = sum_t w[t, j] * x[..., idx[t, j], ...]`` along one
  dim: reflect/replicate/circular padding (one tap, no weights) and every separable
  interpolation mode (nearest, linear, cubic, area) are this map with different index and
  weight tables. Its transpose, ``ResampleBackward``, adds ``g * w`` back at ``idx``; the two
  are each other's gradients (both are linear in their tensor input).

* ``TapGather`` reads ``y[n, c, k] = x[n, c, index[n, k]]``: the taps of ``grid_sample``, where
  every channel of a sample reads the same positions. As a ``gather`` it would need the index
  expanded over the channels, and its transpose would be an ``add.at`` over all of them (most
  of ``grid_sample``'s backward time); ``TapGatherBackward`` sums with ``bincount`` instead.

No transpose uses ``add.at``. ``ResampleBackward`` groups indices into passes in which every
target occurs at most once, so each pass is a plain fancy-indexed add (few passes: an entry
repeats only as often as the output samples one input position). ``TapGatherBackward``'s
indices repeat arbitrarily (any grid), so it counts them with weighted ``bincount`` (about 10x
faster than ``add.at`` on CPU; CuPy has the same function).
"""

import numpy as np

from .._device import CPU
from .._tensor import _make
from ..autograd.graph import Op
from ..backend import helpers_for, is_device_array, to_device, xp_of
from . import resample_tables as _tables
from .join import stack

__all__ = []


class ConstantPad(Op):
    """y = x padded by ``pads`` ((low, high) per trailing dim, negative = crop) with ``value``;
    dx = the gradient cropped back (a constant pad with the pads negated)."""

    def forward(self, x):
        nd = len(self.pads)
        lead = x.ndim - nd
        shape = x.shape[:lead] + tuple(s + lo + hi for s, (lo, hi) in
                                       zip(x.shape[lead:], self.pads))
        src, dst = [], []
        for s, (lo, hi) in zip(x.shape[lead:], self.pads):
            src.append(slice(max(-lo, 0), s - max(-hi, 0)))
            dst.append(slice(max(lo, 0), max(lo, 0) + max(s - max(-lo, 0) - max(-hi, 0), 0)))
        if all(lo >= 0 and hi >= 0 for lo, hi in self.pads) and self.value == 0:
            out = self.xp.zeros(shape, dtype=x.dtype)
        else:
            out = self.xp.full(shape, self.value, dtype=x.dtype)
        out[(Ellipsis,) + tuple(dst)] = x[(Ellipsis,) + tuple(src)]
        return out

    def backward(self, grad):
        return ConstantPad.apply(grad, pads=tuple((-lo, -hi) for lo, hi in self.pads), value=0)


class Resample(Op):
    """y[.., j, ..] = sum_t weight[t, j] * x[.., index[t, j], ..] along ``dim`` (weight None:
    one tap, weight 1); dx = resample_backward(g) (the transposed map)."""

    def forward(self, x):
        xp, d = self.xp, self.dim
        index, weight = self.index, self.weight
        if weight is None:
            return xp.take(x, index[0], axis=d)
        tail = (1,) * (x.ndim - d - 1)
        y = None
        for t in range(index.shape[0]):
            term = xp.take(x, index[t], axis=d)
            term *= weight[t].reshape((-1,) + tail)
            if y is None:
                y = term
            else:
                y += term
        return y

    def backward(self, grad):
        return ResampleBackward.apply(grad, dim=self.dim, index=self.index, weight=self.weight,
                                      size=self.size)


class ResampleBackward(Op):
    """dx[.., i, ..] = sum over (t, j) with index[t, j] == i of weight[t, j] * g[.., j, ..];
    its gradient is ``Resample`` again."""

    def forward(self, g):
        xp, d = self.xp, self.dim
        shape = g.shape[:d] + (self.size,) + g.shape[d + 1:]
        out = xp.zeros(shape, dtype=g.dtype)
        tail = (1,) * (g.ndim - d - 1)
        lead = (slice(None),) * d
        for t in range(self.index.shape[0]):
            vals = g
            if self.weight is not None:
                vals = g * self.weight[t].reshape((-1,) + tail)
            for sel, target in _passes(xp, self.index[t]):
                if isinstance(sel, slice):
                    part = vals[lead + (sel,)]
                else:
                    part = xp.take(vals, sel, axis=d)
                out[lead + (target,)] += part
        return out

    def backward(self, gg):
        return Resample.apply(gg, dim=self.dim, index=self.index, weight=self.weight,
                              size=self.size)


class AAResample(Resample):
    """Float32 antialiased resampling along ``dim``, rounded as torch's CPU kernel rounds it
    (found by behaviour, bit for bit): output j starts from its first tap's float32 product;
    of the ``width[j] - 1`` further taps, the leading multiple of four is added as rounded
    products and the rest by fused multiply-adds (an FMA is exact in float64, then rounded
    once). Taps past ``width[j]`` are not read. The outputs are computed in groups of one
    window width (a few per call: the same steps for the whole group, no per-value choice);
    ``width`` is a host array. dx is ``Resample``'s transposed map."""

    def forward(self, x):
        xp, d = self.xp, self.dim
        index, weight, width = self.index, self.weight, self.width
        tail = (1,) * (x.ndim - d - 1)
        lead = (slice(None),) * d
        groups = np.unique(width)
        out = None
        for size in groups:
            sel = np.nonzero(width == size)[0]
            if sel.shape[0] == width.shape[0]:
                part = slice(None)
            elif sel[-1] - sel[0] + 1 == sel.shape[0]:  # a run (upsampling's middle)
                part = slice(int(sel[0]), int(sel[-1]) + 1)
            else:
                part = xp.asarray(sel)
            acc = _aa_group(xp, x, d, index[:int(size), part], weight[:int(size), part], tail)
            if groups.shape[0] == 1:
                return acc
            if out is None:
                out = xp.empty(x.shape[:d] + (width.shape[0],) + x.shape[d + 1:], x.dtype)
            out[lead + (part,)] = acc
        return out


def _aa_group(xp, x, d, index, weight, tail):
    """One width group of ``AAResample``: the first tap's product, then rounded products for
    the leading multiple of four further taps, then fused multiply-adds."""
    taps = index.shape[0]
    plain_to = 4 * ((taps - 1) // 4)
    acc = buf = wide = None
    for t in range(taps):
        tap = xp.take(x, index[t], axis=d)  # a fresh array: written in place
        w = weight[t].reshape((-1,) + tail)
        if acc is None:
            acc = xp.multiply(tap, w, out=tap)
        elif t <= plain_to:
            acc += xp.multiply(tap, w, out=tap)
        else:
            if buf is None:
                buf = xp.empty(acc.shape, xp.float64)
                wide = xp.empty(acc.shape, xp.float64)
            # (separate widening copies: 2-3x faster than NumPy's mixed-type loops)
            xp.copyto(buf, tap)
            buf *= w.astype(xp.float64)  # exact product
            xp.copyto(wide, acc)
            buf += wide
            xp.copyto(acc, buf, casting="same_kind")  # one rounding per FMA
    return acc


class LinearResize(Op):
    """Float32 (bi)linear interpolation over the last one or two dims rounded as torch's CPU
    kernel rounds it: each output is a sum of 2 or 4 taps with the weight products formed in
    float32, the taps added by fused multiply-adds in torch's order (the tap at (low, high)
    first, then (low, low), (high, low), (high, high)); an FMA is exact in float64 then rounded
    once. ``index``/``weight`` hold one (2, out) table per dim; dx is the separable transpose.
    """
    out_layout = "format"  # torch allocates in the input's memory format

    def forward(self, x):
        xp = self.xp
        nd = len(self.index)
        lead = (slice(None),) * (x.ndim - nd)
        if nd == 1:
            (i0, i1), (w0, w1) = self.index[0], self.weight[0]
            order = [(x[lead + (i1,)], w1), (x[lead + (i0,)], w0)]
        else:
            (h0, h1), (v0, v1) = self.index
            (a0, a1), (b0, b1) = self.weight
            rows = {0: xp.take(x, h0, axis=-2), 1: xp.take(x, h1, axis=-2)}
            cols = {0: v0, 1: v1}
            order = [(xp.take(rows[r], cols[c], axis=-1), xp.multiply.outer(
                (a0, a1)[r], (b0, b1)[c])) for r, c in ((0, 1), (0, 0), (1, 0), (1, 1))]
        acc = buf = None
        for tap, w in order:  # every tap is a fresh array: written in place
            if acc is None:
                acc = np.multiply(tap, w, out=tap)
                buf = np.empty(acc.shape, np.float64)
            else:
                np.multiply(tap, w.astype(np.float64), out=buf)  # exact product
                buf += acc
                np.copyto(acc, buf, casting="same_kind")  # one rounding per FMA
        return acc

    def backward(self, grad):
        nd = len(self.index)
        for k in reversed(range(nd)):
            d = grad.dim() - nd + k
            grad = ResampleBackward.apply(grad, dim=d, index=self.xp.stack(self.index[k]),
                                          weight=self.xp.stack(self.weight[k]),
                                          size=self.sizes[k])
        return grad


_BINCOUNT_BINS = 1 << 20
_EXACT_MAX = 1 << 20


class TapGather(Op):
    """y[n, c, k] = x[n, c, index[n, k]] for x of shape (N, C, S); dx = tap_gather_backward(g)
    (the transpose: g summed back at ``index``)."""

    def forward(self, x):
        n, c = x.shape[:2]
        out = self.xp.empty((n, c, self.index.shape[1]), dtype=x.dtype)
        # one take per sample: ~20x faster than take_along_axis with a broadcast index
        take = helpers_for(self.xp).take_in_range  # (tap_index clips every index)
        for b in range(n):
            take(x[b], self.index[b], 1, out[b])
        return out

    def backward(self, grad):
        return TapGatherBackward.apply(grad, index=self.index, size=self.size)


class TapGatherBackward(Op):
    """dx[n, c, s] = sum over k with index[n, k] == s of g[n, c, k]; its gradient is
    ``TapGather`` again."""

    def forward(self, g):
        xp = self.xp
        n, c = g.shape[:2]
        size, index = self.size, self.index
        out = xp.empty((n, c, size), dtype=g.dtype)
        # bincount over whole samples at once, about _BINCOUNT_BINS bins a call: few
        # Python-level calls for small images, cache-sized counts for large ones
        step = max(1, _BINCOUNT_BINS // max(c * size, 1))
        for b0 in range(0, n, step):
            b1 = min(n, b0 + step)
            rows = xp.arange((b1 - b0) * c, dtype=index.dtype).reshape(b1 - b0, c, 1) * size
            bins = (rows + index[b0:b1, None, :]).reshape(-1)
            weights = g[b0:b1].reshape(-1).astype(xp.float64, copy=False)
            sums = xp.bincount(bins, weights=weights, minlength=(b1 - b0) * c * size)
            out[b0:b1] = sums.reshape(b1 - b0, c, size)
        return out

    def backward(self, gg):
        return TapGather.apply(gg, index=self.index, size=self.size)


def _passes(xp, index):
    """Split positions ``j`` of a 1-D ``index`` into groups in which no target repeats.

    Yields ``(selection, targets)`` pairs, each an index array or a slice. Sorting once and
    ranking each entry among its equals gives the groups: group ``r`` holds the ``r``-th
    occurrence of every target. Groups that advance by constant steps (upsampling by an
    integer factor, the mirrored edge of a reflection pad) become slices: a strided add runs
    up to 30x faster than a fancy-indexed one along the last dim.
    """
    n = index.shape[0]
    if n == 0:
        return
    if n == 1 or bool((index[1:] >= index[:-1]).all()):
        order, ranked = xp.arange(n), index  # interpolation tables are already sorted
    else:
        order = xp.argsort(index, kind="stable")
        ranked = index[order]
    rank = xp.arange(n) - xp.searchsorted(ranked, ranked, side="left")
    top = int(rank.max())
    for r in range(top + 1):
        sel = order if top == 0 else order[rank == r]
        pieces = _strided(sel, ranked if top == 0 else index[sel])
        if pieces is None:
            yield sel, index[sel]
        else:
            yield from pieces


def _strided(sel, target, edge=2):
    """``(selection, targets)`` as slices: one strided run, plus up to ``edge`` single entries
    at each end (the clamped borders of interpolation tables); None if it is not that."""
    s = np.asarray(to_device(sel, CPU))
    t = np.asarray(to_device(target, CPU))
    n = s.shape[0]
    ds, dt = np.diff(s), np.diff(t)

    def span(a, b, step):  # the slice from a to b (inclusive) by step
        stop = b + step
        return slice(a, stop if stop >= 0 else None, step)

    def single(k):
        return slice(int(s[k]), int(s[k]) + 1), slice(int(t[k]), int(t[k]) + 1)

    for head in range(min(edge, n - 1) + 1):
        for tail in range(min(edge, n - 1 - head) + 1):
            lo, hi = head, n - 1 - tail  # the run is s[lo..hi]
            step_s = int(ds[lo]) if hi > lo else 1
            step_t = int(dt[lo]) if hi > lo else 1
            if step_s == 0 or step_t <= 0:
                continue
            if (ds[lo:hi] == step_s).all() and (dt[lo:hi] == step_t).all():
                run = (span(int(s[lo]), int(s[hi]), step_s),
                       span(int(t[lo]), int(t[hi]), step_t))
                return [single(k) for k in range(lo)] + [run] + \
                    [single(k) for k in range(hi + 1, n)]
    return None


def constant_pad(input, pads, value):
    """Pad the trailing dims of ``input`` by ``pads`` ((low, high) per dim, innermost last)
    with ``value``; negative pads crop."""
    return ConstantPad.apply(input, pads=tuple(pads), value=value)


def resample(input, dim, index, weight, size):
    """``sum_t weight[t] * input.index_select(dim, index[t])`` as one op (see ``Resample``).

    ``index`` is an int array ``(taps, out)`` on ``input``'s device, ``weight`` a float array
    of the same shape in ``input``'s dtype, or None for one unweighted tap; ``size`` is the
    input's length along ``dim``.
    """
    return Resample.apply(input, dim=dim, index=index, weight=weight, size=size)


def tap_gather(input, index):
    """``y[n, c, k] = input[n, c, index[n, k]]`` as one op (see ``TapGather``).

    ``input`` is ``(N, C, S)``; ``index`` an int array ``(N, K)`` on ``input``'s device with
    every entry in ``[0, S)``.
    """
    return TapGather.apply(input, index=index, size=input.shape[2])


def resize(input, sizes, scales, mode, align_corners, antialias):
    """``F.interpolate``'s resampling of the spatial dims of ``input`` (``(N, C, *spatial)``)
    to ``sizes``: one ``Resample`` per dim with ``mode``'s index and weight tables
    (``resample_tables``), built in the input's dtype as torch's CPU kernels do."""
    xp = xp_of(input._array)
    dt = input._array.dtype
    n_out = input.shape[0] * input.shape[1] * int(np.prod(sizes))
    # torch's rounding costs ~3.5x the separable passes: kept to outputs below 2**20 values
    if mode in ("linear", "bilinear") and not antialias and dt == np.float32 and \
            xp is np and 0 < n_out <= _EXACT_MAX and 0 not in input.shape:
        tables = [_tables.torch_linear_table(input.shape[2 + k], n, align_corners, scale)
                  for k, (n, scale) in enumerate(zip(sizes, scales))]
        return LinearResize.apply(input, index=[t[0] for t in tables],
                                  weight=[t[1] for t in tables], sizes=tuple(input.shape[2:]))
    if antialias and dt == np.float32 and mode in ("bilinear", "bicubic"):
        return _aa_resize32(input, sizes, scales, mode, align_corners)
    out = input
    for k, (n_out, scale) in enumerate(zip(sizes, scales)):
        n_in = input.shape[2 + k]
        if n_in == n_out and (antialias or mode in ("linear", "bilinear", "trilinear")):
            # torch copies a dim whose size does not change in these modes, whatever the
            # scale factor says (bicubic without antialias and nearest do resample it)
            continue
        if mode in ("nearest", "nearest-exact"):
            idx, w = _tables.nearest_table(xp, n_in, n_out, scale, mode == "nearest-exact")
        elif mode == "area":
            idx, w = _tables.area_table(xp, dt, n_in, n_out)
        elif antialias:
            idx, w = _tables.aa_table(xp, dt, mode, n_in, n_out, align_corners, scale)
        elif mode == "bicubic":
            idx, w = _tables.cubic_table(xp, dt, n_in, n_out, align_corners, scale)
        else:
            idx, w = _tables.linear_table(xp, dt, n_in, n_out, align_corners, scale)
        out = resample(out, 2 + k, idx, w, n_in)
    return input.clone() if out is input else out


def _aa_resize32(input, sizes, scales, mode, align_corners):
    """Float32 antialiased bilinear/bicubic resizing in torch's order and rounding: the last
    dim first, then the one before (``AAResample`` with ``torch_aa_table``'s weights)."""
    xp = xp_of(input._array)
    out = input
    for k in reversed(range(len(sizes))):
        n_in, n_out = input.shape[2 + k], sizes[k]
        if n_in == n_out:  # (torch copies a dim whose size does not change)
            continue
        idx, w, width = _tables.torch_aa_table(mode, n_in, n_out, align_corners, scales[k])
        out = AAResample.apply(out, dim=2 + k, index=xp.asarray(idx), weight=xp.asarray(w),
                               width=width, size=n_in)
    return input.clone() if out is input else out


def resize_uint8(input, sizes, scales, mode, align_corners, antialias):
    """2-D bilinear/bicubic resizing of a uint8 ``(N, C, H, W)`` input as torch's uint8 kernel
    does it (found by behaviour): the width pass first, then the height pass, each with its
    weights (float64 tables) turned into 16-bit fixed point at the largest precision that
    keeps the biggest weight below 2**15, summed in integers with half a unit added, shifted
    back and clamped to [0, 255] (plain bicubic's weights: ``_uint8_cubic_table``).
    Bit-identical to torch. No gradient (integers)."""
    arr = input._array
    f64 = np.dtype(np.float64)
    for axis in (3, 2):
        n_in, n_out, scale = arr.shape[axis], sizes[axis - 2], scales[axis - 2]
        if n_in == n_out:
            continue
        if antialias:
            idx, w = _tables.aa_table(np, f64, mode, n_in, n_out, align_corners, scale)
        elif mode == "bicubic":
            idx, w = _uint8_cubic_table(n_in, n_out, align_corners, scale)
        else:
            idx, w = _tables.linear_table(np, f64, n_in, n_out, align_corners, scale)
        top = float(w.max())
        bits = 0
        while bits < 22 and int(0.5 + top * (1 << (bits + 1))) < (1 << 15):
            bits += 1
        fixed = np.trunc(w * (1 << bits) + np.where(w < 0, -0.5, 0.5)).astype(np.int64)
        shape = [1] * arr.ndim
        shape[axis] = -1
        acc = np.full(arr.shape[:axis] + (n_out,) + arr.shape[axis + 1:],
                      1 << (bits - 1) if bits else 0, dtype=np.int64)
        for t in range(idx.shape[0]):
            acc += np.take(arr, idx[t], axis=axis).astype(np.int64) * fixed[t].reshape(shape)
        arr = np.clip(acc >> bits, 0, 255).astype(np.uint8)
    return _make(np.array(arr, dtype=np.uint8, copy=True))


def _uint8_cubic_table(n_in, n_out, align_corners, scale):
    """Float64 ``(index, weight)`` ``(4, out)`` tables of torch's uint8 bicubic kernel without
    antialias (found by behaviour): the float kernel's four cubic taps (coefficient -0.75,
    replicated edges), with the weights of taps that land on the same edge pixel added
    together before the fixed-point rounding (rounded one by one, a pixel near ``k + 0.5``
    could come out one level off)."""
    a = -0.75
    s = _tables.step_scale(n_in, n_out, align_corners, scale)
    i = np.arange(n_out)
    real = s * i if align_corners else s * (i + 0.5) - 0.5
    base = np.floor(real)
    t = np.clip(real - base, 0.0, 1.0)

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    w = np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)])
    idx = np.clip(base.astype(np.int64) + np.arange(-1, 3)[:, None], 0, n_in - 1)
    pos = idx - idx[0]  # each tap's place in the window that starts at the first tap
    merged = (w[:, None, :] * (pos[:, None, :] == np.arange(4)[None, :, None])).sum(0)
    return np.minimum(idx[0] + np.arange(4)[:, None], n_in - 1), merged


def grid_taps(input, coords, sizes, mode, padding_mode, align_corners):
    """``grid_sample``'s sum over taps: ``input`` ``(N, C, S)`` (spatial dims ``sizes``
    flattened) read at the source coordinates ``coords`` (one ``(N, P)`` Tensor per spatial
    dim, in pixels, already padded for bilinear and nearest) and weighted; returns
    ``(N, C, P)``.

    Tap positions come from the detached coordinates; the weights are differentiable functions
    of ``coords``, so gradients reach the grid. The taps of every point are read in one
    ``TapGather``.
    """
    n, c = input.shape[:2]
    points = coords[0].shape[1]
    xp = xp_of(input._array)
    # no gradient to the grid (augmentation, a fixed warp): bilinear weights as arrays, by the
    # same float operations, without a graph node each
    plain = mode == "bilinear" and not any(cd.requires_grad for cd in coords) and \
        _plain_arrays(coords)
    taps = []  # per dim: the (integer position array, weight Tensor) of each tap
    for coord in coords:
        if mode == "bicubic":
            # beyond 2**40 every tap is past the edge anyway: clipping keeps the integer
            # conversion from overflowing
            base = coord.detach().floor()
            b = base.clamp(-2.0 ** 40, 2.0 ** 40)._array.astype(np.int64)
            weights = _tables.cubic_weights(xp, coord - base)
            taps.append([(b - 1 + k, w) for k, w in enumerate(weights)])
        elif mode == "nearest":
            # round() has a zero derivative: the grid stays in the graph with a zero gradient,
            # as in torch (where only the grid requires grad, too)
            r = coord.round()
            taps.append([(r._array.astype(np.int64), r * 0 + 1)])
        else:
            base = coord.detach().floor()
            frac = coord._array - base._array if plain else coord - base
            if len(sizes) == 3 and not plain and not bool(xp.isfinite(base._array).all()):
                # (3-D: a non-finite point reads 0 with no gradient to the grid, as in torch)
                frac = frac.where(_make(xp.isfinite(base._array)), 0.0)
            b = base._array.astype(np.int64)
            taps.append([(b, 1 - frac), (b + 1, frac)])
    index, weights, oks = [], [], []
    for combo in _product(taps):
        flat, ok = _tables.tap_index(xp, [p for p, _ in combo], sizes,
                                     padding_mode if mode == "bicubic" else "zeros",
                                     align_corners)
        index.append(flat)
        oks.append(ok)
        w = combo[0][1]
        for _, wd in combo[1:]:
            w = w * wd
        # 2-D: a product with the mask, as torch: taps outside the input contribute 0, but a
        # NaN or infinite weight (from a non-finite grid point) makes the output NaN; 3-D (and
        # nearest sampling, which has no weights to speak of): 0 there, with no grid gradient
        select = mode == "nearest" or len(sizes) == 3
        if plain:
            weights.append(xp.where(ok, w, 0) if select else w * ok.astype(w.dtype))
            continue
        weights.append(w.where(_make(ok), 0.0) if select else
                       w * _make(ok.astype(w._array.dtype)))
    k = len(index)
    weight = _make(xp.stack(weights, 1)) if plain else stack(weights, 1)  # (N, taps, P)
    idx = xp.concatenate(index, axis=1).reshape(n, k * points)
    vals = tap_gather(input, idx)
    if not select and not all(bool(xp.isfinite(cd._array).all()) for cd in coords):
        # a non-finite grid point: its (NaN) weights still make the output NaN, but its taps
        # lie outside the input and, as in torch, send the input no gradient (not NaN)
        mask = xp.broadcast_to(xp.stack([xp.asarray(o) for o in oks], 1), (n, k, points))
        vals = vals.reshape(n, c, k, points).where(_make(mask.copy()).unsqueeze(1), 0.0)
    return (vals.reshape(n, c, k, points) * weight.unsqueeze(1)).sum(2)


def _plain_arrays(coords):
    """Whether ``coords`` are host or device float32/float64 arrays outside forward AD (no
    tangent to carry, no vmap stand-in)."""
    from ..autograd import forward_ad

    a = coords[0]._array
    return forward_ad._state["level"] is None and a.dtype in (np.float32, np.float64) and \
        (type(a) is np.ndarray or is_device_array(a))


def _product(taps):
    """Every combination of one tap per dim (the corners of a cell, for bilinear)."""
    combos = [[]]
    for options in taps:
        combos = [c + [o] for c in combos for o in options]
    return combos
