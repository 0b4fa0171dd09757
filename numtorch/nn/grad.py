"""``torch.nn.grad``: the gradients of a convolution with respect to its input and weight.

Each function differentiates the convolution itself (numtorch's conv backward), with the
other operand given, so the result is exactly what ``backward`` would produce; it is
differentiable in turn when its tensor arguments require grad.
"""

from .. import autograd
from .._creation import zeros
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _grad_wrt(shape, like, conv, grad_output, place):
    """d<conv(...)>/d<operand of ``shape``> for cotangent ``grad_output``; ``place`` puts the
    zero operand into the convolution's arguments."""
    differentiable = is_grad_enabled() and (like.requires_grad or grad_output.requires_grad)
    with enable_grad():
        probe = zeros(tuple(shape), dtype=like.dtype, device=like.device, requires_grad=True)
        out = conv(*place(probe))
        (g,) = autograd.grad(out, probe, grad_output, create_graph=differentiable)
    return g


def _input_fn(n, conv):
    def fn(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        return _grad_wrt(input_size, weight,
                         lambda x, w: conv(x, w, None, stride, padding, dilation, groups),
                         grad_output, lambda probe: (probe, weight))

    fn.__name__ = fn.__qualname__ = f"conv{n}d_input"
    fn.__doc__ = (f"The gradient of :func:`numtorch.nn.functional.conv{n}d` with respect to "
                  f"an input of shape ``input_size``, given ``weight`` and the output "
                  f"gradient ``grad_output`` (and the convolution's stride, padding, "
                  f"dilation and groups).")
    return fn


def _weight_fn(n, conv):
    def fn(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        return _grad_wrt(weight_size, input,
                         lambda x, w: conv(x, w, None, stride, padding, dilation, groups),
                         grad_output, lambda probe: (input, probe))

    fn.__name__ = fn.__qualname__ = f"conv{n}d_weight"
    fn.__doc__ = (f"The gradient of :func:`numtorch.nn.functional.conv{n}d` with respect to "
                  f"a weight of shape ``weight_size``, given ``input`` and the output "
                  f"gradient ``grad_output`` (and the convolution's stride, padding, "
                  f"dilation and groups).")
    return fn


conv1d_input, conv1d_weight = _input_fn(1, F.conv1d), _weight_fn(1, F.conv1d)
conv2d_input, conv2d_weight = _input_fn(2, F.conv2d), _weight_fn(2, F.conv2d)
conv3d_input, conv3d_weight = _input_fn(3, F.conv3d), _weight_fn(3, F.conv3d)
