"""Student's t-distribution."""

import math

import numtorch as torch

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _expand_params, _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t-distribution with ``df`` degrees of freedom, shifted by ``loc`` and scaled
    by ``scale``. ``rsample`` draws ``z / sqrt(v / df)`` with ``z`` normal and ``v`` chi-squared
    (reparameterised through the gamma sampler).

    Args:
        df (float or Tensor): degrees of freedom (positive).
        loc (float or Tensor): the location.
        scale (float or Tensor): the scale (positive).
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        return self.loc.masked_fill(self.df <= 1, math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        # the finite branch at a harmless df where it is not taken: its gradient there is
        # zero, as in torch (df / (df - 2) at df = 2 would make it 0 * inf = nan)
        dfs = torch.where(df > 2, df, torch.full_like(df, 3.0))
        finite = self.scale.pow(2) * dfs / (dfs - 2)
        out = torch.where(df > 2, finite, torch.full_like(df, math.inf))
        return out.masked_fill(df <= 1, math.nan)

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, StudentT, batch_shape, _instance,
                              "df", "loc", "scale", "_chi2")

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        z = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        v = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * z * torch.rsqrt(v / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        df = self.df
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi)
                    + torch.lgamma(0.5 * df) - torch.lgamma(0.5 * (df + 1.0)))
        return -0.5 * (df + 1.0) * torch.log1p(y ** 2.0 / df) - log_norm

    def entropy(self):
        df = self.df
        log_beta = torch.lgamma(0.5 * df) + math.lgamma(0.5) - torch.lgamma(0.5 * (df + 1))
        return (self.scale.log()
                + 0.5 * (df + 1) * (torch.digamma(0.5 * (df + 1)) - torch.digamma(0.5 * df))
                + 0.5 * df.log() + log_beta)
