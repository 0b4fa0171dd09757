"""``torch.gradient``: derivatives of sampled values by finite differences.

Interior points use second-order central differences (weighted by the neighbouring gaps when
the sample coordinates are uneven); the two end points use one-sided differences of first or
second order (``edge_order``). Everything is composed of numtorch ops, so the result is
differentiable (its node is the concatenation of the edge and interior pieces, as torch's).
"""

import numbers

from .. import _dtype
from .._tensor import Tensor
from ._util import canonical_dim

__all__ = ["gradient"]


def _dims(dim, ndim):
    if dim is None:
        return list(range(ndim)), False
    dims = [dim] if isinstance(dim, numbers.Integral) else list(dim)
    out = [canonical_dim(d, ndim) for d in dims]
    for d in out:
        if out.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out, True


def _spacings(spacing, dims, ndim, dim_given):
    """One entry per differentiated dim: a number (uniform step) or a 1-D coordinate tensor."""
    if spacing is None:
        return [1.0] * len(dims)
    if isinstance(spacing, numbers.Number):
        return [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        if dim_given:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar "
                               f"or it's spacing and dim arguments to have the same length, "
                               f"but got a spacing argument of length {len(spacing)} and a "
                               f"dim argument of length {len(dims)}.")
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a "
                           f"list of length equal to 'self.dim() = {ndim}', since dim argument "
                           f"was not given, but got a list of length {len(spacing)}")
    if any(isinstance(s, Tensor) for s in spacing):
        for i, s in enumerate(spacing):
            if not isinstance(s, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                                f"{type(s).__name__}")
            if s.dim() != 1:
                raise RuntimeError(f"torch.gradient expected each element of spacing to have "
                                   f"one dimension, but got an element with {s.dim()} "
                                   f"dimensions!")
    return spacing


def _shaped(v, d, ndim):
    """A 1-D tensor of per-position weights along dim ``d``, broadcastable against values."""
    shape = [1] * ndim
    shape[d] = -1
    return v.reshape(shape)


def _along(y, d, step, edge_order):
    from .join import cat

    n = y.shape[d]
    nd = y.dim()

    def at(start, length):
        return y.narrow(d, start, length)

    if not isinstance(step, Tensor):
        inner = (at(2, n - 2) - at(0, n - 2)) / (2 * step)
        if edge_order == 1:
            first = (at(1, 1) - at(0, 1)) / step
            last = (at(n - 1, 1) - at(n - 2, 1)) / step
        else:
            first = (-1.5 * at(0, 1) + 2 * at(1, 1) - 0.5 * at(2, 1)) / step
            last = (0.5 * at(n - 3, 1) - 2 * at(n - 2, 1) + 1.5 * at(n - 1, 1)) / step
        return cat([first, inner, last], d)
    x = step.to(y.dtype) if step.dtype != y.dtype else step
    gaps = x[1:] - x[:-1]
    if gaps.shape[0] != n - 1:  # torch's broadcast error for coordinates of another length
        raise RuntimeError(f"The size of tensor a ({max(gaps.shape[0] - 1, 0)}) must match "
                           f"the size of tensor b ({max(n - 2, 0)}) at non-singleton "
                           f"dimension {d}")
    h1, h2 = gaps[:-1], gaps[1:]  # the gaps before and after each interior point
    a = _shaped(-h2 / (h1 * (h1 + h2)), d, nd)
    b = _shaped((h2 - h1) / (h1 * h2), d, nd)
    c = _shaped(h1 / (h2 * (h1 + h2)), d, nd)
    inner = a * at(0, n - 2) + b * at(1, n - 2) + c * at(2, n - 2)
    if edge_order == 1:
        first = (at(1, 1) - at(0, 1)) / gaps[0]
        last = (at(n - 1, 1) - at(n - 2, 1)) / gaps[-1]
    else:
        p, q = gaps[0], gaps[1]
        first = (-(2 * p + q) / (p * (p + q)) * at(0, 1) + (p + q) / (p * q) * at(1, 1)
                 - p / (q * (p + q)) * at(2, 1))
        p, q = gaps[-2], gaps[-1]
        last = (q / (p * (p + q)) * at(n - 3, 1) - (p + q) / (p * q) * at(n - 2, 1)
                + (2 * q + p) / (q * (p + q)) * at(n - 1, 1))
    return cat([first, inner, last], d)


def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """Estimate the derivative of sampled values along each of ``dim`` (all dims by default).

    Args:
        input (Tensor): the values (integers are taken as the default float dtype).
        spacing (number, list of numbers or list of 1-D tensors, optional): the step between
            samples (one for all dims or one per dim), or the sample coordinates along each
            dim. Default: 1.
        dim (int or list of ints, optional): the dims to differentiate along.
        edge_order (int): 1 or 2, the order of the one-sided differences at the ends.

    Returns:
        tuple of Tensors: one derivative per dim, each of ``input``'s shape.

    Example:
        >>> torch.gradient(torch.tensor([1., 4., 9., 16.]))
        (tensor([3., 4., 6., 7.]),)
    """
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    ndim = input.dim()
    dims, dim_given = _dims(dim, ndim)
    steps = _spacings(spacing, dims, ndim, dim_given)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        input = input.to(_dtype.get_default_dtype())
    return tuple(_along(input, d, s, edge_order) for d, s in zip(dims, steps))
