"""``quantile`` and ``nanquantile``, composed from ``sort``, ``gather`` and ``lerp``.

The values are sorted (NaN last) and read at rank ``q * (n - 1)``, interpolated between the
two neighbouring order statistics. The gradient therefore reaches the elements that ``sort``
put at those ranks, which is torch's rule for ties too.
"""

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.graph import rename_node
from ._pointwise import _out
from ._util import canonical_dim

# torch's words (for nanquantile too) for an out= of another dtype
_OUT_DTYPE = "quantile() out tensor must be same dtype as the input tensor"

__all__ = ["nanquantile", "quantile"]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _check(input, q, interpolation, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    name = "quantile"  # (nanquantile's checks are quantile's, and say so in torch)
    if input._array.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if input.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q._array.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qa = q._array
        if qa.size and ((qa < 0).any() or (qa > 1).any()):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    elif not 0 <= q <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    if interpolation not in _MODES:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    _check(input, q, interpolation, name)
    from .. import ops

    nd = input._array.ndim
    xp = __import__("numtorch").backend.xp_of(input._array)
    dt = input._array.dtype
    scalar_q = not isinstance(q, Tensor)
    qs = xp.asarray([q] if scalar_q else q._array.reshape(-1), dtype=dt)
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = canonical_dim(dim, nd)
        x = input if nd else input.reshape(1)
    srt = x.sort(d)[0].movedim(d, -1)  # NaN sorts last
    n = srt._array.shape[-1]
    lead = srt._array.shape[:-1]
    isnan = xp.isnan(srt._array)
    if ignore_nan:
        span = (~isnan).sum(-1, keepdims=True) - 1  # ranks run over the non-NaN values only
    else:
        span = xp.full(lead + (1,), n - 1)
    span = span.astype(dt)
    ranks = xp.broadcast_to(qs * span, lead + (qs.size,))
    # an all-NaN row reads its first (NaN) value; quantile reads a row with a NaN at its last
    # (NaN) value
    fixed = (span < 0) if ignore_nan else isnan[..., -1:]
    fixed = xp.broadcast_to(fixed, ranks.shape)
    ranks = xp.where(fixed, 0 if ignore_nan else n - 1, ranks).astype(dt)
    if interpolation in ("lower", "higher", "nearest"):
        pick = {"lower": xp.floor, "higher": xp.ceil, "nearest": xp.round}[interpolation]
        out = srt.gather(-1, _make(pick(ranks).astype(np.int64)))
    else:
        lo = xp.floor(ranks)
        hi = xp.ceil(ranks).astype(np.int64)
        if interpolation == "midpoint":
            w = _make(xp.full_like(ranks, 0.5))
        elif scalar_q:
            w = _make((ranks - lo).astype(dt))
        else:  # the weight is differentiable in q, as torch's is
            from .comparison import where

            w = where(_make(fixed), _make(xp.zeros((), dtype=dt)),
                      q.reshape(-1) * _make(span) - _make(lo.astype(dt)))
        out = ops.lerp(srt.gather(-1, _make(lo.astype(np.int64))), srt.gather(-1, _make(hi)), w)
    out = out.movedim(-1, 0)  # the q dim leads
    if keepdim:
        if dim is None:
            out = out.reshape((out._array.shape[0],) + (1,) * nd)
        elif nd:
            out = out.unsqueeze(d + 1)
    if scalar_q or q.dim() == 0:  # (a 0-d q tensor adds no dim either)
        out = out.squeeze(0)
    return rename_node(out, "SqueezeBackward4")  # torch's node, for every q and dim


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-th quantiles of ``input`` along ``dim`` (of all elements when ``dim`` is
    None); a 1-D ``q`` adds a leading dim with one entry per quantile. A NaN in a slice makes
    its quantiles NaN.

    Args:
        input (Tensor): float32 or float64 values.
        q (float or Tensor): quantiles in ``[0, 1]`` (a scalar or 1-D tensor of input's dtype).
        dim (int, optional): the dim to reduce. Default: all elements.
        keepdim (bool): keep the reduced dim(s) with size 1. Default: False.
        interpolation (str): between two order statistics: ``"linear"``, ``"lower"``,
            ``"higher"``, ``"midpoint"`` or ``"nearest"`` (ties to even). Default: linear.

    Example:
        >>> torch.quantile(torch.tensor([0., 1., 2., 3.]), 0.5)
        tensor(1.5000)
    """
    res = _quantile(input, q, dim, keepdim, interpolation, False, "quantile")
    return _out(res, out, exact=_OUT_DTYPE)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """Like :func:`quantile`, ignoring NaN values (NaN only where a slice is all NaN)."""
    res = _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")
    return _out(res, out, exact=_OUT_DTYPE)
