"""Primitive ops behind the losses, each promoted from a composite for speed or numerics.

* ``CrossEntropyIndex`` fuses log_softmax, the pick of the target column, the class weights
  and the reduction into one op (``F.cross_entropy`` runs in every training loop); its
  backward is ``softmax - onehot`` scaled, through ``CrossEntropyIndexBackward`` whose own
  backward is composed, so second order works.
* ``NLLLoss`` fuses the pick, the weights and the reduction of ``F.nll_loss`` (speed).
* ``BinaryCrossEntropy`` reproduces torch's clamps (``log >= -100`` in forward, the
  denominator ``max(x (1 - x), 1e-12)`` in backward), which a composite cannot: a clamp would
  cut the gradient where torch keeps a huge one.
* ``BinaryCrossEntropyWithLogits`` and ``PointwiseLoss`` (mse, l1, smooth l1, huber) compute
  the elementwise loss and its reduction in one op, with select-free formulas (speed: these
  run in every regression or binary-classification step); their ``*Backward`` ops are fused
  too, with composed double backward.
* ``CTCLoss`` runs the alpha recursion in log space, vectorised over the batch and the label
  positions, looping only over time; ``CTCLossBackward`` runs the beta recursion.

These are internal: ``numtorch.nn.functional`` checks the arguments and calls the functions
at the bottom.
"""

import numpy as np

from .. import _dtype
from ..backend import helpers_for, is_device_array
from ..backend._libm_f32 import SMALL
from ..backend._row_stats import fast_rows, row_max, row_starts, row_sum, row_sum_in_order
from ..backend._sum_order import ordered_sum
from .._tensor import _make
from .._threads import get_num_threads
from ..autograd.graph import Op
from . import loss_device
from .half_nll_sum import cascade_sum
from .nll_cascade import cascade_total
from ._accumulate import acc_dtype, fsum, is_half
from ._smooth_activation import _sigmoid_array
from .activation import sigmoid, softplus
from .softmax import softmax

__all__ = ["cross_entropy_index", "nll_index", "binary_cross_entropy_op", "log1pexp",
           "bce_with_logits_op", "pointwise_loss", "ctc_loss_op"]

_CASCADED = (np.dtype(np.float32), np.dtype(np.float64))  # summed in torch's order
_ONE_VECTOR = 16  # float32 lanes of torch's CPU kernels: shorter rows are added in order
_EPS = 1e-12  # torch's floor for the x (1 - x) denominator of the BCE gradient


# -- shared helpers -----------------------------------------------------------------------------
def _class_weights(xp, t, weight, ignore_index, dtype):
    """Safe int64 indices (ignored entries point at class 0) and the per-element weights
    ``weight[t]`` with 0 at ignored entries; the weights are None when all are 1."""
    ignored = t == ignore_index
    # on the GPU, masking unconditionally is cheaper than reading ``any`` back to the host
    has_ignored = (bool(ignored.any()) if xp is np else True) if t.size else False
    t_safe = xp.where(ignored, 0, t) if has_ignored else t
    t_safe = t_safe.astype(np.int64, copy=False)
    if weight is None:
        return t_safe, ((~ignored).astype(dtype) if has_ignored else None)
    wt = weight[t_safe]  # fancy indexing copies: safe to write into
    if has_ignored:
        wt[ignored] = 0
    return t_safe, wt


def _dead_counts(node, xp, t, wt, out):
    """torch's zeros and NaNs around ignored targets (CPU): the loss of an ignored target is
    +0 (not -0 from ``-x * 0``), its gradient too, and a 'mean' whose counted targets all
    have weight 0 is 0/0: their gradient is NaN (ignored ones stay 0). Saves the masks
    (None when nothing applies) and fixes ``out`` (the per-element loss for 'none')."""
    if xp is not np or wt is None or not t.size:
        return out
    kept = t != node.ignore_index
    ignored = None if kept.all() else ~kept
    nan_at = kept if node.reduction == "mean" and kept.any() and not wt.any() else None
    if ignored is not None and node.reduction == "none":
        out[ignored] = 0
    node.save(ignored=ignored, nan_at=nan_at)
    return out


def _target_index(xp, t):
    """The index tuple that picks ``x[n, t[n, ...], ...]`` along dim 1 (plain fancy indexing
    is several times cheaper than take/put_along_axis on small batches)."""
    if t.ndim == 1:
        return (xp.arange(t.shape[0]), t)
    grids = helpers_for(xp).open_grids(t.shape)
    return (grids[0], t) + tuple(grids[1:])


def _weights_and_factor(node, xp, loss, wt, kept=None, ordered=True):
    """Save the per-element weights and the 'mean' factor ``1 / total weight`` for backward,
    and reduce ``loss``. ``kept`` (the counted samples of an (N, C) nll_loss, a bool array)
    sums a half loss in torch's cascade (``half_nll_sum``); a float32/float64 one takes it
    too (``nll_cascade``) unless ``ordered`` is False."""
    red = node.reduction
    dt = loss.dtype
    if kept is not None and red != "none" and is_half(dt) and type(loss) is np.ndarray and \
            loss.ndim == 1 and loss.size:
        return _half_cascade(node, loss, wt, kept)
    if ordered and red != "none" and type(loss) is np.ndarray and loss.ndim == 1 and \
            loss.size and dt in _CASCADED:
        out = _float_cascade(node, loss, wt, kept)
        if out is not None:
            return out
    factor = None
    if red == "mean" and wt is not None and xp is not np:
        # on the GPU the total weight stays there: no host round trip to test it for 0
        denom = _total(wt, dt).astype(dt)
        factor = xp.where(denom != 0, 1 / xp.where(denom != 0, denom, 1), 1).astype(dt)
    elif red == "mean":
        denom = dt.type(loss.size) if wt is None else dt.type(_total(wt, dt))
        # nothing counted (every target ignored): the mean is 0/0 = nan but torch's gradient
        # is 0, not 0 * inf
        factor = 1 / denom if denom != 0 else dt.type(1)
    node.save(wt=wt, factor=factor)
    if red == "none":
        return loss
    total = _total(loss, dt)  # in float32 for half types, rounded once at the end
    if red == "sum":
        return xp.asarray(total, dtype=dt)
    if wt is None:
        return xp.asarray(total / total.dtype.type(loss.size) if loss.size else np.nan,
                          dtype=dt)
    with np.errstate(invalid="ignore", divide="ignore"):
        return xp.asarray(total / _total(wt, dt), dtype=dt)


def _half_cascade(node, loss, wt, kept):
    half = loss.dtype.type
    total = cascade_sum(loss, kept)
    denom = half(int(kept.sum())) if wt is None else cascade_sum(wt, kept)
    factor = None
    if node.reduction == "mean":
        factor = 1 / denom if denom != 0 else half(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            total = half(np.float32(total) / np.float32(denom))
    # torch's 16-bit gradient divides by the total (-(g / total) w[t]); times its rounded
    # reciprocal differed in the last bit
    node.save(wt=wt, factor=factor, divisor=denom if factor is not None and denom != 0 else None)
    return np.asarray(total, dtype=loss.dtype)


def _float_cascade(node, loss, wt, kept):
    """A float32/float64 'sum' or 'mean' added in torch's order (``nll_cascade``): saves
    what ``_weights_and_factor`` saves; None where that order is not worked out."""
    total = cascade_total(loss, kept)
    if total is None:
        return None
    dt = loss.dtype.type
    factor = None
    if node.reduction == "mean":
        if wt is None:
            denom = dt(loss.size)
        elif getattr(node, "weight", None) is None and kept is not None and \
                kept.size < 1 << 24:
            # no class weights: the weights are 1 and 0, and their total, the count, is exact
            # in any order of additions (half of an ignore_index loss's time, makemore's)
            denom = dt(np.count_nonzero(kept))
        else:
            denom = cascade_total(wt, kept)
        if denom is None:
            return None
        # nothing counted: the mean is 0/0 = nan but torch's gradient is 0, not 0 * inf
        factor = 1 / denom if denom != 0 else dt(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            total = total / denom
    node.save(wt=wt, factor=factor)
    return np.asarray(total, dtype=loss.dtype)


def _total(v, dt):
    """The sum of all of ``v`` in torch's accumulation dtype for ``dt`` (a NumPy scalar)."""
    acc = acc_dtype(dt)
    s = fsum(v, tuple(range(v.ndim)), dtype=acc)
    # a NumPy scalar on the CPU; a 0-d array stays on the GPU (no host round trip)
    return acc.type(s) if isinstance(s, (np.ndarray, np.generic)) else s.astype(acc)


def _coef_tensor(g, factor, w):
    """``g * factor * w`` as a Tensor (None factor / weight mean 1)."""
    if factor is not None:
        g = g * float(factor)
    return g if w is None else g * _make(w)


def _times(x, coef):
    """``x * coef`` where a coefficient of None means 1."""
    return x if coef is None else x * coef


def _along_classes(v):
    """A per-element array (or Tensor) shaped to broadcast along dim 1 (the classes)."""
    if v.ndim == 0:
        return v
    return v.reshape(tuple(v.shape[:1]) + (1,) + tuple(v.shape[1:]))


def _reduce_plain(xp, loss, reduction):
    """Reduce an elementwise loss; the 'mean' factor ``1 / n`` for backward (None else)."""
    if reduction == "none":
        return loss, None
    if is_half(loss.dtype):  # torch accumulates float16/bfloat16 in float32, rounds once
        out, factor = _reduce_plain(xp, loss.astype(np.float32), reduction)
        return out.astype(loss.dtype), factor
    # torch reduces the elementwise loss with its sum kernel: its order where known
    total = ordered_sum(loss, range(loss.ndim), False, get_num_threads)
    if total is None:
        total = loss.sum(dtype=loss.dtype)
    if reduction == "sum":
        return xp.asarray(total), None
    n = loss.size
    if n:
        mean = total / loss.dtype.type(n)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):  # empty: 0/0 = nan, as torch
            mean = total / loss.dtype.type(n)
    return xp.asarray(mean), (1 / loss.dtype.type(n) if n else loss.dtype.type(1))


# -- soft margin --------------------------------------------------------------------------------
class SoftMarginLoss(Op):
    """y = reduce(log1p(exp(-t x))) (``value``: the loss as computed, composed, by the
    caller); dx = -f t z / (1 + z) g with z = exp(-t x) and f the mean factor, torch's
    formula and order, each step rounded in the input's dtype (``t``: the target, no edge).

    Why a primitive: composed, the chain rule rounds the 16-bit gradient in another order than
    torch's single backward formula (an ulp off on ~2% of float16/bfloat16 values)."""

    node_name = "SoftMarginLossBackward0"

    def forward(self, x):
        self.save_inputs(x)
        return self.value

    def backward(self, grad):
        x, t = self.saved_inputs(), self.t
        z = (-t * x).exp()
        # torch's norm is the double 1 / n (mean) or 1: -norm * t first
        scale = -t if self.reduction != "mean" else t * -(1.0 / max(x.numel(), 1))
        return scale * z / (1 + z) * grad


def soft_margin_loss_op(input, target, value, reduction):
    """Attach torch's soft margin backward to ``value`` (the loss of ``input`` against the
    +1/-1 ``target``, already reduced; computed without a graph)."""
    return SoftMarginLoss.apply(input, t=target, value=value._array, reduction=reduction)


# -- class-index losses -------------------------------------------------------------------------
class CrossEntropyIndex(Op):
    """y = reduce(a logsumexp(x) - b x[t] - c (x . w)) along dim 1, where b = (1-eps) w[t],
    c = eps/C (label smoothing) and a = b + c sum(w); dx = s (a softmax(x) - b onehot(t) - c w).

    With no smoothing this is ``w[t] (logsumexp(x) - x[t])``; ignored targets get a = b = c = 0.
    """

    def forward(self, x, t):
        xp, eps, w = self.xp, self.label_smoothing, self.weight
        if is_device_array(x):
            y = loss_device.forward(self, x, t)  # GPU: 7 launches
            if y is not None:
                return y
        nd, n_classes = x.ndim, x.shape[1]
        t_safe, wt = _class_weights(xp, t, w, self.ignore_index, x.dtype)
        idx = _target_index(xp, t_safe)
        short = fast_rows(x)  # (N, C) rows of tens of classes: no per-row NumPy loops
        e = x - (row_max(x)[:, None] if short else x.max(axis=1, keepdims=True))
        # the flat positions of the targets: one plain gather/scatter instead of fancy pairs
        flat = t_safe + row_starts(*x.shape) if short else None
        picked = e[idx] if flat is None else e.reshape(-1)[flat]
        a = b = c = w_b = None
        if eps:
            # the smoothing term needs the shifted scores before they are exponentiated
            valid = (t != self.ignore_index).astype(x.dtype)
            if w is not None:
                w_b = w.reshape((1, n_classes) + (1,) * (nd - 2))
            # scalars of x's type: a Python float would widen a bfloat16 (ml_dtypes) array
            b = x.dtype.type(1 - eps) * (valid if wt is None else wt)
            c = x.dtype.type(eps / n_classes) * valid
            a = b + c * (n_classes if w is None else w.sum(dtype=x.dtype))
            dot = e.sum(axis=1) if w_b is None else (e * w_b).sum(axis=1)
        else:
            a = b = wt
        h = helpers_for(xp)
        # up to SMALL values (a classifier's batch: what users print) exp rounds once from
        # float64, as torch's does on all but ~1% of values; larger ones keep NumPy's kernel
        # a small float32 batch keeps the shifted scores: its gradient is then taken as
        # torch takes it, from exp(log_softmax) (one more pass, cheap at this size)
        small = short and eps == 0 and x.dtype == np.float32 and e.size <= SMALL
        shifted = e if small else None
        e = h.float32_rounded(xp.exp, e, out=None if small else e)
        if not short:
            s = e.sum(axis=1)
        elif n_classes < _ONE_VECTOR and e.size <= SMALL:
            s = row_sum_in_order(e)
        else:
            s = row_sum(e)
        # wide rows (not ``short``) gain nothing in time to pay for torch's roundings and order
        ordered = short or e.size <= SMALL
        lse = h.float32_rounded(xp.log, s) if ordered else xp.log(s)
        from_log = (shifted, lse) if small else None
        loss = _times(lse, a) - _times(picked, b)  # a new array: ``lse`` may be saved
        if c is not None:
            loss -= c * dot
        self.save_inputs(x)
        self.save(e=e, s=s, idx=idx, flat=flat, from_log=from_log, a=a, b=b, c=c, w_b=w_b)
        # the counted samples, for torch's order of the 'sum' (see ``nll_cascade``)
        kept = t != self.ignore_index if wt is not None and x.dtype in _CASCADED else None
        return _dead_counts(self, xp, t, wt, _weights_and_factor(self, xp, loss, wt, kept,
                                                                 ordered))

    def backward(self, grad):
        x = self.saved_inputs()  # kept by the backward op only when it is itself recorded
        saved = {k: self.saved(k) for k in ("e", "s", "idx", "flat", "from_log", "a", "b", "c",
                                            "w_b", "factor")}
        extra = self._check_saved()["extra"]
        saved["nan_at"] = extra.get("nan_at")
        saved["ignored"] = extra.get("ignored")
        return CrossEntropyIndexBackward.apply(grad, x, **saved), None


def _zero_weight_signs(out, wt, sc, idx, ignored):
    """torch's signed zeros in the rows of a weight-0 target (no smoothing): its log-softmax
    backward of nll's gradient leaves +0 off the target and -(w g), that is -0 for g >= 0,
    at a counted target (+0 at an ignored one). ``a p - b onehot`` with a = b = 0 gives
    -0 off the target where g < 0 and +0 at it. Rewrites those rows of ``out`` in place."""
    dead = wt == 0
    if not dead.any():
        return
    np.moveaxis(out, 1, -1)[dead] = 0
    if ignored is not None:
        dead &= ~ignored
        if not dead.any():
            return
    signed = np.negative(np.broadcast_to(sc * wt, wt.shape)[dead])
    out[tuple(np.broadcast_to(i, wt.shape)[dead] for i in idx)] = signed


class CrossEntropyIndexBackward(Op):
    """y = f g (a softmax(x) - b onehot(t) - c w), f the mean factor; dg = f (a sum(gg p) -
    b gg[t] - c sum(gg w)), dx = the softmax Jacobian applied to f g a gg."""

    def forward(self, g, x):
        xp, idx = self.xp, self.idx
        self.save_inputs(g, x)
        out = loss_device.grad(self, g) if is_device_array(g) else None  # GPU: 1 launch
        if out is not None:
            self.e = self.s = None
            return out
        if idx[0] is None:  # (the device forward keeps only the targets)
            idx = (xp.arange(idx[1].shape[0]), idx[1])
        sc = g if self.factor is None else g * self.factor
        if self.from_log is not None:  # torch's order: exp(log_softmax) times the weight
            shifted, lse = self.from_log
            p = helpers_for(xp).float32_rounded(xp.exp, shifted - lse[:, None])
            out = p * _along_classes(_times(sc, self.a))
        else:
            out = self.e * _along_classes(_times(sc, self.a) / self.s)
        if self.flat is None:
            out[idx] -= _times(sc, self.b)
        else:
            flat_out = out.reshape(-1)
            flat_out[self.flat] -= _times(sc, self.b)
        if self.c is not None:
            out -= _times(_along_classes(sc * self.c), self.w_b)
        elif self.a is not None and type(out) is np.ndarray:
            _zero_weight_signs(out, self.a, sc, idx, getattr(self, "ignored", None))
        if getattr(self, "nan_at", None) is not None:  # counted rows of a 0/0 mean
            np.moveaxis(out, 1, -1)[self.nan_at] = np.nan
        self.e = self.s = self.from_log = None  # a recorded node must not keep them alive
        return out

    def backward(self, gg):
        g, x = self.saved_inputs()
        p = softmax(x, 1)
        coef = {k: None if getattr(self, k) is None else _make(getattr(self, k))
                for k in ("a", "b", "c", "w_b")}
        t1 = _make(self.idx[1]).unsqueeze(1)
        g_g = _times((gg * p).sum(1), coef["a"]) - _times(gg.gather(1, t1).squeeze(1),
                                                          coef["b"])
        if coef["c"] is not None:
            g_g = g_g - coef["c"] * _times(gg, coef["w_b"]).sum(1)
        sc = _times(g if self.factor is None else g * float(self.factor), coef["a"])
        v = gg * _along_classes(sc)
        g_x = p * (v - (v * p).sum(1, keepdim=True))
        if self.factor is not None:
            g_g = g_g * float(self.factor)
        return g_g, g_x


class NLLLoss(Op):
    """y = reduce(-w[t] x[t]) along dim 1; dx = -c g at the target entries, 0 elsewhere."""

    def forward(self, x, t):
        xp = self.xp
        t_safe, wt = _class_weights(xp, t, self.weight, self.ignore_index, x.dtype)
        idx = _target_index(xp, t_safe)
        loss = -x[idx]
        if wt is not None:
            loss *= wt
        self.in_shape = x.shape
        self.save(idx=idx)
        return _dead_counts(self, xp, t, wt, _weights_and_factor(self, xp, loss, wt,
                                                                 kept=t != self.ignore_index))

    def backward(self, grad):
        extra = self._check_saved()["extra"]
        return NLLLossBackward.apply(grad, shape=self.in_shape, idx=self.saved("idx"),
                                     factor=self.saved("factor"), wt=self.saved("wt"),
                                     divisor=extra.get("divisor"), ignored=extra.get("ignored"),
                                     nan_at=extra.get("nan_at")), None


class NLLLossBackward(Op):
    """y = zeros with -c g at the target entries; dg = -c gg[t] (c = w[t] / total for a 16-bit
    'mean', divided rather than multiplied as torch rounds it)."""

    divisor = ignored = nan_at = None

    def forward(self, g):
        out = self.xp.zeros(self.shape, dtype=g.dtype)
        if self.divisor is not None:
            picked = -_times(g / self.divisor, self.wt)
        else:
            picked = -_times(_times(g, self.factor), self.wt)
        if self.ignored is not None or self.nan_at is not None:  # see _dead_counts
            picked = self.xp.array(np.broadcast_to(picked, self.idx[1].shape))
            if self.nan_at is not None:
                picked[self.nan_at] = np.nan
            if self.ignored is not None:
                picked[self.ignored] = 0
        out[self.idx] = picked
        return out

    def backward(self, gg):
        t1 = _make(self.idx[1]).unsqueeze(1)
        picked = gg.gather(1, t1).squeeze(1)
        if self.divisor is not None:
            return -_coef_tensor(picked / float(self.divisor), None, self.wt)
        return -_coef_tensor(picked, self.factor, self.wt)


def cross_entropy_index(input, target, weight, ignore_index, reduction, label_smoothing=0.0):
    """Fused cross entropy of logits and class indices along dim 1 (checked inputs; ``weight``
    is an array or None)."""
    return CrossEntropyIndex.apply(input, target, weight=weight, ignore_index=ignore_index,
                                   reduction=reduction, label_smoothing=float(label_smoothing))


def nll_index(input, target, weight, ignore_index, reduction):
    """Fused negative log-likelihood for class indices (checked inputs; ``weight`` is an
    array or None)."""
    return NLLLoss.apply(input, target, weight=weight, ignore_index=ignore_index,
                         reduction=reduction)


# -- binary cross entropy ----------------------------------------------------------------------
class BinaryCrossEntropy(Op):
    """y = reduce(-w (t log x + (1-t) log(1-x))), logs clamped at -100;
    dx = w (x - t) / max(x (1 - x), 1e-12), dt = w (log(1 - x) - log(x))."""

    out_layout = "pointwise"

    def forward(self, x, t):
        xp = self.xp
        # written so that NaN fails the check too, as torch's (0 <= v <= 1 is false for NaN)
        if x.size and not ((x >= 0) & (x <= 1)).all():
            raise RuntimeError("all elements of input should be between 0 and 1")
        if t.size and not ((t >= 0) & (t <= 1)).all():
            raise RuntimeError("all elements of target should be between 0 and 1")
        self.save_inputs(x, t)
        with np.errstate(divide="ignore"):
            log_x = xp.maximum(xp.log(x), -100)
            log_1mx = xp.maximum(xp.log1p(-x), -100)
        loss = (t - 1) * log_1mx
        loss -= t * log_x
        if self.weight is not None:
            loss *= self.weight
        out, self.factor = _reduce_plain(xp, loss, self.reduction)
        return out

    def backward(self, grad):
        x, t = self.saved_inputs()
        need_x, need_t = self.needs_input_grad
        gx = BinaryCrossEntropyBackward.apply(grad, x, t, weight=self.weight,
                                              factor=self.factor) if need_x else None
        gt = None
        if need_t:  # torch leaves the target's gradient unclamped (infinite at x = 0 or 1)
            gt = _coef_tensor(grad, self.factor, self.weight) * ((-x).log1p() - x.log())
        return gx, gt


class BinaryCrossEntropyBackward(Op):
    """y = c (x - t) / max(x (1 - x), 1e-12) with c = g f w (f the mean factor); the
    derivatives follow torch's double backward."""

    def forward(self, g, x, t):
        self.save_inputs(g, x, t)
        if type(x) is np.ndarray:
            # torch's CPU order: g (x - t) / max((1 - x) x, eps) in the input's dtype, then
            # times the weight, then (a 'mean') divided by the count, each rounded
            out = g * (x - t) / np.maximum((1 - x) * x, x.dtype.type(_EPS))
            if self.weight is not None:
                out = out * self.weight
            if self.factor is not None:
                n = x.size
                out = (out / np.float32(n)).astype(x.dtype) if x.dtype.itemsize == 2 else \
                    out / x.dtype.type(n)
            return out
        c = _times(_times(g, self.factor), self.weight)
        return c * (x - t) / self.xp.maximum(x * (1 - x), _EPS)

    def backward(self, gg):
        g, x, t = self.saved_inputs()
        fw = _coef_tensor(gg, self.factor, self.weight)
        denom = (x * (1 - x)).clamp_min(_EPS)
        g_g = fw * (x - t) / denom
        # torch pads both factors by eps here instead of clamping their product
        g_x = fw * g * (x * x - 2 * x * t + t) / ((x + _EPS).square() * (1 - x + _EPS).square())
        g_t = -fw * g / denom
        return g_g, g_x, g_t


def binary_cross_entropy_op(input, target, weight, reduction):
    """Binary cross entropy with torch's clamps and the reduction (``weight`` an array of the
    input's dtype, or None)."""
    return BinaryCrossEntropy.apply(input, target, weight=weight, reduction=reduction)


def log1pexp(input):
    """``log(1 + exp(input))`` (softplus with beta 1, no threshold) without overflow."""
    return softplus(input, 1.0, np.inf)


class BinaryCrossEntropyWithLogits(Op):
    """y = reduce(w ((1 - t) x + l softplus(-x))), l = 1 + (p - 1) t (p = pos_weight);
    dx = w ((1 - t) - l sigmoid(-x)), dt = w (-x + (p - 1) softplus(-x))."""

    promote = True

    def forward(self, x, t):
        xp = self.xp
        pw = self.pos_weight
        if xp is np and x.dtype.itemsize == 2 and x.dtype.kind != "i" and x.dtype == t.dtype \
                and (pw is None or pw.dtype == x.dtype):
            # float16/bfloat16: torch composes (1 - t) x - l logsigmoid(x) op by op, each
            # step rounded to the 16-bit type (logsigmoid computed in float32, rounded once)
            x32 = x.astype(np.float32)
            ls = (np.minimum(x32, 0) - np.log1p(np.exp(-np.abs(x32)))).astype(x.dtype)
            if pw is not None:
                ls = ((pw - 1) * t + x.dtype.type(1)) * ls
            loss = (x.dtype.type(1) - t) * x - ls
            if self.weight is not None:
                loss = loss * self.weight
            self.save_inputs(x, t)
            out, self.factor = _reduce_plain(xp, loss, self.reduction)
            return out
        small = xp.exp(-xp.abs(x))
        # in place where it is an array (a 0-d input gives NumPy scalars, which have no buffer)
        small = xp.log1p(small, out=small) if small.ndim else xp.log1p(small)
        sp_neg = xp.maximum(-x, 0)  # softplus(-x) = max(-x, 0) + log1p(exp(-|x|))
        sp_neg += small
        lw = None if self.pos_weight is None else 1 + (self.pos_weight - 1) * t
        loss = (1 - t) * x
        loss += _times(sp_neg, lw)
        if self.weight is not None:
            loss = loss * self.weight
        self.save_inputs(x, t)
        out, self.factor = _reduce_plain(xp, loss, self.reduction)
        return out

    def backward(self, grad):
        x, t = self.saved_inputs()
        w, pw, factor = self.weight, self.pos_weight, self.factor
        need_x, need_t = self.needs_input_grad
        gx = BinaryCrossEntropyWithLogitsBackward.apply(
            grad, x, t, weight=w, pos_weight=pw, factor=factor) if need_x else None
        gt = None
        if need_t:
            # the target's gradient is rarely needed: compose it
            c = _coef_tensor(grad, factor, w)
            gt = -x if pw is None else -x + (_make(pw) - 1) * log1pexp(-x)
            gt = c * gt
        return gx, gt


class BinaryCrossEntropyWithLogitsBackward(Op):
    """y = c ((1 - t) - l sigmoid(-x)), c = g f w; dg = f w (...), dx = c l s(x) s(-x),
    dt = c (-1 - (p - 1) sigmoid(-x))."""

    def forward(self, g, x, t):
        xp = self.xp
        self.save_inputs(g, x, t)
        pw = self.pos_weight
        if xp is np and x.dtype.itemsize == 2 and x.dtype.kind != "i" and \
                x.dtype == t.dtype == g.dtype and (pw is None or pw.dtype == x.dtype):
            # float16/bfloat16: torch composes it op by op, each rounded to the 16-bit type:
            # ((sigmoid(x) - t) * g) * w, then divided by the element count (in float32);
            # with pos_weight p, sigmoid(x) - t is ((p t + 1) - t) sigmoid(x) - p t
            f32 = np.float32
            sig = np.asarray(1 / (1 + np.exp(-x.astype(f32)))).astype(x.dtype)
            out = self._scaled(sig, t, g)
            if self.factor is not None:
                out = (out.astype(f32) / f32(round(1 / self.factor))).astype(x.dtype)
            return out
        out = self._scaled(_sigmoid_array(xp, x.reshape(-1)).reshape(x.shape), t, g)
        if self.factor is not None and x.size:
            out = out / out.dtype.type(x.size)
        return out

    def _scaled(self, sig, t, g):
        """torch's composition, so the bits match: sigmoid(x) - t (with pos_weight p:
        ((p t + 1) - t) sigmoid(x) - p t), times g, times the weight (the form
        1 - t - sigmoid(-x) differs in the last bit); the caller divides for 'mean'."""
        pw = self.pos_weight
        if pw is None:
            out = sig - t
        else:
            pt = pw * t
            out = ((pt + sig.dtype.type(1)) - t) * sig - pt
        out = out * g
        if self.weight is not None:
            out = out * self.weight
        return out

    def backward(self, gg):
        g, x, t = self.saved_inputs()
        pw = None if self.pos_weight is None else _make(self.pos_weight)
        lw = None if pw is None else 1 + (pw - 1) * t
        s_neg = sigmoid(-x)
        fw = _coef_tensor(gg, self.factor, self.weight)
        g_g = fw * ((1 - t) - _times(s_neg, lw))
        c = fw * g
        g_x = c * _times(sigmoid(x) * s_neg, lw)
        g_t = -c if pw is None else c * (-1 - (pw - 1) * s_neg)
        return g_g, g_x, g_t


def bce_with_logits_op(input, target, weight, pos_weight, reduction):
    """Fused, stable binary cross entropy of logits (``weight``/``pos_weight`` arrays of the
    result dtype, or None)."""
    return BinaryCrossEntropyWithLogits.apply(input, target, weight=weight,
                                              pos_weight=pos_weight, reduction=reduction)


# -- pointwise regression losses ----------------------------------------------------------------
def _pointwise_value(xp, kind, d, p):
    """The elementwise loss of the difference ``d`` (``p`` is beta or delta); written without
    selects, which NumPy runs far slower than arithmetic."""
    if kind == "mse":
        return d * d
    ad = xp.abs(d)
    if kind == "l1":
        return ad
    m = xp.minimum(ad, p)  # |d| in the quadratic zone, p beyond it
    lin = ad - m
    q = m * 0.5  # torch's order, 0.5 * d * d: no float16 overflow where d * d alone would
    q *= m
    if kind == "smooth_l1":  # 0.5 d^2 / beta inside, |d| - beta / 2 outside
        q /= p
        return q + lin
    lin *= p  # huber: 0.5 d^2 inside, delta (|d| - delta / 2) outside
    return q + lin


def _half_pointwise(xp, kind, x, t, d, p):
    """float16 huber / smooth L1 losses as torch's CPU kernels round them: huber from the
    float32 difference, rounded once; smooth L1 from the float16 difference ``d`` and a
    float16 beta, rounding 0.5 d^2, its quotient by beta and |d| - beta / 2 each."""
    f32, f16 = np.float32, np.float16
    if kind == "huber":
        z = x.astype(f32) - t.astype(f32)
        az = xp.abs(z)
        return xp.where(az < p, 0.5 * z * z, p * (az - 0.5 * p)).astype(f16)
    p = float(f16(p))  # its beta is a float16 too
    az = xp.abs(d).astype(f32)
    inside = ((0.5 * az * az).astype(f16).astype(f32) / p).astype(f16)
    return xp.where(az < p, inside, (az - 0.5 * p).astype(f16))


def _pointwise_slope(xp, kind, d, p):
    """The derivative of the elementwise loss at ``d``."""
    if kind == "mse":
        return 2 * d
    if kind == "l1":
        if d.dtype.kind == "c":
            return xp.sign(d)
        # torch's sign: 0 (not NaN) at a NaN difference
        return xp.subtract(d > 0, d < 0, dtype=d.dtype)
    if kind == "smooth_l1":
        return xp.clip(d / p, -1, 1)
    return xp.clip(d, -p, p)


_HALF_BLOCK = 32  # values per vectorised step of torch's 16-bit huber kernel (measured)


def _half_slope(kind, g, x, t, p, factor):
    """float16/bfloat16 huber / smooth L1 gradients as torch's CPU kernels round them (found
    by experiment). Smooth L1: the whole expression in float32 from the float32 difference,
    rounded once. Huber: the difference and the mean factor are 16-bit values; its vectorised
    steps (whole blocks of ``_HALF_BLOCK`` values) round every product to the 16-bit type with
    a 16-bit delta, the values past them compute in float32 and round once."""
    f32 = np.float32
    g32, b = g.astype(f32), f32(p)
    if kind == "huber":
        h = x.dtype.type
        d = x - t
        norm = h(f32(1.0 if factor is None else factor))
        hb = h(p)
        out = np.where(d <= -hb, (-norm * g) * hb, np.where(d >= hb, (norm * g) * hb,
                                                            (norm * d) * g))
        n = out.size
        k = n - n % _HALF_BLOCK
        if k < n:
            d, nf = d.astype(f32), f32(norm)
            g32 = np.broadcast_to(g32, d.shape)
            tail = np.where(d <= -b, -nf * g32 * b, np.where(d >= b, nf * g32 * b,
                                                             nf * d * g32))
            out = np.ascontiguousarray(out, dtype=x.dtype)
            out.reshape(-1)[k:] = tail.reshape(-1)[k:]
        return out.astype(x.dtype, copy=False)
    # smooth L1's kernel computes in float32 from the float32 difference, rounding once
    d = x.astype(f32) - t.astype(f32)
    norm = f32(1.0 if factor is None else factor)
    inner = norm * d * g32 / b
    return np.where(d < -b, -norm * g32, np.where(d > b, norm * g32, inner)).astype(x.dtype)


class PointwiseLoss(Op):
    """y = reduce(f(x - t)) for f = mse | l1 | smooth_l1 (beta) | huber (delta);
    dx = f'(x - t), dt = -f'(x - t)."""

    out_layout = "pointwise"
    promote = True

    def forward(self, x, t):
        self.save_inputs(x, t)
        d = x - t
        if d.dtype is _dtype._BF16_NP:  # in float32, rounded once (Python floats would promote)
            loss = _pointwise_value(self.xp, self.kind, d.astype(np.float32), self.p)
            out, self.factor = _reduce_plain(self.xp, loss, self.reduction)
            return out.astype(d.dtype)
        if d.dtype == np.float16 and self.kind in ("huber", "smooth_l1"):
            loss = _half_pointwise(self.xp, self.kind, x, t, d, self.p)
        else:
            loss = _pointwise_value(self.xp, self.kind, d, self.p)
        out, self.factor = _reduce_plain(self.xp, loss, self.reduction)
        return out

    def backward(self, grad):
        x, t = self.saved_inputs()
        g = PointwiseLossBackward.apply(grad, x, t, kind=self.kind, p=self.p,
                                        factor=self.factor)
        need_x, need_t = self.needs_input_grad
        return (g if need_x else None), (-g if need_t else None)


class PointwiseLossBackward(Op):
    """y = g f f'(x - t) (f the mean factor); dg = f f'(d), dx = -dt = g f f''(d)."""

    def forward(self, g, x, t):
        self.save_inputs(g, x, t)
        if self.kind == "mse" and x.dtype.itemsize == 2 and x.dtype.kind != "i" and \
                x.dtype == g.dtype:
            # float16/bfloat16: torch's kernel rounds each step to the 16-bit type, with its
            # factor 2 (or 2 / n) held as a 16-bit value: (norm * (x - t)) * g
            norm = x.dtype.type(np.float32(2.0 if self.factor is None else 2.0 * self.factor))
            return ((x - t) * norm) * g
        if self.kind in ("huber", "smooth_l1") and type(x) is np.ndarray and \
                x.dtype.itemsize == 2 and x.dtype.kind != "i" and x.dtype == g.dtype:
            return _half_slope(self.kind, g, x, t, self.p, self.factor)
        slope = _pointwise_slope(self.xp, self.kind, x - t, self.p)
        slope *= g if self.factor is None else g * self.factor
        return slope

    def backward(self, gg):
        g, x, t = self.saved_inputs()
        d = x - t
        kind, p = self.kind, self.p
        if kind == "mse":
            slope, curve = 2 * d, 2.0
        elif kind == "l1":
            slope, curve = d.sign(), None
        elif kind == "smooth_l1":
            slope = (d / p).clamp(-1, 1)
            curve = (d.abs() < p).to(d.dtype) / p
        else:
            slope, curve = d.clamp(-p, p), (d.abs() < p).to(d.dtype)
        f = 1.0 if self.factor is None else float(self.factor)
        g_g = gg * slope * f
        if curve is None:  # piecewise linear: no second derivative
            return g_g, None, None
        h = gg * g * curve * f
        return g_g, h, -h


def pointwise_loss(input, target, kind, reduction, p=None):
    """Fused mse / l1 / smooth_l1 / huber loss with its reduction (floating inputs)."""
    return PointwiseLoss.apply(input, target, kind=kind, reduction=reduction, p=p)


# -- CTC ----------------------------------------------------------------------------------------
_NEG_INF = -np.inf


def _logsumexp3(xp, a, b, c):
    """log(e^a + e^b + e^c) elementwise; all -inf gives -inf."""
    m = xp.maximum(xp.maximum(a, b), c)
    m = xp.where(m == _NEG_INF, 0, m)
    return xp.log(xp.exp(a - m) + xp.exp(b - m) + xp.exp(c - m)) + m


class CTCLoss(Op):
    """y_n = -log(sum over alignments of prod_t p_t); dlp = exp(lp) - posterior (torch's form).

    ``ext`` holds each sample's extended labels (blank, l1, blank, l2, ..., blank), padded;
    ``il``/``tl`` are the input and target lengths.
    """

    node_name = "CtcLossBackward0"

    def forward(self, lp):
        xp = self.xp
        T, N, _ = lp.shape
        ext, il, tl = self.ext, self.il, self.tl
        L = ext.shape[1]
        # the emission of each extended label at each time step: (T, N, L)
        em = xp.take_along_axis(lp, xp.broadcast_to(ext[None], (T, N, L)), axis=2)
        skip = xp.zeros((N, L), dtype=bool)  # may alpha(s) come from alpha(s - 2)?
        # a label position (odd s) unlike the label before it; by position, not by value, so
        # a target that holds the blank label itself is aligned as torch aligns it
        skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
        alpha = xp.full((T, N, L), _NEG_INF, dtype=lp.dtype)
        alpha[0, :, :2] = em[0, :, :2]
        a1 = xp.full((N, L), _NEG_INF, dtype=lp.dtype)
        a2 = xp.full((N, L), _NEG_INF, dtype=lp.dtype)
        no_skip = xp.full((N, L - 2), _NEG_INF, dtype=lp.dtype) if L > 2 else None
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for t in range(1, T):
                a = alpha[t - 1]
                a1[:, 1:] = a[:, :-1]
                if L > 2:
                    a2[:, 2:] = xp.where(skip[:, 2:], a[:, :-2], no_skip)
                alpha[t] = _logsumexp3(xp, a, a1, a2) + em[t]
            n = xp.arange(N)
            last = xp.maximum(il - 1, 0)
            end = alpha[last, n, 2 * tl]
            before = xp.where(tl > 0, alpha[last, n, xp.maximum(2 * tl - 1, 0)], _NEG_INF)
            ll = xp.logaddexp(end, before)
        # no input frames: only the empty target has an alignment (probability 1)
        ll = xp.where(il == 0, xp.where(tl == 0, 0, _NEG_INF), ll).astype(lp.dtype)
        nll = -ll
        self.save_inputs(lp)
        self.save(alpha=alpha, em=em, skip=skip, nll=nll)
        return nll

    def backward(self, grad):
        lp = self.saved_inputs()
        return CTCLossBackward.apply(grad, lp, alpha=self.saved("alpha"), em=self.saved("em"),
                                     skip=self.saved("skip"), nll=self.saved("nll"),
                                     ext=self.ext, il=self.il, tl=self.tl,
                                     zero_infinity=self.zero_infinity, blank=self.blank)


class CTCLossBackward(Op):
    """y = g (exp(lp) - gamma) for t < input length, gamma from the alpha-beta posteriors."""

    def forward(self, g, lp):
        xp = self.xp
        T, N, C = lp.shape
        ext, il, tl, em, skip = self.ext, self.il, self.tl, self.em, self.skip
        L = ext.shape[1]
        beta = xp.full((T, N, L), _NEG_INF, dtype=lp.dtype)
        b1 = xp.full((N, L), _NEG_INF, dtype=lp.dtype)
        b2 = xp.full((N, L), _NEG_INF, dtype=lp.dtype)
        no_skip = xp.full((N, L - 2), _NEG_INF, dtype=lp.dtype) if L > 2 else None
        n_all = xp.arange(N)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for t in range(T - 1, -1, -1):
                if t < T - 1:
                    b = beta[t + 1]
                    b1[:, :-1] = b[:, 1:]
                    if L > 2:
                        b2[:, :-2] = xp.where(skip[:, 2:], b[:, 2:], no_skip)
                    beta[t] = _logsumexp3(xp, b, b1, b2) + em[t]
                starts = n_all[il - 1 == t]  # samples whose last frame is t
                if starts.size:
                    ends = 2 * tl[starts]
                    beta[t, starts] = _NEG_INF
                    beta[t, starts, ends] = em[t, starts, ends]
                    has = starts[ends > 0]
                    beta[t, has, 2 * tl[has] - 1] = em[t, has, 2 * tl[has] - 1]
            post = xp.exp(self.alpha + beta - em + self.nll[None, :, None])
        # torch's kernel sets (does not add) the last label's share at the last frame, so a
        # last label equal to blank drops the final blank's share there: as torch
        last = xp.flatnonzero((tl > 0) & (il > 0))
        if last.size:
            odd = ext[last, 2 * tl[last] - 1] == self.blank
            hit = last[odd]
            if hit.size:
                post[il[hit] - 1, hit, 2 * tl[hit]] = 0
        # sum the posteriors of all positions that emit the same class (one bincount call)
        flat = (xp.arange(T)[:, None, None] * N + n_all[None, :, None]) * C + ext[None]
        occupancy = xp.bincount(flat.reshape(-1), weights=post.reshape(-1),
                                minlength=T * N * C).reshape(T, N, C).astype(lp.dtype)
        out = xp.exp(lp) - occupancy
        keep = xp.arange(T)[:, None] < il[None, :]
        infinite = xp.isinf(self.nll)[None, :]
        if self.zero_infinity:
            keep = keep & ~infinite
        out = xp.where(keep[:, :, None], out, 0).astype(lp.dtype, copy=False)
        if not self.zero_infinity and bool(infinite.any()):
            # an impossible alignment: every gradient of the sample's used frames is NaN (as
            # torch's exp(lp) - exp(-inf + inf)), whatever the incoming gradient
            out[(keep & infinite)] = np.nan
        out *= g[None, :, None]
        self.alpha = self.em = None
        return out

    def backward(self, gg):
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


def ctc_loss_op(log_probs, ext, input_lengths, target_lengths, blank, zero_infinity):
    """Per-sample CTC negative log-likelihoods of (T, N, C) ``log_probs`` (checked inputs;
    ``ext`` the (N, 2S+1) extended labels, lengths as int64 arrays)."""
    return CTCLoss.apply(log_probs, ext=ext, il=input_lengths, tl=target_lengths, blank=blank,
                         zero_infinity=zero_infinity)
