"""nn modules: activation (torch's file of the same name; forward passes call nn.functional).

Each module holds its hyperparameters (and PReLU its slopes) and forwards to one function of
``numtorch.nn.functional``; ``extra_repr`` prints what torch prints. The softmax modules live
in ``_softmax.py`` and are re-exported here under torch's path.
"""

import warnings

from .. import functional as F
from .. import init
from ..parameter import Parameter
from ... import _creation
from ._softmax import LogSoftmax, Softmax, Softmax2d, Softmin
from .module import Module

__all__ = [
    "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh",
    "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink",
    "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign", "Tanhshrink",
    "Softmin", "Softmax", "Softmax2d", "LogSoftmax",
]


def _inplace_suffix(inplace):
    return ", inplace=True" if inplace else ""


class _InplaceOnly(Module):
    """Base of the activations whose only argument is ``inplace``."""

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Threshold(Module):
    """Replace the elements at or below ``threshold`` by ``value`` (see
    :func:`numtorch.nn.functional.threshold`).

    Args:
        threshold (float): the cut-off.
        value (float): the replacement.
        inplace (bool): operate in place. Default: False.

    Shape:
        - Input: any shape. Output: the same shape.

    Example:
        >>> torch.nn.Threshold(0.1, 20.0)(torch.tensor([0.0, 1.0]))
        tensor([20.,  1.])
    """

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class ReLU(_InplaceOnly):
    """Apply ``max(0, x)`` elementwise (see :func:`numtorch.nn.functional.relu`).

    Args:
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.ReLU()(torch.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class RReLU(Module):
    """Randomized leaky ReLU: random slopes in ``[lower, upper]`` while training, their mean in
    eval (see :func:`numtorch.nn.functional.rrelu`).

    Args:
        lower (float): the smallest slope. Default: 1/8.
        upper (float): the largest slope. Default: 1/3.
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.RReLU(0.25, 0.75).eval()(torch.tensor([-2.0]))
        tensor([-1.])
    """

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"


class Hardtanh(Module):
    """Clamp to ``[min_val, max_val]`` (see :func:`numtorch.nn.functional.hardtanh`).

    Args:
        min_val (float): the lower bound. Default: -1.
        max_val (float): the upper bound, greater than ``min_val``. Default: 1.
        inplace (bool): operate in place. Default: False.
        min_value, max_value: deprecated spellings of ``min_val`` and ``max_val``.

    Example:
        >>> torch.nn.Hardtanh(-2.0, 2.0)(torch.tensor([-3.0, 1.0]))
        tensor([-2.,  1.])
    """

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if not self.max_val > self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val "
                                 f"({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return (f"min_val={self.min_val}, max_val={self.max_val}"
                f"{_inplace_suffix(self.inplace)}")


class ReLU6(Hardtanh):
    """Apply ``min(max(0, x), 6)`` (see :func:`numtorch.nn.functional.relu6`).

    Args:
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.ReLU6()(torch.tensor([-1.0, 8.0]))
        tensor([0., 6.])
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """Apply the logistic function ``1 / (1 + exp(-x))``.

    Example:
        >>> torch.nn.Sigmoid()(torch.tensor([0.0]))
        tensor([0.5000])
    """

    def forward(self, input):
        return F.sigmoid(input)


class Hardsigmoid(Module):
    """Apply ``clamp(x + 3, 0, 6) / 6`` (see :func:`numtorch.nn.functional.hardsigmoid`).

    Args:
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.Hardsigmoid()(torch.tensor([0.0]))
        tensor([0.5000])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    """Apply the hyperbolic tangent.

    Example:
        >>> torch.nn.Tanh()(torch.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input):
        return F.tanh(input)


class SiLU(_InplaceOnly):
    """Apply ``x * sigmoid(x)`` (see :func:`numtorch.nn.functional.silu`).

    Args:
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.SiLU()(torch.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_InplaceOnly):
    """Apply ``x * tanh(softplus(x))`` (see :func:`numtorch.nn.functional.mish`).

    Args:
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.Mish()(torch.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardswish(Module):
    """Apply ``x * clamp(x + 3, 0, 6) / 6`` (see :func:`numtorch.nn.functional.hardswish`).

    Args:
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.Hardswish()(torch.tensor([4.0]))
        tensor([4.])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class ELU(Module):
    """Apply ``x if x > 0 else alpha * (exp(x) - 1)`` (see :func:`numtorch.nn.functional.elu`).

    Args:
        alpha (float): the negative saturation value. Default: 1.
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.ELU()(torch.tensor([1.0]))
        tensor([1.])
    """

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class CELU(ELU):
    """Apply ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (see
    :func:`numtorch.nn.functional.celu`).

    Args:
        alpha (float): the negative saturation value. Default: 1.
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.CELU()(torch.tensor([1.0]))
        tensor([1.])
    """

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(_InplaceOnly):
    """Apply the self-normalising ELU (see :func:`numtorch.nn.functional.selu`).

    Args:
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.SELU()(torch.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input):
        return F.selu(input, self.inplace)


class GLU(Module):
    """Gated linear unit ``a * sigmoid(b)`` of the two halves of ``dim`` (see
    :func:`numtorch.nn.functional.glu`).

    Args:
        dim (int): the dimension to split. Default: -1.

    Shape:
        - Input: ``(*, 2N, *)``. Output: ``(*, N, *)``.

    Example:
        >>> torch.nn.GLU()(torch.zeros(3, 4)).shape
        torch.Size([3, 2])
    """

    __constants__ = ["dim"]

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """Apply ``x * Phi(x)`` (see :func:`numtorch.nn.functional.gelu`).

    Args:
        approximate (str): ``'none'`` or ``'tanh'``. Default: ``'none'``.

    Example:
        >>> torch.nn.GELU()(torch.tensor([0.0]))
        tensor([0.])
    """

    __constants__ = ["approximate"]

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """Zero the elements within ``lambd`` of 0 (see :func:`numtorch.nn.functional.hardshrink`).

    Args:
        lambd (float): the half-width of the zeroed band. Default: 0.5.

    Example:
        >>> torch.nn.Hardshrink()(torch.tensor([0.2, 2.0]))
        tensor([0., 2.])
    """

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class LeakyReLU(Module):
    """Apply ``x if x > 0 else negative_slope * x`` (see
    :func:`numtorch.nn.functional.leaky_relu`).

    Args:
        negative_slope (float): the slope for non-positive inputs. Default: 0.01.
        inplace (bool): operate in place. Default: False.

    Example:
        >>> torch.nn.LeakyReLU(0.5)(torch.tensor([-2.0]))
        tensor([-1.])
    """

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self.inplace)}"


class LogSigmoid(Module):
    """Apply ``log(sigmoid(x))`` (see :func:`numtorch.nn.functional.logsigmoid`).

    Example:
        >>> torch.nn.LogSigmoid()(torch.tensor([0.0]))
        tensor([-0.6931])
    """

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """Apply ``log(1 + exp(beta x)) / beta`` (see :func:`numtorch.nn.functional.softplus`).

    Args:
        beta (float): the sharpness. Default: 1.
        threshold (float): linear past ``beta * x > threshold``. Default: 20.

    Example:
        >>> torch.nn.Softplus()(torch.tensor([0.0]))
        tensor([0.6931])
    """

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(Module):
    """Shrink toward 0 by ``lambd`` (see :func:`numtorch.nn.functional.softshrink`).

    Args:
        lambd (float): the shrinkage, at least 0. Default: 0.5.

    Example:
        >>> torch.nn.Softshrink()(torch.tensor([2.0]))
        tensor([1.5000])
    """

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class PReLU(Module):
    """Leaky ReLU with learnable slopes (see :func:`numtorch.nn.functional.prelu`).

    Args:
        num_parameters (int): 1 (one shared slope) or the number of input channels
            (dimension 1 of the input). Default: 1.
        init (float): the initial slope. Default: 0.25.
        device, dtype: where and in which dtype to create ``weight``.

    Attributes:
        weight (Parameter): the slopes, of shape ``(num_parameters,)``.

    Example:
        >>> m = torch.nn.PReLU(3)
        >>> m(-torch.ones(2, 3)).tolist()
        [[-0.25, -0.25, -0.25], [-0.25, -0.25, -0.25]]
    """

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Fill every slope with ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """Apply ``x / (1 + |x|)``.

    Example:
        >>> torch.nn.Softsign()(torch.tensor([1.0]))
        tensor([0.5000])
    """

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """Apply ``x - tanh(x)``.

    Example:
        >>> torch.nn.Tanhshrink()(torch.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input):
        return F.tanhshrink(input)
