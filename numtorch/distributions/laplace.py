"""The Laplace (double exponential) distribution."""


import numtorch as torch

from . import constraints
from .distribution import Distribution
from .utils import _broadcast_params, _expand_params

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``.

    Example:
        >>> Laplace(torch.tensor([0.0]), torch.tensor([1.0])).sample().shape
        torch.Size([1])

    Args:
        loc (float or Tensor): the location (mean).
        scale (float or Tensor): the scale (positive).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def __init__(self, loc, scale, validate_args=None):
        batch_shape = _broadcast_params(self, loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Laplace, batch_shape, _instance, "loc", "scale")

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        info = torch.finfo(self.loc.dtype)
        # u uniform in [eps - 1, 1) (log1p(-|u|) stays finite), drawn as torch draws it
        u = torch.empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(
            info.eps - 1, 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torch.log(2 * self.scale) - torch.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return 0.5 - 0.5 * z.sign() * torch.expm1(-z.abs())

    def icdf(self, value):
        t = value - 0.5
        return self.loc - self.scale * t.sign() * torch.log1p(-2 * t.abs())

    def entropy(self):
        return 1 + torch.log(2 * self.scale)
