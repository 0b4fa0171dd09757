"""The Fisher-Snedecor (F) distribution."""

import math
from numbers import Number

import numtorch as torch

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _expand_params, broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The F-distribution: the ratio of two independent chi-squared variables, each divided
    by its degrees of freedom.

    Args:
        df1 (float or Tensor): degrees of freedom of the numerator.
        df2 (float or Tensor): degrees of freedom of the denominator.
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        if isinstance(df1, Number) and isinstance(df2, Number):
            batch_shape = torch.Size()
        else:
            batch_shape = self.df1.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, FisherSnedecor, batch_shape, _instance,
                              "df1", "df2", "_gamma1", "_gamma2")

    @property
    def mean(self):
        df2 = self.df2.masked_fill(self.df2 <= 2, math.nan)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        d1, d2 = self.df1, self.df2
        return ((d1 - 2) / d1 * d2 / (d2 + 2)).masked_fill(d1 <= 2, math.nan)

    @property
    def variance(self):
        d1 = self.df1
        d2 = self.df2.masked_fill(self.df2 <= 4, math.nan)
        return 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        # each gamma is chi-squared / df already (rate df, shape df / 2)
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = torch.finfo(x2.dtype).tiny
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = self.df1 * 0.5, self.df2 * 0.5
        log_beta_inv = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
        return (log_beta_inv + h1 * self.df1.log() + h2 * self.df2.log()
                + (h1 - 1) * torch.log(value) - (h1 + h2) * torch.log(self.df2 + self.df1 * value))
