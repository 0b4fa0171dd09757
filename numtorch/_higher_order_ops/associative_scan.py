"""``torch._higher_order_ops.associative_scan``: an inclusive scan with any associative
``combine_fn`` over a pytree of tensors.

The scan runs in O(log n) vectorised rounds (the odd/even recursion of a parallel prefix
scan): each round calls ``combine_fn`` once on whole strided slices, so a Python combine
function costs a few calls, not one per element, and autograd flows through the tensor ops.
"""

from .. import ops as _ops
from .._tensor import Tensor
from ..utils import _pytree

__all__ = ["associative_scan"]


def _slice(leaves, dim, start, stop=None, step=1):
    return [x[(slice(None),) * dim + (slice(start, stop, step),)] for x in leaves]


def _interleave(even, odd, dim):
    """Element ``2i`` from ``even``, ``2i + 1`` from ``odd`` along ``dim``."""
    out = []
    for a, b in zip(even, odd):
        n_odd = b.shape[dim]
        head = _ops.stack([a.narrow(dim, 0, n_odd), b], dim + 1)
        shape = list(a.shape)
        shape[dim] = 2 * n_odd
        merged = head.reshape(shape)
        if a.shape[dim] > n_odd:
            merged = _ops.cat([merged, a.narrow(dim, n_odd, 1)], dim)
        out.append(merged)
    return out


def _scan(combine, leaves, dim):
    n = leaves[0].shape[dim]
    if n < 2:
        return leaves
    pairs = combine(_slice(leaves, dim, 0, -1, 2), _slice(leaves, dim, 1, None, 2))
    odd = _scan(combine, pairs, dim)
    if n % 2 == 0:
        rest = combine(_slice(odd, dim, 0, -1), _slice(leaves, dim, 2, None, 2))
    else:
        rest = combine(odd, _slice(leaves, dim, 2, None, 2))
    even = [_ops.cat([first, r], dim) for first, r in zip(_slice(leaves, dim, 0, 1), rest)]
    return _interleave(even, odd, dim)


def associative_scan(combine_fn, xs, dim, reverse=False, combine_mode="pointwise"):
    """Inclusive scan of ``xs`` (a tensor or a pytree of tensors) along ``dim``.

    ``combine_fn(a, b)`` takes and returns pytrees shaped like ``xs`` and must be associative;
    ``reverse`` scans from the end. ``combine_mode='pointwise'`` needs accelerator tensors
    (as in torch); ``'generic'`` runs anywhere.
    """
    if not callable(combine_fn):
        raise ValueError(f"Combine_fn must be a callable, but got {combine_fn}")  # noqa: TRY004
    if not isinstance(dim, int):
        raise ValueError("Dim must be an int, but got " + str(type(dim)))  # noqa: TRY004
    if combine_mode not in ("pointwise", "generic"):
        raise ValueError(
            f"Combine_mode must either 'pointwise' or 'generic', but got {combine_mode}")
    leaves, spec = _pytree.tree_flatten(xs)
    if not leaves:
        raise ValueError("Expected at least 1 xs leaf")
    if any(not isinstance(x, Tensor) for x in leaves):
        raise ValueError("xs leaves must be a Tensor")
    if combine_mode == "pointwise" and any(x.device.type == "cpu" for x in leaves):
        raise ValueError(
            "For combine_mode='pointwise', all input tensors need to be on CUDA or XPU")
    ndim = leaves[0].dim()
    top = max(ndim, 1)
    if not -top <= dim < top:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-top}, "
                         f"{top - 1}], but got {dim})")
    dim %= top
    if any(x.dim() <= dim or x.shape[dim] == 0 for x in leaves):
        raise ValueError(
            "All xs leaves must at least have 'dim' number of dimensions and scan dimension > 0")
    if len({x.shape[dim] for x in leaves}) != 1:
        raise ValueError("All xs leaves must have the same size along the scan dimension")

    def combine(a, b):
        res = combine_fn(_pytree.tree_unflatten(a, spec), _pytree.tree_unflatten(b, spec))
        out, out_spec = _pytree.tree_flatten(res)
        if out_spec != spec:
            raise RuntimeError(
                f"The tree structure of the inputs ({spec}) and the outputs ({out_spec}) of "
                "the combine_fn do not match")
        return out

    if reverse:
        leaves = [x.flip(dim) for x in leaves]
    out = _scan(combine, leaves, dim)
    if reverse:
        out = [x.flip(dim) for x in out]
    return _pytree.tree_unflatten(out, spec)
