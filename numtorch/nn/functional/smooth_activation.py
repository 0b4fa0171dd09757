"""nn.functional: the exponential-linear units (ELU, SELU, CELU) and the smooth activations
(sigmoid, tanh, logsigmoid, softplus, SiLU, Mish, GELU, tanhshrink, softsign, GLU).

As in ``activation.py`` (the piecewise-linear family, whose argument checks these share): each
function checks its input once and calls one fused primitive of ``numtorch.ops`` or composes
existing ops.
"""

from ... import _dtype
from ..._tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled
from ...autograd.graph import rename_node
from ...autograd.inplace import apply_inplace
from ...ops import _smooth_activation as _smooth
from ...ops import _util
from ...ops import activation as _act
from .activation import (_float_arg, _maybe_inplace, _not_implemented, _qdispatch, _quantized,
                         _tensor_arg)

__all__ = ["elu", "elu_", "selu", "selu_", "celu", "celu_", "sigmoid", "tanh", "logsigmoid",
           "softplus", "silu", "mish", "gelu", "tanhshrink", "softsign", "glu"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def elu(input, alpha=1.0, inplace=False):
    """Apply the exponential linear unit ``x if x > 0 else alpha * (exp(x) - 1)``.

    Args:
        input (Tensor): a floating tensor.
        alpha (float): the saturation value for large negative inputs. Default: 1.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.elu(torch.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])

    Note:
        torch refuses the backward pass of the in-place form with a negative ``alpha``; here
        it works (the gradient is computed from the saved input).
    """
    _float_arg("elu", input, "elu_cpu")
    return _maybe_inplace(input, inplace, _act.elu, float(alpha))


def elu_(input, alpha=1.0):
    """In-place :func:`elu`; returns ``input``."""
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    """Apply the self-normalising ELU ``scale * elu(x, alpha)`` with the SNN constants.

    Args:
        input (Tensor): a floating tensor.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.selu(torch.tensor([-1.0, 1.0]))
        tensor([-1.1113,  1.0507])
    """
    _float_arg("selu", input, "elu_cpu")
    return _maybe_inplace(input, inplace, _act.elu, _SELU_ALPHA, _SELU_SCALE)


def selu_(input):
    """In-place :func:`selu`; returns ``input``."""
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    """Apply the continuously differentiable ELU ``max(0, x) + min(0, alpha*(exp(x/alpha)-1))``.

    Args:
        input (Tensor): a floating tensor.
        alpha (float): the saturation value, not 0. Default: 1.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.celu(torch.tensor([-1.0, 1.0]), 2.0)
        tensor([-0.7869,  1.0000])
    """
    _float_arg("celu", input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _maybe_inplace(input, inplace, _act.celu, float(alpha))


def celu_(input, alpha=1.0):
    """In-place :func:`celu`; returns ``input``."""
    return celu(input, alpha, inplace=True)


def sigmoid(input):
    """Apply the logistic function ``1 / (1 + exp(-x))`` (integer inputs give floats).

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: values in ``[0, 1]``.

    Example:
        >>> torch.nn.functional.sigmoid(torch.tensor([0.0]))
        tensor([0.5000])
    """
    return _smooth.sigmoid(input)


def tanh(input):
    """Apply the hyperbolic tangent elementwise (see :func:`numtorch.tanh`).

    Example:
        >>> torch.nn.functional.tanh(torch.tensor([0.0]))
        tensor([0.])
    """
    return input.tanh()


def logsigmoid(input):
    """Apply ``log(sigmoid(x))``, exact for large ``|x|`` (no overflow, no -inf for x << 0).

    Args:
        input (Tensor): a floating tensor.

    Returns:
        Tensor: values in ``(-inf, 0]``.

    Example:
        >>> torch.nn.functional.logsigmoid(torch.tensor([-100.0, 0.0]))
        tensor([-100.0000,   -0.6931])
    """
    _float_arg("logsigmoid", input, "log_sigmoid_cpu")
    return _smooth.logsigmoid(input)


def softplus(input, beta=1.0, threshold=20.0):
    """Apply ``log(1 + exp(beta * x)) / beta``, or ``x`` itself where ``beta * x > threshold``.

    Args:
        input (Tensor): a floating tensor.
        beta (float): the sharpness. Default: 1.
        threshold (float): past ``beta * x > threshold`` the function is linear. Default: 20.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.softplus(torch.tensor([0.0, 100.0]))
        tensor([  0.6931, 100.0000])
    """
    _float_arg("softplus", input, "softplus_cpu")
    return _smooth.softplus(input, float(beta), float(threshold))


def silu(input, inplace=False):
    """Apply the sigmoid-weighted linear unit (swish) ``x * sigmoid(x)``.

    Args:
        input (Tensor): a floating tensor (complex tensors work without autograd, as in
            torch).
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.silu(torch.tensor([0.0, 1.0]))
        tensor([0.0000, 0.7311])
    """
    if input.__class__ is not Tensor or input.dtype._category != _dtype._FLOAT:
        if not isinstance(input, Tensor):
            _tensor_arg("silu", input)
        if input.dtype._category < _dtype._FLOAT:
            raise _not_implemented("silu_cpu", input.dtype)
        if input.dtype.is_complex and input.requires_grad and is_grad_enabled():
            raise RuntimeError("silu does not support automatic differentiation for outputs "
                               "with complex dtype.")
    if inplace:
        return apply_inplace(input, _smooth.silu)
    return _smooth.silu(input)


def mish(input, inplace=False):
    """Apply ``x * tanh(softplus(x))``.

    Args:
        input (Tensor): a floating tensor.
        inplace (bool): write the result into ``input``. Default: False.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.mish(torch.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8651])
    """
    _float_arg("mish", input, "mish_cpu")
    return _maybe_inplace(input, inplace, _smooth.mish)


def gelu(input, approximate="none"):
    """Apply the Gaussian error linear unit ``x * Phi(x)`` (Phi: the standard normal CDF).

    Args:
        input (Tensor): a floating tensor.
        approximate (str): ``'none'`` for the exact function or ``'tanh'`` for
            ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``. Default: ``'none'``.

    Returns:
        Tensor: the result.

    Example:
        >>> torch.nn.functional.gelu(torch.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8413])

    Note:
        For float16/float32 inputs, Phi comes from a rational approximation of ``erfc`` with
        a relative error below 1e-6 (SciPy's ``erf`` would cost 30 times the activation);
        float64 uses the exact ``erf``.
    """
    if approximate != "none" and approximate != "tanh":
        raise RuntimeError("approximate argument must be either none or tanh.")
    if input.__class__ is not Tensor or input.dtype._category != _dtype._FLOAT:
        if _quantized(input):
            return _qdispatch("gelu", input, approximate)
        _float_arg("gelu", input, "GeluKernelImpl")
    return _smooth.gelu(input, approximate)


def tanhshrink(input):
    """Apply ``x - tanh(x)``.

    Example:
        >>> torch.nn.functional.tanhshrink(torch.tensor([0.0]))
        tensor([0.])
    """
    return input - input.tanh()


def softsign(input):
    """Apply ``x / (1 + |x|)``.

    Example:
        >>> torch.nn.functional.softsign(torch.tensor([1.0, -3.0]))
        tensor([ 0.5000, -0.7500])
    """
    return input / (input.abs() + 1)


def glu(input, dim=-1):
    """Gated linear unit: split ``input`` in halves ``a, b`` along ``dim``; return
    ``a * sigmoid(b)``.

    Args:
        input (Tensor): a floating tensor whose size along ``dim`` is even.
        dim (int): the dimension to split. Default: -1.

    Returns:
        Tensor: the gated half, with ``dim`` halved.

    Example:
        >>> torch.nn.functional.glu(torch.tensor([2.0, 0.0]))
        tensor([1.])
    """
    if not isinstance(input, Tensor):
        _tensor_arg("glu", input)
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _util.canonical_dim(dim, input.dim())
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    if input.dtype._category != _dtype._FLOAT:
        raise _not_implemented("glu_cpu", input.dtype)
    half = n // 2
    return rename_node(input.narrow(d, 0, half) * _smooth.sigmoid(
        input.narrow(d, half, half)), "GluBackward0")
