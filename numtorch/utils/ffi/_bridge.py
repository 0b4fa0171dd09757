"""Calling compiled extension functions with numtorch tensors.

Each tensor argument travels as a TH struct (see ``include/TH/TH.h``) built for the call:
data pointer, sizes and strides in elements, and a resize callback. The callback (a cffi
``extern "Python"`` function) resizes the numtorch tensor and points the struct at its new
memory. Errors recorded by the C helpers, or raised in the callback, become a Python
exception once the C function returns.
"""

import numpy as np

from ... import _dtype
from ..._tensor import Tensor

__all__ = []

# TH struct name -> (numtorch dtype name, C element type)
TH_TYPES = {"THFloatTensor": ("float32", "float"), "THDoubleTensor": ("float64", "double"),
            "THLongTensor": ("int64", "long"), "THIntTensor": ("int32", "int"),
            "THShortTensor": ("int16", "short"), "THCharTensor": ("int8", "char"),
            "THByteTensor": ("uint8", "unsigned char")}
RESIZE_CALLBACK = "numtorch_th_resize"
MAX_DIMS = 64

CDEF = "\n".join(
    ["typedef struct THNTContext { int failed; char message[512]; } THNTContext;",
     f'extern "Python" int {RESIZE_CALLBACK}(void *, int, const long *);']
    + [f"typedef struct {name} {{ {real} *data; long *size; long *stride; int nDimension; "
       f"long storageOffset; int (*resize)(void *, int, const long *); void *handle; "
       f"THNTContext *ctx; }} {name};" for name, (_, real) in TH_TYPES.items()])


class _Arg:
    """One tensor argument of a call: its struct, size/stride arrays and owner handle."""

    __slots__ = ("tensor", "struct", "sizes", "strides", "handle", "ptr_type", "error")

    def __init__(self, ffi, lib, tensor, th_name, ctx, c_real):
        self.tensor = tensor
        self.error = None
        self.ptr_type = c_real + " *"
        self.struct = ffi.new(th_name + " *")
        self.sizes = ffi.new(f"long[{MAX_DIMS}]")
        self.strides = ffi.new(f"long[{MAX_DIMS}]")
        self.handle = ffi.new_handle(self)
        s = self.struct
        s.size, s.stride, s.ctx = self.sizes, self.strides, ctx
        s.handle = self.handle
        s.resize = getattr(lib, RESIZE_CALLBACK)
        s.storageOffset = 0
        self.refresh(ffi)

    def refresh(self, ffi):
        """Point the struct at the tensor's current memory, sizes and strides."""
        arr = np.asarray(self.tensor.detach().numpy())
        if arr.ndim > MAX_DIMS:
            raise RuntimeError(f"tensors passed to C have at most {MAX_DIMS} dimensions")
        self.struct.data = ffi.cast(self.ptr_type, arr.__array_interface__["data"][0])
        self.struct.nDimension = arr.ndim
        for d in range(arr.ndim):
            self.sizes[d] = arr.shape[d]
            self.strides[d] = arr.strides[d] // arr.itemsize


def install_callback(ffi):
    """Register the resize callback of one compiled extension module."""

    @ffi.def_extern(name=RESIZE_CALLBACK)
    def _resize(handle, ndim, size):
        arg = ffi.from_handle(handle)
        try:
            arg.tensor.resize_([size[d] for d in range(ndim)])
            arg.refresh(ffi)
            return 0
        except BaseException as e:  # a C caller cannot take a Python exception
            arg.error = e
            return -1


def _th_name(ctype):
    """The TH struct a parameter of C type ``ctype`` points to, or None."""
    if ctype.kind != "pointer" or ctype.item.kind != "struct":
        return None
    name = ctype.item.cname.replace("struct ", "")
    return name if name in TH_TYPES else None


def wrap_function(ffi, lib, name):
    """A Python function calling ``lib.<name>`` with numtorch tensors for TH pointers."""
    fn = getattr(lib, name)
    ftype = ffi.typeof(fn)
    params = [_th_name(t) for t in ftype.args]
    # cffi wants a 1-byte string for `char`; TH's char is a number (THCharTensor's element)
    char_args = {i for i, t in enumerate(ftype.args) if t.kind == "primitive" and
                 t.cname == "char"}

    def call(*args):
        if len(args) != len(params):
            raise TypeError(f"{name}() takes {len(params)} arguments ({len(args)} given)")
        ctx = ffi.new("THNTContext *")
        by_tensor, converted = {}, []
        for i, (value, th_name) in enumerate(zip(args, params)):
            if th_name is None:
                if i in char_args and isinstance(value, int):
                    value = bytes([value % 256])
                converted.append(value)
                continue
            converted.append(_tensor_arg(ffi, lib, name, i, value, th_name, ctx,
                                         by_tensor).struct)
        result = fn(*converted)
        errors = [a.error for a in by_tensor.values() if a.error is not None]
        if ctx.failed or errors:
            message = ffi.string(ctx.message).decode(errors="replace")
            raise RuntimeError(f"{name}: {message}") from (errors[0] if errors else None)
        return result

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"C function {ffi.getctype(ftype, name)} of this extension."
    return call


def _tensor_arg(ffi, lib, fname, i, value, th_name, ctx, by_tensor):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fname}(): argument {i + 1} must be a numtorch tensor "
                        f"({th_name}*), not {type(value).__name__}")
    want, c_real = TH_TYPES[th_name]
    if value.dtype is not getattr(_dtype, want):
        raise TypeError(f"{fname}(): argument {i + 1} must be a {want} tensor for "
                        f"{th_name}*, got {value.dtype}")
    if value.device.type != "cpu":
        raise TypeError(f"{fname}(): argument {i + 1} is on {value.device}; C extensions "
                        f"built with numtorch.utils.ffi take CPU tensors")
    arg = by_tensor.get(id(value))
    if arg is None:  # the same tensor twice shares one struct, so resizes stay in step
        arg = _Arg(ffi, lib, value, th_name, ctx, c_real)
        by_tensor[id(value)] = arg
    return arg


def wrap_library(ffi, lib, namespace):
    """Fill ``namespace`` with wrappers of the library's functions; returns their names."""
    install_callback(ffi)
    names = []
    for name in dir(lib):
        if name == RESIZE_CALLBACK or name.startswith("_"):
            continue
        value = getattr(lib, name)
        namespace[name] = wrap_function(ffi, lib, name) if callable(value) else value
        names.append(name)
    return names
