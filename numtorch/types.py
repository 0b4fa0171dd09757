"""``torch.types``: the type aliases programs annotate with (``Number``, ``Device``,
``_size``, ...). They are plain aliases of numtorch's own classes, so ``isinstance`` checks
against the class-valued ones work."""

import os
from typing import IO, Any, Sequence, Union  # noqa: F401  (torch.types re-exports these)

from . import (
    Size, SymBool, SymFloat, SymInt, Tensor, device as _device_cls, dtype as _dtype_cls,
    layout as _layout_cls, qscheme as _qscheme_cls,
)

_bool = bool
_int = int
_float = float
_complex = complex
_str = str
_bytes = bytes
_dtype = _dtype_cls
_device = _device_cls
_layout = _layout_cls
_qscheme = _qscheme_cls
_size = Union[Size, list, tuple]
_symsize = Union[Size, Sequence[Union[int, SymInt]]]
_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors = Union[Tensor, Sequence[Union[Tensor, None]]]

IntLikeType = Union[int, SymInt]
FloatLikeType = Union[float, SymFloat]
BoolLikeType = Union[bool, SymBool]
py_sym_types = (SymInt, SymFloat, SymBool)
PySymType = Union[SymInt, SymFloat, SymBool]

Number = Union[int, float, bool]
_Number = (int, float, bool)
Device = Union[_device_cls, str, int, None]
FileLike = Union[str, "os.PathLike[str]", IO[bytes]]


class Storage:
    """The storage protocol torch's type hints name (annotations only: numtorch's storages
    are ``UntypedStorage``/``TypedStorage``, which are not instances of it, as in torch)."""
