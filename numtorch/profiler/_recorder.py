"""Recording op calls: the hook that ``Op.apply`` and the backward engine call while a
profiler (or a graph tracer) is active.

``numtorch.autograd.graph._hook`` is None in normal running, so an op pays one global load and
one comparison. A profiler sets it to an :class:`OpHook` whose ``op`` runs the call itself
(with ``busy`` set, so the inner ``apply`` goes straight to the op) and reports it to a sink.
``busy`` is per thread: ops another thread runs meanwhile are still seen.
"""

import re
import threading

from ..autograd import graph as _graph

__all__ = ["OpHook", "aten_name", "install", "uninstall"]


class OpHook(threading.local):
    """The object ``Op.apply`` consults; it forwards op calls and backward nodes to ``sink``.

    (A ``threading.local``: ``busy`` is each thread's own; ``__init__`` runs again in every
    thread that touches it, with the same sink.)
    """

    busy = False

    def __init__(self, sink):
        self.sink = sink

    def op(self, cls, inputs, params):
        return self.sink.op(self, cls, inputs, params)

    def node(self, node, buf, create_graph, root_arrays):
        return self.sink.node(node, buf, create_graph, root_arrays)


def install(sink):
    """Route op calls to ``sink`` (``sink.op(hook, cls, inputs, params)`` and
    ``sink.node(node, grads, create_graph, root_arrays)``); returns the previous hook."""
    prev = _graph._hook
    _graph._hook = OpHook(sink)
    return prev


def uninstall(prev):
    """Put back the hook that :func:`install` returned."""
    _graph._hook = prev


def call_op(hook, cls, inputs, params):
    """Run one op with the hook stepped aside on this thread."""
    hook.busy = True
    try:
        return cls.apply(*inputs, **params)
    finally:
        hook.busy = False


# -- torch's op names ----------------------------------------------------------------------
# numtorch's node classes already carry torch's autograd node names ("AddmmBackward0"); the
# op name is that name without the "Backward<n>" suffix, in snake case. A few differ.
_SPECIAL = {"ToCopy": "_to_copy", "LogSoftmax": "_log_softmax", "Softmax": "_softmax",
            "MatMul": "matmul", "CastForOp": "_to_copy", "LinearFused": "linear"}
_NAMES = {}


def _snake(camel):
    if camel in _SPECIAL:
        return _SPECIAL[camel]
    camel = re.sub(r"(\d)D", r"\1d", camel.lstrip("_"))
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", camel).lower()


def aten_name(cls, out):
    """Torch's name for the op ``cls`` that produced ``out`` ("aten::mm", "aten::add")."""
    fn = None
    first = out[0] if type(out) is tuple and out else out
    node = getattr(first, "_grad_fn", None)
    if node is not None and type(node)._op_cls is cls._op_cls:
        fn = type(node).__name__
    key = (cls, fn)
    name = _NAMES.get(key)
    if name is None:
        if fn is None:
            rule = _graph._rule_of(cls._op_cls)
            fn = rule if type(rule) is str else cls._op_cls.__name__
        if "::" in fn:  # already qualified (torch::autograd::CopySlices)
            name = fn
        else:
            name = "aten::" + _snake(re.sub(r"Backward\d*$", "", fn))
        _NAMES[key] = name
    return name
