"""``torch.histogramdd``: the histogram of points in D dimensions (counts carry no gradient)."""

from . import _dtype, return_types
from ._tensor import Tensor, _make
from .backend import xp_of
from .ops._pointwise import _not_implemented
from .ops.binning import uniform_edges

__all__ = ["histogramdd"]

histogramdd_t = return_types._make("histogramdd", ["hist", "bin_edges"])
return_types.histogramdd = histogramdd_t  # torch.return_types.histogramdd


def _c_name(t):
    """A dtype as torch's C++ messages spell it (``float``, ``double``)."""
    return _dtype._TYPE_DISPLAY[t.dtype.name].lower()


def _edges(xp, column, n, bounds, d, dt):
    """Equal-width edges of dimension ``d``: over ``bounds`` or the data's range (widened by
    one half on each side when flat)."""
    if n <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {n} for dimension {d}")
    return uniform_edges(xp, column, n, bounds, d, dt)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """Count the points of ``input`` (shape ``(..., D)``: the last dimension holds each
    point's coordinates) in a D-dimensional grid of bins.

    Args:
        input (Tensor): floating-point points.
        bins (int, sequence of int, or sequence of Tensor): bins per dimension (one count for
            all, one per dimension, or each dimension's increasing edges).
        range (sequence of float, optional): ``[min0, max0, min1, max1, ...]`` for counted
            bins; the data's range by default. Points outside are not counted.
        weight (Tensor, optional): one weight per point (``input.shape[:-1]``), summed
            instead of ones; same dtype as ``input``.
        density (bool): scale so the histogram integrates to one over the grid.

    Returns:
        (Tensor, tuple of Tensor): ``hist`` with one dimension per coordinate, and the
        ``bin_edges`` of each dimension. The last bin of a dimension includes its right edge.

    Example:
        >>> pts = torch.tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.]])
        >>> torch.histogramdd(pts, bins=2).hist
        tensor([[0., 1.],
                [2., 1.]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"histogramdd(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    a = input._array
    if a.dtype.kind != "f":
        raise _not_implemented("histogramdd", a.dtype)
    if a.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    xp = xp_of(a)
    D = a.shape[-1]
    pts = a.reshape(-1, D)
    if isinstance(bins, int):
        bins = [bins] * D
    bins = list(bins)
    if len(bins) != D:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    if range is not None and len(range) != 2 * D:
        raise RuntimeError(f"torch.histogramdd: for a {D}-dimensional histogram range should "
                           f"have {2 * D} elements, but got {len(range)}")
    w = None
    if weight is not None:
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor "
                               f"and weight tensor should have the same dtype, but got "
                               f"input({_c_name(input)}), and weight({_c_name(weight)})")
        w = weight._array.reshape(-1)
    edges = []
    for d, b in enumerate(bins):
        if isinstance(b, Tensor):
            edges.append(b._array.astype(a.dtype))
        else:
            bounds = None if range is None else (float(range[2 * d]), float(range[2 * d + 1]))
            edges.append(_edges(xp, pts[:, d], int(b), bounds, d, a.dtype))
    hist, _ = xp.histogramdd(pts, bins=edges, weights=w, density=density)
    return histogramdd_t((_make(hist.astype(a.dtype)), tuple(_make(e) for e in edges)))
