"""The generalized Pareto distribution."""

import math
from numbers import Number

import numtorch as torch

from . import constraints
from .distribution import Distribution
from .utils import _expand_params, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution: the law of exceedances over a high threshold.
    With ``z = (x - loc) / scale`` and shape ``xi = concentration``, the survival function is
    ``(1 + xi z)^(-1/xi)`` (``exp(-z)`` for ``xi = 0``); the support is ``[loc, inf)`` for
    ``xi >= 0`` and ``[loc, loc - scale / xi]`` for ``xi < 0``.

    For ``|xi| <= 1e-8`` the formulas switch to their ``xi -> 0`` limits, and the gradients
    with respect to ``concentration`` there are zero (as torch's).

    Args:
        loc (float or Tensor): the location (start of the support).
        scale (float or Tensor): the scale (positive).
        concentration (float or Tensor): the shape xi.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, Number) for v in (loc, scale, concentration)):
            batch_shape = torch.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, GeneralizedPareto, batch_shape, _instance,
                              "loc", "scale", "concentration")

    def _split(self, z):
        """``(is_zero, safe_xi, safe_z)``: where ``xi == 0`` the general formulas are fed
        harmless stand-ins (their branch is discarded), so no NaN reaches the gradients."""
        xi = self.concentration
        zero = xi.abs() <= 1e-8
        return zero, torch.where(zero, torch.ones_like(xi), xi), torch.where(
            zero, torch.zeros_like(z), z)

    def _log_survival(self, z):
        zero, xi, zs = self._split(z)
        return torch.where(zero, -z, -torch.log1p(xi * zs) / xi)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        u = torch.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi, zs = self._split(z)
        general = -(1 + 1 / xi) * torch.log1p(xi * zs)
        return torch.where(zero, -z, general) - torch.log(self.scale)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        out = -torch.expm1(self._log_survival(z))
        return torch.where(z < 0, math.nan, out)

    def icdf(self, value):
        zero, xi, _ = self._split(value)
        log_tail = torch.log1p(-value)
        general = torch.expm1(-xi * log_tail) / xi
        return self.loc + self.scale * torch.where(zero, -log_tail, general)

    @property
    def mean(self):
        xi = self.concentration
        finite = xi < 1
        safe = torch.where(finite, xi, torch.zeros_like(xi))
        return torch.where(finite, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        xi = self.concentration
        finite = xi < 0.5
        safe = torch.where(finite, xi, torch.zeros_like(xi))
        return torch.where(finite, self.scale.pow(2) / ((1 - safe).pow(2) * (1 - 2 * safe)),
                           math.nan)

    def entropy(self):
        return (torch.log(self.scale) + self.concentration + 1).expand(self.batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        xi = self.concentration
        negative = xi < 0
        safe = torch.where(negative, xi, -torch.ones_like(xi))
        upper = torch.where(negative, self.loc - self.scale / safe, math.inf)
        return constraints.interval(self.loc, upper)
