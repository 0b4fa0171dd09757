"""Views made under ``no_grad`` of a tensor in a graph, as torch treats them.

Such a view (``_base`` set, ``_view_fn`` None: no replayable chain was recorded) reports
``requires_grad`` through its base but has no grad_fn and no accumulator of its own: gradient
sent into it goes nowhere (torch's edge is invalid; ours ends in a sink that drops it). It
remembers the version of its memory when it was made (``_view_src``, an int); once that
changed, by a write to the base, the view or a sibling, under no_grad or not, torch refuses to
use it in autograd (reading its grad_fn), because what the write should mean for its history
is ambiguous. Only these views reach this module (``graph.edge_of``), so tensors outside the
case pay nothing.
"""

from . import _custom_views, graph

_TAIL = ("Given that this use case is ambiguous and error-prone, it is forbidden. You can "
         "clarify your code by moving both the view and the inplace either both inside the "
         "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
         "want the inplace to be tracked).")


def _nowhere():
    return None


def is_sink(node):
    """Whether ``node`` is the sink of a no_grad view (an invalid edge in torch's terms)."""
    return type(node) is graph.AccumulateGrad and node._variable is _nowhere


def _sink(t):
    """The node gradient sent into view ``t`` reaches: an accumulator with no tensor (one per
    view, so gradients of its shape may be summed there before being dropped)."""
    node = t._accum
    if node is None or node._variable is not _nowhere:
        node = graph.AccumulateGrad(t)
        node._variable = _nowhere
        t._accum = node
    return node


def _subject(t):
    """How torch names the view in its refusals: a view made in grad mode from a no_grad view
    (it has a node of its own) is 'a view of a view'."""
    fn = t._grad_fn
    if fn is None:
        return "A view was created"
    return (f"Output {t._output_nr} of {fn.name().removesuffix('Backward0')} is a view of a "
            f"view which was created")


def _tail(t):
    # a view made inside a custom Function's forward (or an input it returned as-is) is
    # refused with the custom Function's explanation instead (autograd/_custom_views.py)
    return _custom_views.no_grad_tail(t) or _TAIL


def modified_text(t):
    """torch's refusal to use view ``t`` after its memory was written."""
    return (f"{_subject(t)} in no_grad mode and its base or another view of its base has been "
            f"modified inplace with grad mode enabled. {_tail(t)}")


def written_text(t):
    """torch's refusal to write view ``t`` in place in grad mode."""
    return f"{_subject(t)} in no_grad mode and is being modified inplace with grad mode " \
           f"enabled. {_tail(t)}"


def base_requires_grad(t):
    """Whether no_grad view ``t`` requires grad through its base (as torch reports it)."""
    base = t._base
    return (base._requires_grad or base._grad_fn is not None) and \
        t._array.dtype.kind in "fc"


def edge(t):
    """``graph.edge_of`` for a no_grad view ``t``."""
    fn = t._grad_fn
    if fn is None and t._requires_grad:  # made a leaf of its own by requires_grad_()
        node = t._accum
        if node is None or node._variable is _nowhere:
            node = t._accum = graph.AccumulateGrad(t)
        return (node, 0)
    if not base_requires_grad(t):
        return None if fn is None else (fn, t._output_nr)
    if t._vc[0] != t._view_src:
        raise RuntimeError(modified_text(t))
    if fn is not None:
        return (fn, t._output_nr)
    return (_sink(t), 0)
