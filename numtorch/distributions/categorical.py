"""The categorical distribution."""

import math

import numpy as np

import numtorch as torch
from .._tensor import _make

from . import constraints
from .distribution import Distribution
from .utils import (
    _broadcast_shape, _expand_probs_or_logits, _need_probs_or_logits, lazy_property,
    logits_to_probs, probs_to_logits,
)

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Draws an index ``i`` in ``{0, ..., K - 1}`` with probability ``probs[..., i]``.

    Give exactly one of ``probs`` (non-negative, normalised along the last dimension) and
    ``logits`` (unnormalised log-probabilities); the last dimension indexes the categories.

    Example:
        >>> Categorical(torch.tensor([0.25, 0.25, 0.25, 0.25])).sample().shape
        torch.Size([])

    Args:
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _need_probs_or_logits(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else torch.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = torch.Size(batch_shape)
        param_shape = batch_shape + torch.Size((self._num_events,))
        _expand_probs_or_logits(self, new, param_shape)
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                          device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                          device=self.probs.device)

    def sample(self, sample_shape=torch.Size()):
        if not isinstance(sample_shape, torch.Size):
            sample_shape = torch.Size(sample_shape)
        probs = self.probs
        if not sample_shape and probs.dim() <= 2:
            # one draw per distribution (a policy's action): the (rows, 1) draws hold the
            # batch's values in order, so their array takes the batch shape directly
            draws = torch.multinomial(probs, 1, True)
            return _make(draws._array.reshape(self._batch_shape))
        n = sample_shape.numel()
        rows = probs if probs.dim() == 2 else probs.reshape(-1, self._num_events)
        draws = torch.multinomial(rows, n, True)
        if n != 1 and draws.shape[0] != 1:  # a single row or column reads the same either way
            draws = draws.T
        shape = self._extended_shape(sample_shape)
        return draws if draws.shape == shape else draws.reshape(shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_pmf = self.logits
        arr = value._array
        if value._grad_fn is None and arr.dtype == np.int64 and arr.shape == log_pmf.shape[:-1]:
            # the usual call, ``log_prob(sample())``: the index is the value's own array with
            # a trailing unit dim (no gradient flows to an integer value, so no ops are needed)
            return log_pmf.gather(-1, _make(arr.reshape(arr.shape + (1,)))).squeeze(-1)
        if value._grad_fn is None and arr.dtype == np.int64 and type(arr) is np.ndarray:
            # an int64 value of another shape (one action for a batch of one): its index
            # column broadcast as a read-only view, without long/unsqueeze/expand ops
            col = arr.reshape(arr.shape + (1,))
            shape = _broadcast_shape(col.shape, log_pmf.shape)
            index_shape = tuple(shape[:-1]) + (1,)
            if col.shape != index_shape:
                col = np.broadcast_to(col, index_shape)
            if log_pmf.shape != shape:
                log_pmf = log_pmf.expand(shape)
            return log_pmf.gather(-1, _make(col)).squeeze(-1)
        value = value.long().unsqueeze(-1)
        # the value broadcast against the logits, but only its one index column is needed:
        # expand straight to that shape rather than broadcasting both and slicing
        shape = _broadcast_shape(value.shape, log_pmf.shape)
        index_shape = shape[:-1] + (1,)
        if value.shape != index_shape:
            value = value.expand(index_shape)
        if log_pmf.shape != shape:
            log_pmf = log_pmf.expand(shape)
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        # -inf logits (impossible categories) contribute 0 * (-inf): clamp them to finite
        logits = torch.clamp(self.logits, min=torch.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = torch.arange(self._num_events, dtype=torch.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
