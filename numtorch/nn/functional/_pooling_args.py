"""Argument parsing and torch's checks for ``nn.functional`` pooling.

Everything here runs before any math, on Python ints; the index windows the ops need are built
in :mod:`numtorch.ops.pool_windows` and the pooling itself is in :mod:`numtorch.ops.pooling`. Error types and wording follow torch's, including its
different phrasings per function (users and tests match on them).
"""

import numpy as np

from ... import _dtype
from ...autograd.graph import rename_node
from ...backend import is_device_array

_WORDS = {1: "one", 2: "two", 3: "three"}
_DIM_LETTERS = {1: ("W",), 2: ("H", "W"), 3: ("T", "H", "W")}


def cdiv(a, b):
    """Integer division truncating toward zero (C++'s ``/``; torch's arithmetic here)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def type_name(dt):
    """torch's scalar-type name (``Float``, ``Long``, ...) for a numtorch dtype."""
    np_dt = dt.np if hasattr(dt, "np") else np.dtype(dt)
    return _dtype._TYPE_DISPLAY.get(np_dt.name, np_dt.name)


def not_implemented(kernel, input):
    return NotImplementedError(f'"{kernel}" not implemented for \'{type_name(input.dtype)}\'')


def require_dtype(kernel, input, allow_int):
    """Pooling kernels exist for floating types, and (max pooling) for integer types."""
    kind = _dtype.np_kind(input._array.dtype)
    if kind == "f" or (allow_int and kind in "iu"):
        return
    raise not_implemented(kernel, input)


def channels_last_name(kernel, input):
    """torch's CPU 2-d pooling kernels for a channels-last input carry their own names in
    its dtype errors (``max_pool2d_channels_last``)."""
    if input.dim() == 4:
        from ._memory_format import suggest

        if suggest(input) is not None:
            return kernel + "_channels_last"
    return kernel


def require_avg_dtype(nd, input):
    """torch's CPU average pooling exists for floating types and int64 only, 3-d not for
    float16/bfloat16; 1-d runs through the 2-d kernel (its name in the error)."""
    if is_device_array(input._array):
        return require_dtype(f"avg_pool{nd}d", input, True)
    dt = input._array.dtype
    if dt == np.int64 or (_dtype.np_kind(dt) == "f" and (nd < 3 or dt.itemsize > 2)):
        return
    kernel = "avg_pool3d_out_frame" if nd == 3 else channels_last_name("avg_pool2d", input)
    raise not_implemented(kernel, input)


def _is_int(v):
    return isinstance(v, (int, np.integer))


def _type_error(fn, arg, pos, value):
    if isinstance(value, (tuple, list)):
        bad = next(i for i, v in enumerate(value) if not _is_int(v))
        return TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be tuple of ints, but "
                         f"found element of type {type(value[bad]).__name__} at pos {bad}")
    return TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be tuple of ints, not "
                     f"{type(value).__name__}")


def int_tuple(fn, value, n, arg, pos, length_msg):
    """``value`` (an int or a sequence of 1 or ``n`` ints) as an ``n``-tuple."""
    if _is_int(value):
        return (int(value),) * n
    if not isinstance(value, (tuple, list)) or not all(_is_int(v) for v in value):
        raise _type_error(fn, arg, pos, value)
    if len(value) == 1:
        return (int(value[0]),) * n
    if len(value) != n:
        raise RuntimeError(length_msg(len(value)))
    return tuple(int(v) for v in value)


def _length_msg(fn, arg, nd):
    """torch's message for a kernel/stride/padding/dilation sequence of the wrong length."""
    w = _WORDS[nd]
    if fn in ("max_pool2d", "max_pool3d", "avg_pool2d"):
        if arg == "stride":
            return lambda n: f"{fn}: stride must either be omitted, a single int, or a tuple of " \
                             f"{w} ints"
        if arg == "dilation":
            return lambda n: f"{fn}: dilation must be either a single int, or a tuple of {w} ints"
        return lambda n: f"{fn}: {arg} must either be a single int, or a tuple of {w} ints"
    if fn == "avg_pool3d":
        extra = "omitted, " if arg == "stride" else ""
        return lambda n: f"avg_pool3d: {arg} must be {extra}a single int, or a tuple of three ints"
    if fn == "max_pool1d_impl":
        return lambda n: f"max_pool1d() {arg} must be an int, list of ints or tuple of ints of " \
                         f"size 1 but got size {n}"
    return lambda n: f"{fn}() argument '{arg}' should contain one int (got {n})"


def pool_args(fn, nd, kernel_size, stride, padding, dilation=1):
    """Kernel, stride (default: the kernel), padding and dilation as ``nd``-tuples."""
    kernel = int_tuple(fn, kernel_size, nd, "kernel_size", 2, _length_msg(fn, "kernel_size", nd))
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        stride = kernel
    else:
        stride = int_tuple(fn, stride, nd, "stride", 3, _length_msg(fn, "stride", nd))
    padding = int_tuple(fn, padding, nd, "padding", 4, _length_msg(fn, "padding", nd))
    dilation = int_tuple(fn, dilation, nd, "dilation", 5, _length_msg(fn, "dilation", nd))
    return kernel, stride, padding, dilation


def out_size(n, k, s, p, d, ceil_mode):
    """Torch's pooling output length, with its checks (stride, padding) in its order."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > cdiv((k - 1) * d + 1, 2):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={p}, kernel_size={k} and dilation={d}")
    o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1  # the last window must start inside the input or its left padding
    return o


def _letters_msg(prefix, letters, values):
    return " ".join(f"{prefix}{a}: {v}" for a, v in zip(letters, values))


def pool_geometry(fn, shape, kernel, stride, padding, dilation, ceil_mode, is_max):
    """Output spatial size for a batched-or-not ``shape`` ``(..., C, *spatial)``, raising
    torch's errors (messages as for the 2-d or 3-d kernel ``fn`` runs on)."""
    nd = len(kernel)
    spatial = shape[-nd:]
    out = tuple(out_size(n, k, s, p, d, ceil_mode)
                for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation))
    letters = _DIM_LETTERS[nd]
    if min(kernel) <= 0:
        raise RuntimeError("kernel size should be greater than zero, but got " +
                           _letters_msg("k", letters, kernel))
    if min(stride) <= 0:
        raise RuntimeError("stride should be greater than zero, but got " +
                           _letters_msg("d", letters, stride))
    if is_max and min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero, but got " +
                           _letters_msg("dilation", letters, dilation))
    batch_dims = len(shape) - nd - 1
    for i, s in enumerate(shape[batch_dims:]):
        if s == 0:
            if nd == 3:
                raise RuntimeError(f"{fn}(): Expected input's non-batch dimensions to have "
                                   f"positive length, but input has a shape of "
                                   f"{shape_str(shape)} and non-batch dimension {i} has length "
                                   f"zero!")
            raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                               f"size for input, but got:{shape_str(shape)}")
    if is_max and any(p > k // 2 for p, k in zip(padding, kernel)):
        if nd == 3:
            msg = (f"kT: {kernel[0]} kW: {kernel[2]} kH: {kernel[1]} padT: {padding[0]} "
                   f"padW: {padding[2]} padH: {padding[1]}")
        else:
            msg = (f"padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, "
                   f"kH = {kernel[0]}")
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"{msg}")
    if fn == "avg_pool3d" and any(n < k for n, k in zip(spatial, kernel)):
        raise RuntimeError(f"input image ({_letters_msg('', letters, spatial)}) smaller than "
                           f"kernel size ({_letters_msg('k', letters, kernel)})")
    if min(out) < 1:
        planes = shape[-nd - 1]
        given = "x".join(str(s) for s in (planes,) + tuple(spatial))
        calc = "x".join(str(s) for s in (planes,) + out)
        raise RuntimeError(f"Given input size: ({given}). Calculated output size: ({calc}). "
                           f"Output size is too small")
    return out


def max_pool1d_geometry(shape, kernel, stride, padding, dilation, ceil_mode):
    """The checks and messages of torch's index-free ``max_pool1d`` kernel."""
    (k,), (s,), (p,), (d,) = kernel, stride, padding, dilation
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    o = out_size(shape[-1], k, s, p, d, ceil_mode)
    if o < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {o}")
    return (o,)


def check_dims_range(fn, input, low, high):
    """torch's "Expected 2 to 3 dimensions ..." check of the 1-d functions."""
    n = input.dim()
    if not low <= n <= high:
        raise RuntimeError(f"Expected {low} to {high} dimensions, but got {n}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for {fn})")


def batched(input, nd):
    """``input`` with a batch dim (added for unbatched inputs) and whether one was added."""
    if input.dim() == nd + 1:
        return input.unsqueeze(0), True
    return input, False


def unbatch(result, added, keep_name=False):
    """``result`` without the batch dim ``batched`` added (``keep_name``: the values' node
    keeps the kernel's name, as torch's pooling kernels take unbatched inputs themselves)."""
    if not added:
        return result
    if isinstance(result, tuple):
        out = tuple(r.squeeze(0) for r in result)
        first, values = result[0], out[0]
    else:
        out = values = result.squeeze(0)
        first = result
    if keep_name and first.grad_fn is not None:
        rename_node(values, first.grad_fn.name())
    return out


# ---------------------------------------------------------------------------------------------
# adaptive output sizes


def adaptive_output_size(fn, output_size, spatial):
    """``output_size`` (an int, or a sequence whose None entries keep the input's size)."""
    nd = len(spatial)
    if output_size is None:
        raise TypeError(f"{fn}(): output_size must be an int or a sequence of {nd} ints or "
                        f"None, but got None")
    if _is_int(output_size):
        sizes = (int(output_size),) * nd
    else:
        sizes = tuple(output_size)
        if len(sizes) == 1 and nd > 1:
            sizes = sizes * nd
        if len(sizes) != nd:
            if fn.startswith("adaptive_avg"):  # torch's avg and max kernels word it apart
                raise RuntimeError(f"{fn}: output_size must be {nd}")
            raise RuntimeError(f"{fn}(): internal error: output_size.size() must be {nd}")
        sizes = tuple(n if v is None else v for v, n in zip(sizes, spatial))
        if not all(_is_int(v) for v in sizes):
            raise _type_error(fn, "output_size", 2, list(sizes))
        sizes = tuple(int(v) for v in sizes)
    return sizes


def adaptive_1d_output_size(fn, output_size):
    """The 1-d functions take an int or a one-int sequence (no None)."""
    if _is_int(output_size):
        return (int(output_size),)
    if not isinstance(output_size, (tuple, list)) or not all(_is_int(v) for v in output_size):
        raise _type_error(fn, "output_size", 2, output_size)
    if len(output_size) != 1:
        raise RuntimeError(f"{fn}() argument 'output_size' should contain one int (got "
                           f"{len(output_size)})")
    return (int(output_size[0]),)
