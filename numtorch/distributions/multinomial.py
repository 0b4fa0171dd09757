"""The multinomial distribution."""

import numtorch as torch

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Counts of each category in ``total_count`` independent categorical draws.

    ``sample`` needs one shared integer ``total_count``; ``log_prob`` works for any counts.

    Example:
        >>> Multinomial(100, torch.tensor([1.0, 1.0, 1.0, 1.0])).sample().sum()
        tensor(100.)

    Args:
        total_count (int): the number of draws.
        probs (Tensor): event probabilities (normalised along the last dimension).
        logits (Tensor): event log-probabilities (unnormalised).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    total_count: int

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = torch.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=torch.Size()):
        sample_shape = torch.Size(sample_shape)
        draws = self._categorical.sample(torch.Size((self.total_count,)) + sample_shape)
        # move the draw dimension last and count how often each category came up
        draws = draws.permute(*range(1, draws.dim()), 0)
        counts = draws.new_zeros(self._extended_shape(sample_shape))
        counts = counts.scatter_add(-1, draws, torch.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        n = torch.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - torch.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        probs = torch.exp(self._binomial.log_prob(support))
        term2 = (probs * torch.lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # 0 * (-inf) for an impossible category that was never drawn counts as 0
        logits = logits.masked_fill((value == 0) & (logits == -float("inf")), 0)
        log_fact_n = torch.lgamma(value.sum(-1) + 1)
        log_fact_x = torch.lgamma(value + 1).sum(-1)
        return log_fact_n - log_fact_x + (logits * value).sum(-1)
