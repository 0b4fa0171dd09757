"""In-place ops: write an out-of-place result back into the tensor and keep the graph right.

``x.op_(...)`` computes ``op(x, ...)`` (recording a node when autograd is on), copies the result
into x's memory, bumps the version counter shared by x and all its views, and re-points x at
the new node. When x is a view, its base is re-pointed at a ``CopySlices`` node that routes the
gradient of the written region to the new value and the rest to the base's old history, and x's
own grad_fn is rebuilt from the base (torch's rebase of views).
"""

import weakref

import numpy as np

from .. import _dtype, backend
from .._grad_state import FUNC_EPOCHS as _FUNC_EPOCHS
from . import _custom_views, _func_transforms, graph
from .grad_mode import _state, enable_grad
from .graph import AccumulateGrad, Node, edge_of, replay_view

_TRACE = [None]  # numtorch.onnx's recorder while a model is exported: it records the write


def apply_inplace(self, fn, *args, **kwargs):
    """Run ``fn(self, *args, **kwargs)`` and store its result in ``self``; return ``self``."""
    if _FUNC_EPOCHS:  # inside torch.func.grad/vjp/jvp: a tensor made before may not change
        _func_transforms.refuse_captured(self, _func_transforms.aten_name(fn, args))
    if _TRACE[0] is not None and _TRACE[0](self, fn, args, kwargs):
        return self
    # torch refuses operands that overlap self's memory other than element for element, before
    # any write: views of self (its version counter) and other tensors over its memory owner
    # (``x.data``); an operand with a memory of its own costs a few tests
    vc = self._vc
    owner = self._array  # memory_owner(self._array), inlined
    if type(owner) is not _ND:
        owner = _NO_OWNER
    elif (base := owner.base) is not None and type(base) is _ND:
        owner = base
    for v in args:
        if isinstance(v, _TENSOR) and (v._vc is vc or type(src := v._array) is _ND
                                       and (src.base is owner or src is owner)):
            _refuse_overlap(self, fn, v)
    if kwargs:
        for v in kwargs.values():
            if isinstance(v, graph.Tensor) and (v._vc is vc or shares_owner(self._array,
                                                                             v._array)):
                _refuse_overlap(self, fn, v)
    if not (_state.enabled and (self.requires_grad or _any_requires(args)
                                or _detached_view_of_graph(self))):
        if fn in (_UFUNCS or _register_ufuncs()) and _ufunc_in_place(self, fn, args, kwargs):
            return self
        out = fn(self, *args, **kwargs)
        _write(self, out, fn)
        return self
    _check_allowed(self)
    out = fn(_shadow(self, copy=fn not in (_OUTPUT_SAVERS or _register_output_savers())),
             *args, **kwargs)
    _write(self, out, fn)
    saved = getattr(out._grad_fn, "_saved", None)
    if saved and "outputs" in saved:  # an op that keeps its output now keeps self: torch
        saved["outputs"] = {k: (a, self._vc, self._vc[0]) if vc is out._vc else (a, vc, v)
                            for k, (a, vc, v) in saved["outputs"].items()}  # sees later writes
    keeper = (_RESULT_KEEPERS or _register_result_keepers()).get(fn)
    if keeper and saved and "inputs" in saved:
        # torch's in-place form of this op keeps its result (self) for backward, so a later
        # write to self makes backward fail; numtorch keeps the copy of the input it computes
        # from, but checks it against self's version from now on
        saved["inputs"] = [(i, a, self._vc, self._vc[0], leaf, x)
                           for (i, a, _vc, _v, leaf, x) in saved["inputs"]]
        saved["result_kept"] = True  # the error then names this node, as torch's does
        graph.rename_node(out, keeper)
    _rebase(self, out)
    return self


def shares_owner(dst, src):
    """Whether the NumPy array ``src`` is another view of ``dst``'s memory owner: torch judges
    tensors over one storage (``x.data.t()`` beside ``x``) as it judges views. The same array
    object reads the same elements in the same order and needs no judging.

    Two ``from_numpy`` of one array are two storages in torch, never judged: numtorch's
    from_numpy gives each its own owner (an array over a memoryview), so they are not judged
    either (torch then computes with the aliasing in its kernel's order, numtorch as if
    cloned: they differ where the two layouts differ).
    """
    if type(src) is not np.ndarray or src is dst:
        return False
    owner = memory_owner(dst)
    return src.base is owner or src is owner


def memory_owner(arr):
    """The NumPy array whose memory ``arr`` views (``arr`` itself if it owns it, or is an
    array over a foreign buffer such as from_numpy's memoryview): NumPy points every view's
    base straight at it. A sentinel that no array's base is for other arrays."""
    if type(arr) is not np.ndarray:
        return _NO_OWNER
    base = arr.base
    return arr if base is None or type(base) is not np.ndarray else base


_NO_OWNER = object()
_ND = np.ndarray
_TENSOR = graph.Tensor


def _refuse_overlap(self, fn, other):
    """torch's refusal of an in-place op reading an operand whose memory overlaps self's other
    than element for element (``h += h.t()``, ``x[1:] += x[:-1]``); ``other`` is a view of
    self's memory (the same version counter, or the same owner: ``x.data.t()``).
    """
    dst, src = self._array, other._array
    if src is not dst and type(dst) is np.ndarray and \
            fn not in (_UNCHECKED or _register_unchecked()):
        from ..ops.inplace_writes import check_partial_overlap

        check_partial_overlap(dst, src)


_UNCHECKED = set()  # in-place ops torch lets read memory they write (matrix products, ...)


def _register_unchecked():
    from .. import ops

    _UNCHECKED.update({ops.addmm, ops.addbmm, ops.baddbmm, ops.addmv, ops.masked_scatter,
                       ops.ldexp})
    return _UNCHECKED


_RESULT_KEEPERS = {}  # in-place ops whose torch form saves its result: op -> torch's node name


def _register_result_keepers():
    from ..ops import activation

    _RESULT_KEEPERS.update({activation.leaky_relu: "LeakyReluBackward1",
                            activation.elu: "EluBackward1", activation.celu: "CeluBackward1"})
    return _RESULT_KEEPERS


_OUTPUT_SAVERS = set()  # ops whose backward keeps only their output: no copy of the input


def _register_output_savers():
    from ..ops import activation

    _OUTPUT_SAVERS.add(activation.relu)
    return _OUTPUT_SAVERS


_UFUNCS = {}  # ops.add -> np.add, ...: filled on first use (ops import this module)


def _register_ufuncs():
    from .. import ops

    _UFUNCS.update({ops.add: np.add, ops.sub: np.subtract, ops.mul: np.multiply,
                    ops.div: np.true_divide})
    return _UFUNCS


def _ufunc_in_place(self, fn, args, kwargs):
    """Write ``self op= other`` straight into self's memory when nothing is recorded.

    Optimizer updates (``p.add_(g, alpha=-lr)``, ``p -= lr * g``) then cost one NumPy pass
    instead of computing a new array and copying it. Returns False (nothing done) whenever a
    case needs the general path: other devices, dtype changes torch refuses, rounding modes,
    shapes that do not broadcast into self.
    """
    dst = self._array
    if type(dst) is not np.ndarray or len(args) != 1 or not dst.flags.writeable:
        return False
    other = args[0]
    alpha = kwargs.get("alpha", 1)
    if kwargs.get("rounding_mode") is not None or (len(kwargs) - ("alpha" in kwargs)) > 0:
        return False
    if alpha.__class__ is bool or not isinstance(alpha, _REAL_ALPHA):
        return False  # torch refuses a bool alpha for non-bool results, a list, a string...:
        # the general path checks
    if isinstance(other, graph.Tensor):
        src = other._array
        if type(src) is not np.ndarray or src.dtype.kind != dst.dtype.kind or \
                src.dtype.itemsize > dst.dtype.itemsize or src.ndim > dst.ndim:
            return False
    elif type(other) is float and dst.dtype.kind == "f":
        src = other
    elif type(other) is int and (dst.dtype.kind == "f" or dst.dtype.kind in "iu"
                                 and fn is not _div_fn()):
        lo, hi = _INT_RANGE.get(dst.dtype, _ANY_INT)
        if not lo <= other <= hi:  # torch wraps it, or refuses it: the general path knows
            return False
        src = other
    else:
        return False
    if dst.dtype.kind != "f" and (fn is _div_fn() or alpha != 1):
        return False  # an integer alpha is range-checked (and wrapped) by the general path
    if src is other and dst.dtype.itemsize == 2 and _UFUNCS[fn] in (np.multiply, np.divide):
        return False  # float16 times a number: float32 arithmetic (Op.opmath_scalar)
    if dst.size >= (_SPLIT_FROM if alpha == 1 else _SPLIT_FUSED) and \
            _split_in_place(fn, dst, src, alpha):
        self._vc[0] += 1
        return True
    if alpha != 1:
        fused = _fused_alpha(fn, dst, src, alpha)
        if fused is not None:  # torch's kernels round a + alpha * b once
            try:
                dst[...] = fused
            except ValueError:
                return False
            self._vc[0] += 1
            return True
        src = src * alpha
    try:
        _UFUNCS[fn](dst, src, out=dst)
    except (ValueError, TypeError):
        return False  # e.g. a shape that does not broadcast into self: the slow path explains
    self._vc[0] += 1
    return True


_SPLIT_FROM = 0  # elements: 2 * _intraop._MIN_PART once the first large call looked it up
_SPLIT_FUSED = 0  # the same for an update with alpha: a quarter of it (``_FUSED_PASSES``)
_FUSED_PASSES = 4  # a + alpha * b through a wider type: ~4 passes ((768, 512) float32 costs
# ~450-600 us at one thread against ~90 us for a - b)
_INTRAOP = [None]


def _split_in_place(fn, dst, src, alpha):
    """``_ufunc_in_place``'s write of a large float array in parts along its leading axis (or
    of its flat values, when both are contiguous and of one shape) on the intra-op threads
    (``_intraop.split``: one part while other processes hold the cores). Every part runs the
    same elementwise operations as the whole call, so the values are the same bits. Returns
    False (nothing written) where the whole call is needed: small or 0-d arrays, operands
    that overlap self's memory other than element for element, a 16-bit fused update small
    enough for torch's 16-bit tail, shapes that do not broadcast into self."""
    global _SPLIT_FROM, _SPLIT_FUSED
    _intraop = _INTRAOP[0]
    if _intraop is None:  # looked up once (an import statement costs ~1 us a call)
        from ..ops import _intraop

        _INTRAOP[0] = _intraop
    _SPLIT_FROM = 2 * _intraop._MIN_PART
    _SPLIT_FUSED = max(2, _SPLIT_FROM // _FUSED_PASSES)
    n = dst.size
    if _intraop.parts(n, 1 if alpha == 1 else _FUSED_PASSES) == 1 or \
            dst.dtype.kind != "f" or not dst.ndim:
        return False
    array = type(src) is np.ndarray
    if array:
        if src.dtype.kind != "f":
            return False
        try:
            if np.broadcast_shapes(src.shape, dst.shape) != dst.shape:
                return False
        except ValueError:
            return False
        if np.may_share_memory(dst, src) and not (
                src.shape == dst.shape and src.strides == dst.strides and
                src.__array_interface__["data"][0] == dst.__array_interface__["data"][0]):
            return False  # (NumPy copies an overlapping operand first: keep the whole call)
    ufunc = _UFUNCS[fn]
    coef = None
    if alpha != 1:
        from .. import ops
        from ..backend import _fma

        if fn in (ops.add, ops.sub) and _fma._WIDER.get(dst.dtype) is not None and \
                not isinstance(alpha, complex) and (not array or src.dtype == dst.dtype):
            if dst.dtype.itemsize == 2 and n <= 32768:
                return False  # torch's 16-bit tail (``_fma._half_tail``) applies
            coef = alpha if fn is ops.add else -alpha
        else:
            src = src * alpha
            array = type(src) is np.ndarray
    if dst.flags.c_contiguous and (not array or (src.shape == dst.shape and
                                                 src.flags.c_contiguous)):
        d2 = dst.reshape(-1)
        s2 = src.reshape(-1) if array else src
    else:
        d2, s2 = dst, src
    if d2.shape[0] < 2:
        return False
    sliced = array and s2.ndim == d2.ndim and s2.shape[0] == d2.shape[0]
    if coef is None:
        def kernel(lo, hi):
            part = d2[lo:hi]
            ufunc(part, s2[lo:hi] if sliced else s2, out=part)
    else:
        from ..backend._fma import axpy_once

        def kernel(lo, hi):
            part = d2[lo:hi]
            part[...] = axpy_once(part, s2[lo:hi] if sliced else s2, coef, tail=False)

    _intraop.split(kernel, d2.shape[0], n // d2.shape[0])
    return True


_REAL_ALPHA = (int, float, np.integer, np.floating)  # alphas the fast path applies as is
_ANY_INT = (-(1 << 63), (1 << 64) - 1)  # what torch reads a Python int into a float as
_INT_RANGE = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
              for t in (np.int8, np.int16, np.int32, np.int64, np.uint8)}


def _fused_alpha(fn, dst, src, alpha):
    from .. import ops
    from ..backend._fma import axpy_once

    if fn is ops.add:
        return axpy_once(dst, src, alpha)
    if fn is ops.sub:
        return axpy_once(dst, src, -alpha)
    return None


def _div_fn():
    from .. import ops

    return ops.div


def _detached_view_of_graph(self):
    """A view made under no_grad of a tensor that is part of a graph (writing it is an error)."""
    base = self._base
    return (base is not None and self._view_fn is None
            and (base._requires_grad or base._grad_fn is not None))


def _any_requires(args):
    for a in args:
        if isinstance(a, graph.Tensor) and a.requires_grad:
            return True
        if isinstance(a, (tuple, list)) and _any_requires(a):
            return True
    return False


def _check_allowed(self):
    if self._base is None:
        if self._grad_fn is None and self._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        return
    base = self._base
    if self._view_fn is None:  # even of a tensor outside the graph: the write brings one in
        from ._no_grad_views import written_text

        raise RuntimeError(written_text(self))
    if _custom_views.from_custom_function(self):
        raise RuntimeError(f"Output {self._output_nr} of {_custom_views.op_name(self._grad_fn)} "
                           f"is a view and is being modified inplace. "
                           f"{_custom_views.CUSTOM_TAIL}")
    multi = self._extra.get("multi_view") if self._extra else None
    if multi is None and _from_multi_output(self):
        fn = self._grad_fn
        if fn is None:  # a piece of a tensor outside the graph, written with a graph operand
            raise RuntimeError("A view was created in no_grad mode and is being modified "
                               "inplace with grad mode enabled. " + _MULTI_VIEW_TAIL)
        multi = (_custom_views.op_name(fn), self._output_nr)
    if multi is not None:
        raise RuntimeError(f"Output {multi[1]} of {multi[0]} is a view and is being modified "
                           f"inplace. {_MULTI_VIEW_TAIL}")
    if base._grad_fn is None and (base._requires_grad or self.requires_grad):
        # (torch asks whether the view requires grad and its base is a leaf: the base need not
        # require grad, as for ``torch.arange(6.).view(2, 3).requires_grad_()``)
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def _shadow(self, copy=True):
    """A copy of ``self``'s current value carrying its current autograd edge.

    The op may save its input for backward; saving a copy keeps that value intact after the
    write below (torch saves the original ``self`` of in-place ops the same way). An op that
    saves only its output (ReLU: ResNet's ``inplace=True``) reads ``self``'s array directly,
    which saves a full pass over it.
    """
    t = graph._make(self._array.copy() if copy else self._array)
    e = edge_of(self)
    if e is not None:
        t._requires_grad = True
        if type(e[0]) is not AccumulateGrad:
            t._grad_fn, t._output_nr = e
    return t


def _write(self, out, fn):
    arr = out._array
    dst = self._array
    if arr.shape != dst.shape:
        raise RuntimeError(f"output with shape [{', '.join(map(str, dst.shape))}] doesn't match "
                           f"the broadcast shape [{', '.join(map(str, arr.shape))}]")
    if arr.dtype != dst.dtype:
        src_dt, dst_dt = _dtype._FROM_NP[arr.dtype], _dtype._FROM_NP[dst.dtype]
        if not _dtype.can_cast(src_dt, dst_dt):
            raise RuntimeError(f"result type {_type_name(src_dt)} can't be cast to the desired "
                               f"output type {_type_name(dst_dt)}")
    if not backend.is_writeable(dst):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if arr is not dst:
        dst[...] = arr
    self._vc[0] += 1


def _type_name(dt):
    return _dtype._TYPE_DISPLAY[dt.name]


def _rebase(self, out):
    if self._base is None:
        old = self._grad_fn, self._output_nr
        self._grad_fn, self._output_nr = out._grad_fn, out._output_nr
        self._requires_grad = out._grad_fn is not None
        carry_retain(self, old)
        return
    base = self._base
    old = base._grad_fn, base._output_nr
    node = CopySlices(self._view_fn, edge_of(base), edge_of(out), base, out)
    base._grad_fn, base._output_nr, base._requires_grad = node, 0, True
    carry_retain(base, old)
    old = self._grad_fn, self._output_nr
    refresh_view(self)
    carry_retain(self, old)


def carry_retain(t, old):
    """``retain_grad()`` follows the tensor, not the node it had then: after an in-place
    write its ``.grad`` is the gradient of its new value (torch moves the hook)."""
    extra = t._extra
    if not extra or not extra.get("retains_grad"):
        return
    fn, nr = old
    if fn is t._grad_fn and nr == t._output_nr:
        return
    if fn is not None and fn._retain and nr in fn._retain and fn._retain[nr]() is t:
        del fn._retain[nr]
    new = t._grad_fn
    if new is not None:
        if new._retain is None:
            new._retain = {}
        new._retain[t._output_nr] = weakref.ref(t)


_MULTI_VIEW_TAIL = ("This view is the output of a function that returns multiple views. Such "
                    "functions do not allow the output views to be modified inplace. You should "
                    "replace the inplace operation by an out-of-place one.")


def _from_multi_output(view):
    """Whether ``view`` is, or was viewed from, one output of an op returning several views
    (split, unbind): its view chain passes through a step marked ``multi_output``."""
    chain = view._view_fn
    while chain is not None:
        cls, _, chain = chain
        if getattr(cls, "multi_output", False):
            return True
    return False


def _modified_multi_view(view):
    # torch regenerates no such view (the outputs of its node are fixed): using it after its
    # memory changed, by whatever write, is refused
    if _custom_views.from_custom_function(view):
        return RuntimeError(f"Output {view._output_nr} of {_custom_views.op_name(view._grad_fn)} "
                            f"is a view and its base or another view of its base has been "
                            f"modified inplace. {_custom_views.CUSTOM_TAIL}")
    return RuntimeError(multi_view_modified_text(view._grad_fn, view._output_nr))


def multi_view_modified_text(fn, output_nr):
    """torch's refusal of output ``output_nr`` of node ``fn`` (a multi-output view, or a view
    of one) after its memory changed; also what backward says when it was saved (torch reads
    the saved piece's grad_fn to word the version error, which raises this instead)."""
    name = _custom_views.op_name(fn)
    return (f"Output {output_nr} of {name} is a view and its base or another view of its base "
            f"has been modified inplace. {_MULTI_VIEW_TAIL}")


def out_of_multi_view(node):
    """Whether the outputs of ``node`` are pieces of split/unbind, or views of one (view
    nodes back to such a node): what a saved tensor with this grad_fn was (error path only)."""
    while node is not None:
        if getattr(node, "multi_view_outputs", False):
            return True
        if not getattr(type(node), "is_view", False) or \
                not getattr(node, "__dict__", {}).get("is_view", True):
            return False  # a copy (reshape of a non-viewable layout) is no view
        edges = getattr(node, "_edges", None)
        node = edges[0][0] if edges and edges[0] is not None else None
    return False


def multi_view_requires_grad(view):
    """``requires_grad`` of a multi-output view, read as torch reads it without rebuilding
    its grad_fn (so it answers after the view's memory changed)."""
    return view._requires_grad or view._grad_fn is not None or view._base.requires_grad


def refresh_view(view):
    """Rebuild a view's grad_fn from its base after the base's history changed."""
    base = view._base
    src = view._view_src
    if type(src) is tuple:  # (base's grad_fn, version) of a multi-output view (multi_view.py)
        if src[1] == view._vc[0] and src[0] is base._grad_fn:
            return
        if view._grad_fn is None and base._grad_fn is None and not base._requires_grad:
            return  # no graph to protect: torch reads such a view's (absent) grad_fn as is
        raise _modified_multi_view(view)
    if (base._grad_fn is not None or base._requires_grad) and _from_multi_output(view):
        raise _modified_multi_view(view)  # a view made before its chain was stamped
    if base._grad_fn is not None or base._requires_grad:
        with enable_grad():
            # torch regenerates such a view with one as_strided node; so is it named here
            t = graph.rename_node(replay_view(view._view_fn, base), "AsStridedBackward0")
        view._grad_fn, view._output_nr = t._grad_fn, t._output_nr
        view._requires_grad = t._grad_fn is not None
    view._view_src = base._grad_fn


class CopySlices(Node):
    """The base after a write through one of its views: d/d(old base) is the gradient outside
    the written region; d/d(new values) is the gradient inside it."""

    def __init__(self, view_chain, base_edge, value_edge, base, value):
        self._seq = next(graph._sequence)
        self.view_chain = view_chain
        self._edges = (base_edge, value_edge)
        self._in_meta = ((base._array.shape, base._array.dtype),
                         (value._array.shape, value._array.dtype))
        self._out_meta = ((base._array.shape, base._array.dtype),)
        self.xp = graph.backend.xp_of(base._array)

    def name(self):
        return "torch::autograd::CopySlices"

    def _run(self, grads, create_graph, root_arrays):
        (g,) = grads
        if g is None:
            return (None, None)
        grad_base = None
        if self._edges[0] is not None:
            # the old base gets the gradient outside the written region: zero the region
            # through the same view on a copy (a recorded in-place op under create_graph, so
            # this stays differentiable; it also works for views that reinterpret dtypes)
            grad_base = g.clone()
            replay_view(self.view_chain, grad_base).zero_()
        grad_value = replay_view(self.view_chain, g) if self._edges[1] is not None else None
        return (grad_base, grad_value)

    def _release(self):
        pass
