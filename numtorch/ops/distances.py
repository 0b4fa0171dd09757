"""Distances and norms between tensors: dist, cdist and renorm (composites of norm ops)."""

from .. import _dtype
from ..autograd.graph import Op, rename_node
from ._util import canonical_dim, row_major_result
from .comparison import where
from .shape_extra import broadcast_shapes

__all__ = ["dist", "renorm", "cdist"]


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast), as a 0-d tensor.

    Example:
        >>> torch.dist(torch.tensor([3., 0.]), torch.tensor([0., 4.]))
        tensor(5.)
    """
    from ._statistics import norm

    return rename_node(norm(input - other, p), "DistBackward0")


def renorm(input, p, dim, maxnorm):
    """Rescale each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` to norm
    ``maxnorm`` (about: the divisor gets 1e-7 added, as in torch); others are unchanged."""
    from ._statistics import norm

    nd = input._array.ndim
    if nd <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = canonical_dim(dim, nd)
    others = tuple(k for k in range(nd) if k != d)
    half = input.dtype in (_dtype.float16, _dtype.bfloat16)
    # torch: a half input's norms and factors in float32, the product in the half type
    x = input.float() if half else input
    # which slices are rescaled is decided without a gradient; the others pass it unchanged
    # (also where their norm is NaN or inf, as torch's renorm backward)
    over = norm(x.detach(), p, dim=others, keepdim=True) > maxnorm
    n = norm(where(over, x, 0.0), p, dim=others, keepdim=True)
    factor = where(over, maxnorm / (n + 1e-7), 1.0)
    return rename_node(row_major_result(input * factor.to(input.dtype)), "RenormBackward0")


class EuclideanDist(Op):
    """Euclidean distances by torch's matrix-product route: ``|a|^2 - 2 a.b + |b|^2`` as one
    product of padded rows, clamped at 0, square-rooted (the values torch's cdist gives for
    more than 25 rows, rounding and cancellation included, in P * R memory instead of the
    differences' P * R * M); dd/da = ratio.sum(-1) a - ratio @ b with ratio = grad / d (0
    where d = 0), as torch's backward.

    Why a primitive: the composite's sqrt at a zero distance has an infinite derivative;
    torch's node gives 0 there."""

    node_name = "EuclideanDistBackward0"

    def forward(self, a, b):
        from .. import _tensor
        from ..autograd.grad_mode import no_grad
        from .join import cat

        self.save_inputs(a, b)
        with no_grad():
            x1, x2 = _tensor._make(a), _tensor._make(b)
            n1 = (x1 * x1).sum(-1, keepdim=True)
            n2 = (x2 * x2).sum(-1, keepdim=True)
            p1 = cat([x1 * -2, n1, n1 * 0 + 1], -1)
            p2 = cat([x2, n2 * 0 + 1, n2], -1)
            d = p1.matmul(p2.mT).clamp_min(0).sqrt()
        return self.save_output(d._array)

    def backward(self, grad):
        x1, x2 = self.saved_inputs()
        d = self.saved_output()
        ratio = where(d == 0, 0.0, grad / d)
        return (x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2),
                x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M), shape (..., P, R).

    Euclidean distances of more than 25 rows (or with ``compute_mode=
    "use_mm_for_euclid_dist"``) take torch's matrix-product route (its rounding included);
    the others are computed from the pairwise differences.
    """
    from ._statistics import norm

    if x1._array.ndim < 2 or x2._array.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: "
                           f"{x1._array.ndim}D, X2 got: {x2._array.ndim}D")
    if x1._array.shape[-1] != x2._array.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1._array.shape[-1]} X2: {x2._array.shape[-1]}")
    for x, name in ((x1, "X1"), (x2, "X2")):
        if x.dtype not in (_dtype.float32, _dtype.float64, _dtype.float16, _dtype.bfloat16):
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_dtype._TYPE_DISPLAY[x.dtype.name]}")
    if x1.dtype in (_dtype.float16, _dtype.bfloat16):
        raise NotImplementedError(f'"cdist" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[x1.dtype.name]}'")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values (got {p})")
    # torch's matrix-product route for Euclidean distances records a view over its node
    mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary"
        and (x1.shape[-2] > 25 or x2.shape[-2] > 25)))
    if mm and x1._array.shape[-1] and x1._array.shape[-2] and x2._array.shape[-2]:
        batch = tuple(broadcast_shapes(x1.shape[:-2], x2.shape[:-2]))
        a = x1.expand(batch + tuple(x1.shape[-2:]))
        b = x2.expand(batch + tuple(x2.shape[-2:]))
        return rename_node(EuclideanDist.apply(a, b).view(batch + (a.shape[-2], b.shape[-2])),
                           "ViewBackward0")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    r = norm(diff, p, dim=-1)
    return rename_node(r, "ViewBackward0" if mm else "CdistBackward0")

