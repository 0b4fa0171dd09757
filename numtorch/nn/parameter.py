"""``nn.Parameter`` (a leaf tensor a Module registers), ``nn.Buffer``, and the uninitialised
placeholders of lazy modules."""

import inspect

import numpy as np

from .. import _grad_state, _tensor, _torch_function
from .._class_repr import TorchNamed
from .._tensor import Tensor

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter",
           "UninitializedTensorMixin", "is_lazy"]


def _wrap_as(cls, data):
    """A ``cls`` instance sharing ``data``'s memory (a fresh leaf with no history)."""
    t = _tensor._new(cls)
    t._array, t._requires_grad, t._grad, t._grad_fn, t._output_nr = data, False, None, None, 0
    t._vc, t._base, t._accum, t._extra = _tensor._new_version(), None, None, None
    return t


def _data_array(data, fn):
    if data is None:
        from .. import _dtype

        return np.empty((0,), dtype=_dtype.get_default_dtype().np)
    if not isinstance(data, Tensor):
        # torch calls data.detach() here, so anything but a tensor fails with AttributeError
        raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
    return data._array


# wrapper tensor classes that Parameter(t) keeps as themselves (DTensor registers here)
_KEPT_AS_ITSELF = set()


class _ParameterMeta(TorchNamed):
    """``isinstance(t, Parameter)`` also holds for a wrapper tensor (DTensor) that
    ``Parameter(t)`` kept as its own class, as with torch's parameter metaclass."""

    def __instancecheck__(cls, obj):
        t = type(obj)
        if t in _KEPT_AS_ITSELF:
            return cls is Parameter and obj.__dict__.get("_is_param", False)
        return t is cls or issubclass(t, cls)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A tensor that is a module parameter: assigning it to a Module attribute registers it.

    It is always a leaf: built from a tensor with history, it shares the values but not the
    graph.

    Args:
        data (Tensor): the values (shared, not copied). Default: an empty float tensor.
        requires_grad (bool): whether the parameter requires gradient. Default: True.

    Example:
        >>> p = torch.nn.Parameter(torch.zeros(2))
        >>> p.requires_grad
        True
    """

    def __new__(cls, data=None, requires_grad=True):
        if type(data) in _KEPT_AS_ITSELF:
            # torch keeps a wrapper tensor's own class (a DTensor parameter is a DTensor,
            # detached, with the flag set)
            p = data.detach()._set_requires_grad(requires_grad)
            p._is_param = True
            return p
        p = _wrap_as(cls, _data_array(data, "Parameter"))
        if data is not None and type(data._vc) is not list:
            # an inference tensor's parameter is one too (torch keeps the tensor's kind), so
            # asking it to require grad outside inference mode is refused
            p._vc = data._vc
            if requires_grad and not _grad_state._state.inference:
                p.requires_grad_(True)  # (raises torch's error)
        if requires_grad:
            _tensor._factory_requires_grad(p)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        # like torch: a fresh parameter with copied values and the same flag; .grad is not
        # copied (unlike a plain tensor's deepcopy)
        if id(self) in memo:
            return memo[id(self)]
        new = _tensor._new_like_class(type(self), _tensor._deepcopy_array(self._array, memo))
        new._requires_grad = self._requires_grad
        memo[id(self)] = new
        return new


class _BufferMeta(TorchNamed):
    """``isinstance(t, Buffer)`` is True for tensors marked as buffers (torch's behaviour)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and bool(obj._extra) and "buffer_persistent" in obj._extra


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor to be registered as a module buffer when assigned as an attribute.

    ``Buffer(t)`` is a plain Tensor sharing ``t``'s memory, tagged so that
    ``module.name = Buffer(t)`` calls ``register_buffer``.

    Args:
        data (Tensor): the values (shared).
        persistent (bool): whether the buffer is part of ``state_dict``. Default: True.

    Example:
        >>> m = torch.nn.Module()
        >>> m.stats = torch.nn.Buffer(torch.zeros(3))
        >>> list(m.state_dict())
        ['stats']
    """

    def __new__(cls, data=None, *, persistent=True):
        b = _wrap_as(Tensor, _data_array(data, "Buffer"))
        # torch sets the flag either way (refused inside a torch.func transform)
        b.requires_grad_(data is not None and data.requires_grad)
        b._extra = {"buffer_persistent": persistent}
        return b


_SHAPE_ERROR = ("Can't access the shape of an uninitialized parameter or buffer. This error "
                "usually happens in `load_state_dict` when trying to load an uninitialized "
                "parameter into an initialized one. Call `forward` to initialize the parameters "
                "before accessing their attributes.")

# what may be used before materialisation: bookkeeping, dtype/device moves, flags
_ALLOWED = {"__new__", "__init__", "__repr__", "__str__", "__hash__", "__reduce__",
            "__reduce_ex__", "__deepcopy__", "__copy__", "__getattribute__", "__getattr__",
            "__setattr__", "__delattr__", "__dir__", "__init_subclass__", "__subclasshook__",
            "__sizeof__", "__format__", "__getstate__", "__setstate__", "__class_getitem__",
            "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
            "short", "int", "long", "bfloat16", "cuda", "cpu", "to", "get_device",
            "requires_grad_", "materialize", "type"}


# what torch's message names for an operator on an uninitialised parameter: the TensorBase
# method the operator runs, or the Python function defining it (``None``: the operator's name)
_OPERATOR_TARGETS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_",
    "__truediv__": "div", "__itruediv__": "div_", "__ifloordiv__": "floor_divide_",
    "__mod__": "remainder", "__imod__": "remainder_", "__matmul__": "matmul",
    "__rand__": "bitwise_and", "__ror__": "bitwise_or", "__rxor__": "bitwise_xor",
    "__neg__": "neg", "__pos__": "positive", "__abs__": "abs", "__ne__": "ne", "__lt__": "lt",
    "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__iter__": "dim",
}
_FUNCTION_TARGETS = {
    "__rsub__": "Tensor.__rsub__", "__rtruediv__": "Tensor.__rdiv__",
    "__floordiv__": "Tensor.__floordiv__", "__rfloordiv__": "Tensor.__rfloordiv__",
    "__rmod__": "Tensor.__rmod__", "__pow__": "TensorBase.pow", "__rpow__": "Tensor.__rpow__",
    "__ipow__": "TensorBase.pow_", "__rmatmul__": "Tensor.__rmatmul__",
    "__rlshift__": "Tensor.__rlshift__", "__rrshift__": "Tensor.__rrshift__",
    "__len__": "Tensor.__len__", "__contains__": "Tensor.__contains__",
    "__reversed__": "Tensor.__reversed__", "__array__": "Tensor.__array__",
}


def _target(name, method):
    if name in _FUNCTION_TARGETS:
        return f"<function {_FUNCTION_TARGETS[name]} at {hex(id(method))}>"
    if name in ("__getitem__", "__setitem__", "__delitem__"):
        return f"<slot wrapper '{name}' of 'torch._C.TensorBase' objects>"
    return f"<method '{_OPERATOR_TARGETS.get(name, name)}' of 'torch._C.TensorBase' objects>"


# torch's public functions written in Python (the rest are built-ins, which name themselves
# differently in the placeholders' error)
_PYTHON_FUNCTIONS = frozenset({
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_tensors",
    "cartesian_prod", "cdist", "chain_matmul", "einsum", "lobpcg", "lu", "meshgrid", "norm",
    "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive",
    "unravel_index"})
_BUILTIN_FUNCTIONAL = frozenset({
    "adaptive_avg_pool1d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "bilinear", "celu_",
    "channel_shuffle", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "cosine_similarity", "elu_", "gelu", "hardshrink",
    "hardtanh_", "leaky_relu_", "linear", "logsigmoid", "one_hot", "pairwise_distance", "pdist",
    "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_", "rrelu_",
    "scaled_dot_product_attention", "selu_", "softplus", "softshrink", "threshold_"})


def _function_target(func):
    """How torch's error names the public function ``func`` (the numtorch wrapper)."""
    import numtorch

    name, at = func.__name__, hex(id(func))
    if getattr(numtorch, name, None) is func and name not in _PYTHON_FUNCTIONS:
        return f"<built-in method {name} of type object at {at}>"
    for prefix in ("linalg", "fft", "special"):
        short = name.removeprefix(prefix + "_")
        if getattr(getattr(numtorch, prefix), short, None) is func:
            return f"<built-in function {prefix}_{short}>"
    if getattr(numtorch.nn.functional, name, None) is func and name in _BUILTIN_FUNCTIONAL:
        return f"<built-in function {name}>"
    return f"<function {name} at {at}>"


def _refuse_functions(cls, func, types, args=(), kwargs=None):
    raise _use_error(_function_target(func), cls.__name__)


def _blocked(name):
    def method(self, *args, **kwargs):
        raise _use_error(_target(name, method), type(self).__name__)

    method.__name__ = name
    return method


class UninitializedTensorMixin:
    """Shared by the lazy placeholders: no shape, no math, ``materialize`` gives them data."""

    cls_to_become = None

    @property
    def shape(self):
        raise RuntimeError(_SHAPE_ERROR)

    def materialize(self, shape, device=None, dtype=None):
        """Allocate (uninitialised) data of ``shape`` and become ``cls_to_become``.

        Args:
            shape (int or tuple of ints): the shape.
            device: the device. Default: the placeholder's device.
            dtype: the dtype. Default: the placeholder's dtype.
        """
        from .._creation import empty

        if isinstance(shape, int):
            shape = (shape,)
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self._array = empty(tuple(shape), device=device, dtype=dtype)._array
        self.__class__ = self.cls_to_become
        _torch_function.release_placeholder(self)

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (_rebuild_uninitialized, (type(self), self._requires_grad, self.dtype.name,
                                         str(self.device)))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = _rebuild_uninitialized(type(self), self._requires_grad,
                                                    self.dtype.name, str(self.device))
        return memo[id(self)]


def _install_blocks(cls):
    names = set()
    for base in Tensor.__mro__[:-1]:
        for name, value in vars(base).items():
            if inspect.isfunction(value) and name not in _ALLOWED and name not in vars(cls) \
                    and (not name.startswith("_") or name.startswith("__")):
                names.add(name)
    for name in names:
        setattr(cls, name, _blocked(name))
    return cls


def _use_error(target, kind):
    return ValueError(f"Attempted to use an uninitialized parameter in {target}. This error "
                      f"happens when you are using a `LazyModule` or explicitly manipulating "
                      f"`torch.nn.parameter.{kind}` objects. When using "
                      f"LazyModules Call `forward` with a dummy batch to initialize the "
                      f"parameters before calling torch functions")


def _placeholder(cls, requires_grad, device, dtype):
    from .._creation import empty

    t = _wrap_as(cls, empty(0, device=device, dtype=dtype)._array)
    if requires_grad:
        Tensor._set_requires_grad(t, True)
    _torch_function.hold_placeholder(t)
    return t


@_install_blocks
class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of a lazy module before its shape is known; it holds no data.

    Using it in any computation raises ``ValueError``; ``materialize(shape)`` turns it into a
    regular :class:`Parameter`.

    Example:
        >>> p = torch.nn.UninitializedParameter()
        >>> p.materialize((2, 3))
        >>> type(p).__name__, tuple(p.shape)
        ('Parameter', (2, 3))
    """

    cls_to_become = Parameter
    __torch_function__ = classmethod(_refuse_functions)

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _placeholder(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


@_install_blocks
class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module before its shape is known; ``materialize`` makes it a Tensor.

    Example:
        >>> b = torch.nn.parameter.UninitializedBuffer()
        >>> b.materialize(3)
        >>> b.shape
        torch.Size([3])
    """

    cls_to_become = Tensor
    __torch_function__ = classmethod(_refuse_functions)

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return _placeholder(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass


def _rebuild_uninitialized(cls, requires_grad, dtype_name, device):
    from .. import _dtype

    return cls(requires_grad=requires_grad, device=device, dtype=_dtype._BY_NAME[dtype_name])


def is_lazy(param):
    """True for a parameter or buffer not yet materialized.

    Example:
        >>> torch.nn.parameter.is_lazy(torch.nn.UninitializedParameter())
        True
    """
    return isinstance(param, UninitializedTensorMixin)
