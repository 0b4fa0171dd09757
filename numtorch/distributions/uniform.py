"""The continuous uniform distribution."""


import numtorch as torch

from . import constraints
from .distribution import Distribution
from .utils import _broadcast_params, _expand_params

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniformly distributed values in the half-open interval ``[low, high)``.

    Example:
        >>> Uniform(torch.tensor([0.0]), torch.tensor([5.0])).sample().shape
        torch.Size([1])

    Args:
        low (float or Tensor): the lower end (inclusive).
        high (float or Tensor): the upper end (exclusive).
    """

    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return float("nan") * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def __init__(self, low, high, validate_args=None):
        batch_shape = _broadcast_params(self, low=low, high=high)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Uniform, batch_shape, _instance, "low", "high")

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        u = torch.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = self.low.le(value).type_as(self.low) * self.high.gt(value).type_as(self.low)
        return torch.log(inside) - torch.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return torch.log(self.high - self.low)
