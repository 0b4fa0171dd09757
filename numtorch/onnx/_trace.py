"""Recording a model's forward pass as a graph of numtorch ops.

While a ``Trace`` is active, ``Op.apply`` (the one entry point of every primitive) is replaced
by a recording wrapper, in-place ops report through ``autograd.inplace``'s trace hook, and
recurrent layers are recorded whole (``RNNBase.forward`` is wrapped: one node per
``nn.LSTM``/``GRU``/``RNN`` call, so they export as ONNX's own recurrent operators). Nothing
is installed outside an export, so normal runs pay nothing.

A recorded value is identified by the tensor object that carried it (and by its array, which
``detach()``/``.data`` share). Any other tensor an op reads is a constant: a parameter or
buffer (named as in ``state_dict``) or a tensor made inside ``forward``.
"""

import threading

import numpy as np

from ..autograd import graph, inplace
from .errors import UnsupportedOperatorError

_ACTIVE = [None]  # the Trace being recorded


def host(a):
    """``a`` as a NumPy array (a CuPy array is copied to the host)."""
    if isinstance(a, np.ndarray):
        return a
    return a.get() if hasattr(a, "get") else np.asarray(a)


def active():
    """The Trace being recorded, or None."""
    return _ACTIVE[0]


class Node:
    """One recorded call.

    Attributes:
        op (str): the op class name (``"Conv"``), or ``"module:<Class>"`` for a whole layer,
            or ``"function:<Class>"`` for an autograd.Function with a ``symbolic``.
        inputs (list): one reference per positional input (see ``Trace.ref``).
        params (dict): the op's keyword parameters as given.
        outputs (list of int): the value ids of the outputs.
        dtypes (list or None): for ops that promote, the dtype every input is cast to.
        extra: what a module or function node needs (the module, the symbolic function).
    """

    __slots__ = ("dtypes", "extra", "inputs", "op", "outputs", "param_values", "params")

    def __init__(self, op, inputs, params, outputs, dtypes=None, extra=None):
        self.op, self.inputs, self.params, self.outputs = op, inputs, params, outputs
        self.dtypes, self.extra = dtypes, extra
        self.param_values = {}  # param key -> value id, for arrays in params that were traced


class Trace:
    """The values and nodes of one forward pass.

    Args:
        names (dict): ``id(array) -> state_dict key`` of the model's parameters and buffers.
        opset (int): the opset being exported (for error messages).
    """

    def __init__(self, names, opset=None):
        self.names = names
        self.opset = opset
        self.nodes = []
        self.arrays = []  # value id -> the array it held in this pass
        self.inputs = []  # value ids of the graph inputs, in order
        self.paused = 0
        self.thread = threading.get_ident()  # ops of other threads are not the model's
        self._by_tensor = {}  # id(tensor) -> (value id, version counter, version)
        self._by_array = {}  # id(array) -> value id
        self._keep = []  # every object whose id is a key above stays alive
        self.producer = {}  # value id -> the node that made it
        self.tensor_of = {}  # value id -> the tensor that carried it

    # -- values --------------------------------------------------------------------------
    def new_value(self, t):
        """Give tensor ``t`` (an op output or a graph input) a fresh value id."""
        vid = len(self.arrays)
        self.arrays.append(host(t._array))
        self._by_tensor[id(t)] = (vid, t._vc, t._vc[0])
        self._by_array[id(t._array)] = vid
        self._keep.append(t)
        self.tensor_of[vid] = t
        return vid

    def value_of(self, t):
        """The value id tensor ``t`` carries, or None for a constant."""
        got = self._by_tensor.get(id(t))
        if got is not None:
            vid, vc, version = got
            if t._vc is vc and vc[0] != version:
                raise UnsupportedOperatorError(
                    "in-place write into a traced tensor that bypasses the recorded ops "
                    "(a write through a view made some other way)", self.opset, None)
            return vid
        return self._by_array.get(id(t._array))

    def ref(self, x):
        """How a node refers to an input: ``("v", id)`` a traced value, ``("c", array, name)``
        a constant (``name`` for a parameter or buffer), ``("s", object)`` anything else."""
        if isinstance(x, graph.Tensor):
            vid = self.value_of(x)
            if vid is not None:
                return ("v", vid)
            name = self.names.get(id(x._array))
            arr = host(x._array)
            if name is None and arr is x._array:
                arr = arr.copy()  # a tensor made in forward may change later
            self._keep.append(x)
            return ("c", arr, name)
        if isinstance(x, (tuple, list)) and any(isinstance(i, graph.Tensor) for i in x):
            return ("l", [self.ref(i) for i in x])
        return ("s", x)

    def _array_value(self, a):
        """The value id of traced array ``a``, or of the traced array ``a`` is a same-shape
        view of (an op's ``index.reshape(-1)`` of a 1-d index is a new view object)."""
        if not isinstance(a, np.ndarray):
            return None
        vid = self._by_array.get(id(a))
        if vid is None and a.base is not None and isinstance(a.base, np.ndarray) and \
                a.shape == a.base.shape and a.dtype == a.base.dtype:
            vid = self._by_array.get(id(a.base))
        return vid

    # -- recording -----------------------------------------------------------------------
    def record(self, op, inputs, params, outs, dtypes=None, extra=None):
        """Add a node; ``outs`` is the tensor or tuple of tensors the call returned."""
        refs = [self.ref(x) for x in inputs]
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        vids = [self.new_value(o) if isinstance(o, graph.Tensor) else None for o in outs]
        node = Node(op, refs, dict(params), vids, dtypes, extra)
        for v in vids:
            self.producer[v] = node
        for key, value in params.items():
            if isinstance(value, tuple):
                for i, a in enumerate(value):
                    vid = self._array_value(a)
                    if vid is not None:
                        node.param_values[(key, i)] = vid
            else:
                vid = self._array_value(value)
                if vid is not None:
                    node.param_values[key] = vid
        self.nodes.append(node)
        return node

    def inplace(self, target, fn, args, kwargs):
        """The in-place hook: ``target.fn_(*args)`` becomes ``fn(target, *args)`` recorded,
        then written into ``target``, which from then on carries the new value (also when it
        was a constant: a random fill such as dropout's ``bernoulli_`` must stay a node).
        Writing into an indexed or reshaped view of a traced tensor updates that tensor too.
        Returns False (the normal path runs) inside a call recorded whole."""
        if self.paused or threading.get_ident() != self.thread:
            return False
        before = self.value_of(target)
        base = target._base
        base_vid = self.value_of(base) if base is not None else None
        out = fn(target, *args, **kwargs)
        vid = self.value_of(out)
        inplace._write(target, out, fn)
        if vid is None:  # the op returned a constant: keep target constant too
            return True
        self._by_tensor[id(target)] = (vid, target._vc, target._vc[0])
        self._keep.append(target)
        if base_vid is not None and before is not None:
            self._write_back(base, base_vid, before, vid)
        return True

    def _write_back(self, base, base_vid, view_vid, new_vid):
        """Record the new values of the tensors a view written in place came from (through
        indexing and reshapes) up to its base; a base reached some other way stays stale,
        and reading it raises."""
        chain = []
        vid = view_vid
        while vid != base_vid:
            made_by = self.producer.get(vid)
            if made_by is None or made_by.op not in ("GetItem", "Reshape") or \
                    made_by.inputs[0][0] != "v" or len(chain) > 64:
                return
            chain.append(made_by)
            vid = made_by.inputs[0][1]
        for made_by in chain:
            parent = made_by.inputs[0][1]
            tensor = self.tensor_of[parent]
            if made_by.op == "GetItem":
                node = Node("SetItem", [("v", parent), ("v", new_vid)],
                            {"index": made_by.params["index"]}, [])
            else:
                node = Node("Reshape", [("v", new_vid)],
                            {"shape": tuple(tensor.shape), "must_view": False}, [])
            new_vid = self.new_value(tensor)
            node.outputs = [new_vid]
            self.producer[new_vid] = node
            self.nodes.append(node)


# -- installing and removing the hooks -----------------------------------------------------


def _make_traced_apply(original):
    def traced_apply(cls, *inputs, **params):
        tr = _ACTIVE[0]
        if tr is None or tr.paused or threading.get_ident() != tr.thread:
            return original(cls, *inputs, **params)
        tr.paused += 1
        try:
            out = original(cls, *inputs, **params)
            dtypes = None
            if cls.promote:
                promoted = graph._promote(inputs, cls.promote == "float")
                common = next((p._array.dtype for p in promoted if isinstance(p, graph.Tensor)),
                              None)
                dtypes = [common] * len(inputs)
        finally:
            tr.paused -= 1
        tr.record(cls.__name__, inputs, params, out, dtypes)
        return out
    return traced_apply


def _make_recorded_forward(original):
    """A layer ``forward`` that records the whole call as one node (its inner ops are not
    recorded)."""
    def forward(module, *args, **kwargs):
        tr = _ACTIVE[0]
        if tr is None or tr.paused or threading.get_ident() != tr.thread:
            return original(module, *args, **kwargs)
        tr.paused += 1
        try:
            out = original(module, *args, **kwargs)
        finally:
            tr.paused -= 1
        inputs, structure = _module_inputs(tr, module, args, kwargs)
        tr.record("module:RNNBase", inputs, structure, _flatten_tensors(out), extra=module)
        return out
    return forward


def _module_inputs(tr, module, args, kwargs):
    """(input tensors, description) of a recurrent layer call: ``input`` and the states."""
    from ..nn.utils.rnn import PackedSequence

    names = ("input", "hx")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    x, hx = bound.get("input"), bound.get("hx")
    if isinstance(x, PackedSequence):
        raise UnsupportedOperatorError(f"{type(module).__name__} on a PackedSequence", tr.opset,
                                       None)
    states = () if hx is None else (tuple(hx) if isinstance(hx, (tuple, list)) else (hx,))
    return [x, *states], {"n_states": len(states)}


def _flatten_tensors(obj):
    out = []
    if isinstance(obj, graph.Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            out.extend(_flatten_tensors(o))
    elif isinstance(obj, dict):
        for o in obj.values():
            out.extend(_flatten_tensors(o))
    return out


class _Installed:
    """Context manager: the recording hooks in place for ``trace`` and ``model``."""

    def __init__(self, trace, model):
        self.trace, self.model = trace, model

    def __enter__(self):
        from ..autograd.function import Function
        from ..nn.modules.rnn import RNNBase

        self.apply = graph.Op.__dict__["apply"]
        graph.Op.apply = classmethod(_make_traced_apply(self.apply.__func__))
        self.fn_apply = Function.__dict__["apply"]
        Function.apply = classmethod(_make_function_apply(self.fn_apply.__func__))
        self.patched = {k: graph.Tensor.__dict__.get(k) for k in ("__setitem__", "fill_",
                                                                    "zero_")}
        graph.Tensor.__setitem__ = _make_setitem(graph.Tensor.__setitem__)
        graph.Tensor.fill_ = _make_fill(graph.Tensor.fill_)
        graph.Tensor.zero_ = _make_fill(graph.Tensor.zero_, 0)
        self.rnn_forward = RNNBase.__dict__["forward"]
        RNNBase.forward = _make_recorded_forward(self.rnn_forward)
        import numtorch

        from . import _inplace_views, _sorting

        self.sorting = _sorting.install(active, graph.Tensor, numtorch)
        self.sorting += _inplace_views.install(active, graph.Tensor)
        inplace._TRACE[0] = self.trace.inplace
        _ACTIVE[0] = self.trace
        return self

    def __exit__(self, *exc):
        from ..autograd.function import Function
        from ..nn.modules.rnn import RNNBase

        graph.Op.apply = self.apply
        Function.apply = self.fn_apply
        RNNBase.forward = self.rnn_forward
        from . import _sorting

        _sorting.restore(self.sorting)
        for name, original in self.patched.items():
            if original is None:
                delattr(graph.Tensor, name)  # the mixin's method shows through again
            else:
                setattr(graph.Tensor, name, original)
        inplace._TRACE[0] = None
        _ACTIVE[0] = None
        return False


def _make_setitem(original):
    """``x[index] = value`` recorded as a ``SetItem`` node when a traced value is involved
    (outside autograd the write goes straight into memory, past every op)."""
    def setitem(self, index, value):
        tr = _ACTIVE[0]
        if tr is None or tr.paused or threading.get_ident() != tr.thread:
            return original(self, index, value)
        involved = tr.value_of(self) is not None or (
            isinstance(value, graph.Tensor) and tr.value_of(value) is not None)
        if not involved:
            return original(self, index, value)
        from ..ops.indexing import convert_index

        idx, _ = convert_index(index if type(index) is not list else tuple(index), self)
        refs = [tr.ref(self), tr.ref(value)]
        original(self, index, value)
        node = tr.record("SetItem", [], {"index": idx}, self)
        node.inputs = refs
        return None
    return setitem


def _make_fill(original, fixed=None):
    """``fill_``/``zero_`` on a traced tensor through the in-place path (outside autograd
    they write a number straight into memory)."""
    def fill(self, *value):
        tr = _ACTIVE[0]
        if tr is None or tr.paused or threading.get_ident() != tr.thread or \
                tr.value_of(self) is None:
            return original(self, *value)
        from ..ops.indexing import full_like_value

        return inplace.apply_inplace(self, full_like_value, *(value or (fixed,)))
    return fill


def _make_function_apply(original):
    def apply(cls, *args, **kwargs):
        tr = _ACTIVE[0]
        symbolic = getattr(cls, "symbolic", None)
        if tr is None or tr.paused or symbolic is None or threading.get_ident() != tr.thread:
            return original(cls, *args, **kwargs)  # its ops are recorded one by one
        tr.paused += 1
        try:
            out = original(cls, *args, **kwargs)
        finally:
            tr.paused -= 1
        tr.record(f"function:{cls.__name__}", args, kwargs, _flatten_tensors(out),
                  extra=symbolic)
        return out
    return apply


def installed(trace, model):
    """The hooks of ``trace`` installed while the ``with`` block runs ``model``."""
    return _Installed(trace, model)


def flatten(obj):
    """The tensors inside nested tuples, lists and dicts, in order."""
    return _flatten_tensors(obj)
