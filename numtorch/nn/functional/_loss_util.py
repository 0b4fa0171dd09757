"""Shared pieces of the losses: reduction strings, the 0.x ``size_average``/``reduce`` shim,
torch's size-mismatch warning and argument checks."""

import warnings

from ... import _dtype
from ..._tensor import Tensor
from ...autograd.grad_mode import _state

_VALID = ("none", "mean", "sum")


def legacy_get_string(size_average, reduce, emit_warning=True, stacklevel=2):
    """Map the deprecated ``size_average``/``reduce`` pair to a reduction string.

    An unset argument counts as True; ``reduce=False`` wins (no reduction), otherwise
    ``size_average`` chooses between 'mean' and 'sum'. Warns as torch does: at the line of
    the library function that asked (a loss module's constructor, a functional loss), so a
    program sees it once per loss function, however many times or places it is called.
    """
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use "
                      f"reduction='{ret}' instead.", UserWarning, stacklevel=stacklevel)
    return ret


def check_reduction(reduction, stacklevel=3):
    """Validate ``reduction``; torch's ValueError for an unknown string.

    The 0.4 spelling 'elementwise_mean' still works as 'mean', with torch's warning.
    """
    if reduction in _VALID:
        return reduction
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", UserWarning, stacklevel=stacklevel)
        return "mean"
    raise ValueError(f"{reduction} is not a valid value for reduction")


def get_reduction(size_average, reduce, reduction, validate=True, stacklevel=4):
    """The effective reduction: the legacy pair when either is given, else ``reduction``
    (checked unless ``validate`` is False)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce, stacklevel=3)
    return check_reduction(reduction, stacklevel=stacklevel) if validate else reduction


def reduce_loss(loss, reduction):
    """Apply a (checked) reduction to an elementwise loss."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def warn_target_size(input, target, stacklevel=3):
    """torch's warning when a regression target broadcasts against the input."""
    if target.size() != input.size():  # (a non-tensor target fails on .size(), as in torch)
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due to "
                      f"broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=stacklevel)


def check_tensor(fn, name, value, pos):
    """torch's TypeError for a non-Tensor argument."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


def check_not_requires_grad(fn, name, value):
    """Weights of the fused kernels are constants: torch refuses ones that require grad."""
    if value is not None and _state.enabled and value.requires_grad:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument "
                           f"'{name}'. This input cannot have requires_grad True.")


def check_same_dtype(expected, got):
    """torch's message when a weight's dtype differs from the input's."""
    if got.dtype is not expected.dtype:
        raise RuntimeError(f"expected scalar type {type_name(expected)} but found "
                           f"{type_name(got)}")


def type_name(t):
    """torch's short scalar type name in messages: Float, Double, Long, ..."""
    return _dtype._TYPE_DISPLAY[t.dtype.name]


def is_float(t):
    """Whether tensor ``t`` has a floating point (or complex) dtype."""
    return t.dtype._category >= _dtype._FLOAT


def broadcast_shape(*shapes):
    """The broadcast of ``shapes``, or None when they clash."""
    ndim = max(len(s) for s in shapes)
    out = [1] * ndim
    for s in shapes:
        s = (1,) * (ndim - len(s)) + tuple(s)
        for i, d in enumerate(s):
            if d != 1:
                if out[i] != 1 and out[i] != d:
                    return None
                out[i] = d
    return tuple(out)
