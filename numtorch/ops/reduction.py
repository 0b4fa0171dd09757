"""Reductions: sum, prod, amax/amin, max/min (with indices), arg*, norms, scans, all/any.

``mean``, ``var``, ``std`` and ``logsumexp`` are composites of the primitives here.
"""

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.graph import Op
from ..backend import helpers_for
from ..return_types import aminmax as _aminmax_t, max as _max_t, min as _min_t  # noqa: F401
from ._util import canonical_dim, canonical_dims

__all__ = ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "var",
           "std", "var_mean", "std_mean", "logsumexp", "norm", "cumsum", "cumprod", "all",
           "any", "count_nonzero", "aminmax"]


def _kept_shape(shape, dims):
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _expand_back(grad, in_shape, dims, keepdim):
    """Broadcast a reduced gradient back to the input's shape (a read-only view, no copy)."""
    return ExpandBack.apply(grad, in_shape=tuple(in_shape), dims=dims, keepdim=keepdim)


class ExpandBack(Op):
    """y = g (reduced over ``dims``) broadcast to ``in_shape``; dg = gg summed over ``dims``.

    One fused op for the backward of every reduction: reshape-then-expand as two ops costs
    twice the per-op overhead on the tiny-tensor hot path.
    """

    def forward(self, g):
        if not self.keepdim and g.ndim != len(self.in_shape):
            g = g.reshape(_kept_shape(self.in_shape, self.dims))
        return helpers_for(self.xp).expand_to(g, self.in_shape)

    def backward(self, gg):
        return Sum.apply(gg, dims=self.dims, keepdim=self.keepdim, dtype=None)


class Sum(Op):
    """y = sum of x over dims; dy/dx = 1 (the gradient is broadcast back)."""

    def forward(self, x):
        self.in_shape = x.shape
        return x.sum(axis=self.dims, keepdims=self.keepdim, dtype=self.dtype)

    def backward(self, grad):
        return _expand_back(grad, self.in_shape, self.dims, self.keepdim)


class Prod(Op):
    """y = product over dims; dy/dx_i = product of the other elements (zeros handled)."""

    def forward(self, x):
        self.save_inputs(x)
        return self.save_output(x.prod(axis=self.dims, keepdims=self.keepdim, dtype=self.dtype))

    def backward(self, grad):
        x = self.saved_inputs()
        g = _expand_back(grad, x.shape, self.dims, self.keepdim)
        if not bool((x == 0).any()):
            y = _expand_back(self.saved_output(), x.shape, self.dims, self.keepdim)
            return g * y / x
        # with zeros present: product of all other elements = exclusive left * right products
        flat, dims = x, self.dims
        if len(dims) != 1:
            perm = [d for d in range(x.ndim) if d not in dims] + list(dims)
            flat = x.permute(*perm).reshape(*[x.shape[d] for d in perm[:x.ndim - len(dims)]],
                                            -1)
            others = _exclusive_prod(flat, -1)
            inv = np.argsort(perm)
            others = others.reshape([x.shape[d] for d in perm]).permute(*inv.tolist())
        else:
            others = _exclusive_prod(flat, dims[0])
        return g * others


def _exclusive_prod(x, dim):
    n = x.shape[dim]
    ones = x.narrow(dim, 0, 1) * 0 + 1
    left = cumprod(x.narrow(dim, 0, n - 1), dim) if n > 1 else None
    left = ones if left is None else _cat([ones, left], dim)
    rev = x.flip(dim)
    right = cumprod(rev.narrow(dim, 0, n - 1), dim) if n > 1 else None
    right = ones if right is None else _cat([ones, right], dim)
    return left * right.flip(dim)


def _cat(ts, dim):
    from .shape import cat

    return cat(ts, dim)


class Amax(Op):
    """y = max over dims; the gradient is shared evenly among tied maxima (as torch)."""

    fn = "max"

    def forward(self, x):
        self.save_inputs(x)
        if x.size == 0 and any(x.shape[d] == 0 for d in self.dims):
            raise IndexError(f"{self.name_}(): Expected reduction dim to be specified for "
                             f"input.numel() == 0. Specify the reduction dim with the 'dim' "
                             f"argument.")
        y = (x.max if self.fn == "max" else x.min)(axis=self.dims, keepdims=self.keepdim)
        return self.save_output(y)

    def backward(self, grad):
        x = self.saved_inputs()
        y = _expand_back(self.saved_output(), x.shape, self.dims, self.keepdim)
        mask = (x == y).to(grad.dtype)
        count = mask.sum(dim=self.dims, keepdim=True)
        return _expand_back(grad, x.shape, self.dims, self.keepdim) * mask / count


class MaxDim(Op):
    """(values, indices) = max/min along one dim; the gradient goes to the chosen index."""

    def forward(self, x):
        xp, d = self.xp, self.dim
        if x.shape and x.shape[d] == 0:
            raise IndexError(f"{self.fn}(): Expected reduction dim {d} to have non-zero size.")
        if x.ndim == 0:
            idx = xp.zeros((), dtype=np.int64)
            return x.copy(), idx
        arg = (xp.argmax if self.fn == "max" else xp.argmin)(x, axis=d, keepdims=True)
        if x.dtype.kind == "f" and xp.isnan(x).any():  # NaN wins, as in torch
            nan_first = xp.argmax(xp.isnan(x), axis=d, keepdims=True)
            has_nan = xp.isnan(x).any(axis=d, keepdims=True)
            arg = xp.where(has_nan, nan_first, arg)
        vals = xp.take_along_axis(x, arg, axis=d)
        self.in_shape = x.shape
        self.save(index=arg)
        if not self.keepdim:
            vals, arg = vals.squeeze(d), arg.squeeze(d)
        return vals, arg.astype(np.int64, copy=False)

    def backward(self, grad, _grad_idx):
        from .indexing import scatter_into_zeros

        if len(self.in_shape) == 0:
            return grad
        idx = _make(self.saved("index"))
        if not self.keepdim:
            grad = grad.unsqueeze(self.dim)
        return scatter_into_zeros(self.in_shape, self.dim, idx, grad)


class ArgReduce(Op):
    """argmax / argmin indices (int64); not differentiable."""

    differentiable = False

    def forward(self, x):
        xp = self.xp
        f = xp.argmax if self.fn == "argmax" else xp.argmin
        if x.size == 0:
            raise IndexError(f"{self.fn}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        if self.dim is None:
            r = f(x.reshape(-1))
            if self.keepdim:
                r = xp.asarray(r).reshape((1,) * x.ndim)
            return xp.asarray(r, dtype=np.int64)
        if x.ndim == 0:
            return xp.zeros((), dtype=np.int64)
        return f(x, axis=self.dim, keepdims=self.keepdim).astype(np.int64, copy=False)


class Norm(Op):
    """y = (sum |x|^p)^(1/p) over dims; dy/dx = x |x|^(p-2) / y^(p-1) (0 where y == 0)."""

    def forward(self, x):
        self.save_inputs(x)
        xp, p, dims, kd = self.xp, self.p, self.dims, self.keepdim
        a = xp.abs(x)
        if p == float("inf"):
            y = a.max(axis=dims, keepdims=kd) if a.size else xp.zeros(
                _reduced_shape(a.shape, dims, kd), a.dtype)
        elif p == float("-inf"):
            y = a.min(axis=dims, keepdims=kd)
        elif p == 0:
            y = (a != 0).sum(axis=dims, keepdims=kd).astype(a.dtype)
        elif p == 1:
            y = a.sum(axis=dims, keepdims=kd)
        elif p == 2:
            y = xp.sqrt((a * a).sum(axis=dims, keepdims=kd))
        else:
            y = (a ** p).sum(axis=dims, keepdims=kd) ** (1.0 / p)
        return self.save_output(xp.asarray(y, dtype=a.dtype))

    def backward(self, grad):
        from .elementwise import where

        x = self.saved_inputs()
        if x.dtype.is_complex:
            raise RuntimeError("norm: backward of complex inputs is not supported by numtorch")
        p, dims, kd = self.p, self.dims, self.keepdim
        g = _expand_back(grad, x.shape, dims, kd)
        if p == 0:
            return g * 0
        y = _expand_back(self.saved_output(), x.shape, dims, kd)
        if p == 1:
            return g * x.sign()
        if p == 2:
            return where(y == 0, 0.0, g * x / y)
        if p in (float("inf"), float("-inf")):
            mask = (x.abs() == y).to(g.dtype)
            count = mask.sum(dim=dims, keepdim=True)
            return g * x.sign() * mask / count
        return where(y == 0, 0.0, g * x * x.abs().pow(p - 2) / y.pow(p - 1))


def _reduced_shape(shape, dims, keepdim):
    if keepdim:
        return _kept_shape(shape, dims)
    return tuple(s for i, s in enumerate(shape) if i not in dims)


class Cumsum(Op):
    """y_k = sum_{i<=k} x_i; dx = reversed cumulative sum of the gradient."""

    def forward(self, x):
        return self.xp.cumsum(x, axis=self.dim, dtype=self.dtype)

    def backward(self, grad):
        return grad.flip(self.dim).cumsum(self.dim).flip(self.dim)


class Cumprod(Op):
    """y_k = prod_{i<=k} x_i; dx_k = sum_{j>=k} g_j * prod_{i<=j, i!=k} x_i (zeros handled)."""

    def forward(self, x):
        self.save_inputs(x)
        return self.save_output(self.xp.cumprod(x, axis=self.dim, dtype=self.dtype))

    def backward(self, grad):
        x = self.saved_inputs()
        d = self.dim
        if not bool((x == 0).any()):
            y = self.saved_output()
            return (grad * y).flip(d).cumsum(d).flip(d) / x
        # general case: build the (n x n) matrix of partial products along the dim
        n = x.shape[d]
        xm = x.movedim(d, -1).unsqueeze(-2).expand(*x.movedim(d, -1).shape[:-1], n, n)
        k = _make(np.arange(n).reshape(n, 1))  # row k: derivative w.r.t. x_k
        i = _make(np.arange(n).reshape(1, n))
        factors = xm.masked_fill(k == i, 1.0)  # drop x_k itself
        partial = factors.cumprod(-1)  # prod_{i<=j, i!=k} x_i along j
        partial = partial.masked_fill(i < k, 0.0)  # only j >= k contributes
        g = grad.movedim(d, -1).unsqueeze(-2)
        return (partial * g).sum(-1).movedim(-1, d)


class _Logic(Op):
    differentiable = False

    def forward(self, x):
        f = self.xp.all if self.fn == "all" else self.xp.any
        r = f(x, axis=self.dims, keepdims=self.keepdim)
        return r.astype(np.uint8) if x.dtype == np.uint8 else r


# ---------------------------------------------------------------------------------------------
# public functions


def _dims_or_all(dim, ndim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    return canonical_dims(dim, ndim)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - torch's name
    """Sum of elements over ``dim`` (all dims when None); ints and bools sum to int64.

    Example:
        >>> torch.tensor([[1., 2.], [3., 4.]]).sum(0)
        tensor([4., 6.])
    """
    if isinstance(dim, bool):  # sum(x, True) is not a dim in torch either
        raise TypeError("sum(): argument 'dim' must be int or tuple of ints, not bool")
    dims = _dims_or_all(dim, input._array.ndim)
    if dtype is not None:
        dt = _dtype.as_dtype(dtype).np
    elif input._array.dtype.kind in "biu":
        dt = np.dtype(np.int64)
    else:
        dt = None
    return Sum.apply(input, dims=dims, keepdim=keepdim, dtype=dt)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Arithmetic mean over ``dim``; integer inputs need an explicit float ``dtype``."""
    if dtype is not None:
        input = input.to(_dtype.as_dtype(dtype))
    if input.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: "
                           f"{_dtype._TYPE_DISPLAY[input.dtype.name]}")
    dims = _dims_or_all(dim, input._array.ndim)
    n = 1
    for d in dims:
        n *= input._array.shape[d]
    s = Sum.apply(input, dims=dims, keepdim=keepdim, dtype=None)
    return s / n if n else s * float("nan")


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product of elements over ``dim`` (all when None); ints multiply in int64."""
    dims = _dims_or_all(dim, input._array.ndim) if dim is not None else tuple(
        range(input._array.ndim))
    if dtype is not None:
        dt = _dtype.as_dtype(dtype).np
    elif input._array.dtype.kind in "biu":
        dt = np.dtype(np.int64)
    else:
        dt = None
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise TypeError("prod(): argument 'dim' must be int, not "
                        f"{type(dim).__name__}")
    return Prod.apply(input, dims=dims, keepdim=keepdim, dtype=dt)


def amax(input, dim=(), keepdim=False):
    """Maximum over ``dim`` (all dims for ``()``); ties share the gradient evenly."""
    dims = _dims_or_all(dim, input._array.ndim)
    return Amax.apply(input, dims=dims, keepdim=keepdim, fn="max", name_="amax")


def amin(input, dim=(), keepdim=False):
    """Minimum over ``dim`` (all dims for ``()``); ties share the gradient evenly."""
    dims = _dims_or_all(dim, input._array.ndim)
    return Amax.apply(input, dims=dims, keepdim=keepdim, fn="min", name_="amin")


def _max_min(fn, input, dim, keepdim, other):
    from .elementwise import maximum, minimum

    if isinstance(dim, Tensor):  # max(a, b) is the elementwise maximum
        return (maximum if fn == "max" else minimum)(input, dim)
    if other is not None:
        return (maximum if fn == "max" else minimum)(input, other)
    if dim is None:
        if input._array.size == 0:
            raise RuntimeError(f"{fn}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        return Amax.apply(input, dims=tuple(range(input._array.ndim)), keepdim=False, fn=fn,
                          name_=fn)
    d = canonical_dim(dim, input._array.ndim)
    values, indices = MaxDim.apply(input, dim=d, keepdim=keepdim, fn=fn)
    return (_max_t if fn == "max" else _min_t)(values, indices)


def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """``max(x)``: the largest element; ``max(x, dim)``: ``(values, indices)`` along ``dim``;
    ``max(x, y)``: the elementwise maximum."""
    return _max_min("max", input, dim, keepdim, other)


def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """``min(x)``, ``min(x, dim)`` -> ``(values, indices)``, or ``min(x, y)`` elementwise."""
    return _max_min("min", input, dim, keepdim, other)


def aminmax(input, *, dim=None, keepdim=False):
    """Return ``(min, max)`` over ``dim`` (all when None)."""
    return _aminmax_t(amin(input, () if dim is None else dim, keepdim),
                      amax(input, () if dim is None else dim, keepdim))


def argmax(input, dim=None, keepdim=False):
    """Index of the largest element (of the flattened tensor when ``dim`` is None)."""
    d = None if dim is None else canonical_dim(dim, input._array.ndim)
    return ArgReduce.apply(input, dim=d, keepdim=keepdim, fn="argmax")


def argmin(input, dim=None, keepdim=False):
    """Index of the smallest element (of the flattened tensor when ``dim`` is None)."""
    d = None if dim is None else canonical_dim(dim, input._array.ndim)
    return ArgReduce.apply(input, dim=d, keepdim=keepdim, fn="argmin")


def _correction(unbiased, correction):
    if correction is not None:
        if unbiased is not None:
            raise RuntimeError("var/std: cannot specify both 'unbiased' and 'correction'")
        return correction
    return 1 if unbiased is None or unbiased else 0


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim`` with Bessel's ``correction`` (1 by default; ``unbiased=False``
    means 0)."""
    if isinstance(dim, bool):  # var(x, False) is the 0.x/1.x unbiased overload
        dim, unbiased = None, dim
    if input.dtype._category < _dtype._FLOAT:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    c = _correction(unbiased, correction)
    dims = _dims_or_all(dim, input._array.ndim)
    n = 1
    for d in dims:
        n *= input._array.shape[d]
    centered = input - mean(input, dims, keepdim=True)
    sq = centered.abs() ** 2 if input.dtype.is_complex else centered * centered
    total = Sum.apply(sq, dims=dims, keepdim=keepdim, dtype=None)
    denom = n - c
    if denom <= 0:
        import warnings

        warnings.warn("var(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=2)
        return total / 0.0 if denom == 0 else total * float("nan")
    return total / denom


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation: ``sqrt(var(...))``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return var(input, dim, unbiased, keepdim, correction=correction).sqrt()


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Return ``(var, mean)``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return (var(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim, keepdim))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Return ``(std, mean)``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return (std(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim, keepdim))


def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input), dim))`` computed stably (the max is subtracted first)."""
    from .elementwise import where

    if input.dtype._category < _dtype._FLOAT:
        input = input.to(_dtype.get_default_dtype())
    dims = _dims_or_all(dim, input._array.ndim)
    if input._array.size == 0:
        return Sum.apply(input.exp(), dims=dims, keepdim=keepdim, dtype=None).log()
    m = Amax.apply(input, dims=dims, keepdim=True, fn="max", name_="logsumexp").detach()
    # shifting by the max keeps exp() in range; an infinite max would turn into NaN, so skip it
    m = where(m.isinf(), 0.0, m)
    s = Sum.apply((input - m).exp(), dims=dims, keepdim=True, dtype=None).log() + m
    return s if keepdim else s.squeeze(dims)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None, *, out=None):
    """Vector p-norm over ``dim`` (all elements when None); 'fro' is the 2-norm.

    ``p='nuc'`` (nuclear norm) lives in ``numtorch.linalg.matrix_norm``.
    """
    if dtype is not None:
        input = input.to(_dtype.as_dtype(dtype))
    if input.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_dtype._TYPE_DISPLAY[input.dtype.name]}")
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise RuntimeError(f"norm: p='{p}' is a matrix norm; use numtorch.linalg.matrix_norm")
    dims = _dims_or_all(dim, input._array.ndim)
    return Norm.apply(input, p=float(p), dims=dims, keepdim=keepdim)


def cumsum(input, dim, *, dtype=None, out=None):
    """Cumulative sum along ``dim``; ints accumulate in int64."""
    d = canonical_dim(dim, input._array.ndim)
    dt = _dtype.as_dtype(dtype).np if dtype is not None else (
        np.dtype(np.int64) if input._array.dtype.kind in "biu" else None)
    if input._array.ndim == 0:
        return input.to(_dtype._FROM_NP[dt]) if dt is not None else input.clone()
    return Cumsum.apply(input, dim=d, dtype=dt)


def cumprod(input, dim, *, dtype=None, out=None):
    """Cumulative product along ``dim``; ints accumulate in int64."""
    d = canonical_dim(dim, input._array.ndim)
    dt = _dtype.as_dtype(dtype).np if dtype is not None else (
        np.dtype(np.int64) if input._array.dtype.kind in "biu" else None)
    if input._array.ndim == 0:
        return input.to(_dtype._FROM_NP[dt]) if dt is not None else input.clone()
    return Cumprod.apply(input, dim=d, dtype=dt)


def all(input, dim=None, keepdim=False):  # noqa: A001
    """True if every element (along ``dim``) is nonzero."""
    dims = _dims_or_all(dim, input._array.ndim)
    return _Logic.apply(input, dims=dims, keepdim=keepdim, fn="all")


def any(input, dim=None, keepdim=False):  # noqa: A001
    """True if some element (along ``dim``) is nonzero."""
    dims = _dims_or_all(dim, input._array.ndim)
    return _Logic.apply(input, dims=dims, keepdim=keepdim, fn="any")


def count_nonzero(input, dim=None):
    """Number of nonzero elements along ``dim`` (all dims when None)."""
    return sum(input != 0, dim)
