"""``numtorch.Tensor``: one xp array plus autograd state. Math methods delegate to ``ops``.

The tensor core: ``Tensor``'s slots and ``_make`` (the internal constructor), which
``autograd.graph``, the engine and every op import at load time. So this module and its mixins
(``_tensor_math``, ``_tensor_memory``, ``_tensor_layout``) import only leaf modules (dtypes,
devices, sizes, ``backend``, ``_grad_state``) and reach ``ops``, ``autograd`` and the creation
functions through the package at call time (``_nt.ops.clone(self)``); no import order is
assumed.
"""

import copy as _copy
import operator
import warnings

import numpy as np

import numtorch as _nt

from . import _dtype, backend
from ._device import CPU, as_device, device as _device_cls
from ._size import Size, parse_size, size_args as _size_args
from ._class_repr import TorchNamed
from ._required_dim import check_missing, missing_arg as _MISSING_ARG
from ._tensor_math import _TensorMath
from ._tensor_memory import _TensorMemory
from ._tensor_layout import _TensorLayout
from ._quantized_tensor import _TensorQuantized
from ._tensor_extras import _TensorExtras
from . import _layout
from ._grad_state import INFERENCE_ACTIVE as _INFERENCE_ACTIVE, new_version as _new_version
from ._grad_state import _state as _grad_state_now  # torch warns only while grad mode is on
from ._grad_state import FUNC_EPOCHS as _FUNC_EPOCHS, FUNC_KINDS as _FUNC_KINDS
from ._grad_state import tag_func_leaf as _tag_func_leaf

__all__ = ["Tensor"]

_new = object.__new__
_tuple_new = tuple.__new__


def _inplace(self, fn, *args, **kwargs):
    """``autograd.inplace.apply_inplace``: ``fn``'s result written into ``self``."""
    return _nt.autograd.inplace.apply_inplace(self, fn, *args, **kwargs)


_SCALAR_WARNED = [False]  # torch warns once per process


def _warn_scalar_of_grad_tensor():
    """torch's one-time warning when float()/complex() reads a tensor that requires grad."""
    _SCALAR_WARNED[0] = True
    warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                  "unexpected behavior.\nConsider using tensor.detach() first.", UserWarning,
                  stacklevel=3)


def _factory_requires_grad(t):
    """``requires_grad=True`` given to a factory or Parameter: torch's wording of the dtype
    refusal there differs from ``requires_grad_()``'s."""
    if t.dtype._category < _dtype._FLOAT:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    return t._set_requires_grad(True)


# torch's refusal to deepcopy a tensor that is not a graph leaf (dense and sparse alike)
_DETACH_VIEW = ("Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
_DEEPCOPY_NON_LEAF = ("Only Tensors created explicitly by the user (graph leaves) support the "
                      "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                      "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                      "https://github.com/pytorch/pytorch/pull/103001")


_F32 = np.dtype(np.float32)


def _make(arr):
    """Wrap an xp array in a Tensor with no autograd history (internal fast constructor)."""
    t = _new(Tensor)
    t._array = arr
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._vc = [0] if not _INFERENCE_ACTIVE[0] else _new_version()
    t._base = None
    t._accum = None
    t._extra = None
    return t


class Tensor(_TensorMath, _TensorMemory, _TensorLayout, _TensorQuantized, _TensorExtras,
             metaclass=TorchNamed):
    """A multi-dimensional array with autograd, wrapping one NumPy (or CuPy) array.

    ``Tensor(data)`` copies ``data`` into a float tensor of the default dtype; ``Tensor(2, 3)``
    makes an uninitialised 2x3 float tensor, as in torch. Prefer :func:`numtorch.tensor`.
    """

    # NumPy scalars and arrays defer to Tensor's reflected operators (np.float64(2) + t)
    __array_priority__ = 1000

    __slots__ = ("_array", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_vc", "_base",
                 "_accum", "_extra", "_view_fn", "_view_src", "__weakref__", "__dict__")

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Run ``func`` and return its tensors as ``cls`` (what a subclass's
        ``super().__torch_function__`` does; see numtorch/_torch_function.py)."""
        from ._torch_function import default_torch_function

        return default_torch_function(cls, func, types, args, kwargs)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        from . import _torch_function

        if cls.__module__.startswith(("numtorch.", "numtorchvision.")):
            if "__torch_function__" not in vars(cls):  # numtorch's own kinds take no part
                cls.__torch_function__ = _torch_function._disabled_torch_function_impl
        else:
            _torch_function.install(cls)

    def __new__(cls, *args, device=None, **kwargs):
        vc = [0] if not _INFERENCE_ACTIVE[0] else _new_version()
        if cls is not Tensor and len(args) == 1 and type(args[0]) is np.ndarray and not kwargs:
            arr = args[0]  # subclasses (Parameter) wrap a ready array
        else:
            arr = _legacy_new(args, kwargs, device, _dtype.get_default_dtype(), False)
            if isinstance(arr, Tensor):  # Tensor(other) is an alias of other, as in torch
                arr, vc = arr._array, arr._vc
        t = _new(cls)
        t._array, t._requires_grad, t._grad, t._grad_fn, t._output_nr = arr, False, None, None, 0
        t._vc, t._base, t._accum, t._extra = vc, None, None, None
        return t

    def __init__(self, *args, **kwargs):
        pass

    # -- basic properties ---------------------------------------------------------------------
    @property
    def shape(self):
        """The sizes of the dimensions, as a :class:`numtorch.Size`."""
        return _tuple_new(Size, self._array.shape)

    def size(self, dim=None, *, axis=None):
        """Return the shape, or the size of dimension ``dim`` (negative counts from the end;
        ``axis`` is NumPy's name for it, as torch accepts)."""
        if axis is not None:
            if dim is not None:
                raise TypeError("size() got an unexpected keyword argument 'axis'")
            dim = axis
        if dim is None:
            return _tuple_new(Size, self._array.shape)
        if type(dim) is not int:
            if isinstance(dim, (bool, float)) or not hasattr(dim, "__index__"):
                where = "" if dim is axis else " (position 1)"
                raise TypeError(f"size(): argument 'dim'{where} must be int, not "
                                f"{type(dim).__name__}")
            dim = operator.index(dim)
        if not self._array.ndim:
            raise _nt.ops._util.no_dims_error(dim)
        return self._array.shape[_nt.ops.canonical_dim(dim, self._array.ndim)]

    def dim(self):
        """The number of dimensions."""
        return self._array.ndim

    ndimension = dim

    @property
    def ndim(self):
        """The number of dimensions."""
        return self._array.ndim

    def numel(self):
        """The number of elements."""
        return int(self._array.size)

    nelement = numel

    @property
    def dtype(self):
        """The element type, e.g. ``torch.float32``."""
        return _dtype._FROM_NP[self._array.dtype]

    @property
    def device(self):
        """Where the data lives: ``device('cpu')`` or ``device('cuda', i)``."""
        if type(self._array) is np.ndarray:
            return CPU
        return backend.device_of(self._array)

    @property
    def is_cuda(self):
        """True when the tensor lives on a CUDA device."""
        return self.device.type == "cuda"

    @property
    def is_cpu(self):
        """True when the tensor lives on the CPU."""
        return self.device.type == "cpu"

    def get_device(self):
        """The CUDA device ordinal, or -1 for a CPU tensor."""
        d = self.device
        return -1 if d.type in ("cpu", "meta") else (d.index or 0)

    def is_floating_point(self):
        """True for float16/32/64 tensors."""
        return self.dtype.is_floating_point

    def is_complex(self):
        """True for complex64/128 tensors."""
        return self.dtype.is_complex

    def element_size(self):
        """Bytes per element."""
        return self._array.itemsize

    @property
    def itemsize(self):
        """Bytes per element."""
        return self._array.itemsize

    @property
    def nbytes(self):
        """Bytes taken by the elements (``numel() * element_size()``)."""
        return self._array.nbytes

    @property
    def T(self):
        """All dimensions reversed (torch deprecates it for tensors that are not 2-D)."""
        nd = self._array.ndim
        if nd == 0:  # torch warns once per process, each of the two
            from ._warn_once import warn_once

            warn_once("T_0d", "Tensor.T is deprecated on 0-D tensors. This function is the "
                      "identity in these cases.", UserWarning, stacklevel=2)
        elif nd != 2:
            from ._warn_once import warn_once

            warn_once("T_nd", "The use of `x.T` on tensors of dimension other than 2 to reverse "
                      "their shape is deprecated and it will throw an error in a future "
                      "release. Consider `x.mT` to transpose batches of matrices or "
                      "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                      "dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(tuple(range(nd - 1, -1, -1)))

    @property
    def mT(self):
        """The last two dimensions swapped (a batch of matrices transposed)."""
        if self._array.ndim == 0:  # torch: the tensor itself, with a warning once a process
            from ._warn_once import warn_once

            warn_once("mT_0d", "Tensor.mT is deprecated on 0-D tensors. This function is the "
                      "identity in these cases.", UserWarning, stacklevel=2)
            return self
        if self._array.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self._array.ndim}-D tensor.")
        return self.transpose(-2, -1)

    # -- autograd state -----------------------------------------------------------------------
    @property
    def requires_grad(self):
        """Whether autograd records operations on this tensor (settable on leaves)."""
        if self._base is not None:
            if self._view_fn is None:  # made under no_grad: requires grad through its base
                return self._requires_grad or self._grad_fn is not None or \
                    _nt.autograd._no_grad_views.base_requires_grad(self)
            if type(self._view_src) is tuple:  # a multi-output view: torch rebuilds nothing
                return _nt.autograd.inplace.multi_view_requires_grad(self)
            return _nt.autograd.graph.edge_of(self) is not None
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value and self._grad_fn is None and self.dtype._category < _dtype._FLOAT:
            # torch words the attribute's refusal apart from requires_grad_()'s
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self._set_requires_grad(value)

    def requires_grad_(self, requires_grad=True):
        """Set whether autograd records operations on this leaf tensor (in place)."""
        if _FUNC_KINDS:  # torch refuses the method inside a torch.func transform
            from .func._batched import _REQUIRES_GRAD_IN_TRANSFORM

            raise RuntimeError(_REQUIRES_GRAD_IN_TRANSFORM)
        return self._set_requires_grad(requires_grad)

    def _set_requires_grad(self, requires_grad=True):
        """``requires_grad_`` without the torch.func refusal: the attribute setter, factories'
        ``requires_grad=True`` and Parameter, which torch allows inside a transform."""
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. "
                                   "If you want to use a computed variable in a subgraph that "
                                   "doesn't require differentiation use "
                                   "var_no_grad = var.detach().")
            return self
        if requires_grad and self.dtype._category < _dtype._FLOAT:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and type(self._vc) is not list and \
                not _nt.autograd.is_inference_mode_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        if requires_grad and _FUNC_KINDS:  # (made inside a torch.func transform)
            _tag_func_leaf(self)
        return self

    def is_inference(self):
        """Whether this is an inference tensor (made inside ``inference_mode``, or a view of
        one)."""
        return type(self._vc) is not list

    @property
    def grad_fn(self):
        if self._base is not None:  # rebuilt after a write to its base, or refused
            _nt.autograd.graph.edge_of(self)
        return self._grad_fn

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def grad(self):
        """The gradient accumulated by ``backward()`` into this leaf (None until then)."""
        if self._grad is None and self._grad_fn is not None and not self.retains_grad:
            import warnings

            warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being "
                          "accessed. Its .grad attribute won't be populated during "
                          "autograd.backward(). If you indeed want the .grad field to be "
                          "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
                          "Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                          "access the leaf Tensor instead. See "
                          "github.com/pytorch/pytorch/pull/30531 for more information.",
                          UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            want = self.grad_dtype if self._grad_fn is None else self.dtype
            if want is not None and value.dtype is not want:
                got = _dtype._CPP_TYPE.get(value.dtype.name, value.dtype.name)
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{got}' to a tensor with "
                    f"grad_dtype '{_dtype._TYPE_DISPLAY[want.name]}'. The gradient must match "
                    "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match.")
            if type(value._array) is not np.ndarray or type(self._array) is not np.ndarray:
                got, have = value.device.type, self.device.type  # (not both on the CPU)
                if got != have:
                    raise RuntimeError(f"attempting to assign a gradient with device type "
                                       f"'{got}' to a tensor with device type '{have}'. Please "
                                       f"ensure that the gradient and the tensor are on the "
                                       f"same device")
            if value._array.shape != self._array.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._array.shape)}' to a "
                    f"tensor of size '{list(self._array.shape)}'. Please ensure that the "
                    f"gradient and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def grad_dtype(self):
        """The dtype the engine casts this leaf's incoming gradients to (default: the
        tensor's dtype; None: any dtype is kept). Leaf tensors only."""
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        extra = self._extra
        if extra and "grad_dtype" in extra:
            return extra["grad_dtype"]
        return self.dtype

    @grad_dtype.setter
    def grad_dtype(self, value):
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _dtype.dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got "
                               f"{type(value).__name__}")
        old = self._grad
        if value is not None and old is not None and old.dtype is not value:
            raise RuntimeError(
                f"Cannot set grad_dtype to '{_dtype._TYPE_DISPLAY[value.name]}' because there is "
                f"already a gradient with dtype '{_dtype._CPP_TYPE.get(old.dtype.name)}'. Please "
                "clear the gradient (.grad = None) before changing grad_dtype, or ensure the new "
                "grad_dtype matches the existing gradient's dtype.")
        if self._extra is None:
            self._extra = {}
        self._extra["grad_dtype"] = value

    @property
    def retains_grad(self):
        return bool(self._extra and self._extra.get("retains_grad"))

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in ``.grad`` after backward."""
        _autograd_api().retain_grad(self)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a new one."""
        return _autograd_api().register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(self)`` after backward accumulated into this leaf's ``.grad``."""
        return _autograd_api().register_post_accumulate_grad_hook(self, hook)

    def _refresh_view_grad_fn(self):
        _autograd_api().refresh_view(self)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor w.r.t. graph leaves into their ``.grad``."""
        if _nt.autograd._func_transforms.KINDS:  # (torch's error inside grad/vjp/vmap)
            _nt.autograd._func_transforms.refuse_backward()
        if inputs is None:  # the common case: straight to the engine
            _nt.autograd.engine.run_backward((self,), (gradient,), retain_graph, create_graph)
        else:
            _nt.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """A tensor sharing memory and version counter, cut from the graph."""
        t = _make(self._array)
        t._vc = self._vc
        if self._array.dtype.kind == "c" and (self._extra is not None or self._base is not None) \
                and _nt.ops.is_conj(self):
            t._extra = {"conj": True}  # torch's detach keeps the conjugate bit
        return t

    def detach_(self):
        if self._base is not None and self._view_fn is not None:
            raise RuntimeError(_DETACH_VIEW)
        self._grad_fn, self._requires_grad, self._output_nr = None, False, 0
        return self

    @property
    def data(self):
        """The same values as a tensor outside autograd (shares memory; assignable)."""
        t = _make(self._array)
        if _FUNC_EPOCHS:  # as captured as self inside torch.func.grad/vjp/jvp
            t._vc = [0, self._vc[1]] if len(self._vc) > 1 else [0]
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self.requires_grad and not (value.dtype.is_floating_point or value.dtype.is_complex):
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        self._array = value._array

    @property
    def creator(self):
        """0.x name of ``grad_fn`` (kept for old Variable code)."""
        return self.grad_fn

    @property
    def volatile(self):
        """0.x flag: True only for tensors made with ``Variable(..., volatile=True)``."""
        import warnings

        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                      stacklevel=2)
        return bool(self._extra and self._extra.get("volatile"))

    @property
    def _version(self):
        if type(self._vc) is not list:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    # -- conversion to Python / NumPy ------------------------------------------------------
    def item(self):
        """Return the value of a one-element tensor as a Python number."""
        if self._array.size != 1:
            raise RuntimeError(f"a Tensor with {self._array.size} elements cannot be converted "
                               "to Scalar")
        if type(self._array) is not np.ndarray and self.is_quantized:  # the value it stands for
            return self.dequantize().item()
        if backend.is_meta(self._array):
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return self._array.reshape(()).item() if type(self._array) is np.ndarray else \
            backend.to_host(self._array).reshape(()).item()

    def tolist(self):
        """Return the values as (nested lists of) Python numbers."""
        if type(self._array) is not np.ndarray and self.is_quantized:
            raise RuntimeError("load_scalar: invalid type")
        arr = self._array if type(self._array) is np.ndarray else backend.to_host(self._array)
        return arr.tolist()

    def numpy(self, *, force=False):
        """Return the NumPy array (sharing memory) of a CPU tensor."""
        if type(self._array) is not np.ndarray:
            if force or self.is_quantized:  # quantized: torch's unsupported-ScalarType error
                return self._array.get()
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        kind = self._array.dtype.kind
        if kind == "c" and not force and _nt.ops.is_conj(self):
            # numtorch's array holds the conjugated values already; torch's holds the
            # original ones and refuses to hand them out unresolved
            raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use "
                               "tensor.resolve_conj().numpy() instead.")
        if kind == "V" or self._array.dtype.name.startswith(("bfloat",
                                                                               "float8")):
            # NumPy has no such element type; torch refuses with force=True too (numtorch's
            # own code reads such arrays through ._array)
            name = self.dtype.name
            raise TypeError("Got unsupported ScalarType "
                            f"{_dtype._TYPE_DISPLAY.get(name, name[:1].upper() + name[1:])}")
        return self._array

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()  # torch's errors for tensors on the GPU or requiring grad
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __array_wrap__(self, array, context=None, return_scalar=False):
        # NumPy ufuncs applied to a tensor give a tensor back, as torch's do (bools as uint8)
        array = np.asarray(array)
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        _dtype.from_numpy_dtype(array.dtype)
        return _make(array)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if self.requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        kwargs = {k: v for k, v in (("max_version", max_version), ("dl_device", dl_device),
                                    ("copy", copy)) if v is not None}
        if stream is not None and stream != -1 and type(self._array) is not np.ndarray:
            kwargs["stream"] = stream
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()

    def __repr__(self, *, tensor_contents=None):
        from ._tensor_str import format_tensor

        return format_tensor(self, tensor_contents)

    def __format__(self, spec):
        # as torch: only a plain 0-d tensor formats its value (Parameters, subclasses and meta
        # tensors take object's format, which refuses a non-empty spec)
        if self._array.ndim == 0 and type(self) is Tensor and not self.is_meta:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __len__(self):
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __iter__(self):
        if self._array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        if type(self) is Tensor and type(self._array) is np.ndarray and self._extra is None:
            return iter(_nt.ops.indexing.rows(self))  # unbind(0)'s views, made directly
        return iter(self.unbind(0))

    def __contains__(self, element):
        """``element in tensor``: whether any entry equals ``element`` (a number or tensor)."""
        if isinstance(element, (Tensor, int, float, complex, bool, np.number, np.bool_)):
            return bool((element == self).any().item())  # (torch's operand order)
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")

    def __bool__(self):
        if self._array.size != 1:
            what = "no values" if self._array.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        return bool(self.item())

    def __int__(self):
        return int(self._scalar("int64_t"))

    def __float__(self):
        if _SCALAR_WARNED[0] is False and self.requires_grad and _grad_state_now.enabled:
            _warn_scalar_of_grad_tensor()
        return float(self._scalar("double"))

    def __complex__(self):
        if _SCALAR_WARNED[0] is False and self.requires_grad and _grad_state_now.enabled:
            _warn_scalar_of_grad_tensor()
        return complex(self._scalar(None))

    def _scalar(self, c_type):
        """The one element as a Python number, for int()/float()/complex()."""
        if self._array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = self.item()
        if c_type is not None and isinstance(v, complex):
            if v.imag != 0:
                raise RuntimeError(f"value cannot be converted to type {c_type} without "
                                   "overflow")
            v = v.real
        return v

    def __index__(self):
        if self.dtype._category not in (_dtype._INT, _dtype._BOOL) or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __hash__(self):
        return id(self)  # torch's value: the object's identity, as an int

    def __reduce_ex__(self, protocol):
        if type(self._array) is not np.ndarray and self.is_quantized:
            from ._quantized_serial import rebuild_pickled

            return (rebuild_pickled, (self._array,))
        # the values (on the CPU), the class, requires_grad and Python attributes; not .grad
        dev = self.device
        arr = self._array
        if type(arr) is not np.ndarray and not backend.is_meta(arr):
            arr = arr.get()  # a GPU array: its values on the host
        root, geometry = _view_geometry(arr)
        return (_rebuild, (root, self.requires_grad, type(self),
                           None if dev.type == "cpu" else str(dev), dict(self.__dict__) or None,
                           geometry))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(_DEEPCOPY_NON_LEAF)
        new = _new_like_class(type(self), _deepcopy_array(self._array, memo))
        new._requires_grad = self._requires_grad
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = _copy.deepcopy(self._grad, memo)
        for k, v in self.__dict__.items():
            setattr(new, k, _copy.deepcopy(v, memo))
        return new

    # -- dtype / device conversion ------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Return the tensor with another dtype and/or device (``self`` when nothing changes).

        Accepts ``to(dtype)``, ``to(device, dtype=None)``, ``to(other_tensor)``, each followed by
        optional ``non_blocking`` and ``copy`` flags, and the keywords ``dtype=``, ``device=``,
        ``non_blocking=``, ``copy=`` and ``memory_format=``.

        Example:
            >>> torch.ones(2).to(torch.int64)
            tensor([1, 1])
        """
        dtype, dev, copy = _parse_to(args, kwargs)
        out = _nt.ops.to(self, dtype=dtype, device=dev, copy=copy,
                         non_blocking=_non_blocking(args, kwargs))
        fmt = kwargs.get("memory_format")
        if fmt is None or fmt is _layout.preserve_format:
            return out
        return _layout.to_memory_format(out, fmt)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """Without arguments return the legacy type name (``'torch.FloatTensor'``); else cast.

        ``dtype`` may be a dtype, a legacy name such as ``'torch.DoubleTensor'`` or
        ``'torch.cuda.FloatTensor'``, or a legacy type such as ``torch.DoubleTensor``.
        """
        if dtype is None:
            return ("torch.cuda." if self.is_cuda else "torch.") + self.dtype._legacy
        if not isinstance(dtype, (str, type, _dtype.dtype)):
            raise TypeError("dtype must be a type, str, or dtype object")
        if (getattr(dtype, "is_cuda", False) is True or isinstance(dtype, str) and
                dtype.startswith("torch.cuda.")) and backend.cupy_or_none() is None:
            raise RuntimeError(_NO_CUDA_LIBRARY)
        dev = None
        if type(dtype) is _dtype.dtype:
            target = dtype
        elif isinstance(dtype, _nt._legacy_types.LegacyTensorType):
            target, dev = dtype.dtype, "cuda" if dtype.is_cuda else "cpu"
        elif dtype is Tensor:  # the default tensor type
            target, dev = _dtype.get_default_dtype(), "cpu"
        elif isinstance(dtype, str) and dtype.startswith("torch.") and \
                dtype.rsplit(".", 1)[-1] in _dtype._BY_LEGACY and \
                dtype.count(".") == (2 if dtype.startswith("torch.cuda.") else 1):
            target = _dtype._BY_LEGACY[dtype.rsplit(".", 1)[-1]]
            dev = "cuda" if dtype.startswith("torch.cuda.") else "cpu"
        else:
            name = dtype if isinstance(dtype, str) else _qualified_name(dtype)
            raise ValueError(f"invalid type: '{name}'")
        if target is self.dtype and (dev is None or self.device.type == dev):
            return self
        return self.to(dtype=target, device=dev)

    def type_as(self, other=_MISSING_ARG):
        """This tensor converted to ``other``'s dtype (and device)."""
        try:
            return self.to(dtype=other.dtype, device=other.device)
        except AttributeError:
            check_missing("type_as", other=other)
            _nt.ops._pointwise._check_tensor("type_as", other, "other", 2)
            raise

    def float(self):
        """``self.to(torch.float32)``."""
        if type(self._array) is np.ndarray and self._array.dtype is _F32 and self._extra is None:
            return self  # already float32: what to() returns, without parsing its arguments
        return self.to(_dtype.float32)

    def double(self):
        """``self.to(torch.float64)``."""
        return self.to(_dtype.float64)

    def half(self):
        """``self.to(torch.float16)``."""
        return self.to(_dtype.float16)

    def bfloat16(self):
        """``self.to(torch.bfloat16)`` (needs the optional ml_dtypes package)."""
        return self.to(_dtype.bfloat16)

    def long(self):
        """``self.to(torch.int64)``."""
        return self.to(_dtype.int64)

    def int(self):
        """``self.to(torch.int32)``."""
        return self.to(_dtype.int32)

    def short(self):
        """``self.to(torch.int16)``."""
        return self.to(_dtype.int16)

    def char(self):
        """``self.to(torch.int8)``."""
        return self.to(_dtype.int8)

    def byte(self):
        """``self.to(torch.uint8)``."""
        return self.to(_dtype.uint8)

    def bool(self):
        """``self.to(torch.bool)``."""
        return self.to(_dtype.bool)

    def cfloat(self):
        """``self.to(torch.complex64)``."""
        return self.to(_dtype.complex64)

    def cdouble(self):
        """``self.to(torch.complex128)``."""
        return self.to(_dtype.complex128)

    def cpu(self, memory_format=None):
        """This tensor on the CPU (``self`` if it is there already)."""
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """This tensor on a CUDA device (CuPy); RuntimeError when CUDA is unavailable."""
        if device is None:
            return self.to("cuda", non_blocking=non_blocking)
        if isinstance(device, int) and not isinstance(device, bool):
            return self.to(_device_cls("cuda", device), non_blocking=non_blocking)
        return self.to(as_device(device), non_blocking=non_blocking)

    # -- new tensors like this one ------------------------------------------------------------
    def new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None):
        """A new tensor copying ``data``, by default with this tensor's dtype and device."""
        return _nt._from_data.tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                                requires_grad=requires_grad, _caller=("tensor.new_tensor", 3))

    def new_zeros(self, *size, dtype=None, **kwargs):
        """Zeros of shape ``size``, by default with this tensor's dtype and device."""
        return self._new_filled("zeros", size, kwargs, dtype)

    def new_ones(self, *size, dtype=None, **kwargs):
        """Ones of shape ``size``, by default with this tensor's dtype and device."""
        return self._new_filled("ones", size, kwargs, dtype)

    def new_empty(self, *size, dtype=None, **kwargs):
        """An uninitialised tensor of shape ``size``, by default with this tensor's dtype."""
        return self._new_filled("empty", size, kwargs, dtype)

    def _new_filled(self, kind, size, kwargs, dtype):
        """``new_zeros``/``new_ones``/``new_empty``: ``size`` positionally or as ``size=``."""
        if "size" in kwargs:
            size = _size_args(size, {"size": kwargs.pop("size")}, "size", f"new_{kind}")
        if size and not (len(size) == 1 and isinstance(size[0], Size)):
            size = (parse_size(f"new_{kind}", size),)  # (its errors name new_{kind})
        elif not size:
            raise TypeError(f'new_{kind}() missing 1 required positional arguments: "size"')
        dtype = _nt._creation.dtype_arg(dtype, f"new_{kind}")  # (the message names new_*)
        return getattr(self, f"_new_{kind}")(*size, dtype=dtype, **kwargs)

    def _new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        """Zeros of shape ``size``, by default with this tensor's dtype and device."""
        return _nt._creation.zeros(*size, dtype=dtype or self.dtype, device=device or self.device,
                               requires_grad=requires_grad, pin_memory=pin_memory)

    def _new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                 pin_memory=False):
        """Ones of shape ``size``, by default with this tensor's dtype and device."""
        return _nt._creation.ones(*size, dtype=dtype or self.dtype, device=device or self.device,
                              requires_grad=requires_grad, pin_memory=pin_memory)

    def _new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        """An uninitialised tensor of shape ``size``, by default with this tensor's dtype."""
        return _nt._creation.empty(*size, dtype=dtype or self.dtype, device=device or self.device,
                               requires_grad=requires_grad, pin_memory=pin_memory)

    def new_full(self, size=_MISSING_ARG, fill_value=_MISSING_ARG, *, dtype=None, device=None,
                 requires_grad=False, layout=None, pin_memory=False):
        """``fill_value`` everywhere in shape ``size``, by default with this tensor's dtype."""
        if not isinstance(fill_value, (int, float, bool)):  # torch's error names new_full
            check_missing("new_full", size=size, fill_value=fill_value)
            _nt._creation._fill_value(fill_value, "new_full")
        if not isinstance(size, (tuple, list)):
            from ._size import _type_name

            check_missing("new_full", size=size, fill_value=fill_value)

            raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {_type_name(size)}")
        if not isinstance(size, Size):
            size = parse_size("new_full", (size,))
        dtype = _nt._creation.dtype_arg(dtype, "new_full")
        return _nt._creation.full(size, fill_value, dtype=dtype or self.dtype,
                              device=device or self.device, requires_grad=requires_grad,
                              pin_memory=pin_memory)

    # -- random sampling (in place) -----------------------------------------------------------
    def uniform_(self, from_=0, to=1, *, generator=None):
        """Fill with samples uniform on ``[from_, to)``; returns ``self``."""
        return _inplace(self, _nt._random_fills.uniform_values, from_, to, generator)

    def normal_(self, mean=0, std=1, *, generator=None):
        """Fill with samples from the normal distribution N(mean, std**2); returns ``self``."""
        return _inplace(self, _nt._random_fills.normal_values, mean, std, generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        """Fill with 0/1 draws, 1 with probability ``p`` (a number or tensor)."""
        if generator is not None:
            _generator_check(generator, "Tensor.bernoulli_",
                             () if type(p) is float and p == 0.5 else (p,))
        return _inplace(self, _nt._random_fills.bernoulli_values, p, generator)

    def random_(self, *args, generator=None, **kwargs):
        """Fill with integers: ``random_(from, to)``, ``random_(to)`` (from 0) or ``random_()``
        (every integer the dtype holds exactly, from 0)."""
        if generator is not None:
            _generator_check(generator, "Tensor.random_", args,
                             list(kwargs.items()) + [("generator", generator)])
        low, high = _random_range(args, kwargs)
        return _inplace(self, _nt._random_fills.random_values, low, high, generator)

    def exponential_(self, lambd=1.0, *, generator=None):
        """Fill with samples from the exponential distribution of rate ``lambd``."""
        return _inplace(self, _nt._random_fills.exponential_values, lambd, generator)

    def geometric_(self, p, *, generator=None):
        """Fill with geometric samples: the number of trials up to the first success."""
        return _inplace(self, _nt._random_fills.geometric_values, p, generator)

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """Fill with samples of exp(N(mean, std**2))."""
        return _inplace(self, _nt._random_fills.log_normal_values, mean, std, generator)

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """Fill with samples from the Cauchy distribution."""
        return _inplace(self, _nt._random_fills.cauchy_values, median, sigma, generator)

    def bernoulli(self, p=None, *, generator=None):
        """See :func:`numtorch.bernoulli`."""
        if generator is not None:
            _generator_check(generator, "Tensor.bernoulli", () if p is None else (p,))
        return _nt._sampling.bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """See :func:`numtorch.multinomial`."""
        return _nt._sampling.multinomial(self, num_samples, replacement, generator=generator)

    def clone(self, *, memory_format=None):
        """A copy that stays in the graph (see :func:`numtorch.clone`); ``memory_format``
        other than ``preserve_format`` lays the copy out in that order."""
        if memory_format is None or memory_format is _layout.preserve_format:
            return _nt.ops.clone(self)
        _layout.check(memory_format, "clone")
        if memory_format in (_layout.channels_last, _layout.channels_last_3d):
            return _layout.to_format(self, memory_format)
        if self.is_contiguous(memory_format):
            return _nt.ops.clone(self)  # the copy keeps the layout
        return _nt.ops.contiguous(self)

    def contiguous(self, memory_format=None):
        """``self`` if laid out in ``memory_format`` (row-major by default), else a copy that
        is (``torch.channels_last``: channels innermost)."""
        if memory_format is None or memory_format is _layout.contiguous_format:
            return _nt.ops.contiguous(self)
        out = _layout.contiguous(self, memory_format)
        return _nt.ops.contiguous(self) if out is None else out

    def is_contiguous(self, memory_format=None):
        """True when the elements are laid out without gaps in ``memory_format``'s order
        (row-major by default)."""
        if memory_format is None or memory_format in (_layout.contiguous_format,
                                                      _layout.preserve_format):
            return bool(self._array.flags.c_contiguous)
        _layout.check(memory_format, "is_contiguous")
        return _layout.is_contiguous_as(self.shape, self.stride(), memory_format)

    def stride(self, dim=None):
        """Strides in elements (not bytes), as torch reports them."""
        item = self._array.itemsize
        st = tuple(s // item for s in self._array.strides)
        st = tuple(_nt.ops.torch_stride(self._array.shape, st))
        if dim is not None and not st:
            raise _nt.ops._util.no_dims_error(dim)
        return st if dim is None else st[_nt.ops.canonical_dim(dim, self._array.ndim)]

    def storage_offset(self):
        """Offset in elements of this view's first element from the start of its base."""
        return _nt.ops.storage_offset(self)

    def data_ptr(self):
        """The address of the first element."""
        if type(self._array) is np.ndarray:
            return self._array.__array_interface__["data"][0]
        if backend.is_meta(self._array):
            return 0  # no data, as torch reports it
        return self._array.data.ptr


Tensor.__module__ = "numtorch"  # shown as torch.Tensor is ("<class 'numtorch.Tensor'>")


def _new_like_class(cls, arr):
    """A tensor of class ``cls`` around ``arr`` without calling the subclass constructor."""
    if cls is Tensor:
        return _make(arr)
    t = _new(cls)
    t._array, t._requires_grad, t._grad, t._grad_fn, t._output_nr = arr, False, None, None, 0
    t._vc, t._base, t._accum, t._extra = [0], None, None, None
    return t


def _view_geometry(arr):
    """What pickles a view as torch does: (its whole base block, (offset, shape, strides) in
    elements), so the loaded tensor keeps its storage, offset and strides; (arr, None) for an
    array that is its own block (or whose block is not one contiguous run)."""
    if type(arr) is not np.ndarray or arr.base is None:
        return arr, None
    root = backend.helpers_for(np).storage_root(arr)  # through stride tricks' holders too
    if root is arr or not root.flags.c_contiguous or root.dtype != arr.dtype:
        return arr, None
    size = arr.itemsize
    offset = (arr.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // size
    # a fresh view object per tensor: pickle's memo would otherwise make two views of one
    # block share it after loading, which torch's pickles do not
    return root.reshape(-1).view(), (offset, arr.shape, tuple(s // size for s in arr.strides))


def _rebuild(array, requires_grad, cls=Tensor, device=None, state=None, geometry=None):
    """Unpickle a tensor (see ``Tensor.__reduce_ex__``)."""
    arr = array if array.flags.writeable else array.copy()
    if geometry is not None:
        offset, shape, strides = geometry
        arr = np.ndarray(shape, arr.dtype, buffer=arr, offset=offset * arr.itemsize,
                         strides=tuple(s * arr.itemsize for s in strides))
    if device is not None:
        arr = backend.to_device(arr, as_device(device))
    t = _new_like_class(cls, arr)
    t._requires_grad = requires_grad
    if state:
        t.__dict__.update(state)
    return t


def _deepcopy_array(arr, memo):
    """Copy ``arr`` for deepcopy; views of one base stay views of one copied base, as tensors
    sharing storage do in torch."""
    if type(arr) is not np.ndarray:
        return arr.copy()
    root = backend.helpers_for(np).storage_root(arr)  # through stride tricks' holders too
    if root.base is not None or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return arr.copy()
    new_root = memo.get(id(root))
    if new_root is None:
        new_root = memo[id(root)] = root.copy(order="K")
        memo.setdefault(id(memo), []).append(root)  # keep the key's object alive, as copy does
    offset = arr.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(arr.shape, arr.dtype, buffer=new_root, offset=offset,
                      strides=arr.strides)


def _qualified_name(obj):
    if isinstance(obj, type):
        return obj.__name__ if obj.__module__ == "builtins" else \
            f"{obj.__module__}.{obj.__qualname__}"
    return type(obj).__name__


# -- argument parsing for Tensor(...), to(...) and random_(...) --------------------------------
def _legacy_new(args, kwargs, device, dt, strict):
    """The array behind ``torch.Tensor(...)`` / ``torch.FloatTensor(...)`` (or the Tensor to
    alias): no arguments give an empty tensor, ints or a Size give an uninitialised one, a
    sequence or array gives a copy converted to ``dt``, and a tensor is aliased."""
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments - got an "
                        f"unexpected keyword argument '{next(iter(kwargs))}'")
    dev = as_device(device)
    if len(args) == 1 and not isinstance(args[0], (Size, int, np.integer)):
        x = args[0]
        if isinstance(x, Tensor):
            if strict and x.dtype is not dt:
                raise TypeError(f"expected a tensor of dtype {dt}, but got {x.dtype}")
            return x if dev is None or x.device == dev else x.to(dev)
        if isinstance(x, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
        if not isinstance(x, (list, tuple, np.ndarray)) and not _nt._from_data.is_sequence(x):
            raise TypeError(f"new(): data must be a sequence (got {_qualified_name(x)})")
        arr, _ = _nt._from_data._from_data(x)
        arr = np.array(arr, dtype=dt.np)
        return arr if dev is None else backend.to_device(arr, dev)
    shape = parse_size("new", args) if args else (0,)
    xp = np if dev is None or dev.type == "cpu" else backend.get_xp(dev)
    return xp.empty(shape, dtype=dt.np)


_TO_SIGNATURES = "".join(
    f" * ({lead}bool non_blocking = False, bool copy = False, *, torch.memory_format "
    "memory_format = None)\n"
    for lead in ("torch.device device = None, torch.dtype dtype = None, ", "torch.dtype dtype, ",
                 "Tensor tensor, "))


def _to_error(args, kwargs):
    from ._generator_args import _got

    # torch's parser lists keywords last-given first
    return TypeError(f"to() received an invalid combination of arguments - got "
                     f"{_got(args, list(reversed(kwargs.items())))}, but expected one of:\n"
                     f"{_TO_SIGNATURES}")


def _parse_to(args, kwargs):
    """``(dtype, device, copy)`` from the arguments of ``Tensor.to``."""
    rest = list(args)
    dtype = dev = None
    first_kind = None
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        dtype, dev, first_kind = other.dtype, other.device, "tensor"
    elif rest and (type(rest[0]) is _dtype.dtype or rest[0] in (float, int, bool, complex)):
        dtype, first_kind = _nt._creation.dtype_arg(rest.pop(0), "to"), "dtype"
    elif rest and type(rest[0]) in (float, bool, complex):
        # torch's parser reads a Python scalar in the dtype's place as its type: to(3.5) is
        # to(float), to(True) to(bool) (an int is a device index)
        dtype, first_kind = _nt._creation.dtype_arg(type(rest.pop(0)), "to"), "dtype"
    elif rest and (rest[0] is None or isinstance(rest[0], (str, _device_cls)) or
                   (isinstance(rest[0], int) and not isinstance(rest[0], bool))):
        dev = rest.pop(0)
        if rest and (rest[0] is None or type(rest[0]) is _dtype.dtype):
            dtype = rest.pop(0)
    if len(rest) > 2 or not all(isinstance(a, bool) for a in rest):
        raise _to_error(args, kwargs)
    copy = len(rest) == 2 and rest[1]
    for key, value in kwargs.items():
        if key in ("non_blocking", "copy") and not isinstance(value, bool) or key == "dtype" and \
                value is not None and type(value) is not _dtype.dtype and \
                value not in (float, int, bool, complex):
            raise _to_error(args, kwargs)  # torch's parser takes no other types here
        if key == "dtype" and first_kind is None:
            dtype = _nt._creation.dtype_arg(value, "to")
        elif key == "device" and first_kind is None:
            dev = value
        elif key == "copy":
            copy = bool(value)
        elif key not in ("non_blocking", "memory_format"):
            raise _to_error(args, kwargs)
    return dtype, as_device(dev), copy


def _non_blocking(args, kwargs):
    """The ``non_blocking`` flag of ``Tensor.to``: a keyword, or the first trailing bool."""
    if "non_blocking" in kwargs:
        return bool(kwargs["non_blocking"])
    flags = [a for a in args if isinstance(a, bool)]
    return bool(flags and flags[0])


def _generator_check(generator, fn, positional, keywords=None):
    _nt._generator_args.check(generator, fn, positional, keywords, True)


def _random_range(args, kwargs):
    """``(from, to)`` for ``random_``: ``()``, ``(to)`` or ``(from, to)``; None means open."""
    if len(args) > 2 or set(kwargs) - {"from", "to"}:
        raise TypeError("random_() takes from, to (both optional) and a generator")
    if len(args) == 1 and "to" not in kwargs:
        return kwargs.get("from"), args[0]
    low = args[0] if args else kwargs.get("from")
    high = args[1] if len(args) > 1 else kwargs.get("to")
    return low, high


# what torch's CPU-only build says when a CUDA tensor type is asked for by name
_NO_CUDA_LIBRARY = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two "
    "shared libraries: a CPU library and a CUDA library; this error has occurred because you "
    "are trying to use some CUDA functionality, but the CUDA library has not been loaded by the "
    "dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
    "directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this "
    "has occurred by using ldd on your binary to see if there is a dependency on *_cuda.so "
    "library.")


def _autograd_api():
    from .autograd import _tensor_api

    return _tensor_api
