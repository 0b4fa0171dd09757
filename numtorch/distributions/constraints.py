"""Constraints: the sets a distribution's parameters and samples live in.

A constraint's ``check(value)`` returns a bool tensor saying, for each event in ``value``,
whether it lies in the set (``event_dim`` trailing dimensions make up one event). The objects
below are what torch exposes under the same names; their ``repr`` is the class name without
its leading underscore, as torch prints it.
"""

import numtorch as torch

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
           "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
           "half_open_interval", "is_dependent", "less_than", "lower_cholesky",
           "lower_triangular", "MixtureSameFamilyConstraint", "multinomial", "nonnegative",
           "nonnegative_integer", "one_hot", "positive", "positive_semidefinite",
           "positive_definite", "positive_integer", "real", "real_vector", "simplex", "square",
           "stack", "symmetric", "unit_interval"]


def _bound(bound, array):
    """``bound`` when it is a plain number NumPy compares with ``array`` as torch would (a
    float bound against an integer array promotes differently: no fast test then)."""
    if type(bound) is int or (type(bound) is float and array.dtype.kind == "f"):
        return bound
    return None


def all_hold(constraint, value):
    """Whether every event of ``value`` satisfies ``constraint``: what argument validation asks.

    The common constraints answer with a few NumPy reductions on the raw array instead of a
    chain of tensor ops (validation runs on every distribution built and every ``log_prob``
    call, which dominated small reinforcement-learning steps); a subclass that overrides
    ``check``, a tensor-valued bound or an unusual dtype takes the ``check`` path.
    """
    array = getattr(value, "_array", None)
    if array is not None and array.dtype.kind in "biuf":
        cls = type(constraint)
        test = getattr(cls, "_array_test", None)
        if test is not None and cls.check is cls._tested_check:
            verdict = test(constraint, array)
            if verdict is not None:
                return verdict
    return bool(constraint.check(value).all())


def _array_verdict(constraint, array):
    """The fast test's answer for ``constraint`` on ``array``, or None without one."""
    cls = type(constraint)
    test = getattr(cls, "_array_test", None)
    if test is None or cls.check is not cls._tested_check:
        return None
    return test(constraint, array)


def _expect(ok, message):
    """torch checks constructor arguments with assertions; so does this module."""
    if not ok:
        raise AssertionError(message)


class Constraint:
    """Base of all constraints.

    Attributes:
        is_discrete (bool): whether the set is discrete (integers, booleans, ...).
        event_dim (int): how many trailing dimensions form one event.
    """

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A bool tensor of shape ``value.shape[:value.dim() - event_dim]``: which events of
        ``value`` satisfy the constraint."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a set that depends on other parameters (the support of a Uniform
    depends on ``low`` and ``high``); it cannot check values."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """A new dependent constraint with these static attributes filled in."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a dependent placeholder (its values cannot be checked)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is also a dependent constraint: on the class it stands for the
    constraint, on an instance it computes the concrete one.

    Example:
        >>> class Uniform(Distribution):
        ...     @constraints.dependent_property(is_discrete=False, event_dim=0)
        ...     def support(self):
        ...         return constraints.interval(self.low, self.high)
    """

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """Treat ``reinterpreted_batch_ndims`` more trailing dimensions of ``base_constraint`` as
    part of the event: an event is valid when all its entries are."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        _expect(isinstance(base_constraint, Constraint),
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        _expect(isinstance(reinterpreted_batch_ndims, int), "reinterpreted_batch_ndims must be "
                f"an int, got {type(reinterpreted_batch_ndims).__name__}")
        _expect(reinterpreted_batch_ndims >= 0, "reinterpreted_batch_ndims must be >= 0, got "
                f"{reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        ok = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if ok.dim() < n:
            want = self.base_constraint.event_dim + n
            raise ValueError(f"Expected value.dim() >= {want} but got {value.dim()}")
        return ok.reshape(ok.shape[:ok.dim() - n] + (-1,)).all(-1)

    _tested_check = check

    def _array_test(self, array):
        if array.ndim < self.event_dim:
            return None  # check raises torch's error
        return _array_verdict(self.base_constraint, array)

    def __repr__(self):
        return f"{type(self).__name__[1:]}({self.base_constraint!r}, " \
               f"{self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(Constraint):
    """The support of a mixture: a value is valid when it is valid for the component
    distribution (checked against every component, which share one support)."""

    def __init__(self, base_constraint):
        _expect(isinstance(base_constraint, Constraint),
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        # a value of one mixture event meets every component's copy of the support
        ok = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got "
                             f"{value.dim()}")
        keep = value.dim() - self.event_dim
        return ok.reshape(ok.shape[:keep] + (-1,)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Boolean(Constraint):
    """The set {0, 1}."""

    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)

    _tested_check = check

    def _array_test(self, array):
        return True if array.dtype.kind == "b" else bool(((array == 0) | (array == 1)).all())


class _OneHot(Constraint):
    """One-hot vectors: 0/1 entries summing to one."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        binary = ((value == 0) | (value == 1)).all(-1)
        return binary & value.sum(-1).eq(1)


class _IntegerInterval(Constraint):
    """Integers in ``[lower_bound, upper_bound]``."""

    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    _tested_check = check

    def _array_test(self, array):
        lo, hi = _bound(self.lower_bound, array), _bound(self.upper_bound, array)
        if lo is None or hi is None or array.dtype.kind == "b":
            return None
        ok = bool(((lo <= array) & (array <= hi)).all())
        return ok and (array.dtype.kind != "f" or bool((array % 1 == 0).all()))

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, " \
               f"upper_bound={self.upper_bound})"


class _IntegerLessThan(Constraint):
    """Integers ``<= upper_bound``."""

    is_discrete = True

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value <= self.upper_bound)

    _tested_check = check

    def _array_test(self, array):
        hi = _bound(self.upper_bound, array)
        if hi is None or array.dtype.kind == "b":
            return None
        ok = bool((array <= hi).all())
        return ok and (array.dtype.kind != "f" or bool((array % 1 == 0).all()))

    def __repr__(self):
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    """Integers ``>= lower_bound``."""

    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    _tested_check = check

    def _array_test(self, array):
        lo = _bound(self.lower_bound, array)
        if lo is None or array.dtype.kind == "b":
            return None
        ok = bool((array >= lo).all())
        return ok and (array.dtype.kind != "f" or bool((array % 1 == 0).all()))

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _Real(Constraint):
    """The extended real line: anything but NaN."""

    def check(self, value):
        return value == value

    _tested_check = check

    def _array_test(self, array):
        return array.dtype.kind != "f" or bool((array == array).all())


class _GreaterThan(Constraint):
    """Reals strictly above ``lower_bound``."""

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound < value

    _tested_check = check

    def _array_test(self, array):
        lo = _bound(self.lower_bound, array)
        return None if lo is None or array.dtype.kind == "b" else bool((lo < array).all())

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    """Reals at or above ``lower_bound``."""

    def check(self, value):
        return self.lower_bound <= value

    _tested_check = check

    def _array_test(self, array):
        lo = _bound(self.lower_bound, array)
        return None if lo is None or array.dtype.kind == "b" else bool((lo <= array).all())


class _LessThan(Constraint):
    """Reals strictly below ``upper_bound``."""

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return value < self.upper_bound

    _tested_check = check

    def _array_test(self, array):
        hi = _bound(self.upper_bound, array)
        return None if hi is None or array.dtype.kind == "b" else bool((array < hi).all())

    def __repr__(self):
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """The closed interval ``[lower_bound, upper_bound]``."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    _tested_check = check

    def _array_test(self, array):
        lo, hi = _bound(self.lower_bound, array), _bound(self.upper_bound, array)
        if lo is None or hi is None or array.dtype.kind == "b":
            return None
        return bool(((lo <= array) & (array <= hi)).all())

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, " \
               f"upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    """The interval ``[lower_bound, upper_bound)``."""

    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    _tested_check = check

    def _array_test(self, array):
        lo, hi = _bound(self.lower_bound, array), _bound(self.upper_bound, array)
        if lo is None or hi is None or array.dtype.kind == "b":
            return None
        return bool(((lo <= array) & (array < hi)).all())


class _Simplex(Constraint):
    """Vectors of non-negative entries summing to one (within 1e-6)."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)

    _tested_check = check

    def _array_test(self, array):
        if array.ndim < 1 or array.dtype.kind != "f":
            return None
        return bool((array >= 0).all()) and bool((abs(array.sum(-1) - 1) < 1e-6).all())


class _Multinomial(Constraint):
    """Count vectors: non-negative entries whose total is at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


from ._matrix_constraints import (  # noqa: E402  (they subclass Constraint, defined above)
    _CorrCholesky, _LowerCholesky, _LowerTriangular, _PositiveDefinite, _PositiveSemidefinite,
    _Square, _Symmetric,
)


def _check_dim(dim, value):
    _expect(-value.dim() <= dim < value.dim(),
            f"dim {dim} out of range for value with {value.dim()} dimensions")


class _Cat(Constraint):
    """Slices of a tensor along ``dim`` (of the given ``lengths``, one each by default), each
    meeting its own constraint of ``cseq``."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq = list(cseq)
        _expect(all(isinstance(c, Constraint) for c in self.cseq),
                "All elements of cseq must be Constraint instances")
        if lengths is None:
            lengths = [1] * len(self.cseq)
        self.lengths = list(lengths)
        _expect(len(self.lengths) == len(self.cseq),
                f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        _check_dim(self.dim, value)
        parts, start = [], 0
        for c, n in zip(self.cseq, self.lengths):
            parts.append(c.check(value.narrow(self.dim, start, n)))
            start += n
        return torch.cat(parts, self.dim)


class _Stack(Constraint):
    """Entries of a tensor along ``dim``, each meeting its own constraint of ``cseq``."""

    def __init__(self, cseq, dim=0):
        self.cseq = list(cseq)
        _expect(all(isinstance(c, Constraint) for c in self.cseq),
                "All elements of cseq must be Constraint instances")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1
        return dim

    def check(self, value):
        _check_dim(self.dim, value)
        return torch.stack([c.check(v) for v, c in zip(value.unbind(self.dim), self.cseq)],
                           self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
