"""Small top-level functions and facts of torch: the ``sym_*`` helpers (plain Python math in
eager mode), ``norm_except_dim`` / ``frobenius_norm`` / ``nuclear_norm``, ``empty_permuted``,
``binomial``, function forms of quantized-tensor queries, and build facts (``has_lapack``,
``compiled_with_cxx11_abi``, ...)."""

import builtins
import math

import numpy as np

from ._inplace_functions import _require_tensor
from ._tensor import Tensor

__all__ = [
    "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_ite", "sym_sum",
    "sym_constrain_range", "sym_constrain_range_for_size", "norm_except_dim", "frobenius_norm",
    "_weight_norm",
    "nuclear_norm", "empty_permuted", "binomial", "q_scale", "q_zero_point",
    "q_per_channel_scales", "q_per_channel_zero_points", "q_per_channel_axis", "int_repr",
    "has_lapack", "has_mkl", "has_openmp", "has_spectral", "compiled_with_cxx11_abi",
    "is_vulkan_available", "is_distributed", "init_num_threads",
]

# -- symbolic-shape helpers: with no tracer, every size is a plain number ----------------------

_NUMBERS = (np.integer, np.floating, int, float)


def sym_int(a):
    """``int(a)``, truncating a float toward zero (a SymInt-aware ``int`` under tracing)."""
    return math.trunc(a) if isinstance(a, (float, np.floating)) else builtins.int(a)


def sym_float(a):
    """``float(a)`` (a SymFloat-aware ``float`` under tracing)."""
    return builtins.float(a)


def _check_numbers(a, b):
    for v in (a, b):
        if not isinstance(v, _NUMBERS):
            raise AssertionError(f"expected {_NUMBERS}, got {type(v)}")


def sym_max(a, b):
    """The larger of two numbers; a float if either is a float."""
    _check_numbers(a, b)
    m = builtins.max(a, b)
    return builtins.float(m) if isinstance(a, (float, np.floating)) or isinstance(
        b, (float, np.floating)) else m


def sym_min(a, b):
    """The smaller of two numbers; a float if either is a float."""
    _check_numbers(a, b)
    m = builtins.min(a, b)
    return builtins.float(m) if isinstance(a, (float, np.floating)) or isinstance(
        b, (float, np.floating)) else m


def sym_not(a):
    """``not a`` (a SymBool-aware ``not`` under tracing)."""
    return not a


def sym_sqrt(a):
    """``math.sqrt(a)``."""
    return math.sqrt(a)


def sym_ite(b, t, f):
    """``t if b else f``, as an expression that tracing can keep symbolic."""
    return t if b else f


def sym_sum(args):
    """The sum of the numbers in ``args`` (0 when empty)."""
    return builtins.sum(args)


def sym_constrain_range(size, *, min=None, max=None):
    """Check that ``size`` lies in ``[min, max]`` (bounds optional); returns None."""
    lo = -math.inf if min is None else min
    hi = math.inf if max is None else max
    if not lo <= size <= hi:
        raise RuntimeError(f"Invalid value range for {size} between [{min}, {max}].")


def sym_constrain_range_for_size(size, *, min=None, max=None):
    """Declare ``size`` a valid size in ``[min, max]``; nothing to check eagerly."""


# -- norms, creation, sampling --------------------------------------------------------------

def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dimension except ``dim``, kept with size 1 (the
    norm of weight normalisation); ``dim=-1`` takes the norm of the whole tensor."""
    from . import linalg

    if dim == -1:
        return linalg.vector_norm(v, pow)
    dims = tuple(d for d in range(v.dim()) if d != dim % builtins.max(v.dim(), 1))
    return linalg.vector_norm(v, pow, dims, keepdim=True)


def _weight_norm(v, g, dim=0):
    """``v * (g / norm_except_dim(v, 2, dim))``, in torch's fused order for dim 0 / the last
    dim (``nn.utils.weight_norm._weight_norm``)."""
    from .nn.utils.weight_norm import _weight_norm as impl

    return impl(v, g, dim)


def frobenius_norm(input, dim, keepdim=False):
    """The Frobenius (2-) norm of ``input`` over ``dim``."""
    from . import linalg

    return linalg.vector_norm(input, 2, tuple(dim), keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    """The nuclear norm (sum of singular values) of the matrices over ``dim`` (the last two
    dimensions of a 2-D ``input`` by default); ``nuclear_norm(input, keepdim)`` also works."""
    from . import linalg

    if isinstance(dim, builtins.bool):  # the (input, keepdim) overload
        dim, keepdim = None, dim
    return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised tensor of ``size`` whose dimensions lie in memory in the order
    ``physical_layout`` (outermost first): ``(0, 2, 3, 1)`` gives channels-last strides."""
    import numtorch

    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; got {len(size)} and {len(order)}")
    stored = numtorch.empty(tuple(size[d] for d in order), dtype=dtype, device=device)
    out = stored.permute(tuple(np.argsort(order).tolist()))
    return out._set_requires_grad() if requires_grad else out


def binomial(count, prob, generator=None):
    """Draw from Binomial(``count``, ``prob``) elementwise (float tensors of one shape).

    Note: the draws come from numtorch's default generator; ``generator`` is accepted for
    signature compatibility.
    """
    from .distributions import Binomial

    for pos, (name, t) in enumerate((("count", count), ("prob", prob)), start=1):
        if not isinstance(t, Tensor):
            raise TypeError(f"binomial(): argument '{name}' (position {pos}) must be Tensor, "
                            f"not {type(t).__name__}")
        if not t.is_floating_point():
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{_display(t)}")
    return Binomial(count, probs=prob, validate_args=False).sample()


def _display(t):
    from . import _dtype

    return _dtype._TYPE_DISPLAY[t.dtype.name]


# -- quantized tensors: function forms of their methods -----------------------------------

def _method_form(name):
    def fn(input):
        _require_tensor(name, input)
        return getattr(input, name)()

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}()`` of a quantized tensor; see :meth:`numtorch.Tensor.{name}`."
    return fn


q_scale = _method_form("q_scale")
q_zero_point = _method_form("q_zero_point")
q_per_channel_scales = _method_form("q_per_channel_scales")
q_per_channel_zero_points = _method_form("q_per_channel_zero_points")
q_per_channel_axis = _method_form("q_per_channel_axis")
int_repr = _method_form("int_repr")

# -- build facts ------------------------------------------------------------------------------

# NumPy links LAPACK and does FFTs; these report the capabilities, not torch's build
has_lapack = True
has_mkl = False
has_openmp = False
has_spectral = True


def compiled_with_cxx11_abi():
    """True, as torch's wheels answer (numtorch has no C++ ABI of its own)."""
    return True


def is_vulkan_available():
    """False: numtorch has no Vulkan backend."""
    return False


def is_distributed(input):
    """False: a numtorch tensor is never a distributed tensor."""
    return False


def init_num_threads():
    """Set up the intra-op thread pool: nothing to do, NumPy's BLAS manages its threads."""
