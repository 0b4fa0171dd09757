"""Statistics and norms: var, std (and their ``_mean`` forms), logsumexp, norm.

Split from ``reduction.py`` to keep each file a readable size;
the reduction helpers (broadcasting gradients back, dim handling) live there.
"""

import warnings

import numpy as np

from .. import _dtype
from ..autograd.graph import Op, rename_node
from . import _norm2_order
from ._accumulate import fsum, is_half
from ._lautil import check_float
from .._required_dim import missing_dim
from ._util import arg_type_error, canonical_dim, user_stacklevel
from .decomp import svd_parts
from ._pointwise import _out
from .reduction import (
    _count, _dims_or_all, _expand_back, _expand_back_array, _reduced_shape, mean, mean_array)
from .comparison import where

__all__ = ["var", "std", "var_mean", "std_mean", "logsumexp", "norm"]

_INF = float("inf")


class Var(Op):
    """y = sum (x - mean)^2 / (n - c) over dims; dy/dx = 2 (x - mean) / (n - c).

    ``std`` sets ``root``: y = sqrt(var) with dy/dx = dvar/dx / (2 y), taken as 0 where y == 0
    (torch's choice for constant inputs).
    """
    out_layout = "contiguous"  # torch allocates the result row-major

    def forward(self, x):
        self.save_inputs(x)
        xp = self.xp
        if x.dtype == np.complex64:
            # torch: the variances of the real and imaginary parts, each float32's below,
            # added (and rooted) in float32
            y = self._variance(x.real.astype(np.float64)).astype(np.float32) + \
                self._variance(x.imag.astype(np.float64)).astype(np.float32)
            return self.save_output(xp.sqrt(y) if self.root else y)
        out_dt = x.dtype if x.dtype.kind == "f" or is_half(x.dtype) else None
        if is_half(x.dtype):  # torch accumulates float16/bfloat16 in float32
            x = x.astype(np.float32)
        elif x.dtype == np.float32:  # and float32 in float64 (rounded once: its exact value)
            x = x.astype(np.float64)
        y = self._variance(x)
        if self.root:
            y = xp.sqrt(y)
        return self.save_output(xp.asarray(y, dtype=out_dt))

    def _variance(self, x):
        # two passes (mean, then squared deviations), each summed without long sequential
        # runs; n == 0 gives 0/0 = NaN and no degrees of freedom a division by zero, as torch
        with np.errstate(divide="ignore", invalid="ignore"):
            d = x - fsum(x, self.dims, keepdims=True) / x.real.dtype.type(self.n)
            sq = d.real * d.real + d.imag * d.imag if d.dtype.kind == "c" else d * d
            return fsum(sq, self.dims, self.keepdim) / sq.dtype.type(
                max(self.n - self.correction, 0))

    def backward(self, grad):
        x = self.saved_inputs()
        dims, kd = self.dims, self.keepdim
        if self.root:
            y = self.saved_output()
            grad = where(y == 0, 0.0, grad / (2 * where(y == 0, 1.0, y)))
        g = _expand_back(grad, x.shape, dims, kd)
        dof = self.n - self.correction
        centered = x - x.mean(dims, keepdim=True) if dims else x - x
        # with no degrees of freedom left the value is inf or NaN; so is the gradient (torch)
        # (torch scales the incoming gradient first: (2 / dof * g) * centered)
        return (g * (2.0 / dof if dof > 0 else np.inf)) * centered

    def backward_arrays(self, g):
        # ``backward``'s ops on the arrays, for real float32/float64 var over some dims
        if self.root or not self.dims or type(g) is not np.ndarray or g.dtype.kind != "f" \
                or g.dtype.itemsize < 4:
            return NotImplemented
        x = self.saved_input_arrays()
        if x.dtype != g.dtype:
            return NotImplemented
        dims, dof = self.dims, self.n - self.correction
        g = _expand_back_array(np, g, x.shape, dims, self.keepdim)
        centered = x - mean_array(np, x, dims, True, _count(x.shape, dims))
        return (g * g.dtype.type(2.0 / dof if dof > 0 else np.inf)) * centered


class LogSumExp(Op):
    """y = log(sum(exp(x))) over dims; dy/dx = exp(x - y) (the softmax; conjugated in the
    gradient of complex x)."""
    out_layout = "contiguous"  # torch allocates the result row-major

    def forward(self, x):
        self.save_inputs(x)
        xp, dims = self.xp, self.dims
        shape = _reduced_shape(x.shape, dims, self.keepdim)
        if _count(x.shape, dims) == 0 or x.size == 0:
            return self.save_output(xp.full(shape, -np.inf, dtype=x.dtype))
        xa = x.astype(np.float32) if is_half(x.dtype) else x  # torch works in float32
        # (complex: shifted by the largest real part, so the imaginary part of the result is
        # the principal angle of the sum, as torch gives it)
        m = (xa.real if xa.dtype.kind == "c" else xa).max(axis=dims, keepdims=True)
        # shifting by the max keeps exp() in range; an infinite max would give inf - inf
        m = xp.where(xp.isinf(m), xp.zeros((), dtype=m.dtype), m)
        with np.errstate(divide="ignore"):  # all -inf: log(0) = -inf, as torch
            if xa is x:
                y = xp.log(fsum(xp.exp(xa - m), dims, keepdims=True)) + m
            else:
                # torch composes half types' logsumexp of ops that each round to the type
                def r(a):
                    return a.astype(x.dtype).astype(np.float32)

                s = r(fsum(r(xp.exp(r(xa - m))), dims, keepdims=True))
                y = r(xp.log(s)) + m
        return self.save_output(y.reshape(shape).astype(x.dtype, copy=False))

    def backward(self, grad):
        x = self.saved_inputs()
        y = _expand_back(self.saved_output(), x.shape, self.dims, self.keepdim)
        soft = (x - y).exp()
        if soft.dtype.is_complex:  # (the conjugate derivative, as for every complex input)
            soft = soft.conj()
        return _expand_back(grad, x.shape, self.dims, self.keepdim) * soft


class Norm(Op):
    """y = (sum |x|^p)^(1/p) over dims; dy/dx = sign(x) |x|^(p-1) / y^(p-1) (0 where y == 0)."""
    out_layout = "contiguous"  # torch allocates the result row-major

    def forward(self, x):
        self.save_inputs(x)
        xp, p, dims, kd = self.xp, self.p, self.dims, self.keepdim
        a = xp.abs(x if not is_half(x.dtype) else x.astype(np.float32))  # torch: float32
        if p == _INF:
            y = a.max(axis=dims, keepdims=kd) if a.size else xp.zeros(
                _reduced_shape(a.shape, dims, kd), a.dtype)
        elif p == -_INF:
            y = a.min(axis=dims, keepdims=kd) if a.size else xp.zeros(
                _reduced_shape(a.shape, dims, kd), a.dtype)
        elif p == 0:
            y = (a != 0).sum(axis=dims, keepdims=kd)
        elif p == 1:
            y = fsum(a, dims, kd)
        elif p == 2 and _norm2_order.applies(a, dims):
            y = xp.sqrt(_norm2_order.sumsq_trailing(a, dims, kd))
        elif p == 2:
            y = xp.sqrt(fsum(a * a, dims, kd))
        else:
            with np.errstate(divide="ignore"):  # 0 ** negative p = inf, giving a norm of 0
                y = fsum(a ** p, dims, kd) ** (1.0 / p)
        out_dt = a.dtype if not is_half(x.dtype) else x.dtype
        return self.save_output(xp.asarray(y, dtype=out_dt))

    def backward(self, grad):
        x = self.saved_inputs()
        # a complex entry's direction is x / |x| (sgn), as in torch's gradient
        sign = x.sgn() if x.dtype.is_complex else x.sign()
        p, dims, kd = self.p, self.dims, self.keepdim
        g = _expand_back(grad, x.shape, dims, kd)
        if p == 0:
            return g * 0
        if p == 1:
            return g * sign
        y = _expand_back(self.saved_output(), x.shape, dims, kd)
        if p in (_INF, -_INF):
            # shared evenly by the entries at the extreme; none when the norm is NaN (torch's 0)
            hit = x.abs() == y
            count = hit.to(g.dtype).sum(dim=dims, keepdim=True)
            return where(hit, g * sign / where(count == 0, 1.0, count), 0.0)
        zero_norm = y == 0
        if p == 2:
            # torch's 2-norm has a NaN second derivative at 0 (the true one is unbounded);
            # dividing by y unguarded gives the same
            # torch's order, (x / y) * g (other orders differ in the last bit on ~25% of values)
            return where(zero_norm, 0.0, x / y * g)
        # Divide by a safe copy and mask afterwards: masking alone would let the 0/0 of the
        # unused branch poison the second derivative with NaN, which torch avoids here.
        y_safe = where(zero_norm, 1.0, y)
        scale = where(zero_norm, 0.0, g / y_safe.pow(p - 1))
        if p >= 1:
            return sign * x.abs().pow(p - 1) * scale
        # |x|^(p-1) is infinite at x == 0 for p < 1: torch takes 0 there, and (as here) its
        # second derivative at those entries is NaN
        return where(x == 0, 0.0, sign * x.abs().pow(p - 1)) * scale


def _nuclear_norm(input, dims, keepdim):
    """The sum of the singular values of the matrices over ``dims`` (``dims[0]`` the rows).

    A composite, as in torch: the gradient U V^H and every higher one come from the SVD's own
    backward, and without grad only the singular values are computed."""
    check_float("linalg.matrix_norm", input)
    s = svd_parts(input.movedim(dims, (-2, -1)), False, False)[1]
    y = s.sum(-1)
    if keepdim:
        for d in sorted(dims):
            y = y.unsqueeze(d)
    return y


# ---------------------------------------------------------------------------------------------
# public functions


def _var(fn, input, dim, unbiased, keepdim, correction, root):
    if isinstance(dim, bool):  # var(x, False): the unbiased-only overload
        if unbiased is not None:
            raise TypeError(f"{fn}(): 'unbiased' was given twice")
        dim, unbiased = None, dim
    if correction is not None and unbiased is not None:
        raise TypeError(f"{fn}(): pass either 'unbiased' or 'correction', not both")
    if input.dtype._category < _dtype._FLOAT:
        if input.dtype._category == _dtype._QUANT:  # torch has a quantized std, no var
            from .._quantized_array import not_supported
            from .._quantized_ops_float import quantized_dispatch

            if not root or fn != "std":
                raise not_supported(f"{fn}.correction")
            return quantized_dispatch("std", input, dim, unbiased, keepdim,
                                      correction=correction)
        if fn in ("var_mean", "std_mean"):
            raise RuntimeError(f"{fn} only support floating point and complex dtypes")
        raise RuntimeError("std and var only support floating point and complex dtypes")
    c = correction if correction is not None else (0 if unbiased is False else 1)
    dims = _dims_or_all(dim, input._array.ndim, fn)
    n = _count(input._array.shape, dims)
    # torch's reduction factor is input numel over output numel: 0 for any empty input
    if (n if input._array.size else 0) - c <= 0:
        warnings.warn(f"{fn}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=user_stacklevel())
    return Var.apply(input, dims=dims, keepdim=keepdim, correction=c, n=n, root=root)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Variance over ``dim`` divided by ``n - correction``.

    Args:
        input (Tensor): a floating point tensor.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        unbiased (bool, optional): ``False`` means ``correction=0``. Default: True.
        keepdim (bool): keep reduced dims with size 1. Default: False.
        correction (int or float, optional): Bessel's correction. Default: 1.

    Example:
        >>> torch.tensor([1., 2., 3., 4.]).var(unbiased=False)
        tensor(1.2500)
    """
    input = _in_out_dtype(input, out)
    return _out(_var("var", input, dim, unbiased, keepdim, correction, False), out)


def _in_out_dtype(input, out):
    """var/std with a float ``out`` of another dtype: torch computes on the input cast to it."""
    if out is not None and out.dtype is not input.dtype and \
            out.dtype._category == input.dtype._category == _dtype._FLOAT:
        return input.to(out.dtype)
    return input


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Standard deviation over ``dim``: the square root of :func:`var` (same arguments).

    Example:
        >>> torch.tensor([1., 3.]).std()
        tensor(1.4142)
    """
    input = _in_out_dtype(input, out)
    return _out(_var("std", input, dim, unbiased, keepdim, correction, True), out)


def _mean_of_var(input, dim, keepdim):
    """var_mean/std_mean's mean: a float32 input is averaged in float64 as its variance is
    (torch's kernel computes both at once), then rounded once."""
    dim = None if isinstance(dim, bool) else dim
    if input.dtype is not _dtype.float32 and input.dtype is not _dtype.complex64:
        return mean(input, dim, keepdim)
    from .reduction import Mean

    nd = input._array.ndim
    dims = _dims_or_all(dim, nd, "mean")
    if tuple(sorted(dims)) != tuple(range(nd - len(dims), nd)):
        # (over leading dims torch's kernel runs a float64 Welford update instead, whose
        # mean is not the exact one either way)
        return mean(input, dim, keepdim)
    return Mean.apply(input, dims=dims, keepdim=keepdim, n=_count(input._array.shape, dims),
                      acc=np.float64 if input.dtype is _dtype.float32 else np.complex128)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Return the tuple ``(var, mean)`` over ``dim`` (see :func:`var`).

    Example:
        >>> torch.var_mean(torch.tensor([1., 3.]))
        (tensor(2.), tensor(2.))
    """
    v = _var("var_mean", input, dim, unbiased, keepdim, correction, False)
    m = _mean_of_var(input, dim, keepdim)
    return rename_node(v, "VarMeanBackward0"), rename_node(m, "VarMeanBackward0")  # torch's


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Return the tuple ``(std, mean)`` over ``dim`` (see :func:`std`).

    Example:
        >>> torch.std_mean(torch.tensor([1., 3.]))
        (tensor(1.4142), tensor(2.))
    """
    s = _var("std_mean", input, dim, unbiased, keepdim, correction, True)
    m = _mean_of_var(input, dim, keepdim)
    return rename_node(s, "StdMeanBackward0"), rename_node(m, "StdMeanBackward0")  # torch's


def logsumexp(input, dim=missing_dim, keepdim=False, *, out=None):
    """``log(sum(exp(input)))`` over ``dim``, computed stably (the max is subtracted first).

    Integer inputs are computed in the default float dtype.

    Example:
        >>> torch.logsumexp(torch.tensor([0., 0.]), 0)
        tensor(0.6931)
    """
    missing_dim.check(dim, "logsumexp")
    if dim is None:
        raise arg_type_error(dim, expected="tuple of ints")
    if out is not None and out.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but "
                           f"got: {_dtype._TYPE_DISPLAY[out.dtype.name]}")
    if input.dtype._category < _dtype._FLOAT:
        input = input.to(_dtype.get_default_dtype())
    dims = _dims_or_all(dim, input._array.ndim, "logsumexp")
    if out is not None and out.dtype is not input.dtype and \
            out.dtype._category == input.dtype._category == _dtype._FLOAT:
        return _out(_logsumexp_into(input, dims, keepdim, out.dtype), out)
    return _out(LogSumExp.apply(input, dims=dims, keepdim=keepdim), out)


def _logsumexp_into(input, dims, keepdim, dtype):
    """logsumexp written to an ``out`` of another float dtype, as torch's out kernel computes
    it: max and exp in the input's dtype, the sum accumulated into ``dtype``, log and the max
    added back there (no gradient: out= refuses inputs that require grad)."""
    from .reduction import amax, sum as sum_

    big = amax(input, dims, keepdim=True)
    big = big.masked_fill(big.abs() == float("inf"), 0)
    total = sum_((input - big).exp(), dims, keepdim=keepdim, dtype=dtype)
    if not keepdim:
        big = big.squeeze(dims) if dims else big
    return total.log() + big


def norm(input, p="fro", dim=None, keepdim=False, dtype=None, *, out=None):
    """The vector p-norm over ``dim`` (all elements when None), or a matrix norm.

    Args:
        input (Tensor): a floating point tensor.
        p (float or str): a number (``inf``, ``-inf`` and ``0`` included), ``'fro'`` (the
            2-norm of the elements) or ``'nuc'`` (the sum of singular values over two dims).
            Default: ``'fro'``.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        keepdim (bool): keep reduced dims with size 1. Default: False.
        dtype (dtype, optional): cast the input to this dtype first.

    Example:
        >>> torch.norm(torch.tensor([3., 4.]))
        tensor(5.)

    """
    if input.dtype._category < _dtype._FLOAT:  # (a dtype= does not make ints acceptable)
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_dtype._TYPE_DISPLAY[input.dtype.name]}")
    if dtype is not None:
        from ._util import check_dtype
        from .matrix_norms import _check_norm_dtype

        check_dtype(dtype, fn="linalg_matrix_norm" if p == "nuc" else "linalg_vector_norm")
        _check_norm_dtype(input.dtype, _dtype.as_dtype(dtype),
                          "linalg.matrix_norm" if p == "nuc" else "linalg.vector_norm")
        input = input.to(_dtype.as_dtype(dtype))
    if out is not None:  # torch's norm writes only its result's (real) dtype
        from ._pointwise import check_out_dtype

        check_out_dtype(out, input.dtype.to_real() if input.dtype.is_complex else input.dtype)
    ndim = input._array.ndim
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        if dim is not None or p == "nuc":
            dims = tuple(range(ndim)) if dim is None else (
                (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim))
            if (p == "nuc" or len(dims) > 1) and len(dims) != 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                                   f"{' '.join(str(d) for d in dims)}")
            if p == "nuc":
                dims = tuple(canonical_dim(d, ndim) for d in dims)
                if dims[0] == dims[1]:
                    raise RuntimeError("linalg.matrix_norm: dims must be different. Got "
                                       f"({dims[0]}, {dims[1]})")
                return _out(_nuclear_norm(input, dims, keepdim), out)
        p = 2
    if p is None:
        p = 2
    dims = _dims_or_all(dim, ndim, "norm")
    p = float(p)
    from .matrix_norms import check_empty_norm

    check_empty_norm(p, input._array.shape, dim, dims)
    return _out(Norm.apply(input, p=p, dims=dims, keepdim=keepdim), out)
