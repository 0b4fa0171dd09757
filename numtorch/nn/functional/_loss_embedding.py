"""Ranking and embedding losses: margin ranking, hinge embedding, cosine embedding and the
triplet losses (composed from ops)."""

from ...ops.comparison import minimum, where
from ._loss_util import check_reduction, get_reduction, reduce_loss
from .distance import pairwise_distance

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss"]

_COS_EPS = 1e-12  # torch's guard of the squared norms in cosine_embedding_loss


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """Ranking hinge ``max(0, -target * (input1 - input2) + margin)``.

    Args:
        input1 (Tensor): scores of the first items.
        input2 (Tensor): scores of the second items (same number of dims).
        target (Tensor): 1 where ``input1`` should rank higher, -1 where ``input2`` should.
        margin (float): the required gap. Default: 0.
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> a, b = torch.tensor([1., 2.]), torch.tensor([2., 1.])
        >>> torch.nn.functional.margin_ranking_loss(a, b, torch.tensor([1., 1.]))
        tensor(0.5000)
    """
    red = get_reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    return reduce_loss((-target * (input1 - input2) + margin).clamp_min(0), red)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """Hinge loss on distances: ``input`` where ``target == 1``, ``max(0, margin - input)``
    where ``target == -1`` (both terms for any other target value, as in torch).

    Args:
        input (Tensor): distances (or scores).
        target (Tensor): +1 / -1 labels, broadcastable to ``input``.
        margin (float): the margin for dissimilar pairs. Default: 1.0.
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> d = torch.tensor([0.3, 0.4])
        >>> torch.nn.functional.hinge_embedding_loss(d, torch.tensor([1., -1.]))
        tensor(0.4500)
    """
    red = get_reduction(size_average, reduce, reduction)
    margin_part = where(target != 1, (margin - input).clamp_min(0), 0)
    self_part = where(target != -1, input, 0)
    return reduce_loss(margin_part + self_part, red)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """Cosine-similarity loss: ``1 - cos(x1, x2)`` for ``target == 1``, ``max(0, cos(x1, x2) -
    margin)`` for ``target == -1`` (0 for any other value).

    Args:
        input1 (Tensor): ``(N, D)`` or ``(D,)`` embeddings.
        input2 (Tensor): embeddings of the same shape.
        target (Tensor): ``(N,)`` (or ``()``) of +1 / -1.
        margin (float): the margin for dissimilar pairs, in ``[-1, 1]``. Default: 0.
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> x = torch.tensor([[1., 0.]])
        >>> torch.nn.functional.cosine_embedding_loss(x, x, torch.tensor([1.]))
        tensor(0.)
    """
    red = get_reduction(size_average, reduce, reduction)
    td = target.dim()
    if td > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = td + 1
    if input1.dim() != want or input2.dim() != want:
        s1 = "[" + ", ".join(str(s) for s in input1.shape) + "]"
        s2 = "[" + ", ".join(str(s) for s in input2.shape) + "]"
        raise RuntimeError(f"{td}D target tensor expects {want}D input tensors, but found inputs "
                           f"with sizes {s1} and {s2}.")
    dot = (input1 * input2).sum(-1)
    mag1 = (input1 * input1).sum(-1) + _COS_EPS
    mag2 = (input2 * input2).sum(-1) + _COS_EPS
    cos = dot / (mag1 * mag2).sqrt()
    pos = where(target == 1, 1 - cos, 0)
    neg = where(target == -1, (cos - margin).clamp_min(0), 0)
    return reduce_loss(pos + neg, red)


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not a == p == n:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {p}D, "
                           f"and negative {n}D inputs")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """Triplet loss ``max(0, margin + d(a, p) - d(a, n))`` with the p-norm distance.

    Args:
        anchor (Tensor): ``(N, D)`` or ``(D,)``.
        positive (Tensor): same shape as ``anchor``.
        negative (Tensor): same shape as ``anchor``.
        margin (float): must be positive. Default: 1.0.
        p (float): the norm degree. Default: 2.
        eps (float): added to the difference before the norm. Default: 1e-6.
        swap (bool): use ``min(d(a, n), d(p, n))`` as the negative distance. Default: False.
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> a, p, n = torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2)
        >>> torch.nn.functional.triplet_margin_loss(a, p, n, margin=2.0)
        tensor(0.5858)
    """
    red = get_reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return reduce_loss((margin + d_pos - d_neg).clamp_min(0), red)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """Triplet loss ``max(0, margin + d(a, p) - d(a, n))`` with any distance function.

    Args:
        anchor (Tensor): anchors.
        positive (Tensor): positives (same number of dims).
        negative (Tensor): negatives (same number of dims).
        distance_function (callable, optional): ``d(x, y)`` returning non-negative distances;
            the Euclidean pairwise distance when None.
        margin (float): must be positive. Default: 1.0.
        swap (bool): use ``min(d(a, n), d(p, n))`` as the negative distance. Default: False.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> a, p, n = torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2)
        >>> F = torch.nn.functional
        >>> F.triplet_margin_with_distance_loss(a, p, n, margin=2.0)
        tensor(0.5858)
    """
    red = check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = minimum(d_neg, dist(positive, negative))
    return reduce_loss((margin + d_pos - d_neg).clamp_min(0), red)
