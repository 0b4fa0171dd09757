"""sort/topk/argsort recorded whole while the exporter traces.

Their kernels pick the order with NumPy and then gather by that order: traced op by op, the
order would be a constant of the example input, and the exported graph would gather other
inputs in the example's order. Recorded as one call each, they export as ONNX ``TopK``.
"""

import threading

from .._required_dim import missing_dim


def _topk_symbolic(k, dim, largest, outputs, full=False):
    """The ``symbolic`` of one recorded call: TopK with ``k`` fixed at trace time."""
    def symbolic(g, x):
        import numpy as np

        if full:  # a whole sort: k read from the input's shape (it may be a dynamic axis)
            kk = g.op("Slice", g.op("Shape", x), np.array([dim], dtype=np.int64),
                      np.array([dim + 1], dtype=np.int64))
        else:
            kk = g.op("Constant", value_t=_Const(np.array([k], dtype=np.int64)))
        vals, idx = g.op("TopK", x, kk, axis_i=dim, largest_i=int(largest), sorted_i=1,
                         outputs=2)
        return (vals, idx)[outputs] if isinstance(outputs, int) else (vals, idx)
    return symbolic


class _Const:
    """A constant attribute value (read through ``_array`` as a tensor is)."""

    def __init__(self, array):
        self._array = array


def _run_unrecorded(tr_of, original, input, args, kwargs):
    """``(tracer, result)`` of ``original`` run with the tracer paused (its inner ops are not
    recorded), or ``(None, result)`` when no trace on this thread follows ``input``."""
    tr = tr_of()
    if tr is None or tr.paused or threading.get_ident() != tr.thread or \
            tr.value_of(input) is None:
        return None, original(input, *args, **kwargs)
    tr.paused += 1
    try:
        return tr, original(input, *args, **kwargs)
    finally:
        tr.paused -= 1


def _recorded(original, tr_of, plan):
    """``original`` wrapped: a call on a traced tensor is recorded as one TopK node."""
    def call(input, *args, **kwargs):
        tr, out = _run_unrecorded(tr_of, original, input, args, kwargs)
        if tr is None:
            return out
        k, dim, largest, which = plan(input, *args, **kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        tr.record("function:TopK", [input], {}, list(outs),
                  extra=_topk_symbolic(k, dim, largest, which, full=plan is not _topk_plan))
        return out
    return call


def _dim(input, dim):
    nd = max(input.dim(), 1)
    return dim + nd if dim < 0 else dim


def _sort_plan(input, dim=-1, descending=False, stable=False, *, out=None):
    if isinstance(dim, bool):  # sort(x, descending) positional forms are not torch's
        dim = -1
    d = _dim(input, -1 if dim is missing_dim else dim)
    return input.shape[d] if input.dim() else 1, d, descending, None


def _argsort_plan(input, dim=-1, descending=False, stable=False):
    k, d, largest, _ = _sort_plan(input, dim, descending)
    return k, d, largest, 1


def _topk_plan(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    return int(k), _dim(input, dim), largest, None


PLANS = {"sort": _sort_plan, "argsort": _argsort_plan, "topk": _topk_plan}


# Ops whose result is chosen by NumPy from the values (an order, a count, a position) and
# which have no converter: traced op by op they would export the example input's choice as
# a constant, so a call on a traced tensor is refused instead (torch refuses these too,
# except bucketize and unique, which numtorch cannot export yet).
REFUSED = {"median": "aten::median", "nanmedian": "aten::nanmedian",
           "kthvalue": "aten::kthvalue", "mode": "aten::mode", "msort": "aten::msort",
           "cummax": "aten::cummax", "cummin": "aten::cummin",
           "searchsorted": "aten::searchsorted", "histc": "aten::histc",
           "bincount": "aten::bincount", "bucketize": "aten::bucketize",
           "unique": "aten::_unique2"}


def _refusing(original, tr_of, aten):
    def call(*args, **kwargs):
        tr = tr_of()
        if tr is not None and not tr.paused and threading.get_ident() == tr.thread and any(
                tr.value_of(a) is not None for a in (*args, *kwargs.values())
                if hasattr(a, "_array")):
            from .errors import UnsupportedOperatorError

            raise UnsupportedOperatorError(aten, tr.opset, None)
        return original(*args, **kwargs)
    return call


def _nonzero_symbolic(*args, **kwargs):
    def symbolic(g, x):
        return g.op("Transpose", g.op("NonZero", x), perm_is=[1, 0])
    return symbolic


def _one_hot_symbolic(tensor, num_classes=-1):
    depth = int(num_classes) if num_classes != -1 else int(tensor.max()) + 1

    def symbolic(g, x):
        import numpy as np

        return g.op("OneHot", x, np.array(depth, dtype=np.int64),
                    np.array([0, 1], dtype=np.int64), axis_i=-1)
    return symbolic


def _whole(original, tr_of, make_symbolic, op):
    """``original`` wrapped: a call on a traced tensor is recorded as one node exported by
    the symbolic ``make_symbolic(*args, **kwargs)`` returns."""
    def call(input, *args, **kwargs):
        tr, out = _run_unrecorded(tr_of, original, input, args, kwargs)
        if tr is None:
            return out
        tr.record(f"function:{op}", [input], {}, out,
                  extra=make_symbolic(input, *args, **kwargs))
        return out
    return call


# recorded whole: the result's size follows the values, which ONNX computes at run time
WHOLE = {"nonzero": _nonzero_symbolic, "argwhere": _nonzero_symbolic}


def install(tr_of, tensor_cls, module):
    """Wrap the functions and methods; returns what ``restore`` needs."""
    saved = []
    from ..nn import functional

    for owner, names in ((tensor_cls, REFUSED), (module, REFUSED)):
        for name, aten in names.items():
            if not hasattr(owner, name):
                continue
            saved.append((owner, name, owner.__dict__.get(name)))
            setattr(owner, name, _refusing(getattr(owner, name), tr_of, aten))
    for owner, names in ((tensor_cls, WHOLE), (module, WHOLE),
                         (functional, {"one_hot": _one_hot_symbolic})):
        for name, make in names.items():
            saved.append((owner, name, owner.__dict__.get(name)))
            setattr(owner, name, _whole(getattr(owner, name), tr_of, make, name))
    for name, plan in PLANS.items():
        saved.append((tensor_cls, name, tensor_cls.__dict__.get(name)))
        setattr(tensor_cls, name, _recorded(getattr(tensor_cls, name), tr_of, plan))
        saved.append((module, name, module.__dict__.get(name)))
        setattr(module, name, _recorded(getattr(module, name), tr_of, plan))
    return saved


def restore(saved):
    for owner, name, original in reversed(saved):
        if original is None:
            delattr(owner, name)
        else:
            setattr(owner, name, original)
