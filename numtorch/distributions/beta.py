"""The beta distribution."""

from numbers import Number, Real

import numtorch as torch

from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import _expand_params, broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """The beta distribution on [0, 1]: the first coordinate of a two-component Dirichlet.

    Example:
        >>> Beta(torch.tensor([0.5]), torch.tensor([0.5])).sample().shape
        torch.Size([1])

    Args:
        concentration1 (float or Tensor): alpha, the first concentration (positive).
        concentration0 (float or Tensor): beta, the second concentration (positive).
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, Real) and isinstance(concentration0, Real):
            both = torch.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = torch.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Beta, batch_shape, _instance, "_dirichlet")

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(torch.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        out = self._dirichlet.concentration[..., 0]
        return torch.tensor([out]) if isinstance(out, Number) else out

    @property
    def concentration0(self):
        out = self._dirichlet.concentration[..., 1]
        return torch.tensor([out]) if isinstance(out, Number) else out

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return torch.lgamma(x) + torch.lgamma(y) - torch.lgamma(x + y)
