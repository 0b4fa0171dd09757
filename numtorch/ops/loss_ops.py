"""Primitive ops behind the losses, each promoted from a composite for speed or numerics.

* ``CrossEntropyIndex`` fuses log_softmax, the pick of the target column, the class weights
  and the reduction into one op (``F.cross_entropy`` runs in every training loop); its
  backward is ``softmax - onehot`` scaled, through ``CrossEntropyIndexBackward`` whose own
  backward is composed, so second order works.
* ``NLLLoss`` fuses the pick, the weights and the reduction of ``F.nll_loss`` (speed).
* ``BinaryCrossEntropy`` reproduces torch's clamps (``log >= -100`` in forward, the
  denominator ``max(x (1 - x), 1e-12)`` in backward), which a composite cannot: a clamp would
  cut the gradient where torch keeps a huge one.
* ``LogOnePlusExp`` is ``log(1 + e^x)`` without overflow; its derivative is ``sigmoid``, exact
  at ``x = 0`` where a composite of ``abs``/``relu`` would see a kink (numerics).
* ``CTCLoss`` runs the alpha recursion in log space, vectorised over the batch and the label
  positions, looping only over time; ``CTCLossBackward`` runs the beta recursion.

These are internal: ``numtorch.nn.functional`` checks the arguments and calls the functions
at the bottom.
"""

import numpy as np

from .._tensor import _make
from ..autograd.grad_mode import _state
from ..autograd.graph import Op
from .elementwise import sigmoid
from .gather import scatter_into_zeros
from .softmax import softmax

__all__ = ["cross_entropy_index", "nll_index", "binary_cross_entropy_op", "log1pexp",
           "ctc_loss_op"]

_EPS = 1e-12  # torch's floor for the x (1 - x) denominator of the BCE gradient


# -- class-index losses -------------------------------------------------------------------------
def _class_weights(xp, t, weight, ignore_index, dtype):
    """Safe int64 indices (ignored entries point at class 0) and the per-element weights
    ``weight[t]`` with 0 at ignored entries; the weights are None when all are 1."""
    ignored = t == ignore_index
    has_ignored = bool(ignored.any()) if t.size else False
    t_safe = xp.where(ignored, 0, t) if has_ignored else t
    t_safe = t_safe.astype(np.int64, copy=False)
    if weight is None:
        return t_safe, ((~ignored).astype(dtype) if has_ignored else None)
    wt = weight[t_safe]  # fancy indexing copies: safe to write into
    if has_ignored:
        wt[ignored] = 0
    return t_safe, wt


def _reduce(xp, node, loss, wt):
    """Reduce the per-element loss; 'mean' divides by the total weight (the count without
    weights). Saves what ``_scale`` needs for backward."""
    red = node.reduction
    denom = None
    if red == "mean":
        denom = loss.dtype.type(loss.size) if wt is None else wt.sum(dtype=loss.dtype)
    node.save(wt=wt, denom=denom)
    if red == "none":
        return loss
    total = loss.sum(dtype=loss.dtype)
    if red == "sum":
        return xp.asarray(total)
    with np.errstate(invalid="ignore", divide="ignore"):  # nothing counted: 0/0 = nan (torch)
        return xp.asarray(total / denom)


def _scale(node, grad):
    """The gradient's per-element factor as a Tensor built from ``grad`` (so the cotangent
    stays differentiable): ``grad``, over the total weight for 'mean', times the weights."""
    if node.reduction == "mean":
        grad = grad / _make(node.xp.asarray(node.saved("denom")))
    wt = node.saved("wt")
    if wt is not None:
        grad = grad * _make(wt)
    return grad


class CrossEntropyIndex(Op):
    """y = reduce(w[t] (logsumexp(x) - x[t])) along dim 1; dx = s (softmax(x) - onehot(t))."""

    def forward(self, x, t):
        xp = self.xp
        t_safe, wt = _class_weights(xp, t, self.weight, self.ignore_index, x.dtype)
        t1 = xp.expand_dims(t_safe, 1)
        shifted = x - x.max(axis=1, keepdims=True)
        e = xp.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        loss = xp.log(s)
        loss -= xp.take_along_axis(shifted, t1, axis=1)
        loss = loss.reshape(t.shape)
        if wt is not None:
            loss *= wt
        self.save_inputs(x)
        self.save(e=e, s=s, t1=t1)
        return _reduce(xp, self, loss, wt)

    def backward(self, grad):
        scale = _scale(self, grad)
        # x is only needed to differentiate this gradient again (create_graph=True)
        x = self.saved_inputs() if _state.enabled else None
        return CrossEntropyIndexBackward.apply(scale, x, e=self.saved("e"), s=self.saved("s"),
                                               t1=self.saved("t1")), None


class CrossEntropyIndexBackward(Op):
    """y = s (softmax(x) - onehot(t)) along dim 1; ds = sum(gg p) - gg[t], dx = softmax'."""

    def forward(self, scale, x):
        xp, t1 = self.xp, self.t1
        if x is not None:
            self.save_inputs(scale, x)
        s1 = xp.expand_dims(scale, 1) if scale.ndim else scale
        out = self.e * (s1 / self.s)  # softmax times the scale, in one pass over the input
        picked = xp.take_along_axis(out, t1, axis=1)
        picked -= s1
        xp.put_along_axis(out, t1, picked, axis=1)
        self.e = self.s = None  # a recorded node must not keep the activations alive
        return out

    def backward(self, gg):
        scale, x = self.saved_inputs()
        p = softmax(x, 1)
        t1 = _make(self.t1)
        g_scale = (gg * p).sum(1) - gg.gather(1, t1).squeeze(1)
        v = gg * (scale.unsqueeze(1) if scale.dim() else scale)
        g_x = p * (v - (v * p).sum(1, keepdim=True))
        return g_scale, g_x


class NLLLoss(Op):
    """y = reduce(-w[t] x[t]) along dim 1; dx = -s at the target entries, 0 elsewhere."""

    def forward(self, x, t):
        xp = self.xp
        t_safe, wt = _class_weights(xp, t, self.weight, self.ignore_index, x.dtype)
        t1 = xp.expand_dims(t_safe, 1)
        loss = -xp.take_along_axis(x, t1, axis=1).reshape(t.shape)
        if wt is not None:
            loss *= wt
        self.in_shape = x.shape
        self.save(t1=t1)
        return _reduce(xp, self, loss, wt)

    def backward(self, grad):
        t1 = self.saved("t1")
        src = (-_scale(self, grad)).expand(t1.shape[:1] + t1.shape[2:]).unsqueeze(1)
        return scatter_into_zeros(self.in_shape, 1, _make(t1), src), None


def cross_entropy_index(input, target, weight, ignore_index, reduction):
    """Fused ``nll_loss(log_softmax(input, 1), target)`` for class indices (checked inputs;
    ``weight`` is an array or None)."""
    return CrossEntropyIndex.apply(input, target, weight=weight, ignore_index=ignore_index,
                                   reduction=reduction)


def nll_index(input, target, weight, ignore_index, reduction):
    """Fused negative log-likelihood for class indices (checked inputs; ``weight`` is an
    array or None)."""
    return NLLLoss.apply(input, target, weight=weight, ignore_index=ignore_index,
                         reduction=reduction)


# -- binary cross entropy and softplus ----------------------------------------------------------
class BinaryCrossEntropy(Op):
    """y = -w (t log x + (1-t) log(1-x)), logs clamped at -100; dx = w (x-t) / x(1-x)."""

    def forward(self, x, t, w):
        xp = self.xp
        if x.size and ((x < 0) | (x > 1)).any():
            raise RuntimeError("all elements of input should be between 0 and 1")
        if t.size and ((t < 0) | (t > 1)).any():
            raise RuntimeError("all elements of target should be between 0 and 1")
        self.save_inputs(x, t)
        with np.errstate(divide="ignore"):
            log_x = xp.maximum(xp.log(x), -100)
            log_1mx = xp.maximum(xp.log1p(-x), -100)
        loss = (t - 1) * log_1mx
        loss -= t * log_x
        if w is not None:
            loss *= w
        self.save(w=w)
        return loss

    def backward(self, grad):
        x, t = self.saved_inputs()
        w = self.saved("w")
        gw = grad if w is None else grad * _make(w)
        need_x, need_t = self.needs_input_grad[:2]
        gx = BinaryCrossEntropyBackward.apply(gw, x, t) if need_x else None
        # torch leaves the target's gradient unclamped (infinite at x = 0 or 1)
        gt = gw * ((-x).log1p() - x.log()) if need_t else None
        return gx, gt, None


class BinaryCrossEntropyBackward(Op):
    """y = g (x - t) / max(x (1 - x), 1e-12); derivatives as torch's double backward."""

    def forward(self, g, x, t):
        self.save_inputs(g, x, t)
        return g * (x - t) / self.xp.maximum(x * (1 - x), _EPS)

    def backward(self, gg):
        g, x, t = self.saved_inputs()
        denom = (x * (1 - x)).clamp_min(_EPS)
        g_g = gg * (x - t) / denom
        # torch pads both factors by eps here instead of clamping their product
        g_x = gg * g * (x * x - 2 * x * t + t) / ((x + _EPS).square() * (1 - x + _EPS).square())
        g_t = -gg * g / denom
        return g_g, g_x, g_t


def binary_cross_entropy_op(input, target, weight):
    """Elementwise binary cross entropy with torch's clamps (``weight`` a Tensor or None)."""
    return BinaryCrossEntropy.apply(input, target, weight)


class LogOnePlusExp(Op):
    """y = log(1 + e^x) = max(x, 0) + log1p(e^-|x|); dy/dx = sigmoid(x)."""

    def forward(self, x):
        xp = self.xp
        self.save_inputs(x)
        return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))

    def backward(self, grad):
        return grad * sigmoid(self.saved_inputs())


def log1pexp(input):
    """``log(1 + exp(input))`` (softplus with beta 1) without overflow or a kink at 0."""
    return LogOnePlusExp.apply(input)


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

    def forward(self, lp):
        xp = self.xp
        T, N, _ = lp.shape
        ext, il, tl = self.ext, self.il, self.tl
        L = ext.shape[1]
        # the emission of each extended label at each time step: (T, N, L)
        em = xp.take_along_axis(lp, xp.broadcast_to(ext[None], (T, N, L)), axis=2)
        skip = xp.zeros((N, L), dtype=bool)  # may alpha(s) come from alpha(s - 2)?
        skip[:, 2:] = (ext[:, 2:] != self.blank) & (ext[:, 2:] != ext[:, :-2])
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
                                     zero_infinity=self.zero_infinity)


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
        # sum the posteriors of all positions that emit the same class (one bincount call)
        flat = (xp.arange(T)[:, None, None] * N + n_all[None, :, None]) * C + ext[None]
        occupancy = xp.bincount(flat.reshape(-1), weights=post.reshape(-1),
                                minlength=T * N * C).reshape(T, N, C).astype(lp.dtype)
        out = xp.exp(lp) - occupancy
        keep = xp.arange(T)[:, None] < il[None, :]
        if self.zero_infinity:
            keep = keep & ~xp.isinf(self.nll)[None, :]
        out = xp.where(keep[:, :, None], out, 0).astype(lp.dtype, copy=False)
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
