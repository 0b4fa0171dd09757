"""nn.functional: convolutions (``conv1d/2d/3d``, ``conv_transpose1d/2d/3d``) and the
sliding-block pair ``unfold``/``fold``.

Each function checks its arguments the way torch does (same exception types and messages) and
then calls one primitive of :mod:`numtorch.ops.conv`. Unbatched inputs get a batch dim of one
for the call, as in torch.
"""

import math

from ... import _dtype
from ..._warn_once import warn_once
from ..._tensor import Tensor
from ...autograd.graph import rename_node
from ...ops import conv as _ops
from ...ops import conv_fold as _fold_ops
from . import _memory_format as _mf

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "unfold", "fold"]


# ---------------------------------------------------------------------------------------------
# argument parsing


def _size_list(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _is_int(v):
    return hasattr(v, "__index__") and not isinstance(v, bool) and not (
        isinstance(v, Tensor) and (v.dim() != 0 or v.dtype._category >= _dtype._FLOAT))


def int_tuple(fn, name, value, n):
    """An int or a sequence of ints as a tuple; ``n`` copies of a single int.

    A sequence of the wrong length is returned as it is (the caller reports it with torch's
    message, which names the convolution's dimensionality).
    """
    if _is_int(value):
        return (int(value),) * n
    if isinstance(value, (tuple, list)) and all(_is_int(v) for v in value):
        return tuple(int(v) for v in value)
    raise TypeError(f"{fn}(): argument '{name}' must be tuple of ints, but found element of "
                    f"type {type(value).__name__}")


def _need_tensor(fn, name, pos, value, optional=False):
    if isinstance(value, Tensor) or (optional and value is None):
        return
    raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                    f"{type(value).__name__}")


def _bias_error(input, bias):
    """torch's error for a bias whose dtype is not the input's (it names their C++ types)."""
    names = [_dtype._CPP_TYPE.get(t.dtype.name, t.dtype.name) for t in (input, bias)]
    return RuntimeError(f"Input type ({names[0]}) and bias type ({names[1]}) should be the same")


def _legacy_name(dt):
    """torch's name of a CPU tensor type: torch.FloatTensor, or CPUBFloat16Type /
    CPUComplexFloatType for the types without a legacy tensor class."""
    if dt is _dtype.bfloat16 or dt.is_complex:
        return f"CPU{_dtype._TYPE_DISPLAY[dt.name]}Type"
    return f"torch.{dt._legacy}"


def _check_dtypes(fn, input, weight, bias, mkldnn=False):
    di, dw = input.dtype, weight.dtype
    if di is _dtype.bool:
        raise NotImplementedError(f'"slow_conv{fn[4:6]}_cpu" not implemented for \'Bool\'')
    transposed = fn.startswith("conv_transpose")
    bias_differs = bias is not None and bias.dtype is not di
    # torch's order: a plain convolution compares the bias first, a transposed one last; the
    # weight's message depends on the kernel torch would have picked
    if bias_differs and not transposed:
        raise _bias_error(input, bias)
    if di is not dw:
        if transposed and not (di.is_floating_point or di.is_complex or di is _dtype.int64):
            kernel = "slow_conv_transpose3d" if fn.endswith("3d") else "slow_conv_transpose2d"
            raise NotImplementedError(f'"{kernel}_out_cpu" not implemented for '
                                      f"'{_dtype._TYPE_DISPLAY[di.name]}'")
        if di is _dtype.bfloat16 or mkldnn:
            # torch's mkldnn convolution (bfloat16, and float32 by its heuristic) names the
            # types as legacy tensor types (CPU...Type where there is none)
            raise RuntimeError(f"Input type ({_legacy_name(di)}) and weight type "
                               f"({_legacy_name(dw)}) should be the same or input should be a "
                               f"MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_dtype._TYPE_DISPLAY[di.name]} but found "
                           f"{_dtype._TYPE_DISPLAY[dw.name]}")
    if bias_differs:
        raise _bias_error(input, bias)


def _check_params(weight, params):
    """Torch's length checks: each of stride/padding/dilation has 1 or k-2 entries."""
    n = weight.dim() - 2
    out = {}
    for name, value in params:
        if len(value) not in (1, n):
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={_size_list(value)}")
        out[name] = value * n if len(value) == 1 else value
    return out


def _resolve_padding(fn, padding, nd, kernel, dilation, stride):
    """Per-dim (low, high) pads from ints or from ``'same'``/``'valid'``."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * nd
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = []
        uneven = False
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            uneven |= total % 2 == 1
            pads.append((total // 2, total - total // 2))  # the extra pad goes on the right
        if uneven:  # torch's C++ warn-once: one warning per process, for every conv
            warn_once("conv-same-uneven", "Using padding='same' with even kernel lengths and "
                      "odd dilation may require a zero-padded copy of the input be created",
                      UserWarning, stacklevel=4)
        return tuple(pads)
    return tuple((p, p) for p in padding)


def _check_common(fn, input, weight, bias, groups, stride, padding, dilation):
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-"
                           f"dimensional weight {_size_list(weight.shape)}, but got "
                           f"{input.dim()}-dimensional input of size {_size_list(input.shape)} "
                           f"instead")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got "
                           f"{_size_list(dilation)}")
    kernel = tuple(weight.shape[2:])
    if any(k == 0 for k in kernel):
        if len(kernel) == 3:
            got = f": {' x '.join(str(k) for k in kernel)} (TxHxW)"
        else:
            kh, kw = ((1,) + kernel)[-2:]
            got = f" kernel_height: {kh} kernel_width: {kw}"
        raise RuntimeError(f"kernel size should be greater than zero, but got{got}")
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {_size_list(weight.shape)} "
                           f"instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{_size_list(weight.shape)}] "
                           f"instead")


def _uses_mkldnn(input, weight, stride, dilation, groups):
    """Whether torch's CPU dispatch takes its mkldnn convolution (bfloat16 always, float32 by
    its size heuristic); it decides which dtype-mismatch message a user sees."""
    nd = weight.dim() - 2
    if input.dtype is not _dtype.float32:
        return input.dtype is _dtype.bfloat16
    from ... import _threads

    shape = tuple(input.shape) if input.dim() == nd + 2 else (1,) + tuple(input.shape)
    if nd == 1:  # torch runs a 1-d convolution as a 2-d one of height 1
        shape = shape[:2] + (1,) + shape[2:]
    n = shape[0]
    kh, kw = ((1,) + tuple(weight.shape[2:]))[-2:]
    numel = math.prod(shape[:4])  # (torch's size test reads the first four dims)
    first = any(v != 1 for v in stride) or any(v != 1 for v in dilation) or n >= 16 or \
        kw != 1 or kh != 1 or _threads.get_num_threads() > 1
    second = groups > 1 or (kw > 3 and kh > 3) or n > 1 or numel > 20480
    return first and second


def _check_weight_nonempty(weight, groups):
    if weight.shape[0] == 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least 1 at "
                           f"dimension 0, but got weight of size {_size_list(weight.shape)} "
                           f"instead")


def _batched(fn, input, nd):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{fn}, but got input of size: {_size_list(input.shape)}")
    return input.dim() == nd + 2


def _conv(fn, nd, input, weight, bias, stride, padding, dilation, groups):
    _need_tensor(fn, "input", 1, input)
    _need_tensor(fn, "weight", 2, weight)
    _need_tensor(fn, "bias", 3, bias, optional=True)
    if not _is_int(groups):
        raise TypeError(f"{fn}(): argument 'groups' must be int, not {type(groups).__name__}")
    groups = int(groups)
    stride = int_tuple(fn, "stride", stride, nd)
    dilation = int_tuple(fn, "dilation", dilation, nd)
    if not isinstance(padding, str):
        padding = int_tuple(fn, "padding", padding, nd)
    batched = _batched(fn, input, nd)
    if not batched:
        input = input.unsqueeze(0)
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    named = [("stride", stride), ("dilation", dilation)]
    if not isinstance(padding, str):
        named.insert(1, ("padding", padding))
    p = _check_params(weight, named)
    stride, dilation = p["stride"], p["dilation"]
    if not isinstance(padding, str):
        padding = p["padding"]
    _check_common(fn, input, weight, bias, groups, stride, padding, dilation)
    if bias is not None and input.dtype is not _dtype.bool and bias.dtype is not input.dtype:
        raise _bias_error(input, bias)  # torch's first dtype check, before the shapes
    _check_weight_nonempty(weight, groups)
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_size_list(weight.shape)}, "
                           f"expected input{_size_list(input.shape)} to have "
                           f"{weight.shape[1] * groups} channels, but got {input.shape[1]} "
                           f"channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"Given weight of size {_size_list(weight.shape)}, expected bias to "
                           f"be 1-dimensional with {weight.shape[0]} elements, but got bias of "
                           f"size {_size_list(bias.shape)} instead")
    kernel = tuple(weight.shape[2:])
    pads = _resolve_padding(fn, padding, nd, kernel, dilation, stride)
    spatial = input.shape[2:]
    padded = [s + lo + hi for s, (lo, hi) in zip(spatial, pads)]
    ext = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(p < e for p, e in zip(padded, ext)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(str(p) for p in padded)}). Kernel size: "
                           f"({' x '.join(str(e) for e in ext)}). Kernel size can't be greater "
                           f"than actual input size")
    # torch checks the shapes before the dtypes
    _check_dtypes(fn, input, weight, bias, _uses_mkldnn(input, weight, stride, dilation, groups))
    fmt = _mf.conv_format(input, weight) if batched else None
    low = input.dtype if input.dtype is _dtype.bfloat16 and not input.is_cuda else None
    if low is not None:
        # torch's CPU bfloat16 kernels sum in float32 and round once, the bias included
        # (rounding before the bias gave another last bit on ~30% of values), and so do its
        # gradients. (float16's forward does the same, but its input gradient rounds as
        # float16 arithmetic, as the 16-bit path here does)
        input, weight = input.float(), weight.float()
        bias = None if bias is None else bias.float()
    if fmt is None:
        out = _ops.conv(input, weight, bias, stride, pads, dilation, groups)
    else:
        out = _ops.conv(_mf.grad_input(input, fmt), _mf.grad_weight(weight, fmt), bias, stride,
                        pads, dilation, groups)
    if low is not None:
        out = rename_node(out.to(low), "ConvolutionBackward0")
    if fmt is None:
        return out if batched else out.squeeze(0)
    return _mf.output(out, fmt)


def _conv_transpose(fn, nd, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    _need_tensor(fn, "input", 1, input)
    _need_tensor(fn, "weight", 2, weight)
    _need_tensor(fn, "bias", 3, bias, optional=True)
    if not _is_int(groups):
        raise TypeError(f"{fn}(): argument 'groups' must be int, not {type(groups).__name__}")
    if isinstance(padding, str):
        raise TypeError(f"{fn}(): argument 'padding' must be tuple of ints, not str")
    groups = int(groups)
    stride = int_tuple(fn, "stride", stride, nd)
    padding = int_tuple(fn, "padding", padding, nd)
    output_padding = int_tuple(fn, "output_padding", output_padding, nd)
    dilation = int_tuple(fn, "dilation", dilation, nd)
    batched = _batched(fn, input, nd)
    if not batched:
        input = input.unsqueeze(0)
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    p = _check_params(weight, [("stride", stride), ("padding", padding),
                               ("dilation", dilation), ("output_padding", output_padding)])
    stride, padding, dilation = p["stride"], p["padding"], p["dilation"]
    output_padding = p["output_padding"]
    _check_common(fn, input, weight, bias, groups, stride, padding, dilation)
    if any(o < 0 for o in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    _check_weight_nonempty(weight, groups)
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_size_list(weight.shape)}, "
                           f"expected input{_size_list(input.shape)} to have {weight.shape[0]} "
                           f"channels, but got {input.shape[1]} channels instead")
    c_out = weight.shape[1] * groups
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != c_out):
        raise RuntimeError(f"Given transposed=1, weight of size {_size_list(weight.shape)}, "
                           f"expected bias to be 1-dimensional with {c_out} elements, but got "
                           f"bias of size {_size_list(bias.shape)} instead")
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
        names = ("depth", "height", "width")[3 - nd:] if nd <= 3 else \
            tuple(str(i) for i in range(nd))

        def spell(label, vals):
            if nd == 1:  # torch runs it as a 2-d one of height 1 (padding 0, stride 1)
                return f"{label}_height: {0 if label == 'output_padding' else 1} " \
                    f"{label}_width: {vals[0]}"
            return " ".join(f"{label}_{n}: {v}" for n, v in zip(names, vals))

        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but "
                           f"got {spell('output_padding', output_padding)} "
                           f"{spell('stride', stride)} {spell('dilation', dilation)}")
    _check_dtypes(fn, input, weight, bias, _uses_mkldnn(input, weight, stride, dilation, groups))
    kernel = tuple(weight.shape[2:])
    size = tuple((i - 1) * s - 2 * pd + d * (k - 1) + op + 1 for i, s, pd, d, k, op in
                 zip(input.shape[2:], stride, padding, dilation, kernel, output_padding))
    if any(s <= 0 for s in size):
        raise RuntimeError(f"{fn}: the padding {_size_list(padding)} leaves a non-positive "
                           f"output size {_size_list(size)} for an input of spatial size "
                           f"{_size_list(input.shape[2:])}")
    fmt = _mf.conv_format(input, weight) if batched else None
    x, w = _mf.grad_input(input, fmt), _mf.grad_weight(weight, fmt)
    low = x.dtype is _dtype.bfloat16  # torch's bfloat16 kernel sums in float32, rounds once
    if low:
        x, w, bias = x.float(), w.float(), None if bias is None else bias.float()
    out = _ops.conv_transpose(x, w, bias, stride, tuple((pd, pd) for pd in padding), dilation,
                              groups, size)
    if low:
        out = rename_node(out.to(_dtype.bfloat16), "ConvolutionBackward0")
    return _mf.output(out, fmt) if batched else out.squeeze(0)


# ---------------------------------------------------------------------------------------------
# public functions


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Apply a 1-D convolution over an input of shape ``(N, C_in, L)`` or ``(C_in, L)``.

    Args:
        input (Tensor): the input, ``(N, C_in, L)`` or unbatched ``(C_in, L)``.
        weight (Tensor): the filters, ``(C_out, C_in / groups, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: None.
        stride (int or tuple): step between windows. Default: 1.
        padding (int, tuple or str): zeros added on both sides, or ``'valid'`` (none) or
            ``'same'`` (output as long as the input; stride 1 only). Default: 0.
        dilation (int or tuple): spacing between kernel taps. Default: 1.
        groups (int): split the channels into this many independent groups. Default: 1.

    Returns:
        Tensor: ``(N, C_out, L_out)`` (or ``(C_out, L_out)``).

    Example:
        >>> torch.nn.functional.conv1d(torch.ones(1, 2, 5), torch.ones(3, 2, 3)).shape
        torch.Size([1, 3, 3])
    """
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Apply a 2-D convolution over an input of shape ``(N, C_in, H, W)`` or ``(C_in, H, W)``.

    .. math:: y[n, o] = b[o] + \\sum_c \\sum_{i, j} w[o, c, i, j] \\, x[n, c, s h + d i, s w + d j]

    Args:
        input (Tensor): the input, ``(N, C_in, H, W)`` or unbatched ``(C_in, H, W)``.
        weight (Tensor): the filters, ``(C_out, C_in / groups, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: None.
        stride (int or tuple): step between windows. Default: 1.
        padding (int, tuple or str): zeros added on both sides of each spatial dim, or
            ``'valid'`` / ``'same'``. Default: 0.
        dilation (int or tuple): spacing between kernel taps. Default: 1.
        groups (int): number of independent channel groups. Default: 1.

    Returns:
        Tensor: ``(N, C_out, H_out, W_out)`` (or without the batch dim).

    Example:
        >>> x = torch.ones(1, 3, 8, 8)
        >>> torch.nn.functional.conv2d(x, torch.ones(4, 3, 3, 3), padding=1).shape
        torch.Size([1, 4, 8, 8])
    """
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Apply a 3-D convolution over ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.

    Args:
        input (Tensor): the input.
        weight (Tensor): the filters, ``(C_out, C_in / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: None.
        stride (int or tuple): step between windows. Default: 1.
        padding (int, tuple or str): zeros added on both sides, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing between kernel taps. Default: 1.
        groups (int): number of independent channel groups. Default: 1.

    Returns:
        Tensor: ``(N, C_out, D_out, H_out, W_out)`` (or without the batch dim).

    Example:
        >>> torch.nn.functional.conv3d(torch.ones(1, 1, 4, 4, 4), torch.ones(2, 1, 3, 3, 3)).shape
        torch.Size([1, 2, 2, 2, 2])
    """
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Apply a 1-D transposed convolution (the gradient of conv1d with respect to its input).

    Args:
        input (Tensor): ``(N, C_in, L)`` or unbatched ``(C_in, L)``.
        weight (Tensor): ``(C_in, C_out / groups, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: None.
        stride (int or tuple): stride of the convolution this transposes. Default: 1.
        padding (int or tuple): ``dilation * (kW - 1) - padding`` zeros are implicitly added
            on both sides of the input. Default: 0.
        output_padding (int or tuple): extra size added on one side of the output. Default: 0.
        groups (int): number of independent channel groups. Default: 1.
        dilation (int or tuple): spacing between kernel taps. Default: 1.

    Returns:
        Tensor: ``(N, C_out, L_out)`` with
        ``L_out = (L - 1) * stride - 2 * padding + dilation * (kW - 1) + output_padding + 1``.

    Example:
        >>> torch.nn.functional.conv_transpose1d(torch.ones(1, 2, 4), torch.ones(2, 3, 3)).shape
        torch.Size([1, 3, 6])
    """
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Apply a 2-D transposed convolution (sometimes called a "deconvolution").

    Args:
        input (Tensor): ``(N, C_in, H, W)`` or unbatched ``(C_in, H, W)``.
        weight (Tensor): ``(C_in, C_out / groups, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: None.
        stride (int or tuple): stride of the convolution this transposes. Default: 1.
        padding (int or tuple): padding of the convolution this transposes. Default: 0.
        output_padding (int or tuple): extra size added on one side of the output (picks one
            of the input sizes a strided convolution maps to the same output size). Default: 0.
        groups (int): number of independent channel groups. Default: 1.
        dilation (int or tuple): spacing between kernel taps. Default: 1.

    Returns:
        Tensor: ``(N, C_out, H_out, W_out)`` (or without the batch dim).

    Example:
        >>> x = torch.ones(1, 4, 5, 5)
        >>> torch.nn.functional.conv_transpose2d(x, torch.ones(4, 2, 3, 3), stride=2).shape
        torch.Size([1, 2, 11, 11])
    """
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Apply a 3-D transposed convolution over ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.

    Args:
        input (Tensor): the input.
        weight (Tensor): ``(C_in, C_out / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``. Default: None.
        stride (int or tuple): stride of the convolution this transposes. Default: 1.
        padding (int or tuple): padding of the convolution this transposes. Default: 0.
        output_padding (int or tuple): extra size added on one side of the output. Default: 0.
        groups (int): number of independent channel groups. Default: 1.
        dilation (int or tuple): spacing between kernel taps. Default: 1.

    Returns:
        Tensor: ``(N, C_out, D_out, H_out, W_out)`` (or without the batch dim).

    Example:
        >>> x = torch.ones(1, 2, 2, 2, 2)
        >>> torch.nn.functional.conv_transpose3d(x, torch.ones(2, 1, 2, 2, 2)).shape
        torch.Size([1, 1, 3, 3, 3])
    """
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


# ---------------------------------------------------------------------------------------------
# unfold / fold


def _pair_arg(fn, name, value):
    v = int_tuple(fn, name, value, 2)
    if len(v) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
    return v


def _check_fold_params(kernel, dilation, padding, stride):
    checks = (("kernel size", "kernel", kernel, lambda v: v > 0, "greater than zero"),
              ("stride", "stride", stride, lambda v: v > 0, "greater than zero"),
              ("dilation", "dilation", dilation, lambda v: v > 0, "greater than zero"),
              ("padding", "pad", padding, lambda v: v >= 0, "non-negative"))
    for label, short, vals, ok, what in checks:
        if not all(ok(v) for v in vals):
            raise RuntimeError(f"{label} should be {what}, but got {short}_height: {vals[0]} "
                               f"{short}_width: {vals[1]}")


def _blocks(size, kernel, dilation, padding, stride):
    # C-style (truncating) division, so messages show the numbers torch shows
    return tuple(int((s + 2 * p - (d * (k - 1) + 1)) / st) + 1
                 for s, k, d, p, st in zip(size, kernel, dilation, padding, stride))


def _float_only(fn, input):
    if not input.dtype.is_floating_point and not input.dtype.is_complex:
        raise NotImplementedError(f'"{fn}_out_cpu" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding local blocks of a batched image tensor (im2col).

    Args:
        input (Tensor): ``(N, C, H, W)`` or unbatched ``(C, H, W)``.
        kernel_size (int or tuple): size of each block.
        dilation (int or tuple): spacing between the elements of a block. Default: 1.
        padding (int or tuple): zeros added on both sides of each spatial dim. Default: 0.
        stride (int or tuple): step between blocks. Default: 1.

    Returns:
        Tensor: ``(N, C * kH * kW, L)``, one column per block position.

    Example:
        >>> torch.nn.functional.unfold(torch.ones(1, 2, 4, 4), 2).shape
        torch.Size([1, 8, 9])
    """
    _need_tensor("unfold", "input", 1, input)
    kernel = _pair_arg("unfold", "kernel_size", kernel_size)
    dilation = _pair_arg("unfold", "dilation", dilation)
    padding = _pair_arg("unfold", "padding", padding)
    stride = _pair_arg("unfold", "stride", stride)
    if input.dim() == 2:  # torch checks the dims of the batched view it makes
        raise IndexError("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    _check_fold_params(kernel, dilation, padding, stride)
    if input.dim() not in (3, 4) or any(s == 0 for s in input.shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: "
                           f"{_size_list(input.shape)}")
    _float_only("im2col", input)
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    blocks = _blocks(x.shape[2:], kernel, dilation, padding, stride)
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size {tuple(x.shape[2:])}, "
                           f"kernel_size={kernel}, dilation={dilation}, padding={padding}, "
                           f"calculated shape of the array of sliding blocks as {blocks}, but "
                           f"its components must be at least one.")
    out = _fold_ops.im2col(x, kernel, stride, tuple((p, p) for p in padding), dilation)
    return out if batched else out.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum an array of sliding local blocks into a batched image tensor (col2im).

    The inverse arrangement of :func:`unfold`: overlapping block values add up.

    Args:
        input (Tensor): ``(N, C * kH * kW, L)`` or unbatched ``(C * kH * kW, L)``.
        output_size (int or tuple): spatial size ``(H, W)`` of the result.
        kernel_size (int or tuple): size of each block.
        dilation (int or tuple): spacing between the elements of a block. Default: 1.
        padding (int or tuple): implicit zeros on both sides (cropped away). Default: 0.
        stride (int or tuple): step between blocks. Default: 1.

    Returns:
        Tensor: ``(N, C, H, W)`` (or without the batch dim).

    Example:
        >>> torch.nn.functional.fold(torch.ones(1, 8, 9), (4, 4), 2).shape
        torch.Size([1, 2, 4, 4])
    """
    _need_tensor("fold", "input", 1, input)
    size = _pair_arg("fold", "output_size", output_size)
    kernel = _pair_arg("fold", "kernel_size", kernel_size)
    dilation = _pair_arg("fold", "dilation", dilation)
    padding = _pair_arg("fold", "padding", padding)
    stride = _pair_arg("fold", "stride", stride)
    _check_fold_params(kernel, dilation, padding, stride)
    if input.dim() not in (2, 3) or any(s == 0 for s in input.shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{_size_list(input.shape)}")
    _float_only("col2im", input)
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    kk = kernel[0] * kernel[1]
    if x.shape[1] % kk:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={x.shape[1]} and "
                           f"kernel_size={kernel}.")
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if x.shape[2] != blocks[0] * blocks[1] or any(b < 1 for b in blocks):
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, stride={stride}, expected "
                           f"size of input's dimension 2 to match the calculated number of "
                           f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, "
                           f"but got input.size(2)={x.shape[2]}.")
    out = _fold_ops.col2im(x, size, kernel, stride, tuple((p, p) for p in padding), dilation)
    return out if batched else out.squeeze(0)
