"""``torch.utils._python_dispatch``: ``TorchDispatchMode``, a context manager whose
``__torch_dispatch__(func, types, args, kwargs)`` sees every operator a block of code runs
and decides what it returns (usually ``func(*args, **kwargs)``, after looking at it).

How numtorch does it: while a mode is active, numtorch's op hook (``autograd.graph._hook``,
the one the profiler and FlopCounterMode use) hands every op call to the innermost mode as
torch's operator: the products as ``aten.mm``/``aten.bmm``/``aten.mv``/``aten.dot`` on the
operands torch's matmul passes them (batched operands folded to 2-D or broadcast to 3-D, by
torch's rules), linear layers as ``aten.addmm`` (or a product as above), convolutions as
``aten.convolution`` with torch's arguments; any other op under the aten name closest to it
(``aten.add.Tensor``, ``aten.view.default``, ``aten._softmax.default``, ...) with its tensor
operands as ``args``. Calling ``func`` runs the op; while the mode's ``__torch_dispatch__``
runs, the mode is off (ops it runs go to the next mode out, or run), as in torch.

Note:
    ``backward()`` runs numtorch's gradient formulas, which are numtorch ops: the mode sees
    their products too, with the same flops as torch's, though not always in torch's operand
    order (a weight's gradient may come as ``x^T @ g`` where torch shows ``g^T @ x``).
"""

import contextlib
import re
import threading

from .. import _ops_tree
from ..autograd import graph as _graph
from ..autograd._hook_chain import ChainedHook

__all__ = ["BaseTorchDispatchMode", "TorchDispatchMode", "any_torch_dispatch_mode_on_stack",
           "is_in_torch_dispatch_mode", "is_traceable_wrapper_subclass",
           "is_traceable_wrapper_subclass_type", "return_and_correct_aliasing",
           "transform_subclass"]


class _State(threading.local):
    def __init__(self):
        self.stack = []  # active modes, innermost last
        self.hook = None  # the op hook installed while the stack is not empty


_STATE = _State()


class TorchDispatchMode:
    """Base class of dispatch modes: subclass it, define ``__torch_dispatch__(self, func,
    types, args=(), kwargs=None)`` and use an instance as a context manager.

    Args:
        _dispatch_key: torch's internal key (accepted, unused).
    """

    def __init__(self, _dispatch_key=None):
        self._dispatch_key = _dispatch_key

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode(self)

    @classmethod
    def push(cls, *args, **kwargs):
        """A new instance (torch's deprecated form of ``with cls(*args, **kwargs)``)."""
        return cls(*args, **kwargs)

    @classmethod
    def is_infra_mode(cls):
        return False


class BaseTorchDispatchMode(TorchDispatchMode):
    """A dispatch mode that runs every operator unchanged (a base for modes that only watch)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _push_mode(mode):
    st = _STATE
    if not st.stack:
        st.hook = _Hook(_graph._hook)
        _graph._hook = st.hook
    st.stack.append(mode)


def _pop_mode(mode=None):
    st = _STATE
    if not st.stack:
        raise AssertionError("Trying to pop from an empty mode stack")
    if mode is None or st.stack[-1] is mode:
        popped = st.stack.pop()
    else:
        popped = mode
        st.stack.remove(mode)
    if not st.stack and st.hook is not None:
        if _graph._hook is st.hook:
            _graph._hook = st.hook.prev
        st.hook = None
    return popped


def _get_current_dispatch_mode():
    """The innermost active mode, or None."""
    return _STATE.stack[-1] if _STATE.stack else None


def _get_current_dispatch_mode_stack():
    """The active modes, outermost first."""
    return list(_STATE.stack)


def _len_torch_dispatch_stack():
    """How many dispatch modes are active."""
    return len(_STATE.stack)


@contextlib.contextmanager
def _pop_mode_temporarily(k=None):
    """Take the innermost mode off inside the block (yields it)."""
    mode = _pop_mode()
    try:
        yield mode
    finally:
        _push_mode(mode)


def any_torch_dispatch_mode_on_stack(*, include_infra_modes=True,
                                     ignore_compile_internals=False):
    """Whether a dispatch mode is active."""
    return bool(_STATE.stack)


def is_traceable_wrapper_subclass_type(t):
    """Whether the class ``t`` is a tensor subclass that flattens into inner tensors."""
    from .._tensor import Tensor

    return (isinstance(t, type) and issubclass(t, Tensor) and t is not Tensor
            and hasattr(t, "__tensor_flatten__") and hasattr(t, "__tensor_unflatten__"))


def is_in_torch_dispatch_mode(include_infra_modes=True):
    """Whether a dispatch mode is active."""
    return bool(_STATE.stack)


@contextlib.contextmanager
def _disable_current_modes():
    """Turn the active modes off inside the block (yields them, outermost first)."""
    st = _STATE
    saved = list(st.stack)
    while st.stack:
        _pop_mode()
    try:
        yield saved
    finally:
        for mode in saved:
            _push_mode(mode)


def is_traceable_wrapper_subclass(t):
    """Whether ``t`` is a tensor subclass that flattens into inner tensors
    (``__tensor_flatten__``/``__tensor_unflatten__``)."""
    from .._tensor import Tensor

    return (isinstance(t, Tensor) and type(t) is not Tensor
            and hasattr(t, "__tensor_flatten__") and hasattr(t, "__tensor_unflatten__"))


def transform_subclass(t, callback, outer_size=None, outer_stride=None):
    """A wrapper subclass rebuilt with ``callback(name, inner)`` applied to its inner
    tensors."""
    attrs, ctx = t.__tensor_flatten__()
    inner = {a: callback(a, getattr(t, a)) for a in attrs}
    return type(t).__tensor_unflatten__(inner, ctx, outer_size or t.size(),
                                        outer_stride or t.stride())


def return_and_correct_aliasing(func, args, kwargs, out):
    """``out`` as a dispatch mode's result (numtorch keeps no alias metadata to correct)."""
    return out


# -- the op hook -------------------------------------------------------------------------------
class _Hook(ChainedHook):
    """Hands op calls to the innermost mode (chained in front of a profiler's hook)."""

    def op(self, cls, inputs, params):
        st = _STATE
        if not st.stack:
            return self.run_below(cls, inputs, params)
        self.busy = True  # the reshapes that present the operands are not the program's ops
        try:
            func, args, kwargs, finish = _aten_form(self, cls, inputs, params)
        finally:
            self.busy = False
        mode = st.stack.pop()  # off while it runs, as in torch
        try:
            types = tuple({type(a) for a in _tensors(args, kwargs)})
            out = mode.__torch_dispatch__(func, types, args, kwargs)
        finally:
            st.stack.append(mode)
        if finish is None:
            return out
        self.busy = True
        try:
            return finish(out)
        finally:
            self.busy = False


def _tensors(args, kwargs):
    from .._tensor import Tensor

    out = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(x for x in a if isinstance(x, Tensor))
    return out


class _Op:
    """A numtorch op presented as torch's operator ``aten.<name>.<overload>``: equal to (and
    hashed as) torch's overload where numtorch's ``torch.ops.aten`` has it; calling it runs
    the op."""

    def __init__(self, name, overload, run):
        self._run = run
        packet = getattr(_ops_tree.namespace("aten"), name, None)
        self._real = getattr(packet, overload, None) if packet is not None else None
        if packet is None:
            packet = _ops_tree.OpOverloadPacket("aten", name)
        self.overloadpacket = self._overloadpacket = packet
        self._overloadname = overload
        self.namespace = "aten"
        self.__name__ = f"{name}.{overload}"
        self._schema = getattr(self._real, "_schema", None)

    def name(self):
        base = f"aten::{self.overloadpacket.__name__}"
        return base if self._overloadname == "default" else f"{base}.{self._overloadname}"

    def __call__(self, /, *args, **kwargs):
        return self._run(*args, **kwargs)

    def __eq__(self, other):
        if isinstance(other, _Op):
            return self.__name__ == other.__name__
        return self._real is not None and other is self._real

    def __hash__(self):
        return hash(self._real) if self._real is not None else hash(self.__name__)

    def __str__(self):
        return f"aten.{self.__name__}"

    def __repr__(self):
        return (f"<OpOverload(op='aten.{self.overloadpacket.__name__}', "
                f"overload='{self._overloadname}')>")


def _real_or(name, overload, run):
    packet = getattr(_ops_tree.namespace("aten"), name, None)
    real = getattr(packet, overload, None) if packet is not None else None
    return real if real is not None else _Op(name, overload, run)


# op class -> (aten name, overload) where the names differ beyond case
_NAMES = {
    "Add": ("add", "Tensor"), "Sub": ("sub", "Tensor"), "Mul": ("mul", "Tensor"),
    "Div": ("div", "Tensor"), "Pow": ("pow", "Tensor_Tensor"), "Reshape": ("view", "default"),
    "Softmax": ("_softmax", "default"), "LogSoftmax": ("_log_softmax", "default"),
    "Sum": ("sum", "dim_IntList"), "Mean": ("mean", "dim"),
    "NormalizeAffine": ("native_layer_norm", "default"),
    "BatchNormAffine": ("native_batch_norm", "default"), "MaxPool": ("max_pool2d", "default"),
    "Einsum": ("einsum", "default"), "LinearFused": ("linear", "default"),
    "Conv": ("convolution", "default"), "ConvTranspose": ("convolution", "default"),
    "MatMul": ("matmul", "default"), "Gelu": ("gelu", "default"),
    "ScaledDotProductAttention": ("_scaled_dot_product_flash_attention_for_cpu", "default"),
}


def _snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _generic(cls, inputs, params):
    kind = getattr(cls, "_op_cls", cls).__name__
    name, overload = _NAMES.get(kind, (_snake(kind), "default"))
    func = _Op(name, overload, lambda *args, **kwargs: cls.apply(*args, **params, **kwargs))
    return func, tuple(inputs), {}, None


def _aten_form(hook, cls, inputs, params):
    """``(func, args, kwargs, finish)``: torch's operator for the op call, its arguments, and
    what turns the operator's result into the op's (None: it is the op's)."""
    kind = getattr(cls, "_op_cls", cls).__name__
    try:
        if kind == "MatMul" and len(inputs) == 2:
            form = _matmul_form(inputs[0], inputs[1])
        elif kind == "LinearFused":
            form = _linear_form(inputs)
        elif kind in ("Conv", "ConvTranspose"):
            form = _conv_form(inputs, params, kind == "ConvTranspose")
        else:
            form = None
    except (TypeError, ValueError, AttributeError, IndexError):
        form = None
    return form if form is not None else _generic(cls, inputs, params)


def _mm_op(name):
    import numtorch

    return _real_or(name, "default", getattr(numtorch, name))


def _matmul_form(a, b):
    """torch's matmul of ``a`` and ``b`` as one product: the operands it passes to mm / bmm /
    mv / dot and how the result is shaped back."""
    from .flop_counter import _matmul, _shape

    sa, sb = _shape(a), _shape(b)
    if len(sa) == 1 and len(sb) == 1:
        return _mm_op("dot"), (a, b), {}, None
    if len(sa) == 2 and len(sb) == 1:
        return _mm_op("mv"), (a, b), {}, None
    out_shape = _out_shape(sa, sb)
    counted = _matmul(a, b, sb, _strides(b))
    if counted is None:  # folded to a matrix-vector product
        if len(sb) == 1:
            return _mm_op("mv"), (a.reshape(-1, sa[-1]), b), {}, \
                lambda r: r.reshape(out_shape)
        t = b.transpose(-1, -2)
        return _mm_op("mv"), (t.reshape(-1, sb[-2]), a), {}, lambda r: r.reshape(out_shape)
    if counted[0] == "mm":
        if len(sa) == 3 and len(sb) == 3 and (sa[0] == 1) != (sb[0] == 1):
            if sa[0] == 1:
                a, sa = a.reshape(sa[1:]), sa[1:]
            else:
                b, sb = b.reshape(sb[1:]), sb[1:]
        if len(sb) <= 2:  # the left operand folds into rows
            return _mm_op("mm"), (a.reshape(-1, sa[-1]), b), {}, \
                lambda r: r.reshape(out_shape)
        # the batched right operand folds transposed: (b^T rows) @ a^T, transposed back
        t = b.transpose(-1, -2)
        rows = t.reshape(-1, sb[-2])
        at = a.transpose(-1, -2) if len(sa) == 2 else a.reshape(-1, 1)
        return _mm_op("mm"), (rows, at), {}, \
            lambda r: r.reshape(tuple(sb[:-2]) + (sb[-1], -1)).transpose(-1, -2).reshape(
                out_shape)
    a3 = a.reshape(1, sa[0]) if len(sa) == 1 else a
    b3 = b.reshape(sb[0], 1) if len(sb) == 1 else b
    from .flop_counter import _broadcast

    bt = _broadcast(tuple(a3.shape[:-2]), tuple(b3.shape[:-2]))
    a3 = a3.expand(bt + tuple(a3.shape[-2:])).reshape(-1, a3.shape[-2], a3.shape[-1])
    b3 = b3.expand(bt + tuple(b3.shape[-2:])).reshape(-1, b3.shape[-2], b3.shape[-1])
    return _mm_op("bmm"), (a3, b3), {}, lambda r: r.reshape(out_shape)


def _strides(t):
    try:
        return tuple(t.stride())
    except (AttributeError, RuntimeError):
        return None


def _out_shape(sa, sb):
    if len(sa) == 1:
        return tuple(sb[:-2]) + (sb[-1],)
    if len(sb) == 1:
        return tuple(sa[:-1])
    from .flop_counter import _broadcast

    return _broadcast(sa[:-2], sb[:-2]) + (sa[-2], sb[-1])


def _linear_form(inputs):
    from .flop_counter import _contiguous

    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    sx = tuple(x.shape)
    if w.dim() != 2:
        return None
    out_shape = sx[:-1] + (w.shape[0],)
    if bias is not None and (len(sx) <= 2 or _contiguous(x)):
        return (_real_or("addmm", "default", None), (bias, x.reshape(-1, sx[-1]), w.t()), {},
                lambda r: r.reshape(out_shape))
    func, args, kwargs, finish = _matmul_form(x, w.t())

    def done(r):
        r = finish(r) if finish is not None else r
        return r if bias is None else r + bias

    return func, args, kwargs, done


def _conv_form(inputs, params, transposed):
    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    pads = params["padding"]
    if any(lo != hi for lo, hi in pads):
        return None
    padding = [lo for lo, _ in pads]
    stride, dilation = list(params["stride"]), list(params["dilation"])
    groups = int(params.get("groups", 1))
    output_padding = [0] * len(padding)
    if transposed:
        k = tuple(w.shape[2:])
        size = params["size"]
        output_padding = [int(size[i]) - ((x.shape[2 + i] - 1) * stride[i] - 2 * padding[i]
                                          + dilation[i] * (k[i] - 1) + 1)
                          for i in range(len(padding))]
    return (_real_or("convolution", "default", None),
            (x, w, bias, stride, padding, dilation, transposed, output_padding, groups), {},
            None)
