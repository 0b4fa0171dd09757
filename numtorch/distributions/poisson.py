"""The Poisson distribution."""

from numbers import Number

import numtorch as torch

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _expand_params, _poisson, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """The Poisson distribution: ``P(k) = rate^k e^-rate / k!`` for ``k = 0, 1, ...``.

    Example:
        >>> Poisson(torch.tensor([4.0])).sample().shape
        torch.Size([1])

    Args:
        rate (Number or Tensor): the rate (non-negative).
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = torch.Size() if isinstance(rate, Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Poisson, batch_shape, _instance, "rate")

    def sample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return _poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (torch.log(self.rate),)

    def _log_normalizer(self, x):
        return torch.exp(x)
