"""``torch.testing.make_tensor``: a random tensor of a given shape and dtype in a bounded range.

The values come from the default generator through ``uniform_`` and ``randint`` exactly as
torch draws them, so a seeded test gets the same tensor under both libraries (a test that
prints or compares them against stored numbers keeps working). The argument checks, their
order and their messages follow torch 2.13 (checked case by case in the REPL).
"""

import math
import warnings

from .. import _dtype
from .._size import Size
from .._tensor import Tensor

# default ranges when a bound is not given
_FLOAT_RANGE = (-9, 9)
_SIGNED_RANGE = (-9, 10)
_UNSIGNED_RANGE = (0, 10)
_BOOL_RANGE = (0, 2)


def _shape_of(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        return tuple(shape[0])
    return shape


def _bound(x):
    """A one-element tensor bound is its number; others stay as given (a comparison with a
    many-element tensor raises torch's ambiguity error)."""
    if isinstance(x, Tensor) and x.numel() == 1:
        return x.item()
    return x


def _supported(dt):
    return dt._category != _dtype._QUANT


def _limits(dt):
    """The dtype's range as torch's messages print it: ``[lowest, highest)``."""
    if dt is _dtype.bool:
        return 0, 2
    if dt.is_floating_point or dt.is_complex:
        info = _dtype.finfo(dt.to_real() if dt.is_complex else dt)
        return float(info.min), float(info.max)
    info = _dtype.iinfo(dt)
    # int64's highest is printed (and clipped to) its maximum: one more does not fit
    return int(info.min), int(info.max) + (0 if dt is _dtype.int64 else 1)


def _checked_bounds(dt, low, high):
    floating = dt.is_floating_point or dt.is_complex
    if dt is _dtype.bool:
        default = _BOOL_RANGE
    elif floating:
        default = _FLOAT_RANGE
    else:
        default = _UNSIGNED_RANGE if _dtype.iinfo(dt).min == 0 else _SIGNED_RANGE
    low = default[0] if low is None else low
    high = default[1] if high is None else high
    if low != low or high != high:  # noqa: PLR0124 - NaN test for numbers and 0-d tensors
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low >= high:
        if not (floating and low == high):
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`torch.full(...)` instead.", FutureWarning, stacklevel=3)
    lowest, highest = _limits(dt)
    if low >= highest or high < lowest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dt} only supports [{lowest}, {highest})")
    low, high = max(low, lowest), min(high, highest)
    if floating:
        return low, high
    return math.ceil(low), math.ceil(high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """Create a tensor of random values drawn uniformly from ``[low, high)``.

    Without bounds, floating and complex values lie in ``[-9, 9)`` (real and imaginary parts
    separately), signed integers in ``[-9, 10)``, unsigned ones in ``[0, 10)``; booleans are
    fair coin flips. Bounds beyond the dtype's range are clipped to it; integer bounds are
    rounded up. The values are drawn with ``uniform_`` (floating, complex) or ``randint``
    from the default generator, as torch draws them: the same seed gives the same tensor.

    Args:
        *shape (int or sequence of ints): the shape, as separate ints or one sequence.
        dtype (dtype): the element type.
        device (str or device): where the tensor lives.
        low (number, optional): inclusive lower bound. Default: see above.
        high (number, optional): exclusive upper bound. Default: see above.
        requires_grad (bool): make the result a leaf that requires grad (floating and complex
            dtypes only). Default: False.
        noncontiguous (bool): return a non-contiguous view, every second element of a tensor
            with a doubled last dimension (when the result has more than one element).
            Default: False.
        exclude_zero (bool): replace zeros by the smallest positive normal number (floating,
            complex) or by one (integers, booleans). Default: False.
        memory_format (optional): the result's memory format; not combinable with
            ``noncontiguous``.

    Returns:
        Tensor: a new tensor with the requested properties.

    Raises:
        TypeError: a dtype make_tensor does not make (the quantized ones).
        ValueError: NaN bounds, ``low > high`` (``low >= high`` for integers and booleans),
            bounds outside the dtype's range, ``requires_grad`` for an integer or boolean
            dtype, or both ``noncontiguous`` and ``memory_format``.

    Example:
        >>> import numtorch as torch
        >>> x = torch.testing.make_tensor(2, 3, dtype=torch.float32, device="cpu", low=0, high=1)
        >>> tuple(x.shape), x.dtype, bool(((x >= 0) & (x < 1)).all())
        ((2, 3), torch.float32, True)
    """
    import numtorch

    dt = _dtype.as_dtype(dtype)
    shape = _shape_of(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    if requires_grad and not (dt.is_floating_point or dt.is_complex):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dt}")
    if not _supported(dt):
        raise TypeError(f"The requested dtype '{dt}' is not supported by "
                        f"torch.testing.make_tensor(). To request support, file an issue at: "
                        f"https://github.com/pytorch/pytorch/issues")
    low, high = _checked_bounds(dt, _bound(low), _bound(high))
    drawn = list(numtorch.empty(shape).shape)  # torch's shape checks and messages
    spread = noncontiguous and math.prod(drawn) > 1
    if spread:
        drawn[-1] *= 2  # every second element of it is the result
    if dt.is_floating_point or dt.is_complex:
        result = numtorch.empty(drawn, dtype=dt, device=device)
        parts = numtorch.view_as_real(result) if dt.is_complex else result
        if high - low > _limits(dt)[1]:  # wider than uniform_ takes: half the range, doubled
            parts.uniform_(low / 2, high / 2).mul_(2)
        else:
            parts.uniform_(low, high)
    elif dt is _dtype.bool:
        result = numtorch.randint(low, high, drawn, device=device).bool()
    else:
        result = numtorch.randint(low, high, drawn, dtype=dt, device=device)
    if spread:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        if dt.is_floating_point or dt.is_complex:
            tiny = _dtype.finfo(dt.to_real() if dt.is_complex else dt).tiny
            result[result == 0] = tiny
        else:
            result[result == 0] = 1
    if requires_grad:
        result.requires_grad_(True)
    return result
