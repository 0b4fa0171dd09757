"""nn modules: distance (torch's file of the same name; forward passes call nn.functional)."""

from .. import functional as F
from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    """The ``p``-norm distance between matching rows of two inputs (see
    :func:`numtorch.nn.functional.pairwise_distance`).

    Args:
        p (float): the norm's exponent. Default: 2.
        eps (float): added to the difference. Default: 1e-6.
        keepdim (bool): keep the reduced last dim. Default: False.

    Shape:
        - Inputs: ``(N, D)`` or ``(D,)``, broadcastable. Output: ``(N,)`` or ``()``.

    Example:
        >>> torch.nn.PairwiseDistance()(torch.zeros(2, 3), torch.ones(2, 3)).shape
        torch.Size([2])
    """

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine similarity of two inputs along ``dim`` (see
    :func:`numtorch.nn.functional.cosine_similarity`).

    Args:
        dim (int): the dim holding the vectors. Default: 1.
        eps (float): lower bound of each norm. Default: 1e-8.

    Shape:
        - Inputs: broadcastable shapes. Output: the broadcast shape without ``dim``.

    Example:
        >>> torch.nn.CosineSimilarity()(torch.tensor([[1.0, 0.0]]), torch.tensor([[2.0, 0.0]]))
        tensor([1.])
    """

    __constants__ = ["dim", "eps"]

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
