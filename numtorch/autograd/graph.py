"""The graph node: ``Op``. Each call of an op creates one instance, which is the output's grad_fn.

An ``Op`` subclass writes ``forward(*arrays)`` on raw xp arrays and ``backward(*grads)`` with
numtorch ops on Tensors, so backward is itself differentiable. ``Op.apply`` does the common work
once: dtype promotion, the device check, grad-mode bookkeeping, view tracking and wrapping the
outputs.

Edges point at the producer of each input as ``(node, output_nr)`` (a leaf's producer is its
``AccumulateGrad``), captured when the node is made. An in-place op later re-points the tensor
at a new node, while nodes built earlier keep the edge they saw, as torch's graph does.
"""

from .._class_repr import TorchNamed, object_repr as _object_repr
import itertools
import weakref

import numpy as np

from .. import _dtype
from .. import backend
from .._alloc_errors import alloc_error as _alloc_error
from .._tensor import Tensor, _make
from ..backend._meta import MetaArray as _Meta
from ._graph_api import (  # noqa: F401  (torch.autograd.graph's public names live there)
    HOOKS_ACTIVE as _SAVED_HOOKS, GradientEdge, Packed as _Packed, current_hooks as _packing,
    allow_mutation_on_saved_tensors, disable_saved_tensors_hooks, get_gradient_edge,
    increment_version, save_on_cpu,
    saved_tensors_hooks,
)
from ._pointwise_layout import device_elementwise_result, pointwise_laid_out
from .anomaly_mode import _flags as _anomaly, forward_stack
from .grad_mode import InferenceVersion, _state

_new = object.__new__
_sequence = itertools.count(1)  # creation order of nodes: a valid order to run backward in
# in an open forward-AD level: id(node) -> (node, {output index: tangent}) for the nodes whose
# outputs got tangents, so that a saved output rebuilt for backward carries its tangent
_FW_OUT = {}
_hook = None  # numtorch.profiler's recorder while a profiler is active (one None check per op)

_INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors "
                    "created in inference mode in computation tracked by autograd. To work "
                    "around this, you can make a clone to get a normal tensor and use it in "
                    "autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")

_METADATA = weakref.WeakKeyDictionary()  # node -> its ``metadata`` dict (an op node's __dict__
# holds only its parameters)

_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
          "after they have already been freed). Saved intermediate values of the graph are freed "
          "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
          "backward through the graph a second time or if you need to access saved tensors after "
          "calling backward.")


class Node(metaclass=TorchNamed):
    """What the engine needs of a node: edges, input metadata, hooks, and ``_run``."""

    _edges = ()
    _in_meta = ()
    _pre_hooks = None  # {output_nr: [hook(grad) -> grad or None]} (tensor hooks)
    _node_pre_hooks = None  # [hook(grad_outputs) -> tuple or None] (register_prehook)
    _retain = None  # {output_nr: weakref to a non-leaf tensor that called retain_grad()}
    _saved = None
    _hooks = None  # [hook(grad_inputs, grad_outputs)] run after the node (register_hook on node)
    _n_out = 1
    _out_meta = ((), None)
    _seq = 0  # set by every node type at creation (see _sequence)

    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        # a no_grad view's sink is torch's invalid edge
        return tuple((e[0], e[1]) if e is not None and not _no_grad_views.is_sink(e[0]) else
                     (None, 0) for e in self._edges)

    @property
    def metadata(self):
        """A dict kept with the node for the user's own annotations (empty at first)."""
        d = _METADATA.get(self)
        if d is None:
            d = _METADATA[self] = {}
        return d

    def _sequence_nr(self):
        return self._seq

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after this node ran; a returned tuple
        replaces ``grad_inputs``."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return RemovableHandle(self._hooks, fn)

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before this node runs; a returned tuple replaces
        ``grad_outputs``."""
        if self._node_pre_hooks is None:
            self._node_pre_hooks = []
        self._node_pre_hooks.append(fn)
        return RemovableHandle(self._node_pre_hooks, fn)

    def _add_pre_hook(self, nr, fn):
        if self._pre_hooks is None:
            self._pre_hooks = {}
        hooks = self._pre_hooks.setdefault(nr, [])
        hooks.append(fn)
        return RemovableHandle(hooks, fn)

    def __call__(self, *grads):
        """Run this node's backward on ``grads`` (one per output of the forward op) under
        the current grad mode, as torch's ``grad_fn(*grads)``: the gradient for the single
        input, or a tuple with one per input edge. No hook runs; an ``AccumulateGrad`` adds
        into its leaf's ``.grad`` and returns ``()``."""
        if len(grads) != self._n_out:
            raise TypeError(f"expected {self._n_out} arguments, got {len(grads)} instead")
        for g in grads:
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(f"expected a Tensor or None, got {type(g).__name__}")
        if self._saved is None and getattr(self, "_released", False):
            raise RuntimeError(_FREED)
        owned = {id(g._array) for g in grads if g is not None}  # the caller's: copied, not kept
        if type(self) is AccumulateGrad:  # a graph-carrying .grad only for such a gradient
            self._run(grads, _state.enabled and any(g is not None and g._requires_grad
                                                    for g in grads), owned)
            return ()
        res = self._run(grads, _state.enabled, owned)
        res = tuple(res) + (None,) * (len(self._edges) - len(res))
        return res[0] if len(res) == 1 else res

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


_handle_ids = itertools.count()


class RemovableHandle:
    """Returned by every autograd ``register_*hook``; ``remove()`` (or leaving a ``with``
    block) takes the hook out again."""

    __repr__ = _object_repr  # torch's name in the default object repr
    _torch_name = "torch.utils.hooks.RemovableHandle"

    __slots__ = ("_hooks", "_fn", "id")

    def __init__(self, hooks, fn):
        self._hooks, self._fn = hooks, fn
        self.id = next(_handle_ids)

    def remove(self):
        for i, h in enumerate(self._hooks):
            if h is self._fn:
                del self._hooks[i]
                return

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AccumulateGrad(Node):
    """The sink of a leaf tensor that requires grad: adds incoming gradients into ``.grad``."""

    _n_out = 1
    _post_acc_hooks = None  # [hook(tensor)] run after .grad is updated (post-accumulate hooks)

    def __init__(self, tensor):
        # the leaf owns its accumulator; the graph must not keep a dead leaf alive
        self._variable = weakref.ref(tensor)
        self._seq = next(_sequence)
        self._out_meta = ((tensor._array.shape, tensor._array.dtype),)

    @property
    def variable(self):
        return self._variable()

    def _run(self, grads, create_graph, root_arrays):
        (g,) = grads
        t = self._variable()
        if g is None or t is None:
            return ()
        if type(g) is np.ndarray:  # a bare array from the engine's first-order path
            accumulate_array(t, g, root_arrays)
        else:
            accumulate(t, g, create_graph, root_arrays)
        if self._post_acc_hooks:
            from .hooks import run_post_accumulate_hooks

            run_post_accumulate_hooks(self, t)
        return ()

    def name(self):
        return "torch::autograd::AccumulateGrad"


_DENSE_GRAD = (Tensor, type(None))


def accumulate(t, g, create_graph, root_arrays=None):
    """Add gradient ``g`` into ``t.grad`` as torch does: kept in ``t``'s layout, a graph-built
    sum with ``create_graph``, in place otherwise. ``root_arrays`` (ids of arrays already
    handed out by this backward pass) lets an unshared array be adopted without a copy; with
    None the gradient is always copied (the caller keeps ``g`` too)."""
    if (type(g) is not Tensor or type(t._grad) not in _DENSE_GRAD) and \
            _sparse_accumulate(t, g, create_graph):
        return
    if create_graph:
        warn_create_graph_cycle()
        old = t._grad
        if old is None:
            # torch's first .grad is a copy (never the incoming tensor) that stays in the graph
            from ._grad_layout import CopyBackwards, GradInLayout, is_dense

            like = t._array
            g = CopyBackwards.apply(g, like=like) if is_dense(like) else \
                rename_node(GradInLayout.apply(g, like=like), "CloneBackward0")
        extra = t._extra
        if extra and extra.get("grad_dtype", g.dtype) not in (None, g.dtype):
            g = g.to(extra["grad_dtype"])
        t._grad = g if old is None else old + g
        return
    if root_arrays is None:
        add_to_grad(t, _copy_layout(g._array))
        return
    accumulate_array(t, g._array, root_arrays)


def accumulate_array(t, arr, root_arrays):
    """``accumulate`` of the dense gradient array ``arr`` while no graph is built (the engine
    hands its first-order gradients over as bare NumPy arrays)."""
    if type(t._grad) not in _DENSE_GRAD and _sparse_accumulate(t, _make(arr), False):
        return  # (into a sparse .grad)
    if t._grad is None and not _same_layout(arr, t._array):
        from ._grad_layout import copy_as

        arr = copy_as(arr, t._array)  # torch's layout contract: the leaf's strides
    elif arr.base is not None or id(arr) in root_arrays:  # never alias anyone's data
        arr = _copy_layout(arr)
    if t._grad is None and arr.dtype == t._array.dtype and not (
            t._extra and "grad_dtype" in t._extra):
        t._grad = _make(arr)  # the common case, inline: adopt the array
        root_arrays.add(id(arr))  # a second leaf fed the same array copies it
    elif t._extra and "grad_dtype" in t._extra:
        add_to_grad(t, _copy_layout(arr))  # may keep arr's dtype: never share it
    else:
        add_to_grad(t, arr)


def _sparse_accumulate(t, g, create_graph):
    """Add ``g`` into leaf ``t``'s ``.grad`` when either is a sparse COO tensor (an
    embedding's ``sparse=True`` gradient), as torch does: sparse + sparse stays sparse (the
    entries concatenated, uncoalesced), anything with a dense side becomes dense. Returns
    False when both are dense (the caller's ordinary path)."""
    from .._sparse import is_sparse

    old = t._grad
    if not is_sparse(g) and not is_sparse(old):
        return False
    if create_graph:
        warn_create_graph_cycle()
    if old is None:
        t._grad = g if create_graph else g.detach()
    elif is_sparse(old) and not is_sparse(g):
        t._grad = g + old if create_graph else _make(g._array + old.to_dense()._array)
    elif is_sparse(old) or create_graph:
        t._grad = old + g
    else:  # dense .grad: the sparse entries added in place
        add_to_grad(t, g.to_dense()._array)
    return True


def _same_layout(arr, like):
    """Whether gradient array ``arr`` may be kept as leaf array ``like``'s ``.grad`` as it is
    (the row-major case inline; see ``_grad_layout`` for torch's rule)."""
    if type(arr) is backend.DEVICE_ARRAY and type(like) is backend.DEVICE_ARRAY:
        contiguous = backend.DEVICE_C_CONTIGUOUS  # (CuPy's .flags is a new object each time)
        if contiguous(arr) and contiguous(like):
            return True
    try:
        if arr.flags.c_contiguous and like.flags.c_contiguous:
            return True
    except AttributeError:  # arrays without flags (meta) have no layout to keep
        return True
    from ._grad_layout import obeys

    return obeys(arr, like)


def _copy_layout(arr):
    """A copy of ``arr`` with its exact strides where it is dense (size-1 dims included)."""
    flags = getattr(arr, "flags", None)
    if flags is None or flags.c_contiguous and (arr.ndim < 2 or
                                                arr.strides[-2] != arr.strides[-1]):
        return arr.copy()  # row-major: NumPy's copy has the same strides (size-1 rows aside)
    if any(st == 0 and n > 1 for st, n in zip(arr.strides, arr.shape)):
        return arr.copy()  # an expanded gradient is stored row-major
    from ..ops.cast import _copy_preserving_layout

    return _copy_preserving_layout(arr)


def add_to_grad(t, arr):
    """Add ``arr`` (handed over by the caller) into leaf ``t``'s ``.grad`` while no graph is
    built: adopted as the gradient when there is none, else added in place as torch does."""
    dt = t._array.dtype
    extra = t._extra
    if extra and "grad_dtype" in extra:  # a leaf's own gradient dtype (None: any)
        dt = arr.dtype if extra["grad_dtype"] is None else extra["grad_dtype"].np
    if arr.dtype is not dt and arr.dtype != dt:
        arr = arr.astype(dt)
    old = t._grad
    if old is None:
        if not _same_layout(arr, t._array):
            from ._grad_layout import copy_as

            arr = copy_as(arr, t._array)
        t._grad = _make(arr)
    elif old.requires_grad:
        # torch adds into a .grad that has history in place (it keeps its grad_fn and
        # requires_grad, and its version moves); a new array keeps other holders of the old one
        # (saved for a graph, or shared) unchanged
        old._array = old._array + arr
        old._vc[0] += 1
    else:
        a = old._array
        (np if type(a) is np.ndarray else backend.xp_of(a)).add(a, arr, out=a)
        old._vc[0] += 1  # an in-place add: torch's version counter moves


_CYCLE_WARNED = []


def warn_create_graph_cycle():
    """Torch's one-time warning when ``backward(create_graph=True)`` fills a leaf's ``.grad``."""
    if not _CYCLE_WARNED:
        _CYCLE_WARNED.append(True)
        import warnings

        warnings.warn("Using backward() with create_graph=True will create a reference cycle "
                      "between the parameter and its gradient which can cause a memory leak. We "
                      "recommend using autograd.grad when creating the graph to avoid this. If "
                      "you have to use this function, make sure to reset the .grad fields of "
                      "your parameters to None after use to break the cycle and avoid the leak.",
                      UserWarning, stacklevel=4)


def accumulator(t):
    """The AccumulateGrad node of leaf ``t`` (made once, kept on the tensor)."""
    node = t._accum
    if node is None:
        node = t._accum = AccumulateGrad(t)
    return node


def edge_of(t):
    """The edge (node, output_nr) along which gradient flows into ``t``, or None."""
    if t._base is not None:
        if t._view_fn is None:  # made under no_grad: its own rules (and refusals)
            return _no_grad_views.edge(t)
        if t._base._grad_fn is not t._view_src:
            src = t._view_src  # a tuple: a multi-output view's (base grad_fn, version) when made
            if type(src) is not tuple or src[0] is not t._base._grad_fn or src[1] != t._vc[0]:
                t._refresh_view_grad_fn()
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (accumulator(t), 0)
    return None


class Op(Node):
    """Base class of every differentiable primitive; see the module docstring.

    A subclass writes ``forward(*arrays)`` and ``backward(*grads)``; a hot or delicate backward
    is a second op (``<Op>Backward``) that ``backward`` applies. A whole-layer op (a recurrent
    sequence, fused attention) may also define ``backward_arrays(*grads)``: the same first-order
    gradients on raw xp arrays (arrays in, an array or None per input out). The engine runs it
    instead of ``backward`` whenever no graph is being built, and ``backward`` (composed of
    numtorch ops, so differentiable) under ``create_graph``; the tests compare the two. The
    hottest small ops (mul, div, tanh, sum, ...) have one too, because on tiny tensors the
    dispatch of the ops a composed backward applies costs several times the arithmetic; theirs
    does exactly the array operations the composed one reaches (bit for bit) and returns
    ``NotImplemented`` for the cases it leaves to ``backward`` (complex, mixed dtypes).

    Class attributes a subclass may set:
        differentiable: False for comparisons, argmax and friends (never a node).
        is_view: True when the output shares memory with input 0 (view tracking).
        promote: True to cast all Tensor and scalar inputs to torch's result dtype first.
        out_layout: None (the forward's arrays as they come: elementwise ops keep their
            input's layout, as torch's do), "contiguous" (torch allocates the result
            row-major whatever the input's strides: reductions, scans, gather) or "format"
            (the input's suggested memory format: channels-last stays channels-last, any other
            layout becomes row-major) or "pointwise" (an elementwise op on several tensors:
            the operands' layouts decide, the first one where they disagree; see
            ``_pointwise_layout``) or "elementwise" (an op whose forward NumPy's ufuncs lay out
            like their operands, as torch does: nothing to do on the host; on device arrays,
            which CuPy allocates row-major, the result is laid out by the "pointwise" rule).
            A user's ``.view`` after the op works or fails as in torch only when the strides
            agree.
        node_name: torch's name for this op's graph node ("MulBackward0"), or a function of
            the node returning it when the name depends on the arguments; without it the name
            comes from ``node_names.RULES`` or is ``<Class>Backward0``. A call may also pass
            ``node_name="..."`` as a parameter (a function such as ``t()`` that reuses an op
            under another torch name).

    A recorded node's class is a subclass of the op named after torch's node, so
    ``type(y.grad_fn).__name__`` and ``y.grad_fn.name()`` read as in torch.
    """

    # The node's own state lives in slots; the instance ``__dict__`` holds only the op's
    # parameters (the keyword arguments of ``apply``, read in forward/backward as ``self.dim``)
    # and whatever forward keeps for backward, so a view's replay takes exactly its parameters.
    __slots__ = ("xp", "_recording", "_seq", "_edges", "_in_meta", "_out_meta", "_n_out",
                 "_inputs_arrays", "_in_tensors", "_saved", "_released", "_anomaly_trace",
                 "_pre_hooks", "_node_pre_hooks", "_retain", "_hooks")

    differentiable = True
    backward_arrays = None  # the first-order fast path of a whole-layer op (see above)
    device_layout = None  # fn(out, arrays) -> out on device arrays (out_layout "elementwise")
    is_view = False
    promote = False
    # a Python number times (or into) a float16/bfloat16 tensor: torch multiplies in float32
    # with the number as a float32 and rounds once (the number is not first rounded to the
    # tensor's dtype); such ops get it as an np.float32 scalar (see half_opmath)
    opmath_scalar = False
    _op_cls = None  # the op class itself; on a generated node class, the op it names

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "once_differentiable" in cls.__dict__:
            raise TypeError(f"{cls.__qualname__}: an op's backward is written with numtorch ops "
                            "(a hot one applies a fused <Op>Backward op); only a whole-layer op "
                            "adds a raw-array backward_arrays beside it, which the engine runs "
                            "when no graph is built. once_differentiable is not an op option.")
        if "_op_cls" not in cls.__dict__:
            cls._op_cls = cls
        layout = getattr(cls, "out_layout", None)
        if layout == "elementwise":
            cls.device_layout = staticmethod(device_elementwise_result)
        elif layout is not None and ("forward" in cls.__dict__ or "out_layout" in cls.__dict__):
            forward = getattr(cls.forward, "__wrapped__", cls.forward)
            cls.forward = pointwise_laid_out(forward) if layout == "pointwise" else \
                _laid_out(forward, layout == "format")

    @classmethod
    def apply(cls, *inputs, **params):
        # This is the hottest function of the library: everything is inlined on purpose.
        if _hook is not None and not _hook.busy:
            return _hook.op(cls, inputs, params)
        promote = cls.promote
        if promote:
            # a float tensor into a float op, or two tensors of one dtype: nothing to cast
            # (settled here: _promote's call is a tenth of a small op's dispatch)
            x = inputs[0]
            if type(x) is not Tensor:
                if cls.opmath_scalar and len(inputs) == 2 and isinstance(x, Tensor) and \
                        _half_opmath_scalar(x, inputs[1]):
                    # a float16/bfloat16 parameter's product or quotient with a number: in
                    # float32, as for a plain tensor below
                    inputs = (x, np.float32(inputs[1]))
                elif cls.opmath_scalar and len(inputs) == 2 and isinstance(x, Tensor) and \
                        (s := _half_opmath_0d(cls, x, inputs[1])) is not None:
                    if s.__class__ is not np.float32:  # it needs a gradient
                        return s.apply(x, _CastForOp.apply(inputs[1], dtype=_F32) if
                                       inputs[1]._array.dtype != _F32 else inputs[1], **params)
                    inputs = (x, s)
                else:
                    inputs = _promote(inputs, promote == "float")
            elif len(inputs) == 1:
                if promote == "float" and x._array.dtype.kind not in _FLOATISH:
                    inputs = _promote(inputs, True)
            elif len(inputs) != 2:
                inputs = _promote(inputs, promote == "float")
            elif type(inputs[1]) is float:
                # ``x * 0.5`` on a float tensor: the scalar takes the tensor's dtype (a
                # float32 one into a half tensor's product or quotient: opmath_scalar)
                dt = x._array.dtype
                inputs = (x, (np.float32 if dt.itemsize == 2 and cls.opmath_scalar else
                              dt.type)(inputs[1])) if dt.kind in _FLOATISH else \
                    _promote(inputs, promote == "float")
            elif type(inputs[1]) is int and promote is True:
                # ``i + 1`` on a long tensor, ``x * 2`` on a float one: _promote's own cases
                dt = x._array.dtype
                b = inputs[1]
                inputs = (x, (np.float32 if dt.itemsize == 2 and dt.kind in _FLOATISH and
                              cls.opmath_scalar else dt.type)(b)) if (
                    dt.kind == "i" and dt.itemsize == 8 and -(1 << 63) <= b < 1 << 63 or
                    dt.kind in _FLOATISH and -(1 << 63) <= b < 1 << 64) else \
                    _promote(inputs, False)
            elif type(inputs[1]) is not Tensor or \
                    x._array.dtype is not inputs[1]._array.dtype or \
                    (promote == "float" and x._array.dtype.kind not in _FLOATISH):
                if cls.opmath_scalar and (s := _half_opmath_0d(cls, x, inputs[1])) is not None:
                    if s.__class__ is not np.float32:  # it needs a gradient
                        return s.apply(x, _CastForOp.apply(inputs[1], dtype=_F32) if
                                       inputs[1]._array.dtype != _F32 else inputs[1], **params)
                    inputs = (x, s)  # a half tensor times a 0-d float one: as by a number
                else:
                    inputs = _promote(inputs, promote == "float")
        arrays = None
        on_np = True
        dev_xp = None  # CuPy, when the fast path below settled the devices
        edges = None
        volatile = False
        x = inputs[0]
        n = len(inputs)
        if n <= 3 and isinstance(x, Tensor) and x._extra is None and \
                (x._base is None or _edgeless_view(x)) and (
                (kind := type(x._array)) is np.ndarray or
                kind is backend.DEVICE_ARRAY and backend.ONLY_DEVICE is not None):
            # a plain CPU tensor (or parameter), alone (a unary op), with a plain CPU tensor or
            # a host scalar (a binary op) or with two plain CPU tensors (linear's x, W, b): the
            # arrays and edges without the general loops below, which treat every Tensor
            # subclass alike too. The same for tensors on the one GPU (arrays of CuPy's class
            # on every side): nothing to check of their devices
            a = x._array
            record = _state.enabled and cls.differentiable
            if n == 1:
                arrays = [a]
                if record and x._requires_grad:
                    fn = x._grad_fn
                    e = (fn, x._output_nr) if fn is not None else (x._accum or accumulator(x), 0)
                    edges = [e]
                    # a one-output node's whole meta tuple describes the one input: shared
                    # (inline: this runs for every unary op in a graph; see _meta_of)
                    meta = getattr(e[0], "_out_meta", ())
                    if len(meta) != 1 or (m := meta[0]) is None or m[1] is not a.dtype or \
                            m[0] != a.shape:
                        meta = [_meta_of(e, a)]
            elif n == 2:
                y = inputs[1]
                if isinstance(y, Tensor):
                    b = y._array
                    if y._extra is None and type(b) is kind and \
                            (y._base is None or _edgeless_view(y)):
                        arrays = [a, b]
                        if record and (x._requires_grad or y._requires_grad):
                            fn = x._grad_fn
                            ex = (fn, x._output_nr) if fn is not None else \
                                (x._accum or accumulator(x), 0) if x._requires_grad else None
                            fn = y._grad_fn
                            ey = (fn, y._output_nr) if fn is not None else \
                                (y._accum or accumulator(y), 0) if y._requires_grad else None
                            edges = [ex, ey]
                            meta = [_meta_of(ex, a), _meta_of(ey, b)]
                elif type(y) in _HOST:
                    arrays = [a, y]
                    if record and x._requires_grad:
                        fn = x._grad_fn
                        e = (fn, x._output_nr) if fn is not None else \
                            (x._accum or accumulator(x), 0)
                        edges = [e, None]
                        # (``x * 0.5``: _meta_of inline for a one-output node)
                        om = getattr(e[0], "_out_meta", ())
                        if len(om) != 1 or (m := om[0]) is None or m[1] is not a.dtype or \
                                m[0] != a.shape:
                            m = _meta_of(e, a)
                        meta = [m, None]
            else:
                y, z = inputs[1], inputs[2]
                if isinstance(y, Tensor) and isinstance(z, Tensor) and y._extra is None and \
                        z._extra is None and type(y._array) is kind and \
                        type(z._array) is kind and (y._base is None or _edgeless_view(y)) and \
                        (z._base is None or _edgeless_view(z)):
                    b, c = y._array, z._array
                    arrays = [a, b, c]
                    if record and (x._requires_grad or y._requires_grad or z._requires_grad):
                        edges = [_plain_edge(x), _plain_edge(y), _plain_edge(z)]
                        meta = [_meta_of(edges[0], a), _meta_of(edges[1], b),
                                _meta_of(edges[2], c)]
                elif z is None and isinstance(y, Tensor) and y._extra is None and \
                        type(y._array) is kind and (y._base is None or _edgeless_view(y)):
                    # two tensors and an absent one (layer_norm's weight without a bias)
                    b = y._array
                    arrays = [a, b, None]
                    if record and (x._requires_grad or y._requires_grad):
                        edges = [_plain_edge(x), _plain_edge(y), None]
                        meta = [_meta_of(edges[0], a), _meta_of(edges[1], b), None]
            if arrays is not None and kind is not np.ndarray:
                on_np = False
                dev_xp = backend._CUPY
        if arrays is not None:
            pass
        elif _state.enabled and cls.differentiable:
            arrays = []
            # one pass: gather the arrays and find whether any input joins a graph; the edges
            # are only built (second pass) when one does (most calls are on plain data)
            for x in inputs:
                if isinstance(x, Tensor):
                    a = x._array
                    if type(a) is not np.ndarray:
                        on_np = False
                    arrays.append(a)
                    if x._requires_grad or x._base is not None or x._extra is not None:
                        edges = True
                else:
                    arrays.append(x)
            if edges:
                edges, meta = _edges(inputs)
                if edges is None:
                    volatile = meta  # True for a 0.x volatile input: nothing records
        else:
            arrays = []
            for x in inputs:  # one loop, no comprehension frame: this path runs most often
                if isinstance(x, Tensor):
                    a = x._array
                    arrays.append(a)
                    if type(a) is not np.ndarray and on_np:
                        on_np = _host_like(a) and type(a) is not _Meta
                else:
                    arrays.append(x)
                    if type(x) not in _HOST and on_np:
                        on_np = _host_like(x)
        if edges is None:
            self = _new(cls)
            if params:
                self.__dict__ = params  # a fresh dict per call: adopt it instead of copying
            xp = self.xp = np if on_np else dev_xp or _check_devices(cls, inputs)
            if xp is None:  # CPU 0-d tensors beside CUDA ones: moved over, as torch allows
                return cls.apply(*_scalars_to_device(inputs), **params)
            self._recording = False
            try:
                out = self.forward(*arrays) if on_np or dev_xp is not None and \
                    self.device_layout is None else _forward_on_device(self, arrays)
            except MemoryError as e:  # NumPy's "Unable to allocate" in torch's words
                raise _alloc_error(e) from None
            if type(out) is np.ndarray:
                outs = _make(out)
            elif type(out) is tuple:
                outs = tuple(_wrap_output(self, o, i, False) for i, o in enumerate(out))
            elif on_np and isinstance(out, np.generic):  # a 0-d operation's NumPy scalar
                outs = _make(np.asarray(out))
            else:
                outs = _make(out) if type(out) is backend.DEVICE_ARRAY else \
                    _wrap_output(self, out, 0, False)
            if volatile:
                _mark_volatile(outs)
            if cls.is_view and self.__dict__.get("is_view", True):
                _track_view(self, inputs[0], outs, params)
            return outs
        # the node is made as torch's node class when its name never varies (otherwise as the
        # op class, renamed below once forward has set what the name depends on)
        named = _NAMED.get((cls._op_cls, params["node_name"])) if "node_name" in params else \
            _NODE_TYPES.get(cls)
        self = _new(cls if named is None else named)
        if params:
            self.__dict__ = params
        xp = self.xp = np if on_np else dev_xp or _check_devices(cls, inputs)
        if xp is None:
            return cls.apply(*_scalars_to_device(inputs), **params)
        self._recording = True
        self._seq = next(_sequence)
        self._inputs_arrays = arrays
        self._in_tensors = inputs
        self._edges = edges  # set before forward: ops save only what needed grads read
        self._saved = self._pre_hooks = self._node_pre_hooks = self._retain = None
        self._hooks = None
        try:
            out = self.forward(*arrays) if on_np or dev_xp is not None and \
                    self.device_layout is None else _forward_on_device(self, arrays)
        except MemoryError as e:  # NumPy's "Unable to allocate" in torch's words
            raise _alloc_error(e) from None
        if type(out) is np.ndarray:
            outs = _make(out)
            if out.dtype.kind in "fcV":
                outs._requires_grad = True
                outs._grad_fn = self
            self._n_out = 1
            m = meta[0]
            if m is not None and m[1] is out.dtype and m[0] == out.shape:
                # the result is described by input 0's (shape, dtype): share that tuple (a
                # unary op's meta shared whole from the node it came from: that one tuple)
                self._out_meta = meta if type(meta) is tuple and len(meta) == 1 else (m,)
            else:
                self._out_meta = ((out.shape, out.dtype),)
        elif type(out) is tuple:
            outs = tuple(_wrap_output(self, o, i, True) for i, o in enumerate(out))
            self._n_out = len(outs)
            self._out_meta = tuple((o._array.shape, o._array.dtype) for o in outs)
        else:
            if type(out) is not backend.DEVICE_ARRAY:
                out = _as_array(self, out)
            outs = _make(out)
            if out.dtype.kind in "fcV":
                outs._requires_grad = True
                outs._grad_fn = self
            self._n_out = 1
            self._out_meta = ((out.shape, out.dtype),)
        self._in_meta = meta
        if named is None:
            self.__class__ = node_type(self, cls)
        saved = self._saved
        if saved is not None and "outputs" in saved:
            self._link_outputs(saved, outs)
        if _anomaly["enabled"]:
            self._anomaly_trace = forward_stack()
        self._inputs_arrays = self._in_tensors = None
        if cls.is_view and self.__dict__.get("is_view", True):
            _track_view(self, inputs[0], outs, params)
        return outs

    @property
    def needs_input_grad(self):
        """For each input, whether backward must compute its gradient (all False when no graph
        is recorded, so forward may consult it to save only what backward will read)."""
        try:
            return tuple([e is not None for e in self._edges])
        except AttributeError:  # not recorded
            return ()

    def save_operands_for_product(self, a, b):
        """Save what the gradients of a bilinear op (a*b, a@b, linear) need: ``b`` for a's
        gradient and ``a`` for b's, so an in-place change to an operand nobody needs is not an
        error (the operands are inputs 0 and 1; later inputs, a bias, are not saved)."""
        if not self._recording:
            return
        edges = self._edges
        ea, eb = edges[0], edges[1]
        if _SAVED_HOOKS[0]:
            self.save_inputs(*([a] if eb is not None else []), *([b] if ea is not None else []))
            return
        # the two operands are inputs 0 and 1: snapshot them without save_inputs' search
        x, y = self._in_tensors[0], self._in_tensors[1]
        snaps = []
        for i, arr, t, needed in ((0, a, x, eb), (1, b, y, ea)):
            if needed is not None:
                if isinstance(t, Tensor):
                    vc = t._vc
                    if type(vc) is InferenceVersion:
                        raise RuntimeError(_INFERENCE_SAVED)
                    snaps.append((i, arr, vc, vc[0],
                                  t if t._grad_fn is None and t._requires_grad else None, t))
                else:
                    snaps.append((i, self.xp.asarray(arr), None, 0, None, None))
        saved = self._saved
        if saved is None:
            self._saved = {"inputs": snaps}
        else:
            saved["inputs"] = snaps

    def saved_operands(self):
        """(a, b) saved by ``save_operands_for_product``, with None for what was not kept."""
        edges = self._edges
        ea, eb = edges[0], edges[1]
        na, nb = ea is not None, eb is not None
        if not (na or nb):  # only a later input (a bias) needs a gradient
            return None, None
        saved = self.saved_inputs()
        if na and nb:
            return saved
        return (saved, None) if nb else (None, saved)

    # -- saving values for backward -------------------------------------------------------
    def save_inputs(self, *arrays):
        """Keep the given forward inputs (by identity) for backward, with their versions."""
        if not self._recording:
            return
        ins = self._inputs_arrays
        tensors = self._in_tensors
        hooks = _packing() if _SAVED_HOOKS[0] else None
        snaps = []
        for a in arrays:
            if ins[0] is a:
                i = 0
            else:
                for i, b in enumerate(ins):
                    if b is a:
                        break
                else:
                    raise AssertionError(f"{type(self).__name__}.save_inputs: not an input "
                                         "array")
            x = tensors[i]
            if isinstance(x, Tensor):
                vc = x._vc
                if type(vc) is InferenceVersion:
                    raise RuntimeError(_INFERENCE_SAVED)
                if hooks is not None:  # saved_tensors_hooks
                    snaps.append((i, _Packed(x, hooks), None, 0, None, None))
                else:
                    snaps.append((i, a, vc, vc[0],
                                  x if x._grad_fn is None and x._requires_grad else None, x))
            else:
                snaps.append((i, self.xp.asarray(a), None, 0, None, None))
        saved = self._saved
        if saved is None:
            self._saved = {"inputs": snaps}
        else:
            saved["inputs"] = snaps

    def save_output(self, array, index=0):
        """Keep output ``index`` for backward (returned so forward can ``return save_output``)."""
        if self._recording:
            saved = self._saved
            if saved is None:
                self._saved = {"outputs": {index: array}}
            else:
                saved.setdefault("outputs", {})[index] = array
        return array

    def save(self, **values):
        """Keep extra arrays (masks, indices) for backward; read them with ``saved(name)``."""
        if self._recording:
            self._store_dict().setdefault("extra", {}).update(values)

    def _store_dict(self):
        if self._saved is None:
            self._saved = {}
        return self._saved

    def _link_outputs(self, saved, outs):
        # keep the wrapped output array: ufuncs hand back NumPy scalars for 0-d results
        if type(outs) is not tuple and not _SAVED_HOOKS[0]:  # one output, index 0
            vc = outs._vc
            saved["outputs"] = {0: (outs._array, vc, vc[0])}
            return
        outs = outs if type(outs) is tuple else (outs,)
        hooks = _packing() if _SAVED_HOOKS[0] else None
        saved["outputs"] = {k: (outs[k]._array, outs[k]._vc, outs[k]._vc[0])
                            if hooks is None else (_Packed(outs[k], hooks), None, 0)
                            for k in saved["outputs"]}

    def saved_inputs(self):
        """The saved forward inputs as Tensors joined to the graph (leaves are the leaves)."""
        saved = self._check_saved()
        out = []
        for i, arr, vc, version, leaf, x in saved["inputs"]:
            if type(arr) is _Packed:
                arr = arr.tensor()._array  # joined to the graph below, like a kept array
            elif vc is not None and vc[0] != version:
                raise RuntimeError(self._input_modified(saved, i, arr, vc[0], version, x))
            if leaf is not None:
                out.append(leaf)
                continue
            edge = self._edges[i] if self._edges else None
            t = _make(arr)
            if edge is not None and _state.enabled:
                t._requires_grad = True
                t._grad_fn, t._output_nr = edge
            if x is not None and x._extra and "fw_grad" in x._extra:
                # a dual input in an open forward-AD level: its tangent comes along, so a
                # backward recorded inside the level carries tangents (forward over reverse)
                from .forward_ad import _set_tangent, _tangent

                _set_tangent(t, _tangent(x))
            out.append(t)
        return out[0] if len(out) == 1 else tuple(out)

    def saved_input_arrays(self):
        """The saved forward inputs as raw arrays, checked for in-place changes as
        ``saved_inputs`` checks them (what a ``backward_arrays`` reads)."""
        saved = self._saved
        if saved is None:
            saved = self._check_saved()  # raises
        snaps = saved["inputs"]
        if len(snaps) == 1:  # the usual case, inline
            i, arr, vc, version, leaf, x = snaps[0]
            if vc is not None and vc[0] == version:
                return arr
        out = []
        for i, arr, vc, version, leaf, x in saved["inputs"]:
            if type(arr) is _Packed:
                arr = arr.tensor()._array
            elif vc is not None and vc[0] != version:
                raise RuntimeError(self._input_modified(saved, i, arr, vc[0], version, x))
            out.append(arr)
        return out[0] if len(out) == 1 else tuple(out)

    def _input_modified(self, saved, i, arr, now, version, x):
        """torch's error for saved input ``i`` (tensor ``x``) written in place since: it
        names the node that made the tensor's current value (its grad_fn now: the in-place
        op, CopySlices after a write through a view, AsStrided for a view whose base was
        written), or nothing for a leaf."""
        if saved.get("result_kept"):  # an in-place op torch saves the result of
            edge = (self, 0)
        elif x is not None:
            fn = x.grad_fn  # (a view is rebuilt from its written base, as torch reads it)
            edge = None if fn is None else (fn, x._output_nr)
        else:
            edge = None if not self._edges else self._edges[i]
        return _modified_message(self, arr, i, now, version, edge=edge)

    def saved_output_array(self, index=0):
        """Output ``index`` as a raw array, checked as ``saved_output`` checks it."""
        saved = self._saved
        arr, vc, version = (saved if saved is not None else self._check_saved())["outputs"][index]
        if type(arr) is _Packed:
            return arr.tensor()._array
        if vc[0] != version:
            raise RuntimeError(_modified_message(self, arr, index, vc[0], version, output=True))
        return arr

    def saved_output(self, index=0):
        """Output ``index`` as a Tensor whose grad_fn is this node (for double backward)."""
        saved = self._check_saved()
        arr, vc, version = saved["outputs"][index]
        if type(arr) is _Packed:
            arr = arr.tensor()._array
        elif vc[0] != version:
            raise RuntimeError(_modified_message(self, arr, index, vc[0], version, output=True))
        t = _make(arr)
        if _state.enabled:
            t._requires_grad = True
            t._grad_fn, t._output_nr = self, index
        if _FW_OUT:
            entry = _FW_OUT.get(id(self))
            if entry is not None and entry[1].get(index) is not None:
                from .forward_ad import _set_tangent

                _set_tangent(t, entry[1][index])
        return t

    # -- torch's saved-variable attributes (grad_fn._saved_self ...) -------------------------
    def _input_saved(self, index):
        saved = self._saved
        if saved is None:
            if getattr(self, "_released", False):
                raise RuntimeError(_FREED)
            return None
        for i, arr, vc, version, leaf, x in saved.get("inputs", ()):
            if i != index:
                continue
            if type(arr) is _Packed:
                return arr.tensor()
            if vc is not None and vc[0] != version:
                raise RuntimeError(self._input_modified(saved, i, arr, vc[0], version, x))
            return leaf if leaf is not None else x if x is not None else _make(arr)
        return None

    @property
    def _saved_self(self):
        """The first input as saved for backward (None when this op did not save it)."""
        return self._input_saved(0)

    @property
    def _saved_other(self):
        """The second input as saved for backward (None when this op did not save it)."""
        return self._input_saved(1)

    @property
    def _saved_result(self):
        """The output as saved for backward (None when this op did not save it)."""
        saved = self._saved
        if saved is None:
            if getattr(self, "_released", False):
                raise RuntimeError(_FREED)
            return None
        if 0 not in saved.get("outputs", ()):
            return None
        return self.saved_output(0)

    def saved(self, name):
        """An extra array kept with ``save(name=...)``."""
        return self._check_saved()["extra"][name]

    def _check_saved(self):
        saved = self._saved
        if saved is None:
            if getattr(self, "_released", False):
                raise RuntimeError(_FREED)
            raise AssertionError(f"{type(self).__name__}: backward reads values never saved")
        return saved

    def _release(self):
        if self._saved is not None:
            self._saved = None
            self._released = True

    # -- engine interface -------------------------------------------------------------------
    def _run(self, grads, create_graph, root_arrays):
        n_out = self._n_out
        if n_out > 1:
            # missing float gradients become zeros; integer outputs (indices) never get one
            grads = tuple(g if g is not None or m[1].kind not in "fcV" else
                          _zeros_like_meta(m, self.xp) for g, m in zip(grads, self._out_meta))
        elif grads[0] is None:
            return (None,) * len(self._edges)
        arrays_rule = self.backward_arrays
        if arrays_rule is not None and not create_graph:
            res = arrays_rule(grads[0]._array) if n_out == 1 else \
                arrays_rule(*[None if g is None else g._array for g in grads])
            if res is not NotImplemented:  # NotImplemented: a case left to ``backward``
                dev = backend.DEVICE_ARRAY
                if type(res) is not tuple:
                    return (_make(res) if type(res) is np.ndarray or type(res) is dev else
                            _make(_as_array(self, res)),)
                out = []
                for a in res:  # a loop, not a comprehension: no frame per node
                    out.append(None if a is None else _make(a) if type(a) is np.ndarray or
                               type(a) is dev else _make(_as_array(self, a)))
                return tuple(out)
        res = self.backward(*grads)
        if type(res) is not tuple:
            res = (res,)
        return res

    def name(self):
        cls = type(self)
        if cls._op_cls is not cls:  # a recorded node: its class carries torch's name
            return cls.__name__
        return node_type(self, cls).__name__

    def forward(self, *arrays):
        raise NotImplementedError(f"{type(self).__name__} must define forward")

    def backward(self, *grads):
        raise RuntimeError(f"{self.name()}: this op has no derivative")


# -- torch's node names --------------------------------------------------------------------
_NODE_TYPES = {}  # op class -> its node class, for ops whose node name never varies
_NAMED = {}  # (op class, name) -> node class
_RULES = {}  # op class -> its naming rule (_rule_of), found once


_OP_APPLY = Op.__dict__["apply"]  # the ONNX exporter swaps Op.apply while it traces


def ops_traced():
    """Whether each op call must be seen as one: an exporter traces them (``numtorch.onnx``
    swaps ``Op.apply``) or a ``torch.func`` transform runs. Shortcuts that compute on arrays
    outside the ops step aside then."""
    from . import _func_transforms

    return Op.__dict__["apply"] is not _OP_APPLY or bool(_func_transforms.KINDS)


def node_type(node, cls):
    """The node class for ``node`` (an instance of op class ``cls``): a subclass of the op
    named as torch names the node this call records."""
    base = cls._op_cls
    name = node.__dict__.get("node_name")
    if name is None:
        rule = _RULES.get(base)
        if rule is None:
            rule = _RULES[base] = _rule_of(base)
        if type(rule) is str:
            t = _named(base, rule)
            _NODE_TYPES[cls] = t
            return t
        name = rule(node)
    return _named(base, name)


def _rule_of(base):
    rule = base.__dict__.get("node_name")
    if rule is None:
        from .node_names import RULES

        rule = RULES.get(f"{base.__module__}.{base.__qualname__}")
    if rule is None:
        for k in base.__mro__:
            if "name" in k.__dict__:  # a class that spells its name by overriding name()
                if k is not Op:
                    return k.__dict__["name"]
                break
            if k is Op:
                break
        rule = base.__name__ + "Backward0"
    return rule


def _named(base, name):
    t = _NAMED.get((base, name))
    if t is None:
        short = name.rsplit("::", 1)[-1]
        # torch's node classes are built-in types: <class 'MulBackward0'>, module builtins
        ns = {"_op_cls": base, "__module__": "builtins", "__qualname__": short,
              "__doc__": f"The graph node of :class:`{base.__qualname__}`, named as in torch."}
        if short != name:  # a C++ node (CopySlices): torch's class is short, its name() not
            ns["name"] = lambda self: name
        from ._saved_attrs import properties

        ns.update(properties(short))  # torch's grad_fn._saved_* attributes of this node
        t = _NAMED[(base, name)] = type(base)(short, (base,), ns)
    return t


def rename_node(t, name):
    """Give the node that just made ``t`` torch's name ``name`` (for a function built from an
    op whose own name differs, such as ``median`` or ``stack``); returns ``t``."""
    fn = t._grad_fn
    if fn is not None and isinstance(fn, Op):
        fn.__class__ = _named(fn._op_cls, name)
    return t


# argument types that are never device arrays (no __cuda_array_interface__ lookup for them)
_HOST = frozenset({int, float, bool, complex, str, tuple, list, slice, type(None), np.float32,
                   np.float64, np.float16, np.int64, np.int32, np.bool_, np.complex64,
                   np.complex128, np.dtype})


def _edgeless_view(t):
    """Whether view ``t`` can take apply's plain-tensor path: no graph is recorded, or it has
    no edge and asking ``edge_of`` would change nothing (its base has no history and no view
    grad_fn needs rebuilding) -- a slice of a data tensor, a row of an index vector."""
    if not _state.enabled:
        return True
    b = t._base
    if t._grad_fn is not None or t._requires_grad or b._grad_fn is not None or b._requires_grad:
        return False
    src = t._view_src
    # a plain view made with the graph on keeps its base's grad_fn then (None here, or
    # edge_of would rebuild it); a multi-output view's (grad_fn, version) refreshes to
    # nothing when there is no graph; a no_grad view (no _view_fn) has no edge either
    return src is None or type(src) is tuple or t._view_fn is None


def direct_view_source(t):
    """Whether a view op may make its view of ``t`` directly, as apply's no-node path would
    (then ``_track_view``): a plain CPU tensor that joins no graph, no profiler, vmap or
    exporter watching the ops."""
    if t.__class__ is not Tensor or t._extra is not None or type(t._array) is not np.ndarray \
            or _hook is not None or Op.__dict__["apply"] is not _OP_APPLY:
        return False
    if t._base is None:
        return not (t._requires_grad and _state.enabled)
    return _edgeless_view(t)


def _meta_of(edge, a):
    """The (shape, dtype) ``_in_meta`` keeps of input array ``a``: the tuple the edge's node
    keeps of that output where it describes ``a`` (a chain of recorded ops then shares one
    tuple instead of two new objects per input: a policy's episode-long graph holds ~15 such
    objects per op, each counted by the cyclic collector), else a new one."""
    if edge is not None:
        try:
            m = edge[0]._out_meta[edge[1]]
            if m[1] is a.dtype and m[0] == a.shape:
                return m
        except (AttributeError, IndexError, TypeError):  # a node with other output metadata
            pass
    return (a.shape, a.dtype)


def _plain_edge(t):
    """``edge_of`` for a tensor that is not a view."""
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (t._accum or accumulator(t), 0)
    return None


def _edges(inputs):
    """The edge (node, output_nr) or None of each input and its (shape, dtype) metadata;
    (None, None) when no input has an edge or one is a 0.x volatile tensor."""
    edges = []
    meta = []
    any_edge = volatile = False
    for x in inputs:
        if isinstance(x, Tensor):
            a = x._array
            meta.append((a.shape, a.dtype))
            if x._base is not None:
                e = edge_of(x)
            elif x._grad_fn is not None:
                e = (x._grad_fn, x._output_nr)
            elif x._requires_grad:
                e = (x._accum or accumulator(x), 0)
            else:
                e = None
                if x._extra is not None and x._extra.get("volatile"):
                    volatile = True
            if e is not None:
                any_edge = True
            edges.append(e)
        else:
            meta.append(None)
            edges.append(None)
    if not any_edge or volatile:
        return None, volatile
    return edges, meta


def _zeros_like_meta(meta, xp):
    shape, dt = meta
    return _make(xp.zeros(shape, dtype=dt))


def _check_devices(cls, inputs):
    """The array module shared by all tensor inputs; torch's error if they differ. None when
    CPU 0-d tensors meet tensors of one CUDA device: torch takes those as scalars, so the
    caller moves them there and applies the op again."""
    dev_array = backend.DEVICE_ARRAY
    if dev_array is not None:
        # the common case: every tensor on the one GPU (or on one of several), a few type tests
        one = backend.ONLY_DEVICE is not None
        where = -1
        for x in inputs:
            if isinstance(x, Tensor):
                a = x._array
                if type(a) is not dev_array:
                    break
                i = 0 if one else a.data.device_id
                if i != where:
                    if where >= 0:
                        break
                    where = i
        else:
            if where >= 0:
                return backend._CUPY
    xp = None
    cpu_scalars = False
    for x in inputs:
        if isinstance(x, Tensor):
            a = x._array
            # CPU tensors beside meta ones give meta results (torch's in-place ops allow it)
            if type(a) is _Meta:
                return np
            if type(a) is np.ndarray and a.ndim == 0:
                cpu_scalars = True
                continue
            m = backend.xp_of(a)
            if xp is None:
                xp = m
            elif m is not xp:
                _device_mismatch(cls, inputs)
    if xp is None:
        return np
    if xp is not np:
        devs = {x.device for x in inputs if isinstance(x, Tensor) and
                type(x._array) is not np.ndarray}
        if len(devs) > 1:
            _device_mismatch(cls, inputs)
        if cpu_scalars:
            return None
    elif cpu_scalars:
        return np
    return xp


def _scalars_to_device(inputs):
    """``inputs`` with every CPU 0-d tensor moved (differentiably) to the CUDA tensors'
    device."""
    dev = next(x.device for x in inputs if isinstance(x, Tensor) and
               type(x._array) is not np.ndarray)
    return tuple(x.to(dev) if isinstance(x, Tensor) and type(x._array) is np.ndarray else x
                 for x in inputs)


def _mark_volatile(outs):
    for t in (outs if type(outs) is tuple else (outs,)):
        if t._extra is None:
            t._extra = {}
        t._extra["volatile"] = True


def _laid_out(forward, keep_channels_last):
    """``forward`` whose array results come back row-major (or, with ``keep_channels_last``,
    channels-last when its first input is): see ``Op.out_layout``. Only outputs that are not
    laid out so already are copied, so the common contiguous case costs a flag test."""

    def fix(a, like):
        if not hasattr(a, "flags") or a.ndim < 2:
            return a
        if keep_channels_last and like is not None and like.ndim == a.ndim and \
                channels_last_layout(like):
            if channels_last_layout(a):
                return a
            xp = backend.xp_of(a)
            return xp.moveaxis(xp.ascontiguousarray(xp.moveaxis(a, 1, -1)), -1, 1)
        return a if a.flags.c_contiguous else a.copy(order="C")

    def laid_out_forward(self, *arrays):
        out = forward(self, *arrays)
        if type(out) is np.ndarray and out.flags.c_contiguous and not keep_channels_last:
            return out
        like = arrays[0] if arrays and hasattr(arrays[0], "strides") else None
        if type(out) is tuple:
            return tuple(fix(o, like) for o in out)
        return fix(out, like)

    laid_out_forward.__wrapped__ = forward
    laid_out_forward.__doc__ = forward.__doc__
    return laid_out_forward


def channels_last_layout(a):
    """True for a 4-d/5-d array laid out channels-last and not also row-major (where both
    hold, torch suggests row-major)."""
    return a.ndim in (4, 5) and not a.flags.c_contiguous and \
        backend.xp_of(a).moveaxis(a, 1, -1).flags.c_contiguous


def _as_array(node, arr):
    if isinstance(arr, np.generic) or not hasattr(arr, "shape"):
        return node.xp.asarray(arr)
    return arr


def _host_like(a):
    """Whether an operand that is not a NumPy array keeps an op on the CPU path: anything but
    a CuPy array (its class, then the array protocol: building CuPy's
    ``__cuda_array_interface__`` dict costs a few microseconds)."""
    return type(a) is not backend.DEVICE_ARRAY and not hasattr(a, "__cuda_array_interface__")


def _wrap_output(node, arr, index, record):
    if type(arr) is not np.ndarray and type(arr) is not backend.DEVICE_ARRAY:
        arr = _as_array(node, arr)
    t = _make(arr)
    if record and arr.dtype.kind in "fcV":
        t._requires_grad = True
        t._grad_fn = node
        t._output_nr = index
    return t


_F32 = np.dtype(np.float32)
_FLOATISH = frozenset("fcV")  # "V": ml_dtypes bfloat16 (no other void dtype reaches a tensor)


def _half_opmath_scalar(x, b):
    """Whether ``b`` is a Python number that a float16/bfloat16 host tensor ``x`` (of a Tensor
    subclass: a Parameter) takes as a float32 scalar in an ``opmath_scalar`` op."""
    dt = x._array.dtype
    return type(x._array) is np.ndarray and dt.itemsize == 2 and dt.kind in _FLOATISH and (
        type(b) is float or type(b) is int and -(1 << 63) <= b < 1 << 64)


def _half_opmath_0d(cls, x, b):
    """The float32 scalar that a float16/bfloat16 host tensor ``x`` (not 0-d) takes for ``b``
    in an ``opmath_scalar`` op when ``b`` is a 0-d float32/float64 host tensor that needs no
    gradient: torch reads such a 0-d tensor as a number (its value in float32, one rounding
    of the float32 result), not cast to ``x``'s dtype first. When ``b`` needs a gradient: the
    op's ``half_0d_op`` (it takes ``b`` as a float32 0-d tensor), if it has one. Else None."""
    if not isinstance(b, Tensor) or b._extra is not None:
        return None
    a, v = x._array, b._array
    if type(a) is not np.ndarray or type(v) is not np.ndarray or v.ndim or not a.ndim or \
            a.dtype.itemsize != 2 or a.dtype.kind not in _FLOATISH or v.dtype.kind != "f" or \
            v.dtype.itemsize < 4:
        return None
    if b._requires_grad and _state.enabled:
        return cls.__dict__.get("half_0d_op")
    return np.float32(v[()])


def _promote(inputs, to_float):
    """Cast tensors and Python scalars to the op's result dtype (torch's promotion rules)."""
    if len(inputs) == 1:  # a unary op: only an integer input computed in floats changes
        x = inputs[0]
        if isinstance(x, Tensor) and (not to_float or x._array.dtype.kind in _FLOATISH):
            return inputs
    elif len(inputs) == 2:  # the hot case: a binary op; settle the common patterns quickly
        a, b = inputs
        if isinstance(a, Tensor):
            da = a._array.dtype
            if isinstance(b, Tensor):
                db = b._array.dtype
                if (da is db or da == db) and (not to_float or da.kind in _FLOATISH):
                    return inputs
            elif type(b) is float and da.kind in _FLOATISH:
                return (a, da.type(b))
            elif type(b) is int and da.kind in _FLOATISH and not to_float and \
                    -(1 << 63) <= b < 1 << 64:
                return (a, da.type(b))
            elif type(b) is int and da.kind == "i" and da.itemsize == 8 and not to_float and \
                    -(1 << 63) <= b < 1 << 63:  # long tensor and int: i + block_size
                return (a, da.type(b))
        elif type(a) is float and isinstance(b, Tensor):  # ``-lr * p.grad``, ``1.0 - x``
            db = b._array.dtype
            if db.kind in _FLOATISH:
                return (db.type(a), b)
        elif type(a) is int and isinstance(b, Tensor) and not to_float:  # ``1 - z`` (GRU)
            db = b._array.dtype
            if db.kind in _FLOATISH and -(1 << 63) <= a < 1 << 64:
                return (db.type(a), b)
    dt = None
    for x in inputs:  # fast path: one tensor dtype that every Python scalar fits
        if isinstance(x, Tensor):
            d = x._array.dtype
            if dt is None:
                dt = d
            elif d != dt:
                dt = None
                break
    if dt is not None:
        k = dt.kind
        if to_float and k not in _FLOATISH:
            dt = None
        else:
            for x in inputs:
                t = type(x)
                if t is float:
                    if k not in _FLOATISH:
                        dt = None
                        break
                elif t is int:
                    if k == "b":
                        dt = None
                        break
                elif t is complex:
                    if k != "c":
                        dt = None
                        break
                elif t is not bool and x is not None and not isinstance(x, Tensor):
                    dt = None
                    break
    if dt is None:
        dt = _dtype.result_type(*inputs)
        if to_float and dt._category < _dtype._FLOAT:
            dt = _dtype.get_default_dtype()
        dt = dt.np
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            if x._array.dtype != dt:
                x = _CastForOp.apply(x, dtype=dt)
        elif x is not None:
            if x.__class__ is int and not -(1 << 63) <= x < 1 << 64:
                raise scalar_overflow(x)
            try:
                x = dt.type(x)
            except (OverflowError, ValueError):  # torch wraps out-of-range integers
                x = np.array(x).astype(dt)[()]  # a NumPy scalar: CuPy refuses host arrays
        out.append(x)
    return out


def scalar_overflow(x):
    """torch's error for a Python int it cannot read as a 64-bit integer of either sign."""
    if x < 0:
        return OverflowError("can't convert negative int to unsigned")
    return OverflowError("int too big to convert")


class _CastForOp(Op):
    """y = x cast to another dtype (promotion inside an op); dy/dx = 1 cast back."""

    node_name = "ToCopyBackward0"

    def forward(self, x):
        return x.astype(self.dtype)

    def backward(self, grad):
        return grad  # the engine casts gradients back to each input's dtype


def _device_mismatch(cls, inputs):
    from ._device_errors import argument_mismatch

    message = argument_mismatch(cls, inputs)
    if message is not None:
        raise RuntimeError(message)
    devs = []
    for x in inputs:
        if isinstance(x, Tensor):
            d = str(x.device)
            if d not in devs:
                devs.append(d)
    # torch's elementwise (TensorIterator) ops name the GPU before the CPU whatever the operand
    # order (torch 2.11 on an H200: cpu + cuda says "cuda:0 and cpu!") and end at "!", as here
    # ops that promote their operands; other ops name themselves
    devs.sort(key=lambda d: d == "cpu")
    where = "" if cls.promote or cls.__name__ == "Where" else f" (in {cls.__name__.lower()})"
    raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two "
                       f"devices, {devs[0]} and {devs[1]}!{where}")


def _forward_on_device(node, arrays):
    dev_array = backend.DEVICE_ARRAY
    for a in arrays:
        t = type(a)
        if t is dev_array:
            # CuPy's current device must be the array's: with one GPU it always is, else it
            # is switched only when it differs (a ``with`` on CuPy's Device is two runtime calls)
            if backend.ONLY_DEVICE is not None or \
                    a.data.device_id == backend._CUPY.cuda.get_device_id():
                out = node.forward(*arrays)  # (_device_forward, inline)
                layout = node.device_layout
                return out if layout is None else layout(out, arrays)
            with a.device:
                return _device_forward(node, arrays)
        if t is _Meta:  # no data: shapes and dtypes only, every output on meta
            return backend._meta.forward(node, arrays)
        # the protocol probe, not .device: a sparse payload answers unknown names with
        # torch's "Could not run" error, which must name the op, not "device"
        if not isinstance(a, (np.ndarray, np.generic)) and hasattr(a, "__cuda_array_interface__"):
            with a.device:
                return _device_forward(node, arrays)
    return node.forward(*arrays)


def _device_forward(node, arrays):
    """``node.forward`` on device arrays, its result laid out by the op's ``device_layout``
    (CuPy allocates results row-major where NumPy keeps the operands' layout)."""
    out = node.forward(*arrays)
    layout = node.device_layout
    return out if layout is None else layout(out, arrays)


def _track_view(node, base_in, out, params):
    """Make ``out`` share ``base_in``'s version counter and remember how to replay the view."""
    root = base_in._base if base_in._base is not None else base_in
    out._base = root
    out._vc = base_in._vc
    if _state.enabled:
        parent = base_in._view_fn if base_in._base is not None else None
        if base_in._base is not None and parent is None:  # parent was made under no_grad
            out._view_fn = None  # so is this one, for torch (a view of such a view)
            out._view_src = out._vc[0]
            return
        out._view_fn = (node._op_cls, params, parent)
        src = root._grad_fn
        if parent is not None and type(base_in._view_src) is tuple:
            src = (src, out._vc[0])  # a view of a multi-output view: checked by version too
        out._view_src = src  # (autograd.inplace.refresh_view)
    else:
        # requires_grad comes from the base (Tensor.requires_grad); the version is kept for
        # the refusal to use it after a write (autograd/_no_grad_views.py)
        out._view_fn = None
        out._view_src = out._vc[0]


def replay_view(chain, t):
    """Apply a recorded chain of view ops (innermost first) to tensor ``t``."""
    steps = []
    while chain is not None:
        cls, params, chain = chain
        steps.append((cls, params))
    for cls, params in reversed(steps):
        t = cls.apply(t, **params)
    return t


_UNSET = object()


def _modified_message(node, arr, index, now, expected, output=False, edge=_UNSET):
    """torch's error for a saved tensor changed in place: it names the node the tensor was an
    output of (``edge``, a (node, output_nr) pair; None for a leaf, which gets no clause; by
    default the saving node for a saved output), by its op name without 'Backward<N>'."""
    dt = _dtype._FROM_NP[arr.dtype]
    shape = ", ".join(str(s) for s in arr.shape)
    if edge is _UNSET:
        edge = (node, index) if output else None
    if edge is not None and edge[0] is not None:
        from .inplace import multi_view_modified_text, out_of_multi_view

        if out_of_multi_view(edge[0]):  # the saved tensor was a split piece or a view of one
            return multi_view_modified_text(*edge)
    which = ""
    if edge is not None and edge[0] is not None:
        name = edge[0].name()
        base = name.rstrip("0123456789")
        if base.endswith("Backward"):  # torch keeps an overload number other than 0
            digits = name[len(base):]
            name = base[:-len("Backward")] + ("" if digits in ("", "0") else digits)
        if name == "CopySlices":
            name = "torch::autograd::CopySlices"
        which = f", which is output {edge[1]} of {name},"
    if _anomaly["enabled"]:
        hint = ("the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
    else:
        hint = ("enable anomaly detection to find the operation that failed to compute its "
                "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return (f"one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [torch.{dt._legacy} [{shape}]]{which} is at version {now}; "
            f"expected version {expected} instead. Hint: {hint}")


from . import _no_grad_views  # noqa: E402  (it reads this module's AccumulateGrad)
from ._multi_grad import register_multi_grad_hook  # noqa: E402,F401  (a torch.autograd.graph name)
