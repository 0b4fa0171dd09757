"""The Dirichlet distribution."""

import numtorch as torch
import numtorch.nn.functional as F

from . import constraints
from ..autograd.graph import rename_node
from ._random_ops import sample_dirichlet
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex spanned by the last dimension of
    ``concentration``.

    Example:
        >>> Dirichlet(torch.tensor([0.5, 0.5])).sample().shape
        torch.Size([2])

    Args:
        concentration (Tensor): the concentrations (positive), at least one-dimensional.
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = torch.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        # torch samples through a Python autograd.Function, whose node is _DirichletBackward
        return rename_node(sample_dirichlet(self.concentration.expand(shape)),
                           "_DirichletBackward")

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (torch.xlogy(c - 1.0, value).sum(-1) + torch.lgamma(c.sum(-1))
                - torch.lgamma(c).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, True)
        # every concentration below one: the density peaks at the vertex of the largest
        corner = (self.concentration < 1).all(dim=-1, keepdim=True)
        vertex = F.one_hot(shifted.argmax(dim=-1), shifted.shape[-1]).to(mode)
        return torch.where(corner, vertex, mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return (self.concentration * (total - self.concentration)
                / (total.pow(2) * (total + 1)))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        total = c.sum(-1)
        return (torch.lgamma(c).sum(-1) - torch.lgamma(total) - (k - total) * torch.digamma(total)
                - ((c - 1.0) * torch.digamma(c)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - torch.lgamma(x.sum(-1))
