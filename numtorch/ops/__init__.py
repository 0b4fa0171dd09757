"""The primitive ops and their lowercase functions (one family per file)."""

from ._util import (  # noqa: F401
    canonical_dim, canonical_dims, shape_arg, storage_offset, tensor_from_array, torch_stride,
)
from .elementwise import *  # noqa: F401,F403
from .elementwise import __all__ as _ew
from .reduction import *  # noqa: F401,F403
from .reduction import __all__ as _red
from .shape import *  # noqa: F401,F403
from .shape import __all__ as _shape
from .indexing import *  # noqa: F401,F403
from .indexing import __all__ as _idx
from .linalg import *  # noqa: F401,F403
from .linalg import __all__ as _lin
from .softmax import *  # noqa: F401,F403
from .softmax import __all__ as _sm

__all__ = _ew + _red + _shape + _idx + _lin + _sm


def zeros_like(t):
    """Zeros with ``t``'s shape, dtype and device (used by autograd.grad materialize_grads)."""
    from .. import backend
    from .._tensor import _make

    return _make(backend.xp_of(t._array).zeros(t._array.shape, dtype=t._array.dtype))
