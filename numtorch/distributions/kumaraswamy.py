"""The Kumaraswamy distribution."""

import numtorch as torch

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """E[X^n] = b B(1 + n/a, b) for X ~ Kumaraswamy(a, b)."""
    shifted = 1 + n / a
    return b * torch.exp(torch.lgamma(shifted) + torch.lgamma(b) - torch.lgamma(shifted + b))


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on [0, 1], density ``a b x^(a-1) (1 - x^a)^(b-1)``: a
    beta-like law whose CDF has a closed form.

    Note:
        ``mode`` is ``((a - 1) / (a b - 1))^(1/a)`` where it exists (``a, b >= 1``, not both
        one) and NaN otherwise; torch 2.13's formula returns NaN in more cases.

    Args:
        concentration1 (float or Tensor): a, the first shape parameter (positive).
        concentration0 (float or Tensor): b, the second shape parameter (positive).
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(torch.full_like(self.concentration0, 0),
                       torch.full_like(self.concentration0, 1), validate_args=validate_args)
        # x = (1 - u^(1/b))^(1/a) for u uniform
        chain = [PowerTransform(exponent=self.concentration0.reciprocal()),
                 AffineTransform(loc=1.0, scale=-1.0),
                 PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = (torch.log(a - 1) - torch.log(a * b - 1)) / a
        return log_mode.exp().masked_fill((a < 1) | (b < 1), float("nan"))

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _moments(a, b, 2) - torch.pow(self.mean, 2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic = torch.digamma(b + 1) + euler_constant
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - torch.log(a) - torch.log(b)
