"""The continuous Bernoulli distribution."""

import math

import numtorch as torch

from . import constraints
from .exp_family import ExponentialFamily
from .utils import (
    _bce_with_logits, _expand_probs_or_logits, _set_probs_or_logits, broadcast_all,
    clamp_probs, lazy_property, logits_to_probs, probs_to_logits,
)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019):
    density ``C(p) p^x (1 - p)^(1 - x)``. Give exactly one of ``probs`` and ``logits``.

    Near ``p = 1/2`` the closed forms of the normaliser and the moments cancel
    catastrophically, so inside ``lims`` they are replaced by Taylor expansions in
    ``(p - 1/2)^2``.

    Args:
        probs (Number or Tensor): the parameter p in [0, 1] (clamped a machine epsilon away
            from both ends).
        logits (Number or Tensor): its log-odds.
        lims (tuple): the interval of ``probs`` where the expansions are used.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        batch_shape = _set_probs_or_logits(self, probs, logits)
        if probs is not None:
            # checked here: once clamped below, invalid values could no longer be seen
            if validate_args is not None:
                if not bool(self.arg_constraints["probs"].check(self.probs).all()):
                    raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = torch.Size(batch_shape)
        _expand_probs_or_logits(self, new, batch_shape)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return torch.max(torch.le(self.probs, self._lims[0]), torch.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        """``probs`` with values inside ``lims`` replaced by ``lims[0]``: keeps the closed
        forms (evaluated everywhere, used only outside) and their gradients finite."""
        return torch.where(self._outside_unstable_region(), self.probs,
                           self._lims[0] * torch.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """``log C(p)``: ``log(|log(1-p) - log p| / |1 - 2p|)``, expanded near 1/2."""
        p = self._cut_probs()
        below = torch.where(torch.le(p, 0.5), p, torch.zeros_like(p))
        above = torch.where(torch.ge(p, 0.5), p, torch.ones_like(p))
        log_norm = torch.log(torch.abs(torch.log1p(-p) - torch.log(p))) - torch.where(
            torch.le(p, 0.5), torch.log1p(-2.0 * below), torch.log(2.0 * above - 1.0))
        x = torch.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torch.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        p = self._cut_probs()
        closed = p / (2.0 * p - 1.0) + 1.0 / (torch.log1p(-p) - torch.log(p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * torch.pow(x, 2)) * x
        return torch.where(self._outside_unstable_region(), closed, taylor)

    @property
    def stddev(self):
        return torch.sqrt(self.variance)

    @property
    def variance(self):
        p = self._cut_probs()
        closed = (p * (p - 1.0) / torch.pow(1.0 - 2.0 * p, 2)
                  + 1.0 / torch.pow(torch.log1p(-p) - torch.log(p), 2))
        x = torch.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return torch.where(self._outside_unstable_region(), closed, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        u = torch.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with torch.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        u = torch.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = _bce_with_logits(logits, value)
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        closed = ((torch.pow(p, value) * torch.pow(1.0 - p, 1.0 - value) + p - 1.0)
                  / (2.0 * p - 1.0))
        inside = torch.where(self._outside_unstable_region(), closed, value)
        return torch.where(torch.le(value, 0.0), torch.zeros_like(value),
                           torch.where(torch.ge(value, 1.0), torch.ones_like(value), inside))

    def icdf(self, value):
        p = self._cut_probs()
        closed = ((torch.log1p(-p + value * (2.0 * p - 1.0)) - torch.log1p(-p))
                  / (torch.log(p) - torch.log1p(-p)))
        return torch.where(self._outside_unstable_region(), closed, value)

    def entropy(self):
        log_q = torch.log1p(-self.probs)
        log_p = torch.log(self.probs)
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log C as a function of the natural parameter (the logits)."""
        outside = torch.max(torch.le(x, self._lims[0] - 0.5), torch.gt(x, self._lims[1] - 0.5))
        cut = torch.where(outside, x, (self._lims[0] - 0.5) * torch.ones_like(x))
        log_norm = torch.log(torch.abs(torch.exp(cut) - 1.0)) - torch.log(torch.abs(cut))
        taylor = 0.5 * x + torch.pow(x, 2) / 24.0 - torch.pow(x, 4) / 2880.0
        return torch.where(outside, log_norm, taylor)
