"""The :class:`Distribution` base class: shapes, argument validation and the interface
(``sample``, ``rsample``, ``log_prob``, ``cdf``, ``entropy``, moments) every family fills in."""

import warnings

import numtorch as torch

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """A probability distribution with a batch of independent parameter sets.

    ``batch_shape`` indexes the independent distributions held in one object and
    ``event_shape`` the dimensions of one draw; a sample of ``sample_shape`` has shape
    ``sample_shape + batch_shape + event_shape`` and its ``log_prob`` has
    ``sample_shape + batch_shape``.

    Args:
        batch_shape (torch.Size): the shape of the batch of distributions.
        event_shape (torch.Size): the shape of one draw.
        validate_args (bool, optional): check parameters (now) and values given to
            ``log_prob`` and friends (on each call) against their constraints. Default: the
            class-wide setting of :meth:`set_default_validate_args` (True unless Python runs
            with ``-O``).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions built from now on.

        Args:
            value (bool): whether to validate.
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=torch.Size(), event_shape=torch.Size(),
                 validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with "
                              "`validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                             lazy_property):
                    continue  # a parameter derived from the one given: no need to check it
                value = getattr(self, param)
                if not constraints.all_hold(constraint, value):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution with the batch expanded to ``batch_shape`` (parameters are
        expanded views, no copies).

        Args:
            batch_shape (torch.Size): the new batch shape.
            _instance: used by subclasses that override ``.expand``.
        """
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single draw."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """A dict from parameter names to the constraints their values must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint describing the set of possible values."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode of the distribution."""
        from .._class_repr import torch_name

        # torch's message quotes the class as torch names it (<class 'torch.distributions...'>)
        raise NotImplementedError(f"<class '{torch_name(type(self))}'> does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape=torch.Size()):
        """Draw ``sample_shape`` batches of samples (no gradient flows into them)."""
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=torch.Size()):
        """Draw reparameterised samples: gradients flow from the samples back to the
        parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        """Draw ``n`` samples (deprecated: use ``sample((n,))``)."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(torch.Size((n,)))

    def log_prob(self, value):
        """The log of the density (or probability mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of the cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete distribution, along a new leading dimension.

        Args:
            expand (bool): expand the result over the batch shape (``True``) or leave
                singleton batch dimensions (``False``).
        """
        raise NotImplementedError

    def entropy(self):
        """The entropy, one per distribution of the batch."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy)``."""
        return torch.exp(self.entropy())

    def _extended_shape(self, sample_shape=torch.Size()):
        """``sample_shape + batch_shape + event_shape``."""
        if not isinstance(sample_shape, torch.Size):
            sample_shape = torch.Size(sample_shape)
        return torch.Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        """Check ``value`` is a tensor whose shape fits this distribution and whose entries
        lie in the support (torch's ValueErrors otherwise)."""
        if not isinstance(value, torch.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual = value.size()
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        if support is None:
            raise AssertionError
        if not constraints.all_hold(support, value):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        """A blank instance for ``expand`` to fill in; refuses subclasses whose own
        ``__init__`` the generic ``expand`` cannot know about."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        names = [p for p in self.arg_constraints if p in self.__dict__]
        parts = []
        for p in names:
            v = self.__dict__[p]
            parts.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return f"{self.__class__.__name__}({', '.join(parts)})"
