"""The primitive ops and their lowercase functions (one family per file)."""

from ._util import (  # noqa: F401
    canonical_dim, canonical_dims, shape_arg, storage_offset, tensor_from_array, torch_stride,
)
from .elementwise import *  # noqa: F401,F403
from .division import *  # noqa: F401,F403
from .unary import *  # noqa: F401,F403
from .comparison import *  # noqa: F401,F403
from .bitwise import *  # noqa: F401,F403
from .floating import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403
from .complex_ops import *  # noqa: F401,F403
from . import bitwise, comparison, complex_ops, division, elementwise, floating, special, unary
from .activation import relu  # noqa: F401  (torch.relu; the activations live there)
from ._smooth_activation import sigmoid  # noqa: F401  (torch.sigmoid)

# the pointwise families (elementwise.py also re-exports the older ones, for old imports)
_ew = [name for family in (elementwise, division, unary, comparison, bitwise, floating, special,
                           complex_ops) for name in family.__all__] + ["relu", "sigmoid"]
from .reduction import *  # noqa: F401,F403
from ._statistics import *  # noqa: F401,F403
from . import _statistics, cast, join, reduction
_red = reduction.__all__ + _statistics.__all__
from .shape import *  # noqa: F401,F403
from .cast import *  # noqa: F401,F403
from .join import *  # noqa: F401,F403
from .rearrange import *  # noqa: F401,F403
from .shape import __all__ as _shape
from . import rearrange
_shape = _shape + cast.__all__ + join.__all__ + rearrange.__all__
from .indexing import *  # noqa: F401,F403
from .indexing import __all__ as _idx
from .matmul import *  # noqa: F401,F403
from .matmul import __all__ as _lin
from .softmax import *  # noqa: F401,F403
from .softmax import __all__ as _sm
from .decomp import *  # noqa: F401,F403
from .lu_decomp import *  # noqa: F401,F403
from .linsolve import *  # noqa: F401,F403
from .least_squares import *  # noqa: F401,F403
from .products import *  # noqa: F401,F403
from .lapack_legacy import *  # noqa: F401,F403
from . import decomp, lapack_legacy, least_squares, linsolve, lu_decomp, products

# matrix functions: factorizations, solvers, BLAS-style products, the 0.x LAPACK names
_la = (decomp.__all__ + lu_decomp.__all__ + linsolve.__all__ + least_squares.__all__
       + products.__all__ + lapack_legacy.__all__)

from .sorting import *  # noqa: F401,F403
from .binning import *  # noqa: F401,F403
from .uniques import *  # noqa: F401,F403
from .structure import *  # noqa: F401,F403
from .index_updates import *  # noqa: F401,F403
from .distances import *  # noqa: F401,F403
from .repetition import *  # noqa: F401,F403
from . import binning, distances, index_updates, repetition, sorting, structure, uniques
from . import inplace_writes  # noqa: E402,F401  (the Tensor methods' in-place writes)
from .shape_extra import *  # noqa: F401,F403
from .reducing_scatter import *  # noqa: F401,F403
from .strided_views import *  # noqa: F401,F403
from .statistics_extra import *  # noqa: F401,F403
from .quantiles import *  # noqa: F401,F403
from .numeric_gradient import *  # noqa: F401,F403
from . import numeric_gradient, quantiles, reducing_scatter, shape_extra, statistics_extra
from . import strided_views

# functions beyond the seeds' API (issue 19)
_extra = (shape_extra.__all__ + reducing_scatter.__all__ + strided_views.__all__
          + statistics_extra.__all__ + quantiles.__all__ + numeric_gradient.__all__)

__all__ = (_ew + _red + _shape + _idx + _lin + _sm + _la + sorting.__all__ + binning.__all__
           + uniques.__all__ + structure.__all__
           + index_updates.__all__ + distances.__all__ + repetition.__all__
           + _extra)


def zeros_like(t):
    """Zeros with ``t``'s shape, dtype and device (used by autograd.grad materialize_grads)."""
    from .. import backend
    from .._tensor import _make

    return _make(backend.xp_of(t._array).zeros(t._array.shape, dtype=t._array.dtype))
