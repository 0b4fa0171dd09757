"""nn modules: activation (torch's file of the same name; forward passes call nn.functional).

Each module holds its hyperparameters (and PReLU its slopes) and forwards to one function of
``numtorch.nn.functional``; ``extra_repr`` prints what torch prints. The rectifiers (ReLU and
relatives) live in ``_rectifier.py`` and the softmax modules in ``_softmax.py``; both are
re-exported here under torch's path.
"""

from .. import functional as F
from ._rectifier import (  # noqa: F401 (re-exported under torch's path)
    PReLU, RReLU, ReLU, ReLU6, Hardtanh, LeakyReLU, Threshold, _inplace_suffix, _InplaceOnly,
)
from ._softmax import LogSoftmax, Softmax, Softmax2d, Softmin  # noqa: F401
from .module import Module

__all__ = [
    "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh",
    "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink",
    "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign", "Tanhshrink",
    "Softmin", "Softmax", "Softmax2d", "LogSoftmax",
]


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


from ._attention import MultiheadAttention  # noqa: E402 (torch's path for it)

__all__.append("MultiheadAttention")
