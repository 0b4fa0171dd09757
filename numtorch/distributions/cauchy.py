"""The Cauchy (Lorentz) distribution."""

import math

import numtorch as torch

from . import constraints
from .distribution import Distribution
from .utils import _broadcast_params, _expand_params

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The Cauchy distribution: the ratio of two independent standard normals, shifted and
    scaled. It has no mean or variance (both are reported as NaN/inf as torch does).

    Example:
        >>> Cauchy(torch.tensor([0.0]), torch.tensor([1.0])).sample().shape
        torch.Size([1])

    Args:
        loc (float or Tensor): the mode or median.
        scale (float or Tensor): the half width at half maximum (positive).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        batch_shape = _broadcast_params(self, loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Cauchy, batch_shape, _instance, "loc", "scale")

    @property
    def mean(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.loc.dtype,
                          device=self.loc.device)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return torch.full(self._extended_shape(), math.inf, dtype=self.loc.dtype,
                          device=self.loc.device)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        eps = self.loc.new(shape).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (
            ((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return torch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
