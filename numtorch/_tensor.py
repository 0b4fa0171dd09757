"""``numtorch.Tensor``: one xp array plus autograd state. Math methods delegate to ``ops``."""

import numpy as np

from . import _dtype, backend
from ._device import CPU, as_device
from ._size import Size
from .autograd import graph as _graph
from ._tensor_math import _TensorMath
from . import autograd as _autograd

__all__ = ["Tensor"]

_new = object.__new__


def _make(arr):
    """Wrap an xp array in a Tensor with no autograd history (internal fast constructor)."""
    t = _new(Tensor)
    t._array = arr
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._vc = [0]
    t._base = None
    t._accum = None
    t._extra = None
    return t


class Tensor(_TensorMath):
    """A multi-dimensional array with autograd, wrapping one NumPy (or CuPy) array.

    ``Tensor(data)`` copies ``data`` into a float tensor of the default dtype; ``Tensor(2, 3)``
    makes an uninitialised 2x3 float tensor, as in torch. Prefer :func:`numtorch.tensor`.
    """

    __slots__ = ("_array", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_vc", "_base",
                 "_accum", "_extra", "_view_fn", "_view_src", "__weakref__", "__dict__")

    def __new__(cls, *args, device=None, dtype=None):
        if len(args) == 1 and isinstance(args[0], np.ndarray) and cls is not Tensor:
            arr = args[0]
        elif len(args) == 1 and not isinstance(args[0], int):
            src = args[0]
            arr = src._array.copy() if isinstance(src, Tensor) else np.array(
                src, dtype=(_dtype.as_dtype(dtype) or _dtype.get_default_dtype()).np)
        else:
            shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
            arr = np.empty(tuple(shape), dtype=(_dtype.as_dtype(dtype)
                                                 or _dtype.get_default_dtype()).np)
        t = _new(cls)
        t._array, t._requires_grad, t._grad, t._grad_fn, t._output_nr = arr, False, None, None, 0
        t._vc, t._base, t._accum, t._extra = [0], None, None, None
        return t

    def __init__(self, *args, **kwargs):
        pass

    # -- basic properties ---------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._array.shape)

    def size(self, dim=None):
        """Return the shape, or the size of dimension ``dim``."""
        if dim is None:
            return Size(self._array.shape)
        return self._array.shape[_ops.canonical_dim(dim, self._array.ndim)]

    def dim(self):
        return self._array.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._array.ndim

    def numel(self):
        return int(self._array.size)

    nelement = numel

    @property
    def dtype(self):
        return _dtype._FROM_NP[self._array.dtype]

    @property
    def device(self):
        if type(self._array) is np.ndarray:
            return CPU
        return backend.device_of(self._array)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def is_cpu(self):
        return self.device.type == "cpu"

    def get_device(self):
        d = self.device
        return -1 if d.type == "cpu" else (d.index or 0)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def element_size(self):
        return self._array.itemsize

    @property
    def itemsize(self):
        return self._array.itemsize

    @property
    def nbytes(self):
        return self._array.nbytes

    @property
    def T(self):
        return self.permute(*range(self._array.ndim - 1, -1, -1))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    # -- autograd state -----------------------------------------------------------------------
    @property
    def requires_grad(self):
        if self._base is not None and self._view_fn is not None:
            return _graph.edge_of(self) is not None
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Set whether autograd records operations on this leaf tensor (in place)."""
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. "
                                   "If you want to use a computed variable in a subgraph that "
                                   "doesn't require differentiation use "
                                   "var_no_grad = var.detach().")
            return self
        if requires_grad and self.dtype._category < _dtype._FLOAT:
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        if self._base is not None and self._view_fn is not None:
            _graph.edge_of(self)
        return self._grad_fn

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def grad(self):
        if self._grad is None and self._grad_fn is not None and not self.retains_grad:
            import warnings

            warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being "
                          "accessed. Its .grad attribute won't be populated during "
                          "autograd.backward(). Use .retain_grad() on the non-leaf Tensor to "
                          "keep its gradient.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._array.shape != self._array.shape:
                raise RuntimeError("assigned grad has data of a different size")
            if value._array.dtype != self._array.dtype:
                raise RuntimeError("assigned grad has data of a different type")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return bool(self._extra and self._extra.get("retains_grad"))

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in ``.grad`` after backward."""
        _autograd_api().retain_grad(self)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a new one."""
        return _autograd_api().register_tensor_hook(self, hook)

    def _refresh_view_grad_fn(self):
        _autograd_api().refresh_view(self)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor w.r.t. graph leaves into their ``.grad``."""
        _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """A tensor sharing memory and version counter, cut from the graph."""
        t = _make(self._array)
        t._vc = self._vc
        return t

    def detach_(self):
        if self._base is not None and self._view_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn, self._requires_grad, self._output_nr = None, False, 0
        return self

    @property
    def data(self):
        return _make(self._array)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, but got {type(value).__name__}")
        self._array = value._array

    @property
    def _version(self):
        return self._vc[0]

    # -- conversion to Python / NumPy ------------------------------------------------------
    def item(self):
        """Return the value of a one-element tensor as a Python number."""
        if self._array.size != 1:
            raise RuntimeError(f"a Tensor with {self._array.size} elements cannot be converted "
                               "to Scalar")
        return self._array.reshape(()).item() if type(self._array) is np.ndarray else \
            self._array.get().reshape(()).item()

    def tolist(self):
        arr = self._array if type(self._array) is np.ndarray else self._array.get()
        return arr.tolist()

    def numpy(self, *, force=False):
        """Return the NumPy array (sharing memory) of a CPU tensor."""
        if type(self._array) is not np.ndarray:
            if force:
                return self._array.get()
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._array

    def __array__(self, dtype=None, copy=None):
        arr = self._array if type(self._array) is np.ndarray else self._array.get()
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __dlpack__(self, stream=None, **kwargs):
        if self.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        return self._array.__dlpack__(**({"stream": stream} if stream is not None else {}))

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()

    def __repr__(self, *, tensor_contents=None):
        from ._tensor_str import format_tensor

        return format_tensor(self, tensor_contents)

    def __format__(self, spec):
        if self._array.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __len__(self):
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __iter__(self):
        if self._array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self._array.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if self._array.size == 0 else 'more than one value'} is ambiguous")  # noqa: E501
        return bool(self.item())

    def __int__(self):
        return int(self.item())

    def __float__(self):
        return float(self.item())

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        if self.dtype._category != _dtype._INT or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self.detach().numpy(force=True), self.requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.")
        new = type(self).__new__(type(self), self._array.copy()) if type(self) is not Tensor \
            else _make(self._array.copy())
        new._requires_grad = self._requires_grad
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        if hasattr(self, "__dict__"):
            import copy

            for k, v in self.__dict__.items():
                setattr(new, k, copy.deepcopy(v, memo))
        memo[id(self)] = new
        return new

    # -- dtype / device conversion ------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Return the tensor with another dtype and/or device (``self`` when nothing changes).

        Accepts ``to(dtype)``, ``to(device, dtype=None)``, ``to(other_tensor)``, and the keyword
        forms ``dtype=``, ``device=``, ``copy=``, ``non_blocking=``.
        """
        dtype, dev = kwargs.pop("dtype", None), kwargs.pop("device", None)
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, Tensor):
                dtype, dev = a.dtype, a.device
            elif isinstance(a, _dtype.dtype):
                dtype = a
            elif isinstance(a, (str, int)) or type(a).__name__ == "device":
                dev = a
            elif a is not None and not isinstance(a, bool):
                raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
        return _ops.to(self, dtype=_dtype.as_dtype(dtype), device=as_device(dev), copy=copy)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """Without arguments return the legacy type name (``'torch.FloatTensor'``); else cast."""
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + self.dtype._legacy
        if isinstance(dtype, str) and dtype.rsplit(".", 1)[-1] in _dtype._BY_LEGACY:
            dev = "cuda" if ".cuda." in dtype else "cpu"
            return self.to(_dtype._BY_LEGACY[dtype.rsplit(".", 1)[-1]], device=dev)
        if isinstance(dtype, type) and getattr(dtype, "_legacy_dtype", None) is not None:
            return self.to(dtype._legacy_dtype)
        return self.to(_dtype.as_dtype(dtype))

    def type_as(self, other):
        return self.to(other.dtype, other.device)

    def float(self):
        return self.to(_dtype.float32)

    def double(self):
        return self.to(_dtype.float64)

    def half(self):
        return self.to(_dtype.float16)

    def long(self):
        return self.to(_dtype.int64)

    def int(self):
        return self.to(_dtype.int32)

    def short(self):
        return self.to(_dtype.int16)

    def char(self):
        return self.to(_dtype.int8)

    def byte(self):
        return self.to(_dtype.uint8)

    def bool(self):
        return self.to(_dtype.bool)

    def cfloat(self):
        return self.to(_dtype.complex64)

    def cdouble(self):
        return self.to(_dtype.complex128)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False):
        return self.to("cuda" if device is None else as_device(
            device if not isinstance(device, int) else f"cuda:{device}"))

    def clone(self, *, memory_format=None):
        return _ops.clone(self)

    def contiguous(self, memory_format=None):
        return _ops.contiguous(self)

    def is_contiguous(self, memory_format=None):
        return bool(self._array.flags.c_contiguous)

    def stride(self, dim=None):
        """Strides in elements (not bytes), as torch reports them."""
        item = self._array.itemsize
        st = tuple(s // item for s in self._array.strides)
        st = tuple(_ops.torch_stride(self._array.shape, st))
        return st if dim is None else st[_ops.canonical_dim(dim, self._array.ndim)]

    def storage_offset(self):
        """Offset in elements of this view's first element from the start of its base."""
        return _ops.storage_offset(self)

    def data_ptr(self):
        if type(self._array) is np.ndarray:
            return self._array.__array_interface__["data"][0]
        return self._array.data.ptr


def _rebuild(array, requires_grad):
    t = _make(np.array(array))
    t._requires_grad = requires_grad
    return t


def _autograd_api():
    from .autograd import _tensor_api

    return _tensor_api


_graph.Tensor = Tensor
_graph._make = _make

from . import ops as _ops  # noqa: E402  (ops need Tensor defined first)
from . import _tensor_math  # noqa: E402

_tensor_math._ops = _ops  # the math mixin is defined before ops can import; bind it now
