"""Reductions over the elements a mask keeps: a masked-out element counts as the reduction's
identity (0 for sum, -inf for amax, ...), so a slice with nothing kept gives that identity, or
nan where the reduction divides by the count of kept elements. ``dtype=`` casts the result,
the computation stays in the input's dtype (as torch's does)."""

import numtorch as _nt

from ._mask_args import (fill, first_dim, input_mask, masked_fill_identity, reduction_dims,
                         to_dtype)


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A001
    """Sum of the kept elements over ``dim`` (0 where none is kept)."""
    x = masked_fill_identity("sum", input, mask)
    return _nt.sum(x, reduction_dims(x, dim), keepdim=bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the kept elements over ``dim`` (1 where none is kept)."""
    x = masked_fill_identity("prod", input if dtype is None else input.to(dtype), mask)
    # torch.prod takes one dim at a time; the highest first so the others keep their place
    for d in sorted((x.ndim + d if d < 0 else d for d in reduction_dims(x, dim)),
                    reverse=True):
        x = _nt.prod(x, d, keepdim=bool(keepdim))
    # integers multiply in int64, as torch.prod's do
    return x if x.dtype.is_floating_point or x.dtype.is_complex else x.long()


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Largest kept element over ``dim`` (the dtype's lowest value where none is kept)."""
    x = masked_fill_identity("amax", input, mask)
    return to_dtype(_nt.amax(x, reduction_dims(x, dim), keepdim=bool(keepdim)), dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Smallest kept element over ``dim`` (the dtype's highest value where none is kept)."""
    x = masked_fill_identity("amin", input, mask)
    return to_dtype(_nt.amin(x, reduction_dims(x, dim), keepdim=bool(keepdim)), dtype)


def _arg(op, input, dim, keepdim, dtype, mask):
    x = masked_fill_identity(op, input, mask)
    r = getattr(_nt, op)(x, dim, keepdim=bool(keepdim))
    # torch returns the index in the input's dtype unless ``dtype`` says otherwise
    return r.to(input.dtype if dtype is None else dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the largest kept element along ``dim``, in ``dtype`` (the input's by default)."""
    return _arg("argmax", input, dim, keepdim, dtype, mask)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the smallest kept element along ``dim``, in ``dtype`` (the input's by default)."""
    return _arg("argmin", input, dim, keepdim, dtype, mask)


def _count(mask, dims, keepdim):
    return _nt.sum(mask, dims, keepdim=keepdim)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the kept elements over ``dim`` (nan where none is kept)."""
    out = input.dtype if dtype is None else dtype
    if not (out.is_floating_point or out.is_complex):
        which = "Input" if dtype is None else "Optional"
        raise ValueError(f"mean(): Could not infer output dtype. {which} dtype must be either "
                         f"a floating point or complex dtype. Got: {out}")
    m = input_mask(input, mask)
    dims = reduction_dims(input, dim)
    total = _nt.sum(fill(input, m, 0), dims, keepdim=bool(keepdim), dtype=dtype)
    return total / _count(m, dims, bool(keepdim))


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Median (the lower of the two middle values) of the kept elements along ``dim``; nan
    where none is kept, which only floating dtypes can hold. Like torch's, only an integer
    input's result is cast to ``dtype``."""
    m = input_mask(input, mask)
    d = first_dim(dim)
    if input.dtype.is_floating_point:
        return _nt.nanmedian(fill(input, m, float("nan")), d, keepdim=bool(keepdim)).values
    if not bool(_nt.all(_nt.any(m, d))):
        raise ValueError("masked median expects no fully masked out rows if dtype is not "
                         "floating point")
    wide = fill(input.to(_nt.float64), m, float("nan"))
    return _nt.nanmedian(wide, d, keepdim=bool(keepdim)).values.to(
        input.dtype if dtype is None else dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """Vector ``ord``-norm of the kept elements over ``dim``; masked-out elements count as 0
    (as +inf for ``ord=-inf``)."""
    x = input
    if mask is not None:
        m = input_mask(input, mask)
        if isinstance(ord, (int, float)) and ord == float("-inf"):
            if not input.dtype.is_floating_point:
                raise AssertionError(f"input must be floating point, got {input.dtype}")
            x = fill(input, m, float("inf"))
        else:
            x = fill(input, m, 0)
    return _nt.linalg.vector_norm(x, ord, reduction_dims(x, dim), keepdim=bool(keepdim),
                                  dtype=dtype)


def _correction(unbiased, correction):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Variance of the kept elements over ``dim`` with ``correction`` (Bessel's, 1, by
    default); nan where none is kept. Integer inputs are computed in float32."""
    return to_dtype(_variance(input, dim, _correction(unbiased, correction), keepdim, mask),
                    dtype)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Standard deviation of the kept elements over ``dim`` (the square root of ``var``)."""
    v = _variance(input, dim, _correction(unbiased, correction), keepdim, mask)
    return _nt.sqrt(to_dtype(v, dtype))


def _variance(input, dim, correction, keepdim, mask):
    work = input.dtype if input.dtype.is_floating_point or input.dtype.is_complex \
        else _nt.float32
    m = input_mask(input, mask)
    dims = reduction_dims(input, dim)
    kept = fill(input, m, 0)
    # the mean in the working dtype, the input itself left as it is (a bool input then fails
    # at the subtraction, as torch's does)
    centre = _nt.sum(kept, dims, keepdim=True, dtype=work) / _count(m, dims, True)
    dev = input - centre
    sq = dev * dev.conj() if dev.dtype.is_complex else dev * dev
    total = _nt.sum(fill(sq, m, 0), dims, keepdim=bool(keepdim))
    dof = _nt.clamp(_count(m, dims, bool(keepdim)) - correction, min=0)
    return total / dof


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp)) of the kept elements over ``dim`` (-inf where none is kept)."""
    x = masked_fill_identity("logsumexp", input, mask)
    r = _nt.logsumexp(x, reduction_dims(x, dim), keepdim=bool(keepdim))
    # an integer input's float result goes back to the input's dtype unless dtype says other
    return to_dtype(r, input.dtype if dtype is None else dtype)
