"""nn.functional: the piecewise-linear activations (ReLU family, hardtanh, thresholds,
shrinkage, hard sigmoid/swish), PReLU and RReLU, and the argument checks every activation
shares. The exponential-linear and smooth activations are in ``smooth_activation.py``, the
softmax family in ``_softmax.py``.

Each function checks its input once (torch's exception types and wording) and then calls one
fused primitive from ``numtorch.ops.activation`` or composes existing ops. ``inplace=True``
computes the result out of place and writes it back through ``autograd.inplace``, which keeps
the graph right and raises torch's errors for leaves that require grad.
"""

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...autograd.graph import rename_node
from ...autograd.inplace import apply_inplace
from ...ops import activation as _act
from ...ops import elementwise as _ew

__all__ = [
    "threshold", "threshold_", "relu", "relu_", "relu6", "hardtanh", "hardtanh_", "leaky_relu",
    "leaky_relu_", "prelu", "rrelu", "rrelu_", "hardshrink", "softshrink", "hardsigmoid",
    "hardswish",
]



# ---------------------------------------------------------------------------------------------
# argument checks (cheap; messages are built only when a check fails)


def _tensor_arg(fn, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _not_implemented(kernel, dt):
    return NotImplementedError(f'"{kernel}" not implemented for '
                               f"'{_dtype._TYPE_DISPLAY[dt.name]}'")


def _quantized(input):
    return isinstance(input, Tensor) and input._array.__class__ is not np.ndarray and \
        input.is_quantized


def _qdispatch(name, input, *args):
    """torch's quantized kernel for ``name`` (see numtorch/_quantized_ops_float.py)."""
    from ..._quantized_ops_float import quantized_dispatch

    return quantized_dispatch(name, input, *args)


def _float_arg(fn, input, kernel):
    """``input`` must be a floating tensor (torch has these kernels for floats only)."""
    if not isinstance(input, Tensor):
        _tensor_arg(fn, input)
    dt = input.dtype
    if dt._category != _dtype._FLOAT:
        if dt._category == _dtype._QUANT:  # torch's QuantizedCPU message
            from ..._quantized_ops_float import missing_kernel

            raise missing_kernel(fn, kernel, dt)
        raise _not_implemented(kernel, dt)


def _clamp_arg(fn, input, bool_message):
    """relu and hardtanh accept integers but reject bool and complex tensors, as torch."""
    if not isinstance(input, Tensor):
        _tensor_arg(fn, input)
    cat = input.dtype._category
    if cat == _dtype._BOOL:
        raise RuntimeError(bool_message)
    if cat == _dtype._COMPLEX:
        raise NotImplementedError("clamp is not supported for complex types")


def _maybe_inplace(input, inplace, fn, *args):
    if inplace:
        return apply_inplace(input, fn, *args)
    return fn(input, *args)


# ---------------------------------------------------------------------------------------------
# piecewise-linear activations


def threshold(input, threshold, value, inplace=False):
    """Replace every element not greater than ``threshold`` by ``value``.

    .. math:: y = x \\text{ if } x > \\text{threshold else value}

    Args:
        input (Tensor): the input (floating or integer).
        threshold (float): the cut-off.
        value (float): what replaces the elements at or below the cut-off.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the thresholded tensor (``input`` itself when ``inplace``).

    Example:
        >>> torch.nn.functional.threshold(torch.tensor([-1.0, 0.5, 2.0]), 0.5, -9.0)
        tensor([-9., -9.,  2.])
    """
    return _threshold(input, threshold, value, inplace)


def threshold_(input, threshold, value):
    """In-place :func:`threshold`; returns ``input``."""
    return _threshold(input, threshold, value, True)


def _threshold(input, cut, value, inplace):
    if not isinstance(input, Tensor):
        _tensor_arg("threshold", input)
    if input.dtype._category in (_dtype._BOOL, _dtype._COMPLEX):
        raise _not_implemented("threshold_cpu", input.dtype)
    if _quantized(input):
        return _qdispatch("threshold", input, cut, value, inplace)
    return _maybe_inplace(input, inplace, _act.threshold, cut, value)


def relu(input, inplace=False):
    """Apply the rectified linear unit ``max(0, x)`` elementwise.

    The gradient at ``x == 0`` is 0, as in torch.

    Args:
        input (Tensor): the input (floating or integer).
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result (``input`` itself when ``inplace``).

    Example:
        >>> torch.nn.functional.relu(torch.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
    """
    if input.__class__ is not Tensor or not _dtype._INT <= input.dtype._category <= _dtype._FLOAT:
        _clamp_arg("relu", input, "Boolean inputs not supported for relu")
    if inplace:
        return apply_inplace(input, _act.relu)
    return _act.relu(input)


def relu_(input):
    """In-place :func:`relu`; returns ``input``."""
    return relu(input, inplace=True)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp every element to ``[min_val, max_val]``.

    Unlike :func:`numtorch.clamp`, the gradient is 0 at the bounds themselves (torch's choice).

    Args:
        input (Tensor): the input (floating or integer).
        min_val (float): the lower bound. Default: -1.
        max_val (float): the upper bound. Default: 1.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the clamped tensor.

    Example:
        >>> torch.nn.functional.hardtanh(torch.tensor([-3.0, 0.5, 3.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    _clamp_arg("hardtanh", input, "Bool inputs not supported for hardtanh")
    return _maybe_inplace(input, inplace, _act.hardtanh, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`; returns ``input``."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """Apply ``min(max(0, x), 6)`` elementwise (:func:`hardtanh` on ``[0, 6]``).

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.relu6(torch.tensor([-1.0, 3.0, 9.0]))
        tensor([0., 3., 6.])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """Apply ``x if x > 0 else negative_slope * x`` elementwise (slope used at 0).

    Args:
        input (Tensor): a floating tensor.
        negative_slope (float): the slope for non-positive inputs. Default: 0.01.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.leaky_relu(torch.tensor([-2.0, 3.0]), 0.5)
        tensor([-1.,  3.])
    """
    if _quantized(input):
        return _qdispatch("leaky_relu", input, negative_slope, inplace)
    _float_arg("leaky_relu", input, "leaky_relu_cpu")
    return _maybe_inplace(input, inplace, _act.leaky_relu, float(negative_slope))


def leaky_relu_(input, negative_slope=0.01):
    """In-place :func:`leaky_relu`; returns ``input``."""
    return leaky_relu(input, negative_slope, inplace=True)


def hardshrink(input, lambd=0.5):
    """Zero the elements with ``-lambd <= x <= lambd``; keep the others.

    Args:
        input (Tensor): a floating tensor.
        lambd (float): the half-width of the zeroed band. Default: 0.5.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.hardshrink(torch.tensor([-1.0, 0.2, 0.9]))
        tensor([-1.0000,  0.0000,  0.9000])
    """
    _float_arg("hardshrink", input, "hardshrink_cpu")
    return _act.hardshrink(input, float(lambd))


def softshrink(input, lambd=0.5):
    """Move every element toward 0 by ``lambd``; elements within ``lambd`` of 0 become 0.

    Args:
        input (Tensor): a floating tensor.
        lambd (float): the shrinkage, at least 0. Default: 0.5.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.softshrink(torch.tensor([-1.0, 0.2, 0.9]))
        tensor([-0.5000,  0.0000,  0.4000])
    """
    _float_arg("softshrink", input, "softshrink_check")
    if not lambd >= 0:
        dt = input.dtype
        big = float(np.finfo(dt.np).max)
        raise RuntimeError(f"lambda must be in range [0, {big:g}] for input dtype "
                           f"{_dtype._TYPE_DISPLAY[dt.name]}, but found {float(lambd):g}")
    return _act.softshrink(input, float(lambd))


def hardsigmoid(input, inplace=False):
    """Apply the piecewise-linear sigmoid ``clamp(x + 3, 0, 6) / 6``.

    Args:
        input (Tensor): a floating tensor.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.hardsigmoid(torch.tensor([-4.0, 0.0, 1.5]))
        tensor([0.0000, 0.5000, 0.7500])

    Note:
        As in torch, the second derivative is not implemented (double backward raises).
    """
    if _quantized(input):
        return _qdispatch("hardsigmoid", input, inplace)
    _float_arg("hardsigmoid", input, "hardsigmoid_cpu")
    return _maybe_inplace(input, inplace, _act.hardsigmoid)


def hardswish(input, inplace=False):
    """Apply ``x * clamp(x + 3, 0, 6) / 6`` (MobileNetV3's hard swish).

    Args:
        input (Tensor): a floating tensor.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.hardswish(torch.tensor([-4.0, 1.5, 4.0]))
        tensor([-0.0000, 1.1250, 4.0000])
    """
    _float_arg("hardswish", input, "hardswish_cpu")
    return _maybe_inplace(input, inplace, _act.hardswish)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: a random slope per element in training, a fixed one in eval.

    In training each non-positive element is multiplied by a slope drawn uniformly from
    ``[lower, upper]`` (numtorch's default generator); in eval the slope is
    ``(lower + upper) / 2``. The gradient is the slope that was used.

    Args:
        input (Tensor): a floating tensor.
        lower (float): the smallest slope. Default: 1/8.
        upper (float): the largest slope. Default: 1/3.
        training (bool): draw random slopes. Default: False.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.rrelu(torch.tensor([-2.0, 3.0]), 0.25, 0.75)
        tensor([-1.,  3.])
    """
    if not isinstance(input, Tensor):
        _tensor_arg("rrelu", input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        _float_arg("rrelu", input, "leaky_relu_cpu")
        out = _maybe_inplace(input, inplace, _act.leaky_relu, (lower + upper) / 2.0)
        return rename_node(out if inplace else _row_major(out), _RRELU_NODE[inplace])
    _float_arg("rrelu", input, "rrelu_with_noise_out_cpu")
    if input.dtype is _dtype.float16:
        raise NotImplementedError('"rrelu_with_noise_out_cpu" not implemented for \'Half\'')
    with no_grad():
        # torch's draws: one float64 uniform per non-positive element, in order, scaled to
        # bounds rounded to the computation type (float32 below float64), then rounded again
        negative = input.detach() <= 0
        u = input.detach().new_empty(int(negative.sum()), dtype=_dtype.float64).uniform_()
        opmath = _dtype.float64 if input.dtype is _dtype.float64 else _dtype.float32
        lo, hi = (float(b) for b in input.detach().new_tensor([lower, upper],
                                                              dtype=opmath).tolist())
        noise = input.detach().new_ones(input.shape)
        noise[negative] = (u * (hi - lo) + lo).to(input.dtype)
    out = _maybe_inplace(input, inplace, _ew.mul, noise)
    return rename_node(out if inplace else _row_major(out), _RRELU_NODE[inplace])


def _row_major(out):
    """``out`` row-major: torch's rrelu writes a fresh result row-major whatever the input's
    layout (permuted, channels-last)."""
    return out if out._array.flags.c_contiguous else out.contiguous()


# torch's nodes for rrelu in both modes (its Backward1 is the in-place form)
_RRELU_NODE = {False: "RreluWithNoiseBackward0", True: "RreluWithNoiseBackward1"}


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place :func:`rrelu`; returns ``input``."""
    return rrelu(input, lower, upper, training, inplace=True)


def prelu(input, weight):
    """Leaky ReLU with learnable slopes: ``x if x > 0 else weight * x`` (slope used at 0).

    ``weight`` holds one slope, or one per channel (dimension 1 of ``input``; a 1-d input has
    a single channel).

    Args:
        input (Tensor): the input (at least 1-d unless ``weight`` holds one slope).
        weight (Tensor): a 0-d or 1-d tensor of slopes, of ``input``'s dtype.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.prelu(torch.tensor([[-2.0, 1.0]]), torch.tensor([0.25]))
        tensor([[-0.5000,  1.0000]])
    """
    if not isinstance(input, Tensor):
        _tensor_arg("prelu", input)
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{_dtype._TYPE_DISPLAY[input.dtype.name]} and "
                           f"{_dtype._TYPE_DISPLAY[weight.dtype.name]}")
    n = weight.numel()
    if input.dim() == 0 and n != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if n != 1:
        channels = input.shape[1] if input.dim() >= 2 else 1
        if n != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {n} and channel size = {channels}.")
        w = weight.reshape((n,) + (1,) * (input.dim() - 2))
    else:
        w = weight.reshape(())
    return rename_node(_act.select(input > 0, input, w * input), "PreluKernelBackward0")


# ---------------------------------------------------------------------------------------------
# exponential-linear units


# ---------------------------------------------------------------------------------------------
# smooth activations
