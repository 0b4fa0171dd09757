"""Reductions: sum, mean, prod, amax/amin, max/min (with indices), arg*, scans (cumsum,
cumprod) and all/any; var/std, logsumexp and norm live in ``_statistics.py``.

Each forward is one NumPy reduction; each backward broadcasts the gradient back with numtorch
ops, so gradients of gradients work. ``aminmax`` and ``count_nonzero`` are compositions of the
primitives here.
"""

import numpy as np

from .. import _dtype
from .._required_dim import all_dims, missing_dim
from .._tensor import Tensor, _make
from .._threads import get_num_threads
from ..autograd.graph import Op, rename_node
from ..backend import helpers_for
from ..backend._sum_order import ordered_sum
from ..return_types import aminmax as _aminmax_t, max as _max_t, min as _min_t
from ._accumulate import fsum, is_half, scan_dtype
from .half_prod import half_prod
from ._util import (as_index, canonical_dim, canonical_dims, check_dtype, check_keepdim,
                    invalid_combination, refuse_dtype)
from ._pointwise import _out, check_out_dtype
from .comparison import maximum, minimum, where

__all__ = ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "cumsum",
           "cumprod", "all", "any", "count_nonzero", "aminmax"]

# The public sum, max, min, all and any below shadow the builtins: use no builtin of those
# names in this module (a stray any() once broke amax on empty inputs).


# arrays up to this size are summed by NumPy directly: no sequential run can be long
_SMALL = 256


def _kept_shape(shape, dims):
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _reduced_shape(shape, dims, keepdim):
    if keepdim:
        return _kept_shape(shape, dims)
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def _expand_back(grad, in_shape, dims, keepdim):
    """Broadcast a reduced gradient back to the input's shape (one fused op)."""
    return ExpandBack.apply(grad, in_shape=tuple(in_shape), dims=tuple(dims), keepdim=keepdim)


def _expand_back_array(xp, g, in_shape, dims, keepdim):
    """ExpandBack's forward on arrays: ``g`` reduced over ``dims`` broadcast to ``in_shape``."""
    if not keepdim and dims and g.ndim != len(in_shape) and g.ndim:  # (0-d broadcasts as is)
        g = g.reshape(_kept_shape(in_shape, dims))
    return helpers_for(xp).expand_to(g, in_shape)


class ExpandBack(Op):
    """y = g (reduced over ``dims``) broadcast to ``in_shape``; dg = gg summed over ``dims``.

    The backward of every reduction. One op instead of reshape-then-expand halves the per-op
    overhead on small tensors, and the result is a fresh contiguous array (see
    ``backend.expand_to``), which the BLAS calls that usually consume it prefer.
    """

    def forward(self, g):
        return _expand_back_array(self.xp, g, self.in_shape, self.dims, self.keepdim)

    def backward(self, gg):
        return Sum.apply(gg, dims=self.dims, keepdim=self.keepdim, dtype=None)


def _count(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _ones(like):
    """A constant tensor of ones with ``like``'s shape and dtype (not part of the graph)."""
    from .. import backend

    return _make(backend.xp_of(like._array).ones(like._array.shape, like._array.dtype))


def _rev_cumsum(t, d):
    """sum_{j >= k} t_j along ``d``."""
    return t.flip(d).cumsum(d).flip(d)


def sum_array(x, dims, keepdim):
    """``Sum``'s result for a NumPy array without a ``dtype`` argument, bit for bit (also the
    engine's sum of a broadcast gradient when no graph is built: the same sum, no op)."""
    y = ordered_sum(x, dims, keepdim, get_num_threads)
    if y is not None:
        return y
    if x.size <= _SMALL and not is_half(x.dtype):
        # no run long enough to matter (the ufunc's reduce skips ndarray.sum's wrapper)
        return np.add.reduce(x, dims, None, None, keepdim)
    y = fsum(x, dims, keepdim, None)
    return y if y.dtype == x.dtype else y.astype(x.dtype)


class Sum(Op):
    """y = sum of x over dims; dy/dx = 1 (the gradient is broadcast back)."""
    out_layout = "contiguous"  # torch allocates the result row-major

    def forward(self, x):
        self.in_shape = x.shape
        if self.dtype is None and type(x) is np.ndarray:  # the usual call
            return sum_array(x, self.dims, self.keepdim)
        x, dtype = cast_to_float_dtype(x, self.dtype)
        if dtype is not None and x.dtype != dtype and np.dtype(dtype).kind == "f":
            y = _short_sum_in_order(self.xp, x.astype(dtype), self.dims, self.keepdim)
            if y is not None:
                return y
        if dtype is None and type(x) is np.ndarray:
            return sum_array(x, self.dims, self.keepdim)
        if dtype is None:
            y = ordered_sum(x, self.dims, self.keepdim, get_num_threads)
            if y is not None:
                return y
        if x.size <= _SMALL and dtype is None and not is_half(x.dtype):
            # no run long enough to matter (the ufunc's reduce skips ndarray.sum's wrapper)
            if type(x) is np.ndarray:
                return np.add.reduce(x, self.dims, None, None, self.keepdim)
            return x.sum(axis=self.dims, keepdims=self.keepdim)
        y = fsum(x, self.dims, self.keepdim, dtype)
        return y if dtype is not None or y.dtype == x.dtype else y.astype(x.dtype)

    def backward(self, grad):
        return ExpandBack.apply(grad, in_shape=self.in_shape, dims=self.dims,
                                keepdim=self.keepdim)

    def backward_arrays(self, g):
        if type(g) is np.ndarray and not g.ndim:  # a whole sum's gradient (``loss.sum()``)
            out = np.empty(self.in_shape, g.dtype)
            out[...] = g
            return out
        return _expand_back_array(self.xp, g, self.in_shape, self.dims, self.keepdim)


def cast_to_float_dtype(x, dtype):
    """``x`` and the accumulation dtype for a sum/prod/cumsum/cumprod asked for ``dtype``: a
    floating (or complex) ``dtype`` is torch's cast of the input first, then the op as on
    an input of that dtype (``x.sum(dtype=torch.bfloat16) == x.bfloat16().sum()``: float32
    accumulation and one rounding, never a running sum in the narrow dtype)."""
    if dtype is None:
        return x, None
    dt = np.dtype(dtype)
    if dt.kind in "fc" or dt == _dtype.bfloat16.np:
        return (x if x.dtype == dt else x.astype(dt)), None
    return x, dtype


def _short_sum_in_order(xp, x, dims, keepdim):
    """``x`` summed over the one dim in ``dims`` element after element when it has fewer than
    8, as NumPy adds a short run (its pairwise cascade starts at 8), or None. A sum cast to
    another dtype runs CuPy's tree-order kernel instead (CUB takes only the input's dtype):
    (x0 + x2) + (x1 + x3) came out an ulp from torch in float32."""
    if len(dims) != 1 or not 0 < x.shape[dims[0]] < 8:
        return None
    rows = xp.moveaxis(x, dims[0], 0)
    y = rows[0].copy()
    for i in range(1, rows.shape[0]):
        y = y + rows[i]
    return y.reshape(_reduced_shape(x.shape, dims, keepdim))


class Mean(Op):
    """y = mean of x over dims; dy/dx = 1/n (the gradient is broadcast back)."""
    out_layout = "contiguous"  # torch allocates the result row-major

    dtype = None  # mean(dtype=...) of a float input: the result's NumPy dtype
    acc = None  # a wider dtype to average in, rounded back to the input's (var_mean's mean)

    def forward(self, x):
        self.in_shape = x.shape
        if self.acc is not None:
            return mean_array(self.xp, x.astype(self.acc), self.dims, self.keepdim,
                              self.n).astype(x.dtype)
        dt = self.dtype
        if dt is not None and np.dtype(dt).itemsize == 2:
            # a half result: torch averages in the input's precision (float32 for the other
            # half type) and rounds once
            wide = np.float32 if x.dtype.itemsize == 2 else x.dtype
            y = mean_array(self.xp, x.astype(wide, copy=False), self.dims, self.keepdim, self.n)
            return y.astype(dt)
        if dt is not None:  # a wider (or narrower, non-half) one: the input cast first
            x = x.astype(dt)
        return mean_array(self.xp, x, self.dims, self.keepdim, self.n)

    def backward(self, grad):
        return _expand_back(grad / self.n, self.in_shape, self.dims, self.keepdim)

    def backward_arrays(self, g):
        # ``grad / n`` (n as the float dtype's scalar, as the division op takes it), then
        # broadcast back: the two ops of ``backward`` on the array
        if type(g) is not np.ndarray or g.dtype.kind != "f" or g.dtype.itemsize < 4:
            return NotImplemented
        return _expand_back_array(np, g / g.dtype.type(self.n), self.in_shape, self.dims,
                                  self.keepdim)


def mean_array(xp, x, dims, keepdim, n):
    """``Mean``'s result: ``x`` averaged over ``dims`` (``n`` elements each)."""
    if n == 0:  # NumPy warns on empty slices; torch quietly gives NaN
        return xp.full(_reduced_shape(x.shape, dims, keepdim), np.nan, dtype=x.dtype)
    y = ordered_sum(x, dims, keepdim, get_num_threads)
    if y is not None:
        return y / y.dtype.type(n)
    if x.size <= _SMALL and not is_half(x.dtype):
        if type(x) is np.ndarray and x.dtype.kind == "f":
            # ndarray.mean's Python wrapper costs more than the sum on small inputs; the
            # same float sum and one division give its values bit for bit
            y = np.add.reduce(x, dims, None, None, keepdim)
            return y / y.dtype.type(n)
        return x.mean(axis=dims, keepdims=keepdim)
    y = fsum(x, dims, keepdim)
    return (y / y.dtype.type(n)).astype(x.dtype, copy=False)


class Prod(Op):
    """y = product over dims; dy/dx_i = product of the other elements (zeros handled)."""
    out_layout = "contiguous"  # torch allocates the result row-major

    def forward(self, x):
        self.save_inputs(x)
        x, dtype = cast_to_float_dtype(x, self.dtype)
        half = dtype is None and is_half(x.dtype)
        # rounded where torch rounds (None: a dim mix it has no form for, or a device array)
        y = half_prod(x, self.dims, self.keepdim) if half and type(x) is np.ndarray else None
        if y is None and half:  # multiplied in float32, rounded once
            y = x.prod(axis=self.dims, keepdims=self.keepdim, dtype=np.float32).astype(x.dtype)
        elif y is None:
            y = x.prod(axis=self.dims, keepdims=self.keepdim, dtype=dtype)
        return self.save_output(y)

    def backward(self, grad):
        x = self.saved_inputs()
        dims = self.dims
        g = _expand_back(grad, x.shape, dims, self.keepdim)
        if not dims:
            return g
        # y / x unless x holds zeros; on the GPU always the exact path below (testing for
        # zeros would read the device back every backward)
        if x.numel() == 0 or (x.device.type == "cpu" and not bool((x == 0).any())):
            y = _expand_back(self.saved_output(), x.shape, dims, self.keepdim)
            if x.is_complex():  # torch's complex convention: the conjugate
                return g * (y / x).conj()
            # the ratio first: rounds as torch does, and holds no vmapped cotangent (jacfwd)
            return g * (y / x)
        # With zeros, y / x is 0/0. The product of the other elements is the exclusive
        # prefix product times the exclusive suffix product along the flattened reduced dims,
        # which is built from cumprod and so stays exact for double backward.
        kept = [d for d in range(x.ndim) if d not in dims]
        perm = kept + list(dims)
        lines = x.permute(tuple(perm)).reshape(*[x.shape[d] for d in kept], -1)
        others = _exclusive_prod(lines, -1).reshape(tuple(x.shape[d] for d in perm))
        inv = np.argsort(perm).tolist()
        others = others.permute(tuple(inv))
        if getattr(self, "whole", False):
            # prod() of all elements (torch's own rule there): with two zeros or more every
            # product of the others is 0, also beside an inf or NaN; prod(dim) and a single
            # zero keep the NaN of 0 * inf
            several = (x == 0).sum(dim=dims, keepdim=True) > 1
            others = where(several & ~others.isfinite(), 0.0, others)
        return g * (others.conj() if others.is_complex() else others)


def _exclusive_prod(x, dim):
    """prod_{i != k} x_i along ``dim`` for every k, without division."""
    n = x.shape[dim]
    if n == 1:
        return _ones(x)
    ones = _ones(x.narrow(dim, 0, 1))
    left = _cat([ones, cumprod(x.narrow(dim, 0, n - 1), dim)], dim)
    right = _cat([ones, cumprod(x.flip(dim).narrow(dim, 0, n - 1), dim)], dim).flip(dim)
    return left * right


def _cat(ts, dim):
    from .join import cat

    return cat(ts, dim)


class Amax(Op):
    """y = max (or min) over dims; dy/dx is shared evenly among tied extrema, as in torch.

    With ``nan_ties`` (torch's ``max()``/``min()`` over all elements) a NaN result shares the
    gradient among the NaN entries; ``amax``/``amin`` give NaN gradients there, as torch's do.
    """
    out_layout = "contiguous"  # torch allocates the result row-major

    def forward(self, x):
        self.save_inputs(x)
        y = (x.max if self.fn == "max" else x.min)(axis=self.dims, keepdims=self.keepdim)
        return self.save_output(y)

    def backward(self, grad):
        x = self.saved_inputs()
        y = _expand_back(self.saved_output(), x.shape, self.dims, self.keepdim)
        mask = x == y
        if self.__dict__.get("nan_ties") and bool(y.isnan().any()):
            mask = mask | (x.isnan() & y.isnan())
        mask = mask.to(grad.dtype)
        count = mask.sum(dim=self.dims, keepdim=True)
        return (_expand_back(grad, x.shape, self.dims, self.keepdim) / count) * mask


class MaxDim(Op):
    """(values, indices) = max/min along one dim; the gradient goes to the chosen index."""

    def forward(self, x):
        xp, d = self.xp, self.dim
        self.in_shape = x.shape
        if x.ndim == 0:
            return x.copy(), xp.zeros((), dtype=np.int64)
        # NumPy's argmax/argmin return the first NaN if there is one, which is torch's answer
        arg = (xp.argmax if self.fn == "max" else xp.argmin)(x, axis=d, keepdims=True)
        vals = xp.take_along_axis(x, arg, axis=d)
        self.save(index=arg)
        if not self.keepdim:
            vals, arg = vals.squeeze(d), arg.squeeze(d)
        return vals, arg.astype(np.int64, copy=False)

    def backward(self, grad, _grad_idx):
        from .indexing import scatter_into_zeros

        if not self.in_shape:
            return grad
        idx = _make(self.saved("index"))
        if not self.keepdim:
            grad = grad.unsqueeze(self.dim)
        return scatter_into_zeros(self.in_shape, self.dim, idx, grad, selects=True)


class ArgReduce(Op):
    """argmax / argmin indices (int64); not differentiable."""

    differentiable = False

    def forward(self, x):
        xp = self.xp
        f = xp.argmax if self.fn == "argmax" else xp.argmin
        if self.dim is None:
            r = xp.asarray(f(x.reshape(-1)), dtype=np.int64)
            return r.reshape((1,) * x.ndim) if self.keepdim else r
        if x.ndim == 0:
            return xp.zeros((), dtype=np.int64)
        return f(x, axis=self.dim, keepdims=self.keepdim).astype(np.int64, copy=False)


class Cumsum(Op):
    """y_k = sum_{i<=k} x_i; dx = reversed cumulative sum of the gradient."""
    out_layout = "contiguous"  # torch allocates the result row-major

    def forward(self, x):
        x, dtype = cast_to_float_dtype(x, self.dtype)
        x = _from_zero(self.xp, x, self.dim)
        acc = scan_dtype(x.dtype) if dtype is None else None
        if acc is not None:  # torch carries float32 in double and half types in float32
            return self.xp.cumsum(x, axis=self.dim, dtype=acc).astype(x.dtype)
        return self.xp.cumsum(x, axis=self.dim, dtype=dtype)

    def backward(self, grad):
        return _rev_cumsum(grad, self.dim)


def _from_zero(xp, x, d):
    """``x`` with its first entries along ``d`` taken as ``0 + x``: torch's running sums start
    from a zero, so a line of -0.0s sums to +0.0s (NumPy's keep -0.0). Copies only when a
    first entry is a zero."""
    if x.dtype.kind not in "fc" or x.ndim == 0 or x.shape[d] == 0 or \
            not type(x).__module__.startswith(("numpy", "cupy")):  # (sparse: torch refuses)
        return x
    first = xp.take(x, [0], axis=d)
    if not (first == 0).any():  # (a zero of either sign: rare, and cheaper to test)
        return x
    x = x.copy()
    sl = (slice(None),) * (d % x.ndim) + (slice(0, 1),)
    x[sl] = first + x.dtype.type(0)
    return x


class Cumprod(Op):
    """y_k = prod_{i<=k} x_i; dx_k = sum_{j>=k} g_j prod_{i<=j, i!=k} x_i (zeros handled)."""
    out_layout = "contiguous"  # torch allocates the result row-major

    def forward(self, x):
        self.save_inputs(x)
        x, dtype = cast_to_float_dtype(x, self.dtype)
        acc = scan_dtype(x.dtype) if dtype is None else None
        if acc is not None:  # as cumsum: a wider running product, rounded once
            return self.save_output(self.xp.cumprod(x, axis=self.dim, dtype=acc).astype(x.dtype))
        return self.save_output(self.xp.cumprod(x, axis=self.dim, dtype=dtype))

    def backward(self, grad):
        x, y = self.saved_inputs(), self.saved_output()
        if x.is_complex():  # holomorphic: torch's gradient uses the conjugate Jacobian
            x, y = x.conj(), y.conj()
        return _cumprod_grad(x, grad, self.dim, y)


def _cumprod_grad(x, g, d, y=None):
    """The vector-Jacobian product of cumprod along ``d``, exact also where x has zeros.

    With z the first zero of a line: for k < z, dx_k = sum_{j>=k} g_j y_j / x_k; at z it is the
    same sum with x_z taken as 1; for k > z every term holds the factor x_z, so
    dx_k = x_z * (the same gradient for x with x_z set to 1), computed by recursion. Keeping the
    factor x_z (which is 0) makes the second derivative exact, as torch's is.
    """
    if y is None:
        y = cumprod(x, d)
    if not bool((x == 0).any()):
        return _rev_cumsum(g * y, d) / x
    zeros_seen = (x == 0).cumsum(d)
    before = zeros_seen == 0
    first = (zeros_seen == 1) & (x == 0)
    after = ~(before | first)
    x1 = x.masked_fill(first, 1.0)
    left = _rev_cumsum(g * y, d) / x.masked_fill(~before, 1.0)
    dx = where(before, left, 0.0)
    c = cumprod(x1, d)
    dx = dx + where(first, _rev_cumsum(g * c, d), 0.0)
    if bool(after.any()):
        x_z = where(first, x, 0.0).sum(d, keepdim=True)  # 0, but carries the dependence
        rest = _cumprod_grad(x1, g, d, c)
        # exactly 0 also where the rest is inf or NaN (an inf or NaN entry), as torch's is
        rest = where(rest.isfinite(), rest, 0.0)
        dx = dx + where(after, x_z * rest, 0.0)
    return dx


class _Logic(Op):
    out_layout = "contiguous"  # torch allocates the result row-major
    differentiable = False

    def forward(self, x):
        f = self.xp.all if self.fn == "all" else self.xp.any
        r = f(x, axis=self.dims, keepdims=self.keepdim)
        return r.astype(np.uint8) if x.dtype == np.uint8 else r


# ---------------------------------------------------------------------------------------------
# public functions


def _dims_or_all(dim, ndim, fn="sum"):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    if isinstance(dim, Tensor):
        dim = as_index(dim)  # (a one-element integer tensor reads as its number)
    if isinstance(dim, (bool, float)) or not isinstance(dim, (int, np.integer, tuple, list)):
        raise TypeError(f"{fn}(): argument 'dim' must be tuple of ints, not "
                        f"{type(dim).__name__}")
    return canonical_dims(dim, ndim)


def _nonempty(fn, shape, dims, all_dims, any_error=RuntimeError):
    """torch's errors for max-like reductions over an empty dimension (no identity)."""
    if 0 not in shape:
        return
    if all_dims:
        # torch's arg-reductions (raising IndexError) leave out the second sentence
        hint = "" if any_error is IndexError else \
            " Specify the reduction dim with the 'dim' argument."
        raise any_error(f"{fn}(): Expected reduction dim to be specified for input.numel() == 0."
                        f"{hint}")
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")


def _int_acc(input, dtype):
    """The accumulation dtype: ``dtype`` if given, int64 for ints and bools, else None."""
    if dtype is not None:
        return _dtype.as_dtype(dtype).np
    if input._array.dtype.kind in "biu":
        return np.dtype(np.int64)
    return None


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A001 - torch's name
    """Sum the elements over ``dim`` (all dims when None or empty).

    Args:
        input (Tensor): the tensor to reduce.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all.
        keepdim (bool): keep reduced dims with size 1. Default: False.
        dtype (dtype, optional): accumulate and return in this dtype. Integer and bool inputs
            sum to int64 by default.

    Example:
        >>> torch.tensor([[1., 2.], [3., 4.]]).sum(0)
        tensor([4., 6.])
    """
    if out is not None:
        check_out_dtype(out, dtype)
    if dim is None and keepdim is False and dtype is None and out is None and \
            isinstance(input, Tensor) and input._array.dtype.kind in "fcV":
        # ``loss.sum()``: the usual call, with nothing to check or convert
        return Sum.apply(input, dims=_ALL_DIMS[input._array.ndim] if input._array.ndim < 8
                         else tuple(range(input._array.ndim)), keepdim=False, dtype=None,
                         node_name="SumBackward0")
    if type(dim) is int and dtype is None and out is None and type(keepdim) is bool and \
            isinstance(input, Tensor) and input._array.dtype.kind in "fcV":
        # ``x.sum(-1, keepdim=True)`` (a distribution's normaliser): one int dim to settle
        nd = input._array.ndim
        dims = (canonical_dim(dim, nd),)
        if not nd:  # a 0-d input takes dim 0 or -1 and has no axis to reduce
            dims = ()
        return Sum.apply(input, dims=dims, keepdim=keepdim, dtype=None, node_name="SumBackward1")
    check_keepdim("sum", keepdim)
    check_dtype(dtype, _DTYPE_OVERLOADS["sum"], dim is not None)
    try:
        dims = _dims_or_all(dim, input._array.ndim, "sum")
    except TypeError:
        if isinstance(dim, (tuple, list)):
            raise
        import sys

        raise _sum_dim_error(sys._getframe()) from None
    dtype = _out_dtype(dtype, out)
    return _out(Sum.apply(input, dims=dims, keepdim=keepdim, dtype=_int_acc(input, dtype),
                          node_name="SumBackward0" if dim is None else "SumBackward1"), out)


_ALL_DIMS = [tuple(range(n)) for n in range(8)]

# torch's two signatures of sum, as its argument errors list them
_DTYPE_OVERLOADS = {  # (function forms, method forms) of the reductions with a dtype
    "sum": (("(Tensor input, *, torch.dtype dtype = None)",
             "(Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = "
             "None, Tensor out = None)"),
            ("(*, torch.dtype dtype = None)",
             "(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)")),
    "mean": (("(Tensor input, *, torch.dtype dtype = None, Tensor out = None)",
              "(Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = "
              "None, Tensor out = None)"),
             ("(*, torch.dtype dtype = None)",
              "(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)")),
}
_SUM_SIGNATURES = {
    True: ("(*, torch.dtype dtype = None)",
           "(tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)"),
    False: ("(Tensor input, *, torch.dtype dtype = None)",
            "(Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = "
            "None, Tensor out = None)"),
}


def _sum_dim_error(frame):
    """torch's TypeError for ``sum`` given a dim that is no int or sequence (an error path;
    ``frame`` is :func:`sum`'s): built from the call as the program wrote it (to
    ``Tensor.sum`` for the method form, through the NumPy-alias wrapper when there is one)."""
    from .. import _generator_args as ga
    from .._tensor_math import _TensorMath

    back = frame.f_back
    meth = _TensorMath.sum
    method = back is not None and back.f_code is getattr(meth, "__wrapped__", meth).__code__
    if method:
        frame, back = back, back.f_back
    local = frame.f_locals
    if back is not None and back.f_code.co_qualname == "_with_aliases.<locals>.call":
        args, kwargs = back.f_locals["args"], back.f_locals["kwargs"]
        return sum_call_error(method, args[1:] if method else args, kwargs, local.get("dim"))
    params = ("dim", "keepdim") if method else ("input", "dim", "keepdim")
    try:
        site = ga._written_call(back)
    except Exception:  # an unfamiliar bytecode layout
        site = None
    if site is None:  # taken as written by position
        site = (params.index("dim") + 1, ())
    npos, names = site
    return sum_call_error(method, [local.get(p) for p in params][:npos],
                          {k: local.get(k) for k in names}, local.get("dim"))


def sum_call_error(method, positional, kwargs, dim=None):
    """torch's TypeError for a ``sum`` call (method form or not) with ``positional`` values
    and ``kwargs`` that its parser refuses (a dim of the wrong type, an unknown keyword): the
    list of both signatures when the count of arguments fits both, else the one error."""
    from .. import _generator_args as ga

    keywords = list(reversed(kwargs.items()))  # (torch lists them last written first)
    overloads = _SUM_SIGNATURES[method]
    given = len(positional) + len(keywords)
    if len([o for o in overloads if ga._params(o) >= given]) != 1:  # (sum: this module's)
        return TypeError(f"sum() received an invalid combination of arguments - got "
                         f"{ga._got(positional, keywords)}, but expected one of:\n"
                         + "".join(f" * {o}\n" for o in overloads))
    known = ("dim", "keepdim", "dtype") if method else ("input", "dim", "keepdim", "dtype", "out")
    unknown = [k for k in kwargs if k not in known]
    if unknown:
        return TypeError(f"sum() got an unexpected keyword argument '{unknown[0]}'")
    where = "" if "dim" in kwargs else f" (position {1 if method else 2})"
    return TypeError(f"sum(): argument 'dim'{where} must be tuple of ints, not "
                     f"{ga.type_name(dim)}")


def _out_dtype(dtype, out):
    """sum/prod/cumsum/cumprod with ``out=`` and no ``dtype`` accumulate in the out tensor's
    dtype, whatever it is, as torch's do (so a float input summed into an int64 out is
    truncated element by element first)."""
    return out.dtype if out is not None and dtype is None else dtype


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Average the elements over ``dim`` (all dims when None).

    Integer inputs need an explicit floating ``dtype``, as in torch.

    Example:
        >>> torch.tensor([[1., 2.], [3., 4.]]).mean(1)
        tensor([1.5000, 3.5000])
    """
    if out is not None:
        check_out_dtype(out, dtype)
    if out is not None and dtype is None and isinstance(input, Tensor) and \
            out.dtype._category == input.dtype._category == _dtype._FLOAT:
        dtype = out.dtype  # (torch averages as for dtype=out.dtype)
    if dtype is not None:
        check_dtype(dtype, _DTYPE_OVERLOADS["mean"], dim is not None)
        dtype = _dtype.as_dtype(dtype)
        if dtype._category < _dtype._FLOAT and input.dtype._category != _dtype._QUANT:
            raise RuntimeError(f"mean(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: "
                               f"{_dtype._TYPE_DISPLAY[dtype.name]}")
        if input.dtype._category == _dtype._FLOAT and dtype._category == _dtype._FLOAT:
            cast = dtype if dtype is not input.dtype else None  # (Mean casts: one node)
        else:
            input, cast = input.to(dtype), None
    if input.dtype._category < _dtype._FLOAT:
        if input.dtype._category == _dtype._QUANT:  # torch's quantized mean
            from .._quantized_ops_float import quantized_dispatch

            return _out(quantized_dispatch("mean", input, dim, keepdim), out)
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: "
                           f"{_dtype._TYPE_DISPLAY[input.dtype.name]}")
    check_keepdim("mean", keepdim)
    dims = _dims_or_all(dim, input._array.ndim, "mean")
    n = _count(input._array.shape, dims)
    kw = {} if dtype is None or cast is None else {"dtype": cast.np}
    return _out(Mean.apply(input, dims=dims, keepdim=keepdim, n=n, **kw,
                           node_name="MeanBackward0" if dim is None else "MeanBackward1"), out)


_PROD_OVERLOADS = (
    ("Tensor input, *, torch.dtype dtype = None",
     ("Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, "
      "Tensor out = None")),
    ("*, torch.dtype dtype = None", "int dim, bool keepdim = False, *, torch.dtype dtype = None"))
_MAX_OVERLOADS = (
    ("Tensor input, *, Tensor out = None", "Tensor input, Tensor other, *, Tensor out = None",
     "Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None"),
    ("", "Tensor other", "int dim, bool keepdim = False"))


def _refuse_none_dim(dim, overloads):
    """torch's parser refuses an explicit ``dim=None`` where the overloads take an int dim
    or none at all (prod, max, min)."""
    if dim is None:
        raise invalid_combination(*[[f"({o})" for o in group] for group in overloads])


def prod(input, dim=all_dims, keepdim=False, *, dtype=None, out=None):
    """Multiply the elements over one ``dim`` (all elements when None); ints use int64.

    Example:
        >>> torch.tensor([[1., 2.], [3., 4.]]).prod(1)
        tensor([ 2., 12.])
    """
    if out is not None:
        check_out_dtype(out, dtype)
    check_keepdim("prod", keepdim)
    _refuse_none_dim(dim, _PROD_OVERLOADS)
    check_dtype(dtype, [[f"({o})" for o in g] for g in _PROD_OVERLOADS], dim is not all_dims)
    dim = None if dim is all_dims else as_index(dim)
    if dim is None:
        dims = tuple(range(input._array.ndim))
    elif isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    else:
        dims = canonical_dims(dim, input._array.ndim)
    dtype = _out_dtype(dtype, out)
    return _out(Prod.apply(input, dims=dims, keepdim=keepdim, dtype=_int_acc(input, dtype),
                           node_name="ProdBackward0" if dim is None else "ProdBackward1",
                           whole=dim is None), out)


def _amax(fn, input, dim, keepdim, out):
    check_keepdim(fn, keepdim)
    refuse_dtype(input, "c", f"{fn[1:]}_values_cpu")
    all_dims = dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0)
    dims = _dims_or_all(dim, input._array.ndim, fn)
    _nonempty(fn, input._array.shape, dims, all_dims)
    return _out(Amax.apply(input, dims=dims, keepdim=keepdim, fn=fn[1:]), out,
                exact="Expected the dtype for input and out to match, but got {want} for "
                      "input's dtype and {got} for out's dtype.")


def amax(input, dim=(), keepdim=False, *, out=None):
    """Return the maximum over ``dim`` (all dims for ``()``); ties share the gradient evenly.

    Example:
        >>> torch.tensor([[1., 5.], [3., 4.]]).amax(0)
        tensor([3., 5.])
    """
    return _amax("amax", input, dim, keepdim, out)


def amin(input, dim=(), keepdim=False, *, out=None):
    """Return the minimum over ``dim`` (all dims for ``()``); ties share the gradient evenly.

    Example:
        >>> torch.tensor([[1., 5.], [3., 4.]]).amin(1)
        tensor([1., 3.])
    """
    return _amax("amin", input, dim, keepdim, out)


def _max_min(fn, input, dim, keepdim, other, out):
    if isinstance(dim, Tensor):  # max(a, b) is the elementwise maximum
        other, dim = dim, None
    elif dim is all_dims:
        dim = None
    elif dim is None:
        _refuse_none_dim(dim, _MAX_OVERLOADS)
    if other is not None:
        return (maximum if fn == "max" else minimum)(input, other, out=out)
    check_keepdim(fn, keepdim)
    if dim is None:
        refuse_dtype(input, "c", f"{fn}_all")
        _nonempty(fn, input._array.shape, (), True)
        r = Amax.apply(input, dims=tuple(range(input._array.ndim)), keepdim=False, fn=fn,
                       nan_ties=True, node_name="MaxBackward1" if fn == "max" else "MinBackward1")
        return _out(r, out)
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{fn}(): argument 'dim' must be int, not {type(dim).__name__}")
    d = canonical_dim(dim, input._array.ndim)
    refuse_dtype(input, "c", message=fn + "(): does not support {} input")
    _nonempty(fn, input._array.shape, (d,), False)
    values, indices = MaxDim.apply(input, dim=d, keepdim=keepdim, fn=fn)
    return _out((_max_t if fn == "max" else _min_t)((values, indices)), out, exact=True)


def max(input, dim=all_dims, keepdim=False, *, other=None, out=None):  # noqa: A001
    """The largest element, the largest along ``dim`` with its index, or an elementwise max.

    ``max(x)`` returns a 0-d tensor (ties share the gradient); ``max(x, dim)`` returns the
    named tuple ``(values, indices)`` and the gradient goes to the chosen index; ``max(x, y)``
    is :func:`maximum`.

    Example:
        >>> torch.tensor([[1., 5.], [3., 4.]]).max(1).indices
        tensor([1, 1])
    """
    return _max_min("max", input, dim, keepdim, other, out)


def min(input, dim=all_dims, keepdim=False, *, other=None, out=None):  # noqa: A001
    """The smallest element, the smallest along ``dim`` with its index, or an elementwise min.

    See :func:`max` for the three forms.

    Example:
        >>> torch.tensor([[1., 5.], [3., 4.]]).min(0).values
        tensor([1., 4.])
    """
    return _max_min("min", input, dim, keepdim, other, out)


def aminmax(input, *, dim=None, keepdim=False, out=None):
    """Return the named tuple ``(min, max)`` over ``dim`` (all elements when None).

    Example:
        >>> torch.aminmax(torch.tensor([3., -1., 2.]))
        torch.return_types.aminmax(
        min=tensor(-1.),
        max=tensor(3.))
    """
    shape = input._array.shape
    refuse_dtype(input, "c", "aminmax_cpu")
    if dim is None:
        if 0 in shape:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        dims = tuple(range(len(shape)))
    else:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
        dims = canonical_dims(dim, len(shape))
        if shape and shape[dims[0]] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    # torch's one node for both results is named AminmaxBackward0
    return _out(_aminmax_t((Amax.apply(input, dims=dims, keepdim=keepdim, fn="min",
                                       node_name="AminmaxBackward0"),
                            Amax.apply(input, dims=dims, keepdim=keepdim, fn="max",
                                       node_name="AminmaxBackward0"))), out, exact=True)


def _arg(fn, input, dim, keepdim, out):
    check_keepdim(fn, keepdim)
    if dim is not None and (isinstance(dim, bool) or not hasattr(dim, "__index__")):
        from ._util import arg_type_error

        raise arg_type_error(dim, fn=fn)  # (its position as the call wrote it, or none)
    refuse_dtype(input, "cb", message=fn + "(): does not support {} input")
    shape = input._array.shape
    if dim is None:
        _nonempty(fn, shape, (), True, any_error=IndexError)
        d = None
    else:
        d = canonical_dim(dim, len(shape))
        _nonempty(fn, shape, (d,) if shape else (), False)
    return _out(ArgReduce.apply(input, dim=d, keepdim=keepdim, fn=fn), out, exact=True)


def argmax(input, dim=None, keepdim=False, *, out=None):
    """Index of the largest element along ``dim`` (of the flattened tensor when None).

    Example:
        >>> torch.tensor([[1., 5.], [3., 4.]]).argmax()
        tensor(1)
    """
    return _arg("argmax", input, dim, keepdim, out)


def argmin(input, dim=None, keepdim=False, *, out=None):
    """Index of the smallest element along ``dim`` (of the flattened tensor when None).

    Example:
        >>> torch.tensor([[1., 5.], [3., 4.]]).argmin(0)
        tensor([0, 1])
    """
    return _arg("argmin", input, dim, keepdim, out)


def _scan(op, fn, input, dim, dtype, out):
    d = canonical_dim(dim, input._array.ndim)
    dt = _int_acc(input, dtype)
    if input._array.ndim == 0:  # a scan over a single element is the element itself
        r = input.to(_dtype._FROM_NP[dt]) if dt is not None else input.clone()
    else:
        r = op.apply(input, dim=d, dtype=dt)
    return _out(r, out, over=(input,))


def cumsum(input, dim=missing_dim, *, dtype=None, out=None):
    """Cumulative sum along ``dim``; integer and bool inputs accumulate in int64.

    Example:
        >>> torch.tensor([1, 2, 3]).cumsum(0)
        tensor([1, 3, 6])
    """
    if out is not None:
        check_out_dtype(out, dtype)
    check_dtype(dtype)
    dtype = _out_dtype(dtype, out)
    # torch has no bool scan kernel; only a 0-d input (a copy, no scan) gets through
    if dtype is _dtype.bool and (out is not None or input._array.ndim):
        raise NotImplementedError('"cumsum_out_cpu" not implemented for \'Bool\'')
    missing_dim.check(dim, "cumsum")
    return _scan(Cumsum, "cumsum", input, dim, dtype, out)


def cumprod(input, dim=missing_dim, *, dtype=None, out=None):
    """Cumulative product along ``dim``; integer and bool inputs accumulate in int64.

    Example:
        >>> torch.tensor([1., 2., 3.]).cumprod(0)
        tensor([1., 2., 6.])
    """
    if out is not None:
        check_out_dtype(out, dtype)
    check_dtype(dtype)
    dtype = _out_dtype(dtype, out)
    # torch has no bool scan kernel; only a 0-d input (a copy, no scan) gets through
    if dtype is _dtype.bool and (out is not None or input._array.ndim):
        raise NotImplementedError('"cumprod_out_cpu" not implemented for \'Bool\'')
    missing_dim.check(dim, "cumprod")
    return _scan(Cumprod, "cumprod", input, dim, dtype, out)


def all(input, dim=None, keepdim=False, *, out=None):  # noqa: A001
    """True where every element along ``dim`` (all dims when None) is nonzero.

    Example:
        >>> torch.tensor([[True, False], [True, True]]).all(1)
        tensor([False,  True])
    """
    if out is not None and out.dtype is not _dtype.bool and out.dtype is not _dtype.uint8:
        raise RuntimeError(f"all only supports bool tensor for result, got: "
                           f"{_dtype._TYPE_DISPLAY[out.dtype.name]}")
    # (an empty dim list reduces nothing here, unlike sum's: torch tests each element)
    empty = isinstance(dim, (tuple, list)) and len(dim) == 0
    dims = () if empty else _dims_or_all(dim, input._array.ndim, "all")
    return _out(_Logic.apply(input, dims=dims, keepdim=keepdim, fn="all"), out)


def any(input, dim=None, keepdim=False, *, out=None):  # noqa: A001
    """True where some element along ``dim`` (all dims when None) is nonzero.

    Example:
        >>> torch.tensor([[True, False], [False, False]]).any(1)
        tensor([ True, False])
    """
    if out is not None and out.dtype is not _dtype.bool and out.dtype is not _dtype.uint8:
        raise RuntimeError(f"any only supports bool tensor for result, got: "
                           f"{_dtype._TYPE_DISPLAY[out.dtype.name]}")
    # (an empty dim list reduces nothing here, unlike sum's: torch tests each element)
    empty = isinstance(dim, (tuple, list)) and len(dim) == 0
    dims = () if empty else _dims_or_all(dim, input._array.ndim, "any")
    return _out(_Logic.apply(input, dims=dims, keepdim=keepdim, fn="any"), out)


def count_nonzero(input, dim=None):
    """Number of nonzero elements along ``dim`` (all dims when None), as int64.

    Example:
        >>> torch.count_nonzero(torch.tensor([[0., 1.], [2., 3.]]), dim=0)
        tensor([1, 2])
    """
    return sum(input != 0, dim)
