"""Affine layers: Identity, Linear, Bilinear and LazyLinear (torch's default initialisation)."""

import math

from ... import _creation
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear"]


class Identity(Module):
    """Return the input unchanged; constructor arguments are accepted and ignored.

    Example:
        >>> torch.nn.Identity(54, unused="x")(torch.ones(2))
        tensor([1., 1.])
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        """Return ``input`` itself."""
        return input


class Linear(Module):
    """Apply ``y = x @ W^T + b`` to the last dim of the input.

    Weights start as U(-1/sqrt(in_features), 1/sqrt(in_features)) (He uniform with
    ``a=sqrt(5)``), and so does the bias, as in torch.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): whether to learn an additive bias. Default: True.
        device: where to create the parameters.
        dtype: the parameters' dtype (default float).

    Shape:
        - Input: ``(*, in_features)``.
        - Output: ``(*, out_features)``.

    Example:
        >>> layer = torch.nn.Linear(20, 30)
        >>> layer(torch.randn(128, 20)).shape
        torch.Size([128, 30])
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_creation.empty((out_features, in_features), device=device,
                                                dtype=dtype))
        if bias:
            self.bias = Parameter(_creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Redraw weight and bias from torch's default distributions."""
        # kaiming_uniform_ with a=sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        """See :func:`numtorch.nn.functional.linear`."""
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")



class NonDynamicallyQuantizableLinear(Linear):
    """A Linear layer under its own class name: torch's type for ``MultiheadAttention``'s
    output projection, which checkpoints and ``safe_globals`` lists name."""


class Bilinear(Module):
    """Apply ``y = x1^T A x2 + b`` with a weight of shape ``(out, in1, in2)``.

    Weight and bias start as U(-1/sqrt(in1_features), 1/sqrt(in1_features)).

    Shape:
        - Input1: ``(*, in1_features)``; Input2: ``(*, in2_features)`` (same ``*``).
        - Output: ``(*, out_features)``.

    Example:
        >>> m = torch.nn.Bilinear(20, 30, 40)
        >>> m(torch.randn(128, 20), torch.randn(128, 30)).shape
        torch.Size([128, 40])
    """

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        if in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={in1_features})")
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_creation.empty((out_features, in1_features, in2_features),
                                                device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Redraw weight and bias uniformly within ``1/sqrt(in1_features)``."""
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        """See :func:`numtorch.nn.functional.bilinear`."""
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`Linear` whose ``in_features`` is read from the first input.

    Until the first call the parameters are :class:`UninitializedParameter`; the call
    materialises and initialises them, and the module becomes a plain :class:`Linear`.

    Example:
        >>> m = torch.nn.LazyLinear(3)
        >>> _ = m(torch.ones(2, 5))
        >>> m
        Linear(in_features=5, out_features=3, bias=True)
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        # a zero-sized Linear first, so the base constructor draws nothing
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        """Initialise like :class:`Linear` once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materialise the parameters from ``input``'s last dim, then initialise them."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
