"""``torch._dynamo``'s decorators and markers. numtorch runs every program eagerly (its
``torch.compile`` returns the function or an ``OptimizedModule`` that calls it), so these only
record what a compiler would be told: functions come back unchanged and ``mark_*`` notes the
dimensions on the tensor under the attribute names torch uses, which programs may read back."""

import contextlib
import dataclasses
import functools

__all__ = ["allow_in_graph", "assume_constant_result", "disallow_in_graph", "forbid_in_graph",
           "graph_break", "mark_dynamic", "mark_static", "mark_static_address",
           "maybe_mark_dynamic", "nonstrict_trace", "set_stance", "substitute_in_graph"]


def _same(fn):
    return fn


assume_constant_result = allow_in_graph = disallow_in_graph = _same
forbid_in_graph = nonstrict_trace = _same


def substitute_in_graph(original_fn, *, can_constant_fold_through=False,
                        skip_signature_check=False):
    """Decorator registering a traceable stand-in for ``original_fn``; eager code keeps
    calling the original, so the stand-in is returned as written."""
    return _same


def graph_break():
    """Where a compiler would split the graph; nothing happens when running eagerly."""


@dataclasses.dataclass(frozen=True, slots=True)
class _DimRange:
    """A dimension of a tensor and the least and greatest sizes it may take (what torch's
    ``mark_dynamic(min=, max=)`` records; checkpoints of jagged nested tensors hold them)."""

    dim: int
    min: int
    max: int


def _note(t, attr, index):
    dims = set(getattr(t, attr, set()))
    dims.update([index] if isinstance(index, int) else index)
    setattr(t, attr, dims)


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None):
    """Note that dim(s) ``index`` of ``t`` vary between calls (``t._dynamo_dynamic_indices``)."""
    _note(t, "_dynamo_dynamic_indices", index)


def maybe_mark_dynamic(t, index):
    """Like :func:`mark_dynamic`, as a hint (``t._dynamo_weak_dynamic_indices``)."""
    _note(t, "_dynamo_weak_dynamic_indices", index)


def mark_static(t, index=None):
    """Note that dim(s) ``index`` of ``t`` never change (``t._dynamo_static_indices``)."""
    if index is None:
        index = range(t.dim())
    _note(t, "_dynamo_static_indices", index)


def mark_static_address(t, guard=True):
    """Note that ``t``'s storage stays the same between calls."""
    t._dynamo_static_input_type = "guarded" if guard else "unguarded"


class set_stance(contextlib.ContextDecorator):  # torch's class name
    """How compiled functions behave (``"default"``, ``"force_eager"``, ...): as a call, a
    context manager or a decorator. Everything already runs eagerly in numtorch."""

    _current = ["default"]

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        self.stance = stance
        self._prev = set_stance._current[0]
        set_stance._current[0] = stance

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        set_stance._current[0] = self._prev
        return False

    def __call__(self, fn):
        prev = self._prev
        set_stance._current[0] = prev  # as a decorator the stance holds only inside fn

        @functools.wraps(fn)
        def inner(*args, **kwargs):
            old = set_stance._current[0]
            set_stance._current[0] = self.stance
            try:
                return fn(*args, **kwargs)
            finally:
                set_stance._current[0] = old

        return inner
