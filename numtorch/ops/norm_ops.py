"""Fused normalisation primitives: standardise over some dims, then scale and shift.

Batch, layer, group and instance norm all reduce to "standardise over some dims" followed
by an affine map. Composed from ``mean``/``var``/``sub``/``div``/``mul``/``add`` ops that costs
about ten passes over the input and as many saved temporaries, and the composed backward is
longer still. ``NormalizeAffine`` computes the statistics with one einsum pass each, saves the
centred (or normalised) input and the inverse standard deviation, and its fused backward
(``NormalizeAffineBackward``) gets the weight and bias gradients from the sums the input
gradient needs anyway (speed and memory). That backward's own backward is composed of
numtorch ops and the two-output ``Normalize``/``NormalizeBackward`` pair below, so gradients
of any order work.

``CrossMapLRN2d`` is Lua torch's cross-channel LRN with its legacy gradient formula, which is
written with numtorch ops and so differentiable again (torch's raises on double backward).
"""

import functools

import numpy as np

from .. import _dtype
from ..autograd.graph import Op
from ..backend import helpers_for, is_device_array
from . import norm_channels, norm_device, norm_groups, norm_half_sums, norm_rows
from .._tensor import _make
from .join import cat

__all__ = ["normalize_affine", "cross_map_lrn2d"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_SMALL_COLUMNS = 1 << 15  # values: (N, C) column sums below take NumPy's row-wise reduction


@functools.lru_cache(maxsize=512)
def _plan(shape, dims, two):
    """How to sum ``shape`` over ``dims``: (einsum subscripts over the full shape, the shape
    with adjacent summed/kept dims merged, subscripts over that merged shape, kept shape)."""
    kept = tuple(1 if i in dims else s for i, s in enumerate(shape))
    sub = _LETTERS[:len(shape)]
    out = "".join(c for i, c in enumerate(sub) if i not in dims)
    full = (f"{sub},{sub}->{out}" if two else f"{sub}->{out}") if len(shape) <= 26 else None
    runs = []  # [size, summed] for each maximal run of summed or kept dims
    for i, size in enumerate(shape):
        if size == 1:
            continue  # a size-1 dim belongs to either side
        summed = i in dims
        if runs and runs[-1][1] == summed:
            runs[-1][0] *= size
        else:
            runs.append([size, summed])
    merged = tuple(size for size, _ in runs)
    sub = _LETTERS[:len(runs)]
    out = "".join(c for c, (_, summed) in zip(sub, runs) if not summed)
    return full, merged, (f"{sub},{sub}->{out}" if two else f"{sub}->{out}"), kept


def _sum_keepdim(xp, a, dims, b=None):
    """sum(a) or sum(a * b) over ``dims`` with those dims kept as size 1.

    One ``einsum`` pass without the temporary ``a * b``, over the array with adjacent summed
    (and kept) dims merged: batch norm's (N, C, H, W) over (0, 2, 3) becomes (N, C, HW) ->
    (C,), layer norm's weight gradient (B, T, C) over (0, 1) becomes (BT, C) -> (C,).
    Measured on float32 (2-core machine): 2-4x faster than ``sum`` over a tuple of axes and
    8x faster than a product followed by ``sum`` for batch-norm shapes; a matrix-vector
    product with ones is faster only on small arrays and 20-50x slower on large ones when the
    machine is busy (threaded BLAS waits for its threads), so it is not used.
    """
    full, merged, spec, kept = _plan(a.shape, dims, b is not None)
    if a.dtype not in _BLAS_FLOATS:
        # other dtypes (float16, complex) keep NumPy's own accumulation for these sums
        if full is not None and (a.ndim - 1) in dims:
            r = xp.einsum(full, a) if b is None else xp.einsum(full, a, b)
            return r.reshape(kept)
        m = a if b is None else a * b
        return m.sum(axis=dims, keepdims=True)
    if is_device_array(a):
        return _device_sums(xp, a, dims, b, kept)
    if a.flags.c_contiguous and (b is None or b.flags.c_contiguous):
        a = a.reshape(merged)
        b = None if b is None else b.reshape(merged)
        if (spec == "ab->b" or spec == "ab,ab->b") and a.size <= _SMALL_COLUMNS:
            # (N, C) summed over N, few values: einsum's parsing is most of the cost; NumPy
            # adds the rows in order (vectorised along C)
            m = a if b is None else np.multiply(a, b)
            return np.add.reduce(m, axis=0).reshape(kept)
    elif full is not None:
        spec = full
    else:
        m = a if b is None else a * b
        return m.sum(axis=dims, keepdims=True)
    r = xp.einsum(spec, a) if b is None else xp.einsum(spec, a, b)
    return r.reshape(kept)


@functools.lru_cache(maxsize=512)
def _channel_view(shape, dims):
    """``shape`` summed over ``dims`` as a (P, C, L) array summed over P and L (size-1 dims
    on either side), or None when it is not of that form (batch norm's (N, C, *spatial));
    rows and columns (layer norm, 1-d batch norm) take CuPy's ``sum``."""
    runs = []
    for i, size in enumerate(shape):
        if size == 1:
            continue
        summed = i in dims
        if runs and runs[-1][1] == summed:
            runs[-1][0] *= size
        else:
            runs.append([size, summed])
    if tuple(summed for _, summed in runs) != (True, False, True):
        return None
    return tuple(size for size, _ in runs)


def _device_sums(xp, a, dims, b, kept, both=False):
    """``_sum_keepdim`` on a GPU: no einsum (its Python parsing costs ~250 us of host time
    a call); per-channel sums in two kernels (``channel_sums``), else CuPy's ``sum``. With
    ``both``: the pair (sum(a), sum(a * b))."""
    view = _channel_view(a.shape, dims)
    if view is not None and (b is None or b.shape == a.shape):
        r = helpers_for(xp).channel_sums(a, b, *view, both=both)
        if r is not None:
            return (r[0].reshape(kept), r[1].reshape(kept)) if both else r.reshape(kept)
    if both:
        return a.sum(axis=dims, keepdims=True), (a * b).sum(axis=dims, keepdims=True)
    return (a if b is None else a * b).sum(axis=dims, keepdims=True)


def _sum_pair(xp, a, dims, b):
    """(sum(a), sum(a * b)) over ``dims`` (kept): on a GPU one pass reads both arrays."""
    if is_device_array(a) and a.dtype in _BLAS_FLOATS:
        return _device_sums(xp, a, dims, b, _plan(a.shape, dims, True)[3], both=True)
    return _sum_keepdim(xp, a, dims), _sum_keepdim(xp, a, dims, b)


def _device_center(op, x):
    """``_center`` of batch norm on a GPU: the per-channel kernels (4 launches, the general
    path's operations); None when they do not apply."""
    view = _channel_view(x.shape, op.dims)
    res = None if view is None else helpers_for(op.xp).bn_center(x, *view, op.n, op.eps)
    if res is None:
        return None
    mean, xc, var, invstd = res
    kept = _plan(x.shape, op.dims, False)[3]
    if op.stats is not None:
        op.stats["mean"] = mean.reshape(kept)
        op.stats["var"] = var.reshape(kept)
    return xc, invstd.reshape(kept)


def _device_grad(xp, h, data, invstd, w, dims, n):
    """Batch norm's input gradient and per-channel sums on a GPU (3 launches): ``(gx, sum_h,
    sum_hx)`` with sum_hx scaled by invstd, the sums in their kept shape; or None."""
    view = _channel_view(h.shape, dims)
    res = None if view is None else helpers_for(xp).bn_grad(h, data, invstd, w, *view, n)
    if res is None:
        return None
    kept = _plan(h.shape, dims, True)[3]
    return res[0], res[1].reshape(kept), res[2].reshape(kept)


def _center(op, x):
    """(x - mean, invstd) over ``op.dims``; the batch mean and biased variance go to
    ``op.stats`` when it is a dict (running-statistics updates need them)."""
    xp, dims = op.xp, op.dims
    if is_device_array(x) and x.dtype in _BLAS_FLOATS:
        fused = _device_center(op, x)
        if fused is not None:
            return fused
    count = x.dtype.type(op.n)
    with np.errstate(invalid="ignore", divide="ignore"):  # n == 0 gives NaN, as torch
        mean = _sum_keepdim(xp, x, dims) / count
        xc = x - mean
        s2 = _sum_keepdim(xp, xc, dims, xc)
        # on a GPU the per-group arithmetic is one kernel (same roundings), not four
        fused = helpers_for(xp).norm_invstd(s2, count, op.eps) if is_device_array(x) else None
        if fused is None:
            var = s2 / count
            invstd = 1 / xp.sqrt(var + x.dtype.type(op.eps))
        else:
            var, invstd = fused
    if op.stats is not None:
        op.stats["mean"] = mean
        op.stats["var"] = var
    return xc, invstd


def _per_group(shape, ndim, dims):
    """Whether a parameter of ``shape`` (broadcast from the left) is constant within each
    normalised group: (C,) over (N, C) pooled over dim 0 is, as (1, C) is."""
    lead = ndim - len(shape)
    return lead >= 0 and all(d < lead or shape[d - lead] == 1 for d in dims)


class Normalize(Op):
    """xhat = (x - mean) * invstd, invstd = (var + eps)^(-1/2), biased var over ``dims``.

    Outputs ``(xhat, invstd)`` (invstd keeps the reduced dims as size 1).
    Derivative: dx = NormalizeBackward(g_xhat) - g_invstd * invstd^2 * xhat / n.
    Used to recompute xhat and invstd with their graph for higher-order gradients.
    """

    stats = None

    def forward(self, x):
        xhat, invstd = _center(self, x)
        xhat *= invstd
        self.save_output(xhat, 0)
        self.save_output(invstd, 1)
        return xhat, invstd

    def backward(self, g_xhat, g_invstd):
        xhat = self.saved_output(0)
        invstd = self.saved_output(1)
        gx = NormalizeBackward.apply(g_xhat, xhat, invstd, dims=self.dims, n=self.n)
        # The engine hands zeros for an unused invstd; skip the term then (it is exact zero).
        if g_invstd.requires_grad or bool(self.xp.any(g_invstd._array)):
            gx = gx - g_invstd * invstd * invstd * xhat / self.n
        return gx


class NormalizeBackward(Op):
    """dx = invstd * (g - mean(g) - xhat * mean(g * xhat)), means over ``dims``.

    The map g -> dx is self-adjoint, so d/dg is this op again; d/dxhat and d/dinvstd are
    composed of numtorch ops (see ``backward``).
    """

    def forward(self, g, xhat, invstd):
        self.save_inputs(g, xhat, invstd)
        xp, dims = self.xp, self.dims
        n = g.dtype.type(self.n)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_g = _sum_keepdim(xp, g, dims) / n
            mean_gx = _sum_keepdim(xp, g, dims, xhat) / n
            out = xhat * mean_gx
            xp.subtract(g, out, out=out)
            out -= mean_g
            out *= invstd
        return out

    def backward(self, gg):
        g, xhat, invstd = self.saved_inputs()
        dims, n = self.dims, self.n
        need_g, need_xhat, need_invstd = self.needs_input_grad
        dg = dxhat = dinv = None
        if need_g:
            dg = NormalizeBackward.apply(gg, xhat, invstd, dims=dims, n=n)
        if need_xhat or need_invstd:
            mean_gx = (g * xhat).mean(dims, keepdim=True)
            if need_xhat:
                a = gg * invstd
                dxhat = -(a * mean_gx + g * (a * xhat).mean(dims, keepdim=True))
            if need_invstd:
                core = g - g.mean(dims, keepdim=True) - xhat * mean_gx
                dinv = (gg * core).sum(dims, keepdim=True)
        return dg, dxhat, dinv


class NormalizeAffine(Op):
    """y = xhat * w + b with xhat = Normalize(x) over ``dims`` (w, b broadcastable, optional).

    The forward pass of batch, instance, layer and group norm in one op, so that their
    backward is one fused op as well (``NormalizeAffineBackward``): the weight and bias
    gradients come out of the sums that the input gradient needs anyway. ``stats`` (a dict
    or None) receives the batch mean and biased variance for running statistics.
    """

    out_layout = "elementwise"  # like x: a channels-last batch/group norm stays channels-last
    half_sums = None  # a half input's NumPy dtype: its layer norm's w/b grads sum as torch's

    def _half_grads(self, got, gy, extra, outs):
        """The weight/bias gradients of a half input with float32 parameters, summed in
        torch's order and precision (``norm_half_sums``); not differentiable again."""
        gy = getattr(gy, "_array", gy)
        data = extra["data"]
        if type(gy) is not np.ndarray or type(data) is not np.ndarray or \
                not ({"w", "b"} & set(outs)):
            return
        fix = norm_half_sums.weight_bias_grads(
            gy.astype(np.float32, copy=False), data, extra["centered"], extra.get("mean"),
            extra["invstd"], self.n, self.half_sums, self.w_shape, self.b_shape, outs)
        for k, v in fix.items():
            got[k] = v if type(got[k]) is np.ndarray else _make(v)

    round_stats = None  # a 16-bit input's NumPy dtype: its gradients read rounded statistics

    def forward(self, x, w, b):
        y = self._forward(x, w, b)
        if self.round_stats is not None and self._recording and type(x) is np.ndarray:
            self._round_saved_stats(x)
        return y

    def _forward(self, x, w, b):
        if norm_rows.applies(self, x, w, b):  # layer norm on the CPU
            return norm_rows.forward(self, x, w, b)
        if norm_groups.applies(self, x, w, b):  # group norm on the CPU
            y = norm_groups.forward(self, x, w, b)
            if y is not None:
                return y
        self.w_shape = None if w is None else w.shape
        self.b_shape = None if b is None else b.shape
        if norm_channels.applies(self, x, w, b):  # batch norm, channels split across cores
            return self._channels_forward(x, w, w, b)
        if w is not None and is_device_array(x) and getattr(self, "stats", None) is None:
            y = norm_device.rows_forward(self, x, w, b, _sum_keepdim)  # GPU layer norm
            if y is not None:
                return y
        xc, invstd = _center(self, x)
        if w is None:
            self.save_inputs(x)
        else:
            self.save_inputs(x, w)
        # The output is never a saved array: torch saves the input, not the output, so code
        # that changes the output in place (y.relu_()) must keep working.
        if w is None or _per_group(w.shape, x.ndim, self.dims):
            # batch/instance norm: y = xc * (invstd * w) + b, one pass fewer than forming
            # xhat; the backward folds invstd into its per-group constants instead
            self.save(data=xc, centered=True, invstd=invstd)
            if w is not None and b is not None and is_device_array(x) and \
                    w.ndim == b.ndim == x.ndim and _per_group(b.shape, x.ndim, self.dims):
                y = helpers_for(self.xp).norm_apply(xc, invstd, w, b)  # one pass on a GPU
                if y is not None:
                    return y
            y = xc * (invstd if w is None else invstd * w)
        else:
            xc *= invstd
            self.save(data=xc, centered=False, invstd=invstd)
            y = xc * w
        if b is not None:
            y += b
        return y

    def _channels_forward(self, x, w_input, w, b):
        """``norm_channels.forward`` with ``w``/``b`` shaped per channel; saves ``x`` and the
        op's weight input ``w_input`` (the array ``w`` views, or ``w`` itself) for backward."""
        y, xc, invstd = norm_channels.forward(self, x, w, b, _sum_keepdim)
        if w_input is None:
            self.save_inputs(x)
        else:
            self.save_inputs(x, w_input)
        self.save(data=xc, centered=True, invstd=invstd)
        return y

    def _round_saved_stats(self, x):
        """A float16/bfloat16 layer or group norm (computed in float32): torch keeps the means
        and invstds in the input's dtype, and its gradients read those rounded values (bit
        for bit: gy w invstd - (x - mean) invstd^3 sum(gy w (x - mean)) / n - invstd
        sum(gy w) / n in float32 from the rounded statistics, rounded once)."""
        extra = self._check_saved()["extra"]
        if not extra.get("centered"):
            return
        f32, low = np.float32, self.round_stats
        extra["invstd"] = extra["invstd"].astype(low).astype(f32)
        if extra.get("mean") is not None:  # the data is x itself, with its means
            extra["mean"] = extra["mean"].astype(low).astype(f32)
        else:  # the data is x - mean: centred again on the rounded mean
            mean = x.mean(axis=self.dims, keepdims=True, dtype=f32)
            extra["data"] = x - mean.astype(low).astype(f32)

    def backward(self, gy):
        saved = self.saved_inputs()
        x, w = (saved, None) if self.w_shape is None else saved
        need_x, need_w, need_b = self.needs_input_grad
        outs = tuple(k for k, need in (("x", need_x), ("w", need_w), ("b", need_b)) if need)
        if not outs:
            return None, None, None
        extra = self._check_saved()["extra"]
        res = NormalizeAffineBackward.apply(gy, x, w, data=extra["data"],
                                            centered=extra["centered"], mean=extra.get("mean"),
                                            invstd=extra["invstd"], dims=self.dims,
                                            n=self.n, eps=self.eps, outs=outs,
                                            w_shape=self.w_shape, b_shape=self.b_shape)
        got = dict(zip(outs, res if type(res) is tuple else (res,)))
        if self.half_sums is not None:
            self._half_grads(got, gy, extra, outs)
        return got.get("x"), got.get("w"), got.get("b")

    def backward_arrays(self, gy):
        # no graph is being built: the row form's gradients straight from the arrays, with no
        # NormalizeAffineBackward node (its dispatch and saves: ~20 us a call, a fifth of
        # nanoGPT's layer-norm backward)
        saved = self._saved
        if saved is None or not saved.get("extra", {}).get("centered", False):
            return NotImplemented
        extra = saved["extra"]
        arrays = self.saved_input_arrays()  # checks them for in-place changes too
        w = None if self.w_shape is None else arrays[1]
        data = extra["data"]
        need_x, need_w, need_b = self.needs_input_grad
        outs = tuple(k for k, need in (("x", need_x), ("w", need_w), ("b", need_b)) if need)
        gy = _dense_grad(gy, data)
        if not norm_rows.grads_apply(self, gy, w, data):
            if not norm_groups.grads_apply(self, gy, w, data, extra.get("mean"),
                                           extra["invstd"]):
                return NotImplemented
            if not outs:
                return None, None, None
            res = norm_groups.backward(gy, w, data, extra["mean"], extra["invstd"], outs,
                                       self.w_shape, self.b_shape)
            got = dict(zip(outs, res if type(res) is tuple else (res,)))
            return got.get("x"), got.get("w"), got.get("b")
        if not outs:
            return None, None, None
        res = norm_rows.backward(gy, w, data, extra["invstd"], self.n, outs, self.w_shape,
                                 self.b_shape, extra.get("mean"))
        got = dict(zip(outs, res if type(res) is tuple else (res,)))
        if self.half_sums is not None:
            self._half_grads(got, gy, extra, outs)
        return got.get("x"), got.get("w"), got.get("b")


def _dense_grad(gy, data):
    """``gy`` C-contiguous when it is a strided host array and the saved ``data`` is not (the
    gradient of a permuted view's layer norm, ConvNeXt's channels-last LayerNorm2d): the row
    kernels then apply, as for a contiguous gradient, for one copy where the general path
    made several passes (8x16x16x40 fwd+bwd 0.78 -> 0.45 ms)."""
    if type(gy) is np.ndarray and not gy.flags.c_contiguous and type(data) is np.ndarray \
            and data.flags.c_contiguous and gy.shape == data.shape:
        return np.ascontiguousarray(gy)
    return gy


class NormalizeAffineBackward(Op):
    """(gx, gw, gb) of y = Normalize(x) * w + b for the output gradient gy:
    gx = invstd * (h - mean(h) - xhat * mean(h * xhat)) with h = gy * w,
    gw = sum(gy * xhat), gb = sum(gy) over w's and b's broadcast dims.

    Only the requested gradients (``outs``) are returned. The backward recomputes xhat and
    invstd from x with ``Normalize`` and is composed of numtorch ops (any order).
    """

    mean = None  # the row means when ``data`` is x itself (see ``norm_rows``)

    def forward(self, gy, x, w):
        xp, dims, n = self.xp, self.dims, self.n
        data, invstd = self.data, self.invstd  # data: xhat, or x - mean when ``centered``
        if w is not None:
            self.save_inputs(gy, x, w)
        else:
            self.save_inputs(gy, x)
        if gy.size == 0:  # no values: every gradient is an empty sum (not 0 * NaN stats)
            shapes = {"x": gy.shape, "w": self.w_shape, "b": self.b_shape}
            out = tuple(xp.zeros(shapes[k], dtype=gy.dtype) for k in self.outs)
            return out if len(out) > 1 else out[0]
        if is_device_array(gy):  # GPU layer norm: whole-row kernels (3 launches, not 8)
            out = norm_device.rows_backward(self, gy, w)
            if out is not None:
                return out
        centered = self.centered
        mean = self.mean  # not None: data is x itself (the row form's save), these its means
        gy = _dense_grad(gy, data)
        if centered and norm_rows.grads_apply(self, gy, w, data):
            return norm_rows.backward(gy, w, data, invstd, n, self.outs, self.w_shape,
                                      self.b_shape, mean)
        if centered and norm_groups.grads_apply(self, gy, w, data, mean, invstd):
            return norm_groups.backward(gy, w, data, mean, invstd, self.outs, self.w_shape,
                                        self.b_shape)
        if mean is not None:
            data = data - mean.reshape(invstd.shape)
        if centered and gy.dtype == data.dtype and norm_channels.applies(self, gy, w, None):
            results = norm_channels.backward(self, gy, w, data, invstd, self.outs, _sum_keepdim)
            out = tuple(results[k] for k in self.outs)
            return out if len(out) > 1 else out[0]
        count = gy.dtype.type(n)
        # a weight constant over each group folds into the scale: no h = gy * w pass
        folded = w is None or _per_group(w.shape, gy.ndim, dims)
        if centered and not folded:  # the row form's centred rows off its path: xhat
            data = data * invstd
            centered = False
        h = gy if folded else gy * w
        results = {}
        with np.errstate(invalid="ignore", divide="ignore"):
            fused = None
            if "x" in self.outs and centered and folded and w is not None and \
                    is_device_array(gy) and gy.dtype == data.dtype and w.ndim == gy.ndim:
                # batch norm on a GPU: both sums in one pass, the per-channel arithmetic
                # with the last of them, the input gradient in one more kernel
                fused = _device_grad(xp, h, data, invstd, w, dims, n)
            if fused is not None:
                results["x"], sum_h, sum_hx = fused
            else:
                sum_h, sum_hx = _sum_pair(xp, h, dims, data)  # sum(h * xhat), up to invstd
            if "x" in self.outs and not (centered or folded) and is_device_array(gy) \
                    and norm_device.trailing(dims, gy.ndim):  # GPU layer norm: 1 kernel
                gx = helpers_for(xp).rows_grad(h, data, sum_h, sum_hx, invstd, n)
                if gx is not None:
                    results["x"] = gx
            if "x" in self.outs and "x" not in results and centered and folded and \
                    w is not None and is_device_array(gy) and gy.dtype == data.dtype and \
                    w.ndim == gy.ndim:
                # a GPU: the per-group arithmetic in one kernel, the input gradient's four
                # passes in another (same roundings); sum_hx is scaled by invstd in place
                gx = helpers_for(xp).norm_grad(h, data, sum_h, sum_hx, invstd, w, n)
                if gx is not None:
                    results["x"] = gx
            if "x" not in results and centered:
                sum_hx *= invstd
            if "x" in self.outs and "x" not in results:
                scale = invstd if w is None or not folded else invstd * w
                k = sum_hx / count
                gx = data * (k * invstd if centered else k)
                xp.subtract(h, gx, out=gx)
                gx -= sum_h / count
                gx *= scale
                results["x"] = gx
        if "w" in self.outs:
            if folded:
                results["w"] = _own_to_shape(xp, sum_hx, self.w_shape)
            else:
                results["w"] = _sum_to_shape(xp, gy, self.w_shape, data)
        if "b" in self.outs:
            if folded and _per_group(self.b_shape, gy.ndim, dims):  # sum_h is sum(gy)
                results["b"] = _own_to_shape(xp, sum_h, self.b_shape)
            else:
                results["b"] = _sum_to_shape(xp, gy, self.b_shape)
        out = tuple(results[k] for k in self.outs)
        return out if len(out) > 1 else out[0]

    def backward(self, *grads):
        saved = self.saved_inputs()
        gy, x = saved[0], saved[1]
        w = saved[2] if len(saved) == 3 else None
        gg = dict(zip(self.outs, grads))
        ggx, ggw, ggb = gg.get("x"), gg.get("w"), gg.get("b")
        need_x = self.needs_input_grad[1]
        dims, n = self.dims, self.n
        xhat, invstd = Normalize.apply(x, dims=dims, eps=self.eps, n=n)
        h = gy if w is None else gy * w

        def mean(t):
            return t.mean(dims, keepdim=True)

        # with L(g) = g - mean(g) - xhat * mean(g * xhat) (self-adjoint):
        # gx = invstd * L(h), gw = sum(gy * xhat), gb = sum(gy)
        d_gy = d_xhat = d_inv = d_w = None
        if ggx is not None:
            lg = NormalizeBackward.apply(ggx, xhat, invstd, dims=dims, n=n)  # invstd * L(ggx)
            d_gy = lg if w is None else lg * w
            if w is not None:
                d_w = gy * lg
            if need_x:
                a = ggx * invstd
                mean_hx = mean(h * xhat)
                d_xhat = -(a * mean_hx + h * mean(a * xhat))
                d_inv = (ggx * (h - mean(h) - xhat * mean_hx)).sum(dims, keepdim=True)
        if ggw is not None:
            t = ggw * xhat
            d_gy = t if d_gy is None else d_gy + t
            if need_x:
                t = ggw * gy
                d_xhat = t if d_xhat is None else d_xhat + t
        if ggb is not None:
            d_gy = ggb if d_gy is None else d_gy + ggb
        if d_gy is not None and tuple(d_gy.shape) != tuple(gy.shape):
            d_gy = d_gy.expand(gy.shape)
        d_x = None
        if d_xhat is not None:  # through xhat(x) and invstd(x): Normalize's derivative
            d_x = NormalizeBackward.apply(d_xhat, xhat, invstd, dims=dims, n=n)
            if d_inv is not None:
                d_x = d_x - d_inv * invstd * invstd * xhat / n
        if w is None:
            return d_gy, d_x, None
        return d_gy, d_x, d_w


@functools.lru_cache(maxsize=512)
def _broadcast_dims(full, shape):
    """The dims of ``full`` along which ``shape`` was broadcast (leading ones included)."""
    lead = len(full) - len(shape)
    return tuple(i for i in range(len(full))
                 if i < lead or (shape[i - lead] == 1 and full[i] != 1))


def _sum_to_shape(xp, a, shape, b=None):
    """sum(a) (or sum(a * b)) down to the broadcastable ``shape``."""
    return _sum_keepdim(xp, a, _broadcast_dims(a.shape, shape), b).reshape(shape)


def _own_to_shape(xp, a, shape):
    """``_sum_to_shape`` of per-group sums this op made (never a caller's array): those sums
    themselves when nothing is left to sum (per-channel weight and bias), no copy (one launch
    less each on a GPU)."""
    if a.size == _size(shape):
        return a.reshape(shape)
    return _sum_to_shape(xp, a, shape)


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def normalize_affine(input, weight, bias, dims, eps, stats=None, half_sums=None,
                     round_stats=None):
    """Standardise ``input`` over ``dims``, then scale by ``weight`` and shift by ``bias``.

    Args:
        input (Tensor): a floating point tensor.
        weight (Tensor or None): broadcastable to ``input``.
        bias (Tensor or None): broadcastable to ``input``.
        dims (tuple of int): the (non-negative, sorted) dims holding one group's values.
        eps (float): added to the biased variance before the square root.
        stats (dict, optional): receives the batch ``"mean"`` and biased ``"var"`` arrays.
        half_sums (numpy dtype, optional): a layer norm's half input dtype (its float32
            weight/bias gradients then sum as torch's, see ``norm_half_sums``).
        round_stats (numpy dtype, optional): a layer or group norm's 16-bit input dtype, when
            computed in float32: the backward reads the statistics rounded to it, as torch's.

    Returns:
        Tensor: ``input``'s shape.

    Example:
        >>> from numtorch.ops.norm_ops import normalize_affine
        >>> normalize_affine(torch.tensor([[1.0, 3.0]]), None, torch.tensor([1.0]), (1,), 0.0)
        tensor([[0., 2.]])
    """
    shape = input.shape
    n = 1
    for d in dims:
        n *= shape[d]
    if input.dtype is _dtype.bfloat16:
        # as torch: statistics and the affine map in float32, one rounding at the end
        # (NumPy's einsum has no bfloat16 loop either)
        f32 = _dtype.float32
        out = NormalizeAffine.apply(
            input.to(f32), None if weight is None else weight.to(f32),
            None if bias is None else bias.to(f32), dims=tuple(dims), eps=float(eps), n=n,
            stats=stats, half_sums=half_sums, round_stats=round_stats)
        return out.to(input.dtype)
    return NormalizeAffine.apply(input, weight, bias, dims=tuple(dims), eps=float(eps), n=n,
                                 stats=stats, half_sums=half_sums, round_stats=round_stats)


def _window_sum(xp, a, lo, hi):
    """s[:, c] = sum of a[:, c + lo : c + hi + 1] along dim 1, zero outside the channels.

    A loop over the (small) window, each step one strided add.
    """
    c = a.shape[1]
    out = xp.zeros_like(a)
    for off in range(lo, hi + 1):
        if off >= 0:
            out[:, :c - off] += a[:, off:] if off < c else 0
        else:
            out[:, -off:] += a[:, :c + off] if -off < c else 0
    return out


def _channel_window(a, lo, hi):
    """``_window_sum`` written with numtorch ops on a 4-D Tensor (for the differentiable
    backward): the channels zero-padded once, then one shifted slice added per offset."""
    n, c, h, w = a.shape
    before, after = max(-lo, 0), max(hi, 0)
    parts = ([a.new_zeros((n, before, h, w))] if before else []) + [a] + (
        [a.new_zeros((n, after, h, w))] if after else [])
    p = cat(parts, 1) if len(parts) > 1 else a
    out = p[:, before + lo:before + lo + c]
    for off in range(lo + 1, hi + 1):
        out = out + p[:, before + off:before + off + c]
    return out


def _lrn_half(size):
    return int((size - 1) / 2 + 1) - 1


class CrossMapLRN2d(Op):
    """Lua torch's cross-channel LRN: y = x * (k + alpha / size * S)^-beta, S the window sum
    of x^2 over channels [c - h, c + h] (h = (size - 1) // 2) plus channel 0 once c > h.

    The gradient is the legacy closed form torch uses, not the derivative of this forward:
    dx = scale^-beta g - 2 alpha beta / size * x * W(g y / scale), W a window sum over
    [c - size + inv, c + inv - 1] (inv = size - (size - 1) / 2 rounded down).
    """

    def forward(self, x):
        xp, size = self.xp, self.size
        h = _lrn_half(size)
        sq = x * x
        s = _window_sum(xp, sq, -h, h)
        if x.shape[1] > h + 1:  # the running sum never drops channel 0
            s[:, h + 1:] += sq[:, :1]
        scale = s * x.dtype.type(self.alpha / size) + x.dtype.type(self.k)
        self.save_inputs(x)
        return x * scale ** x.dtype.type(-self.beta)

    def backward(self, grad):
        x = self.saved_inputs()
        size, alpha, beta = self.size, float(self.alpha), float(self.beta)
        h = _lrn_half(size)
        sq = x * x
        s = _channel_window(sq, -h, h)
        c = x.shape[1]
        if c > h + 1:
            late = x.new_zeros((1, c, 1, 1))
            late[:, h + 1:] = 1
            s = s + sq[:, :1] * late
        scale = s * (alpha / size) + float(self.k)
        factor = scale ** -beta
        inv = int(size - (size - 1) / 2)
        acc = _channel_window(grad * x * factor / scale, -inv, size - 1 - inv)
        return factor * grad - (2 * alpha * beta / size) * x * acc


def cross_map_lrn2d(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Lua torch's cross-channel local response normalization of a 4-D input.

    Args:
        input (Tensor): shape ``(N, C, H, W)``.
        size (int): window size.
        alpha (float): multiplicative factor. Default: 1e-4.
        beta (float): exponent. Default: 0.75.
        k (float): additive factor. Default: 1.

    Returns:
        Tensor: same shape as ``input``.

    Example:
        >>> from numtorch.ops.norm_ops import cross_map_lrn2d
        >>> cross_map_lrn2d(torch.ones(1, 2, 1, 1), 3, alpha=3.0, beta=1.0, k=0.0)
        tensor([[[[0.5000]],
        <BLANKLINE>
                 [[0.5000]]]])
    """
    return CrossMapLRN2d.apply(input, size=size, alpha=alpha, beta=beta, k=k)
