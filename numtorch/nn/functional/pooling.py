"""nn.functional: pooling (max, average, power-average, unpooling); the adaptive and
fractional forms are in ``adaptive_pooling.py``.

Each function checks its arguments the way torch does, adds a batch dim to unbatched inputs,
and calls the primitives of :mod:`numtorch.ops.pooling` (LP pooling composes Tensor ops with
average pooling, as torch defines it).
"""

import math

import numpy as np

from ...autograd.grad_mode import _state as _grad_state
from ...backend import xp_of
from ...ops import pool_windows as _windows
from ...ops import pooling as _ops
from . import _memory_format as _mf
from . import _pooling_args as _impl
from ._pooling_args import batched, unbatch

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
           "avg_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d",
           "lp_pool2d", "lp_pool3d"]


# ---------------------------------------------------------------------------------------------
# max pooling


def _max_pool(fn, nd, input, kernel_size, stride, padding, dilation, ceil_mode, indices):
    if input.is_quantized:  # the stored integers, pooled (numtorch/_quantized_ops_float.py)
        from ..._quantized_ops_float import on_int_values

        return on_int_values(input, lambda t: _max_pool(
            fn, nd, t, kernel_size, stride, padding, dilation, ceil_mode, indices))
    if fn == "max_pool1d" and not indices:
        # torch's index-free 1-d kernel has its own checks and messages
        kernel, stride, padding, dilation = _impl.pool_args(
            "max_pool1d_impl", 1, kernel_size, stride, padding, dilation)
        if input.dim() not in (2, 3) or 0 in tuple(input.shape)[-2:]:
            raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional "
                               f"0 dim batch size for input, but got:"
                               f"{_impl.shape_str(input.shape)}")
        _impl.require_dtype("max_pool1d_impl", input, False)
        out = _impl.max_pool1d_geometry(tuple(input.shape), kernel, stride, padding, dilation,
                                        ceil_mode)
    else:
        kernel, stride, padding, dilation = _impl.pool_args(fn, nd, kernel_size, stride,
                                                            padding, dilation)
        if nd == 1:
            _impl.check_dims_range("max_pool1d", input, 2, 3)
            # torch runs this through its 2-d kernel: its messages show a height of 1
            shape = tuple(input.shape[:-1]) + (1, input.shape[-1])
            _impl.pool_geometry("max_pool2d", shape, (1,) + kernel, (1,) + stride,
                                (0,) + padding, (1,) + dilation, ceil_mode, True)
        elif input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected "
                               f"for input")
        _impl.require_dtype(_impl.channels_last_name(fn, input) if nd == 2 else fn, input,
                            True)
        name = "max_pool3d_with_indices_out_cpu_template" if nd == 3 else fn
        out = _impl.pool_geometry(name, tuple(input.shape), kernel, stride, padding, dilation,
                                  ceil_mode, True)
    x, added = batched(input, nd)
    fmt = _mf.batched_format(x, added)
    result = _ops.max_pool(_mf.grad_input(x, fmt), kernel, stride, padding, dilation, out,
                           indices)
    result = unbatch(_mf.outputs(result, fmt), added, keep_name=nd > 1)
    if nd == 1 and (indices or (input.requires_grad and _grad_state.enabled)):
        # torch's 1-d pooling with indices (taken whenever a gradient is needed) runs as 2-d
        return _mf.pool1d_layout(input, result)
    return result


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Take the maximum over sliding windows along the last dim.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): window length.
        stride (int or tuple, optional): window step. Default: ``kernel_size``.
        padding (int or tuple): implicit -inf padding on both sides, at most half the kernel.
            Default: 0.
        dilation (int or tuple): spacing between window elements. Default: 1.
        ceil_mode (bool): round the output length up (the last window must still start inside
            the input or the left padding). Default: False.
        return_indices (bool): also return the position of each maximum. Default: False.

    Returns:
        Tensor, or (Tensor, LongTensor) with ``return_indices``.

    Shape:
        ``L_out = floor((L + 2*padding - dilation*(kernel_size-1) - 1) / stride) + 1``.

    Example:
        >>> torch.nn.functional.max_pool1d(torch.tensor([[1., 3., 2., 0.]]), 2)
        tensor([[3., 2.]])
    """
    return _max_pool("max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Take the maximum over sliding 2-d windows.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): window size ``(kH, kW)``.
        stride (int or tuple, optional): window step. Default: ``kernel_size``.
        padding (int or tuple): implicit -inf padding, at most half the kernel. Default: 0.
        dilation (int or tuple): spacing between window elements. Default: 1.
        ceil_mode (bool): round output sizes up. Default: False.
        return_indices (bool): also return, for each maximum, its position in the flattened
            ``H*W`` plane (the first maximum of a window; the last NaN if there is one).
            Default: False.

    Returns:
        Tensor, or (Tensor, LongTensor) with ``return_indices``.

    Example:
        >>> x = torch.arange(16.).reshape(1, 1, 4, 4)
        >>> torch.nn.functional.max_pool2d(x, 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    return _max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Take the maximum over sliding 3-d windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)``.

    Arguments as :func:`max_pool2d`, with 3-tuples; indices count positions in the flattened
    ``D*H*W`` volume.

    Example:
        >>> torch.nn.functional.max_pool3d(torch.ones(1, 1, 2, 2, 2), 2).shape
        torch.Size([1, 1, 1, 1, 1])
    """
    return _max_pool("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool1d` that always returns ``(values, indices)``."""
    return _max_pool("max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode,
                     True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool2d` that always returns ``(values, indices)``.

    Example:
        >>> y, i = torch.nn.functional.max_pool2d_with_indices(torch.eye(2)[None], 2)
        >>> i
        tensor([[[0]]])
    """
    return _max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode,
                     True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool3d` that always returns ``(values, indices)``."""
    return _max_pool("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode,
                     True)


# ---------------------------------------------------------------------------------------------
# average pooling


def _avg_pool(fn, nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):
    if input.is_quantized:  # the stored integers, pooled (numtorch/_quantized_ops_float.py)
        from ..._quantized_ops_float import on_int_values, qnnpack_average

        out = qnnpack_average(input, kernel_size, stride, padding, ceil_mode,
                              divisor_override) if nd == 2 else None
        if out is not None:
            return out
        return on_int_values(input, lambda t: _avg_pool(
            fn, nd, t, kernel_size, stride, padding, ceil_mode, count_include_pad,
            divisor_override), rounding=True)
    kernel, stride, padding, _ = _impl.pool_args(fn, nd, kernel_size, stride, padding)
    n = input.dim()
    if nd == 1:
        _impl.check_dims_range("avg_pool1d", input, 2, 3)
        shape = tuple(input.shape[:-1]) + (1, input.shape[-1])
        _impl.pool_geometry("avg_pool2d", shape, (1,) + kernel, (1,) + stride, (0,) + padding,
                            (1, 1), ceil_mode, False)
    elif nd == 2 and n < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(n, 1)}, "
                         f"{max(n, 1) - 1}], but got -3)")
    elif nd == 2 and n > 4:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{_impl.shape_str(input.shape)}")
    elif nd == 3 and n not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _impl.require_avg_dtype(nd, input)
    out = _impl.pool_geometry(fn, tuple(input.shape), kernel, stride, padding, (1,) * nd,
                              ceil_mode, False)
    x, added = batched(input, nd)
    divisor = _windows.avg_divisor(xp_of(x._array), tuple(x.shape[2:]), kernel, stride, padding,
                                out, count_include_pad, divisor_override)
    fmt = _mf.batched_format(x, added)
    if nd == 3 and fmt is not None:  # torch's 3-d average pooling writes row-major
        return unbatch(_ops.avg_pool(x, kernel, stride, padding, out, divisor).contiguous(),
                       added, keep_name=True)
    result = _ops.avg_pool(_mf.grad_input(x, fmt), kernel, stride, padding, out, divisor)
    if nd == 1 and fmt is None and _mf.suggest(x.unsqueeze(2)) is not None:
        # torch pools 1-d as 2-d over (N, C, 1, L): a channel-minor input looks channels-last
        # there, and its result keeps that layout
        return unbatch(result, added)
    return unbatch(_mf.output(result, fmt), added, keep_name=nd > 1)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Average over sliding windows along the last dim of ``(N, C, L)`` or ``(C, L)``.

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): window length.
        stride (int or tuple, optional): window step. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding, at most half the kernel. Default: 0.
        ceil_mode (bool): round the output length up. Default: False.
        count_include_pad (bool): count padded zeros in the divisor. Default: True.

    Example:
        >>> torch.nn.functional.avg_pool1d(torch.tensor([[1., 3., 2., 0.]]), 2)
        tensor([[2., 1.]])
    """
    return _avg_pool("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Average over sliding 2-d windows of ``(N, C, H, W)`` or ``(C, H, W)``.

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window step. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding, at most half the kernel. Default: 0.
        ceil_mode (bool): round output sizes up; the part of a window past the right padding
            is never counted. Default: False.
        count_include_pad (bool): count padded zeros in the divisor. Default: True.
        divisor_override (int, optional): divide every window sum by this instead.

    Example:
        >>> torch.nn.functional.avg_pool2d(torch.ones(1, 1, 2, 2), 2, divisor_override=1)
        tensor([[[[4.]]]])
    """
    return _avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Average over sliding 3-d windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)``.

    Arguments as :func:`avg_pool2d`, with 3-tuples.

    Example:
        >>> torch.nn.functional.avg_pool3d(torch.ones(1, 1, 2, 2, 2), 2).shape
        torch.Size([1, 1, 1, 1, 1])
    """
    return _avg_pool("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


# ---------------------------------------------------------------------------------------------
# unpooling


def _max_unpool(nd, input, indices, kernel_size, stride, padding, output_size):
    fn = f"max_unpool{nd}d"
    kernel, stride, padding, _ = _impl.pool_args(fn, nd, kernel_size, stride, padding)
    dims = input.dim() + (1 if nd == 1 else 0)  # torch unpools 1-d through its 2-d kernel
    kernel_nd = max(nd, 2)
    if dims not in (kernel_nd + 1, kernel_nd + 2):
        raise RuntimeError(f"Input to max_unpooling{kernel_nd}d should be a {kernel_nd + 1}d or "
                           f"{kernel_nd + 2}d Tensor, but got a tensor with {dims} dimensions.")
    if str(indices.dtype) != "torch.int64":
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{_impl.type_name(indices.dtype)}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({_impl.shape_str(input.shape)}) but got indices tensor with shape: "
                           f"{_impl.shape_str(indices.shape)}")
    if nd == 3 and min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: "
                           f"{_impl.shape_str(stride)}")
    _impl.require_dtype(fn, input, False)
    in_sp = tuple(input.shape[-nd:])
    default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(in_sp, stride, padding, kernel))
    if output_size is None:
        size = default
    else:
        size = tuple(int(v) for v in output_size)
        shown = output_size  # quoted in errors as given (list, tuple or Size), batch dims cut
        if len(size) == nd + 2:
            size, shown = size[2:], output_size[2:]
        if len(size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                             f"elements, but it has a length of '{len(size)}'")
        for d, (v, dflt, s) in enumerate(zip(size, default, stride)):
            if not dflt - s < v < dflt + s:
                raise ValueError(f'invalid output_size "{shown}" (dim {d} must be between '
                                 f"{dflt - s} and {dflt + s})")
    x, added = batched(input, nd)
    idx = indices._array.reshape(x.shape)
    plane = int(np.prod(size))
    if idx.size:
        xp = xp_of(idx)
        bad = (idx < 0) | (idx >= plane)
        if bool(bad.any()):
            # torch's kernel (one task per plane) reports the last bad index of the first
            # plane holding one
            rows = bad.reshape(x.shape[0] * x.shape[1], -1)
            row = int(xp.argmax(rows.any(axis=1)))
            pos = rows.shape[1] - 1 - int(xp.argmax(rows[row][::-1]))
            first = int(idx.reshape(rows.shape)[row, pos])
            vol = "x".join(str(s) for s in (size + (1,) if nd == 1 else size))
            raise RuntimeError(f"Found an invalid max index: {first} (output volumes are of size "
                               f"{vol})")
    fmt = _mf.batched_format(x, added)
    result = _ops.max_unpool(_mf.grad_input(x, fmt), idx, tuple(x.shape[:2]) + size)
    return unbatch(_mf.output(result, fmt), added)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Invert :func:`max_pool1d`: put each value back at its index, zeros elsewhere.

    Args:
        input (Tensor): pooled values ``(N, C, L)`` or ``(C, L)``.
        indices (LongTensor): the indices returned by the pooling.
        kernel_size, stride, padding: those of the pooling (stride defaults to the kernel).
        output_size (sequence, optional): the exact output length, to resolve the sizes that
            pool to the same length (``(L,)`` or ``(N, C, L)``).

    Example:
        >>> y, i = torch.nn.functional.max_pool1d(torch.tensor([[1., 3., 2., 0.]]), 2,
        ...                                       return_indices=True)
        >>> torch.nn.functional.max_unpool1d(y, i, 2)
        tensor([[0., 3., 2., 0.]])
    """
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Invert :func:`max_pool2d`: put each value back at its index, zeros elsewhere.

    Arguments as :func:`max_unpool1d`, for ``(N, C, H, W)`` or ``(C, H, W)``.
    """
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Invert :func:`max_pool3d`: put each value back at its index, zeros elsewhere.

    Arguments as :func:`max_unpool1d`, for ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    """
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# ---------------------------------------------------------------------------------------------
# power-average pooling


def _lp_pool(nd, input, norm_type, kernel_size, stride, ceil_mode):
    if nd == 1:
        kernel = _impl.int_tuple("lp_pool1d", kernel_size, 1, "kernel_size", 3,
                                 lambda n: f"lp_pool1d() kernel_size should contain one int "
                                           f"(got {n})")
    elif _impl._is_int(kernel_size):
        kernel = (int(kernel_size),) * nd
    else:
        kernel = tuple(kernel_size)
        if len(kernel) != nd:
            raise ValueError(f"too many values to unpack (expected {nd})" if len(kernel) > nd
                             else f"not enough values to unpack (expected {nd}, got "
                                  f"{len(kernel)})")
    if norm_type in (math.inf, -math.inf):
        # the limits of the power mean: the largest (smallest) magnitude in each window
        pool = (max_pool1d, max_pool2d, max_pool3d)[nd - 1]
        if norm_type > 0:
            return pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    avg = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    # torch's formula: the window mean of x**p, its sign kept and magnitude clipped at zero, times
    # the window size, to the power 1/p
    out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(int(np.prod(kernel))).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: ``(sum over the window of x**p) ** (1/p)`` along the last dim.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        norm_type (float): the power ``p``; ``inf`` (``-inf``) takes the largest (smallest)
            absolute value of each window.
        kernel_size (int): window length.
        stride (int, optional): window step. Default: ``kernel_size``.
        ceil_mode (bool): round the output length up. Default: False.

    Example:
        >>> torch.nn.functional.lp_pool1d(torch.tensor([[3., 4.]]), 2, 2)
        tensor([[5.]])
    """
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 2-d windows (see :func:`lp_pool1d`)."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 3-d windows (see :func:`lp_pool1d`)."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)
