"""nn.functional: distance (cosine similarity, pairwise p-norm distance, pdist).

All three are compositions of numtorch ops (norm, arithmetic, indexing), so they have
gradients of any order.
"""

import numpy as np

from ... import _dtype, backend
from ..._tensor import _make
from ...autograd.grad_mode import no_grad
from ...autograd.graph import rename_node
from ...ops._util import canonical_dim

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


def _broadcast_shape(a, b):
    """The broadcast of two shapes, with torch's message when they do not broadcast."""
    na, nb = len(a), len(b)
    out = []
    for i in range(max(na, nb)):
        da = a[na - 1 - i] if i < na else 1
        db = b[nb - 1 - i] if i < nb else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(f"The size of tensor a ({da}) must match the size of tensor b "
                               f"({db}) at non-singleton dimension {max(na, nb) - 1 - i}")
        out.append(db if da == 1 else da)
    return tuple(reversed(out))


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (after broadcasting).

    .. math:: \\frac{x_1}{\\max(\\lVert x_1 \\rVert, \\epsilon)} \\cdot
              \\frac{x_2}{\\max(\\lVert x_2 \\rVert, \\epsilon)}

    Args:
        x1 (Tensor): first input.
        x2 (Tensor): second input, broadcastable with ``x1``.
        dim (int): the dim holding the vectors. Default: 1.
        eps (float): lower bound of each norm. Default: 1e-8.

    Returns:
        Tensor: the broadcast shape without ``dim``.

    Example:
        >>> torch.nn.functional.cosine_similarity(torch.tensor([[1.0, 0.0]]),
        ...                                       torch.tensor([[1.0, 1.0]]))
        tensor([0.7071])

    Note:
        As in torch, each norm is clamped to ``eps`` in value only: the gradient flows as
        if it were not clamped.
    """
    common = _dtype.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_dtype._TYPE_DISPLAY[common.name]}")
    shape = _broadcast_shape(tuple(x1.shape), tuple(x2.shape))
    dim = canonical_dim(dim, len(shape))
    if tuple(x1.shape) != shape:
        x1 = x1.expand(shape)
    if tuple(x2.shape) != shape:
        x2 = x2.expand(shape)
    if x1.dtype != common:
        x1 = x1.to(common)
    if x2.dtype != common:
        x2 = x2.to(common)
    n1 = x1.norm(2, dim, keepdim=True).clone()
    n2 = x2.norm(2, dim, keepdim=True).clone()
    with no_grad():  # torch clamps the values in place, outside the graph
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The ``p``-norm of ``x1 - x2 + eps`` along the last dim (after broadcasting).

    Args:
        x1 (Tensor): first input, ``(N, D)`` or ``(D,)``.
        x2 (Tensor): second input, broadcastable with ``x1``.
        p (float): the norm's exponent. Default: 2.
        eps (float): added to the difference to avoid a zero norm. Default: 1e-6.
        keepdim (bool): keep the reduced dim. Default: False.

    Returns:
        Tensor: the broadcast shape without (or, with ``keepdim``, with size 1 at) the last
        dim.

    Example:
        >>> torch.nn.functional.pairwise_distance(torch.tensor([[3.0, 0.0]]),
        ...                                       torch.tensor([[0.0, 4.0]]), eps=0.0)
        tensor([5.])
    """
    out_dim = max(x1.ndim, x2.ndim)
    diff = x1 - x2 + eps
    return diff.norm(p, out_dim - 1 if out_dim else -1, keepdim)


def pdist(input, p=2):
    """The ``p``-norm distance between every pair of rows of a 2-D ``input``.

    Args:
        input (Tensor): shape ``(N, M)``.
        p (float): the norm's exponent, ``>= 0``. Default: 2.

    Returns:
        Tensor: shape ``(N * (N - 1) / 2,)``, the distances of the row pairs ``(i, j)``
        with ``i < j`` in row-major order.

    Example:
        >>> torch.nn.functional.pdist(torch.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
        tensor([5.0000, 1.0000, 4.2426])
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    if input.dtype in (_dtype.float16, _dtype.bfloat16) and n > 1 and input.shape[1] and \
            not backend.is_device_array(input._array):
        # torch's CPU kernel has no 16-bit floats
        raise NotImplementedError(f'"pdist" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    i, j = np.triu_indices(n, 1)
    xp = backend.xp_of(input._array)
    i, j = _make(xp.asarray(i)), _make(xp.asarray(j))
    return rename_node((input[i] - input[j]).norm(p, 1), "PdistBackward0")  # torch's node
