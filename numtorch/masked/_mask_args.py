"""What every ``torch.masked`` function does first: the mask broadcast to the input, the dims
of a reduction, and the value that stands in for a masked-out element."""

import math

import numtorch as _nt


def input_mask(input, mask):
    """``mask`` as a bool tensor of ``input``'s shape (all True when None)."""
    if mask is None:
        return _nt.ones(input.shape, dtype=_nt.bool)
    if getattr(mask, "is_sparse", False) or getattr(mask, "layout", _nt.strided) != _nt.strided:
        mask = mask.to_dense()
    if mask.ndim > input.ndim:
        raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                         "higher than of the input)")
    if tuple(mask.shape) != tuple(input.shape):
        mask = mask.expand(input.shape)
    return mask if mask.dtype is _nt.bool else mask.to(_nt.bool)


def reduction_dims(input, dim):
    """The dims a reduction runs over: all of them when ``dim`` is None."""
    if dim is None:
        return tuple(range(input.ndim))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    seen = set()
    for d in dims:
        # torch's masked functions catch a repeated non-negative dim themselves, in their
        # own words (the reduction catches the rest)
        if isinstance(d, int) and d >= 0:
            if d in seen:
                raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
            seen.add(d)
    return dims


def first_dim(dim):
    """The one dim of a function along a dim: the first of a tuple, 0 for None."""
    if dim is None:
        return 0
    if isinstance(dim, (tuple, list)):
        return dim[0] if dim else 0
    return dim


def identity(op, dtype):
    """The value a masked-out element takes so that it does not change ``op``'s result."""
    if op in ("sum", "cumsum", "norm"):
        return 0
    if op in ("prod", "cumprod"):
        return 1
    low = op in ("amax", "argmax", "logsumexp", "logaddexp")
    if dtype is _nt.bool:
        raise NotImplementedError(f"identity of {op} on torch.bool input")
    if dtype.is_floating_point or (op == "logsumexp" and dtype.is_complex):
        return -math.inf if low else math.inf
    info = _nt.iinfo(dtype)
    return info.min if low else info.max


def fill(input, mask, value):
    """``input`` where ``mask`` holds, ``value`` elsewhere, in ``input``'s dtype."""
    return _nt.where(mask, input, _nt.tensor(value, dtype=input.dtype))


def masked_fill_identity(op, input, mask):
    """``input`` with its masked-out elements replaced by ``op``'s identity (``input`` itself
    when there is no mask: torch then skips the identity, so a bool amax works)."""
    if mask is None:
        return input
    return fill(input, input_mask(input, mask), identity(op, input.dtype))


def to_dtype(result, dtype):
    """The result in the ``dtype=`` asked for: torch computes in the input's dtype and casts
    the result last."""
    return result if dtype is None or result.dtype is dtype else result.to(dtype)
