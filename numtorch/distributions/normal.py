"""The normal (Gaussian) distribution."""

import math
from numbers import Real

import numtorch as torch

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _broadcast_params, _expand_params, _standard_normal

__all__ = ["Normal"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


class Normal(ExponentialFamily):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``.

    Example:
        >>> m = Normal(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> m.sample().shape
        torch.Size([1])

    Args:
        loc (float or Tensor): the mean.
        scale (float or Tensor): the standard deviation (positive).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def __init__(self, loc, scale, validate_args=None):
        batch_shape = _broadcast_params(self, loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Normal, batch_shape, _instance, "loc", "scale")

    def sample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - log_scale - _LOG_SQRT_2PI

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + torch.erf((value - self.loc) * self.scale.reciprocal()
                                    / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * torch.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + _LOG_SQRT_2PI + torch.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * torch.log(-math.pi / y)
