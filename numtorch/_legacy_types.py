"""The 0.x tensor-type names: ``torch.FloatTensor`` & co and ``torch.cuda.FloatTensor`` & co.

Each name is a class whose metaclass, :class:`LegacyTensorType`, makes calling it build a
tensor of its dtype (``torch.FloatTensor(2, 3)``, ``torch.LongTensor([1, 2])``, as
``torch.Tensor(...)`` does) and makes ``isinstance`` check a tensor's dtype and device. One
metaclass serves both families; a CUDA name differs only in ``is_cuda``.
"""

import warnings

from . import _dtype, backend
from ._tensor import Tensor, _legacy_new, _make

__all__ = ["LegacyTensorType", "DoubleTensor", "FloatTensor", "HalfTensor", "BFloat16Tensor",
           "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]

_WARNED = [False]
_CPU_DTYPES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
               "uint8", "bool")
_CUDA_DTYPES = tuple(d for d in _CPU_DTYPES if d != "bfloat16")


class LegacyTensorType(type):
    """The type of ``torch.FloatTensor``-style names (see the module docstring)."""

    def __instancecheck__(cls, obj):
        return (isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.is_cuda == cls.is_cuda
                and not obj.is_sparse)

    def __call__(cls, *args, device=None, **kwargs):
        if cls.is_cuda and backend.cupy_or_none() is None:
            raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not compiled "
                            f"with CUDA enabled.")
        if cls.is_cuda and not _WARNED[0]:
            _WARNED[0] = True  # torch says it once per process
            warnings.warn("The torch.cuda.*DtypeTensor constructors are no longer recommended. "
                          "It's best to use methods such as torch.tensor(data, dtype=*, "
                          "device='cuda') to create tensors.", stacklevel=2)
        arr = _legacy_new(args, kwargs, device, cls.dtype, True)
        if isinstance(arr, Tensor):
            t = _make(arr._array)
            t._vc = arr._vc
        else:
            t = _make(arr)
        return t.to("cuda") if cls.is_cuda else t

    def __repr__(cls):
        return f"<class 'torch.{'cuda.' if cls.is_cuda else ''}{cls.__name__}'>"


def _types(dtypes, is_cuda, module):
    where = "CUDA" if is_cuda else "CPU"
    out = {}
    for name in dtypes:
        d = getattr(_dtype, name)
        out[d._legacy] = LegacyTensorType(d._legacy, (), {
            "dtype": d, "is_cuda": is_cuda, "is_sparse": False, "__module__": module,
            "__doc__": f"The legacy name of {d} {where} tensors."})
    return out


(DoubleTensor, FloatTensor, HalfTensor, BFloat16Tensor, LongTensor, IntTensor, ShortTensor,
 CharTensor, ByteTensor, BoolTensor) = _types(_CPU_DTYPES, False, "numtorch").values()

CUDA_TYPES = _types(_CUDA_DTYPES, True, "numtorch.cuda")  # the names of numtorch.cuda
