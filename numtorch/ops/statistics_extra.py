"""More reductions and scans: logcumsumexp, diff, nansum, nanmean, cumulative_trapezoid, isin,
cov and corrcoef.

``logcumsumexp`` is a primitive (one ``logaddexp.accumulate`` pass, exact for inputs of any
spread); the others are compositions of existing ops, so their gradients are those of the ops
they are built from.
"""

import warnings

import numpy as np

from .. import _dtype
from ..backend import _keep_dtype as keep_dtype
from ..backend import helpers_for
from .._tensor import Tensor, _make
from ..autograd.graph import Op, rename_node
from ._accumulate import is_half
from ._pointwise import _out
from ._util import canonical_dim, check_dtype, user_stacklevel

__all__ = [
    "corrcoef",
    "cov",
    "cumulative_trapezoid",
    "diff",
    "isin",
    "logcumsumexp",
    "nanmean",
    "nansum",
]


def _ops():
    from .. import ops

    return ops


def _dtype_name(dt):
    return dt._legacy[:-len("Tensor")]


class LogCumSumExp(Op):
    """y_i = log(sum_{j<=i} exp(x_j)) along ``dim``; dx = B g with
    B_ij = exp(x_i - y_j) for j >= i (see :class:`LogCumSumExpVjp`)."""
    out_layout = "contiguous"  # torch allocates the result row-major

    node_name = "LogcumsumexpBackward0"

    def forward(self, x):
        self.save_inputs(x)
        if x.ndim == 0:
            return self.save_output(x.copy())
        if x.dtype.kind == "c":
            return self.save_output(_complex_lcse(self.xp, x, self.dim))
        if is_half(x.dtype):  # torch scans half types in float32, rounding once at the end
            y = helpers_for(self.xp).accumulate("logaddexp", x.astype(np.float32), self.dim)
            return self.save_output(y.astype(x.dtype))
        return self.save_output(helpers_for(self.xp).accumulate("logaddexp", x, self.dim))

    def backward(self, grad):
        x = self.saved_inputs()
        y = self.saved_output()
        if x.ndim == 0:
            return grad
        if x.dtype.is_complex:  # conj(d y_i / d x_j) = exp(conj(x_j - y_i)), j <= i, summed
            ops, d = _ops(), self.dim  # in log space by the complex scan itself
            tail = ops.flip(ops.logcumsumexp(ops.flip(ops.log(grad.conj()) - y, [d]), d), [d])
            return ops.exp(tail + x).conj()
        return LogCumSumExpVjp.apply(grad, x, y, dim=self.dim)


def _complex_pair(xp, a, b):
    """log(exp(a) + exp(b)) for complex arrays, any branch of the imaginary part: the larger
    real part factored out; both at -inf give -inf, both at +inf the plain sum."""
    big = a.real >= b.real
    m, n = xp.where(big, a, b), xp.where(big, b, a)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        out = m + xp.log1p(xp.exp(n - m))
        both_inf = (m.real == n.real) & xp.isinf(m.real)
        plain = xp.where(m.real > 0, xp.log(xp.exp(m) + xp.exp(n)), m.real + 0j)
    return xp.where(both_inf, plain, out).astype(a.dtype, copy=False)


def _complex_lcse(xp, x, dim):
    """Complex logcumsumexp along ``dim`` as torch's running pairwise log-add-exp gives it.

    The values come from a doubling scan (log2 n whole-array passes); the imaginary part is
    then moved by multiples of 2 pi onto the branch of the running scan, which does not wrap
    it: each step adds Arg(1 + exp(smaller - larger)) to the imaginary part of the larger
    operand (by real part; on a tie the new element), so the running imaginary part is a
    segmented sum restarting wherever the new element is the larger one.
    """
    wide = np.complex128
    a = xp.moveaxis(x, dim, -1).astype(wide)
    y = a.copy()
    step, n = 1, a.shape[-1]
    while step < n:
        y[..., step:] = _complex_pair(xp, y[..., step:], y[..., :-step])
        step *= 2
    prev = xp.concatenate([xp.full(a.shape[:-1] + (1,), -np.inf, dtype=wide), y[..., :-1]], -1)
    restart = a.real >= prev.real
    m, low = xp.where(restart, a, prev), xp.where(restart, prev, a)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        delta = xp.log1p(xp.exp(low - m)).imag
    finite = xp.isfinite(y.real) & xp.isfinite(y.imag)
    delta = xp.where(finite, delta, 0.0)
    v = delta + xp.where(restart, a.imag, 0.0)
    total = xp.cumsum(v, -1)
    pos = xp.broadcast_to(xp.arange(n), v.shape)
    scan = helpers_for(xp).accumulate
    start = scan("maximum", xp.where(restart, pos, 0), -1)
    before = xp.take_along_axis(total - v, start, -1)
    running = total - before
    turns = xp.where(finite, xp.round((running - y.imag) / (2 * np.pi)), 0.0)
    y = xp.where(y.real == -np.inf, complex(-np.inf, 0.0), y + 2j * np.pi * turns)
    nan = xp.isnan(a.real) | xp.isnan(a.imag)
    y = xp.where(scan("maximum", nan, -1), complex(np.nan, np.nan), y)
    return xp.ascontiguousarray(xp.moveaxis(y.astype(x.dtype), -1, dim))


def _signed_log_parts(xp, v):
    """log of the positive and of the negative part of ``v`` (-inf where the part is 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        one, inf = v.dtype.type(1), v.dtype.type(-np.inf)  # (CuPy's where: no bfloat16 loop)
        return (keep_dtype.where(xp, v > 0, xp.log(keep_dtype.where(xp, v > 0, v, one)), inf),
                keep_dtype.where(xp, v < 0, xp.log(keep_dtype.where(xp, v < 0, -v, one)), inf))


def _lcse(xp, a, d, reverse=False):
    if reverse:
        a = xp.flip(a, d)
    out = helpers_for(xp).accumulate("logaddexp", a, d)
    return xp.flip(out, d) if reverse else out


class LogCumSumExpVjp(Op):
    """out_i = sum_{j>=i} g_j exp(x_i - y_j): logcumsumexp's vjp, linear in g and summed in
    log space for each sign of g (exact for inputs of any spread).

    Why a primitive: written with numtorch ops, the sign split makes the derivative in g
    vanish at g = 0, which breaks forward-mode AD (vjp of the vjp at a zero cotangent). As an
    op its gradients are exact: d/dg is the JVP (:class:`LogCumSumExpJvp`), d/dx = gg * out,
    d/dy = -g * JVP(gg).
    """

    def forward(self, g, x, y):
        xp, d = self.xp, self.dim
        self.save_inputs(g, x, y)
        pos, neg = _signed_log_parts(xp, g)
        with np.errstate(invalid="ignore", over="ignore"):
            out = xp.exp(x + _lcse(xp, pos - y, d, True)) - xp.exp(x + _lcse(xp, neg - y, d, True))
        # an entry at -inf gets 0, or NaN (as torch) while its running total is still -inf
        edge = keep_dtype.where(xp, y == -np.inf, out.dtype.type(np.nan), out.dtype.type(0))
        out = keep_dtype.where(xp, x == -np.inf, edge, out)
        return self.save_output(out.astype(g.dtype, copy=False))

    def backward(self, gg):
        g, x, y = self.saved_inputs()
        out = self.saved_output()
        jvp = LogCumSumExpJvp.apply(gg, x, y, dim=self.dim)
        return jvp, gg * out, -g * jvp


class LogCumSumExpJvp(Op):
    """out_j = sum_{i<=j} v_i exp(x_i - y_j): logcumsumexp's JVP (the transpose of
    :class:`LogCumSumExpVjp`); d/dv = VJP(ww), d/dx = v * VJP(ww), d/dy = -ww * out."""

    def forward(self, v, x, y):
        xp, d = self.xp, self.dim
        self.save_inputs(v, x, y)
        pos, neg = _signed_log_parts(xp, v)
        with np.errstate(invalid="ignore", over="ignore"):
            out = xp.exp(_lcse(xp, x + pos, d) - y) - xp.exp(_lcse(xp, x + neg, d) - y)
        out = keep_dtype.where(xp, y == -np.inf, out.dtype.type(0), out)
        return self.save_output(out.astype(v.dtype, copy=False))

    def backward(self, ww):
        v, x, y = self.saved_inputs()
        out = self.saved_output()
        vjp = LogCumSumExpVjp.apply(ww, x, y, dim=self.dim)
        return vjp, v * vjp, -ww * out


def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(input), dim))`` computed without overflow or underflow.

    Example:
        >>> torch.logcumsumexp(torch.tensor([0., 1000.]), 0)
        tensor([   0., 1000.])
    """
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{_dtype_name(input.dtype)}'")
    d = canonical_dim(dim, input._array.ndim)
    res = LogCumSumExp.apply(input, dim=d)
    if out is not None:  # resized as torch's out= is (copy_ only broadcast into it)
        return _out(res, out, exact="expected scalar_type {want} but found {got}")
    return res


def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    """The ``n``-th forward difference along ``dim`` (``x[i+1] - x[i]``; for bool tensors,
    ``x[i+1] != x[i]``), after joining ``prepend`` and ``append`` to the ends.

    Example:
        >>> torch.diff(torch.tensor([1, 3, 6]), prepend=torch.tensor([0]))
        tensor([1, 2, 3])
    """
    nd = input._array.ndim
    if nd == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = canonical_dim(dim, nd)
    ops = _ops()
    parts = []
    for extra in (prepend, append):
        if extra is not None and not isinstance(extra, Tensor):
            raise TypeError(f"diff(): argument '{'prepend' if extra is prepend else 'append'}' "
                            f"must be Tensor, not {type(extra).__name__}")
        if extra is not None and extra._array.ndim != nd:
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input")
        parts.append(extra)
    if parts[0] is not None or parts[1] is not None:
        input = ops.cat([t for t in (parts[0], input, parts[1]) if t is not None], d)
    for _ in range(n):
        size = input._array.shape[d]
        if size == 0:
            break
        hi, lo = input.narrow(d, 1, size - 1), input.narrow(d, 0, size - 1)
        input = ops.logical_xor(hi, lo) if input.dtype is _dtype.bool else hi - lo
    return _out(input, out)


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum over ``dim`` treating NaN as zero.

    Example:
        >>> torch.nansum(torch.tensor([1., float("nan"), 2.]))
        tensor(3.)
    """
    check_dtype(dtype)
    if input.dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if dtype is not None and _dtype.as_dtype(dtype).is_complex:  # real kernels only
        raise NotImplementedError(f'"nansum_cpu" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[_dtype.as_dtype(dtype).name]}'")
    ops = _ops()
    if out is not None and dtype is not None and out.dtype is not _dtype.as_dtype(dtype):
        show = _dtype._TYPE_DISPLAY
        raise RuntimeError(f"nansum: provided dtype must match dtype of result. Got "
                           f"{show[out.dtype.name]} and {show[_dtype.as_dtype(dtype).name]}.")
    if out is not None and dtype is None:  # as sum: accumulate in the out tensor's dtype
        if input.dtype.is_floating_point and not out.dtype.is_floating_point:
            # (torch's kernel then has no integer variant, though dtype= works)
            raise NotImplementedError(f'"nansum_cpu" not implemented for '
                                      f"'{_dtype._TYPE_DISPLAY[out.dtype.name]}'")
        dtype = out.dtype
    x = input
    if input.dtype.is_floating_point:
        x = ops.where(ops.isnan(input), _make(np.zeros((), dtype=input._array.dtype)), input)
    res = ops.sum(x, dim, keepdim, dtype=dtype) if dim is not None else \
        ops.sum(x, dtype=dtype) if not keepdim else \
        ops.sum(x, tuple(range(input._array.ndim)), True, dtype=dtype)
    res = rename_node(res, "NansumBackward0")
    if out is not None:  # resized as torch's out= is (copy_ only broadcast into it)
        return _out(res, out)
    return res


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean over ``dim`` of the values that are not NaN (NaN where every value is NaN)."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_dtype_name(input.dtype)}")
    if dtype is not None:
        dt = _dtype.as_dtype(dtype)
        if not (dt.is_floating_point or dt.is_complex):
            raise RuntimeError(f"nanmean(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: "
                               f"{_dtype_name(dt)}")
    if out is not None and dtype is None and out.dtype.is_floating_point:
        dtype = out.dtype  # (torch sums as for dtype=out.dtype)
    ops = _ops()
    count = ops.logical_not(ops.isnan(input))
    dims = dim if dim is not None else tuple(range(input._array.ndim))
    res = nansum(input, dims, keepdim, dtype=dtype) / ops.sum(count, dims, keepdim)
    if out is not None:  # resized as torch's out= is (copy_ only broadcast into it)
        return _out(res, out)
    return res


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral of ``y`` along ``dim`` (one value per interval).

    Example:
        >>> torch.cumulative_trapezoid(torch.tensor([1., 2., 4.]))
        tensor([1.5000, 4.5000])
    """
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of arguments: "
                        "x and dx cannot both be given")
    if y._array.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = canonical_dim(dim, y._array.ndim)
    from .special import _refuse_bool

    _refuse_bool("cumulative_trapezoid", y, x)
    n = y._array.shape[d]
    if not (y.dtype.is_floating_point or y.dtype.is_complex):
        y = y.to(_dtype.get_default_dtype())
    m = max(n - 1, 0)
    pair = y.narrow(d, 1, m) + y.narrow(d, 0, m) if n else y
    if x is None:
        return rename_node((pair * ((1 if dx is None else dx) / 2)).cumsum(d), "CumsumBackward0")
    if x._array.ndim == 1:
        if x._array.shape[0] != n:
            raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each "
                               "sample point")
        shape = [1] * y._array.ndim
        shape[d] = m
        widths = (x[1:] - x[:-1]).reshape(shape)
    else:
        widths = _diff_along(x, d, y._array.ndim)
    return (pair * widths / 2).cumsum(d)


def _diff_along(x, d, ndim):
    """``x.diff(dim=d)`` for trapezoid's sample points of another rank than ``y`` (``ndim``):
    torch takes ``y``'s dim also for such an ``x`` (left-padded with size-1 dims when it has
    fewer), then broadcasts the widths against ``y``'s pairs."""
    if x.ndim < ndim:
        x = x.reshape((1,) * (ndim - x.ndim) + tuple(x.shape))
    k = max(x.shape[d] - 1, 0)
    return x.narrow(d, 1, k) - x.narrow(d, 0, k)


def isin(elements, test_elements, *, assume_unique=False, invert=False, out=None):
    """True where an element of ``elements`` occurs in ``test_elements`` (False with
    ``invert``). Either argument may be a number.

    Example:
        >>> torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5]))
        tensor([False,  True, False])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(f"isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__}), but "
                        f"expected one of (Tensor elements, Tensor test_elements) with at most "
                        f"one of them a Number")
    for t in (elements, test_elements):
        if isinstance(t, Tensor) and (t.dtype.is_complex or t.dtype is _dtype.bool):
            raise RuntimeError(f"Unsupported input type encountered for isin(): "
                               f"{_dtype_name(t.dtype)}")
    like = elements if isinstance(elements, Tensor) else test_elements
    from .. import backend

    xp = backend.xp_of(like._array)
    a = elements._array if isinstance(elements, Tensor) else xp.asarray(elements)
    b = test_elements._array if isinstance(test_elements, Tensor) else xp.asarray(test_elements)
    res = _make(xp.asarray(xp.isin(a, b, assume_unique=assume_unique, invert=invert)))
    if out is not None:  # resized as torch's out= is (copy_ only broadcast into it)
        return _out(res, out)
    return res


def _check_weights(name, w, n_obs, kind_ok, kind_name):
    if w._array.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w._array.ndim} dimensions")
    if not kind_ok(w.dtype):
        raise RuntimeError(f"cov(): expected {name} to have {kind_name} dtype but got {name} "
                           f"with {_dtype_name(w.dtype)} dtype")
    if w._array.size != n_obs:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w._array.size} != {n_obs}")
    if w._array.size and not (w._array >= 0).all():  # (NaN fails torch's check too)
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in the
    columns), optionally weighted by frequency and importance weights.

    Args:
        input (Tensor): a 0-d, 1-d (one variable) or 2-d (variables x observations) tensor.
        correction (int): subtracted from the number of observations (1: Bessel's
            correction). Default: 1.
        fweights (Tensor, optional): integer count of each observation.
        aweights (Tensor, optional): float importance of each observation.

    Example:
        >>> torch.cov(torch.tensor([[0., 1., 2.], [2., 1., 0.]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    if isinstance(correction, bool) or not isinstance(correction, (int, np.integer)):
        raise TypeError(f"cov(): argument 'correction' must be int, not "
                        f"{type(correction).__name__}")
    nd = input._array.ndim
    if nd > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {nd} dimensions")
    x = input if nd == 2 else input.reshape(1, -1)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(_dtype.get_default_dtype())
    n_obs = x._array.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, n_obs,
                       lambda dt: not dt.is_floating_point and not dt.is_complex and
                       dt is not _dtype.bool, "integral")
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, n_obs, lambda dt: dt.is_floating_point,
                       "floating point")
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = n_obs
        norm = n_obs - correction
    else:
        w_sum = w.sum()
        if float(w_sum._array) == 0:  # (torch checks this on the host too)
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / w_sum
        if aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    norm_value = float(norm._array) if isinstance(norm, Tensor) else norm
    if norm_value <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning,
                      stacklevel=user_stacklevel())
        norm = norm.clamp(min=0) if isinstance(norm, Tensor) else 0
    centred = x - avg.unsqueeze(1)
    weighted = centred if w is None else centred * w
    c = weighted.matmul(centred.transpose(0, 1).conj())
    c = c / norm if isinstance(norm, Tensor) else c / float(norm) if norm else \
        c / _make(np.zeros((), dtype=c._array.dtype))
    return c.squeeze()


def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input`` (see :func:`cov`), clipped
    to ``[-1, 1]``."""
    c = cov(input)
    if c._array.ndim == 0:
        return c / c
    std = c.diagonal().real.sqrt() if c.dtype.is_complex else c.diagonal().sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    if c.dtype.is_complex:
        from .. import ops

        return ops.complex(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)
