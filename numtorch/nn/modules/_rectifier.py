"""nn modules: the rectifier family (Threshold, ReLU, RReLU, Hardtanh, ReLU6, LeakyReLU,
PReLU).

They belong to torch's ``nn.modules.activation`` and are re-exported there; ``__module__``
names that file, so reprs, pickles and saved models use torch's path.
"""

import warnings

from .. import functional as F
from .. import init
from ..parameter import Parameter
from ... import _creation
from .module import Module

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "LeakyReLU", "PReLU"]


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


for _cls in (Threshold, ReLU, RReLU, Hardtanh, ReLU6, LeakyReLU, PReLU):
    _cls.__module__ = "numtorch.nn.modules.activation"
