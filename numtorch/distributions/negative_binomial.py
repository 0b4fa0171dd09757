"""The negative binomial distribution."""

import numtorch as torch
import numtorch.nn.functional as F

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import (
    _expand_probs_or_logits, _poisson, _set_probs_or_logits, lazy_property, logits_to_probs,
    probs_to_logits,
)

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """The number of successes before ``total_count`` failures in independent trials that
    succeed with probability ``probs`` (or log-odds ``logits``; give exactly one).

    Args:
        total_count (float or Tensor): the number of failures to stop at (non-negative; need
            not be an integer).
        probs (Tensor): the success probability, in [0, 1).
        logits (Tensor): its log-odds.
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        batch_shape = _set_probs_or_logits(self, probs, logits, total_count)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = torch.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        _expand_probs_or_logits(self, new, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torch.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        # the Poisson rate of a negative binomial draw is Gamma(total_count, odds^-1) mixed
        return Gamma(concentration=self.total_count, rate=torch.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            return _poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        unnorm = n * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_norm = -torch.lgamma(n + value) + torch.lgamma(1.0 + value) + torch.lgamma(n)
        # n = k = 0 has probability one; the gamma terms above are then inf - inf
        log_norm = log_norm.masked_fill(n + value == 0.0, 0.0)
        return unnorm - log_norm
