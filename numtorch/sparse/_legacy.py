"""The 0.x sparse type names ``torch.sparse.FloatTensor`` & co (still used by GCN code such as
pygcn's ``sparse_mx_to_torch_sparse_tensor``): calling one builds a sparse COO tensor, and
``isinstance`` checks a tensor's layout and dtype."""

import warnings

from .. import _dtype
from .._size import Size
from .._tensor import Tensor

__all__ = ["BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor",
           "HalfTensor", "IntTensor", "LongTensor", "ShortTensor"]

_FORMS = (" * (*, torch.device device = None)\n"
          " * (Tensor indices, Tensor values, *, torch.device device = None)\n"
          " * (Tensor indices, Tensor values, tuple of ints size, *, torch.device device = None)\n"
          " * (tuple of ints size, *, torch.device device = None)\n")


# torch's deprecation warnings, each given once per process (keyed by the call form)
_DEPRECATED = {
    "empty": ("torch.sparse.SparseTensor() is deprecated.  Please use "
              "torch.sparse_coo_tensor((0,), dtype=)."),
    "shape": ("torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
              "torch.sparse_coo_tensor(shape, dtype=, device=)."),
    "iv": ("torch.sparse.SparseTensor(indices, values, *, device=) is deprecated.  Please use "
           "torch.sparse_coo_tensor(indices, values, dtype=, device=)."),
    "ivs": ("torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  "
            "Please use torch.sparse_coo_tensor(indices, values, shape, dtype=, device=)."),
}
_warned = set()


def _deprecated(form):
    if form not in _warned:
        _warned.add(form)
        warnings.warn(_DEPRECATED[form], UserWarning, stacklevel=3)


def _describe(args):
    return ", ".join(type(a).__name__ for a in args)


class SparseLegacyType(type):
    """The type of ``torch.sparse.<Kind>Tensor`` names (see the module docstring)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.is_sparse and obj.dtype is cls.dtype

    def __call__(cls, *args, device=None):
        import numtorch as nt

        from ..ops.sparse_ops import sparse_coo_tensor

        if len(args) in (2, 3) and all(isinstance(a, Tensor) for a in args[:2]):
            size = None if len(args) == 2 else args[2]
            if size is None or (isinstance(size, (tuple, list)) and
                                all(isinstance(s, int) for s in size)):
                # the values keep their own dtype, as torch's legacy constructor does; it
                # checks no invariants (and says nothing of them)
                _deprecated("iv" if size is None else "ivs")
                return sparse_coo_tensor(args[0], args[1], size, device=device,
                                         check_invariants=False)
        if all(type(a) is int for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
            size = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
            _deprecated("shape" if size else "empty")
            size = size or (0,)
            return sparse_coo_tensor(nt.zeros(len(size), 0, dtype=nt.int64),
                                     nt.zeros(0, dtype=cls.dtype), size, device=device,
                                     check_invariants=False)
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"({_describe(args)}), but expected one of:\n{_FORMS}")

    def __repr__(cls):
        return f"<class 'torch.sparse.{cls.__name__}'>"


def _make_types():
    out = {}
    for name in ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8",
                 "bool"):
        d = getattr(_dtype, name)
        out[d._legacy] = SparseLegacyType(d._legacy, (), {
            "dtype": d, "is_cuda": False, "is_sparse": True, "__module__": "numtorch.sparse",
            "__doc__": f"The legacy name of sparse COO {d} tensors."})
    return out


_TYPES = _make_types()
(DoubleTensor, FloatTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor,
 ByteTensor, BoolTensor) = _TYPES.values()
