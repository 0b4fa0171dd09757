"""Convolution layers: Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy variants.

Modules hold the parameters and hyperparameters; ``forward`` is one call into
:mod:`numtorch.nn.functional` (through ``F.pad`` first for the non-zero padding modes).
"""

import math
import types

from ... import _creation
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(value, n):
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    """Shared state of the convolution layers (torch's attribute names and repr)."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                     "output_padding", "in_channels", "out_channels", "kernel_size"]
    _nd = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{{'same', 'valid'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            modes = ", ".join(repr(m) for m in sorted(_PADDING_MODES))
            raise ValueError(f"padding_mode must be one of {{{modes}}}, but got "
                             f"padding_mode={padding_mode!r}")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._pad_spec()
        shape = ((in_channels, out_channels // groups) if transposed else
                 (out_channels, in_channels // groups)) + tuple(kernel_size)
        self.weight = Parameter(_creation.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_creation.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _pad_spec(self):
        """The padding as ``F.pad`` wants it: (left, right) pairs, last spatial dim first."""
        if isinstance(self.padding, str):
            spec = [0, 0] * len(self.kernel_size)
            if self.padding == "same":
                for i, (d, k) in enumerate(zip(self.dilation, self.kernel_size)):
                    total = d * (k - 1)
                    j = len(self.kernel_size) - 1 - i
                    spec[2 * j], spec[2 * j + 1] = total // 2, total - total // 2
            return spec
        return tuple(p for p in reversed(self.padding) for _ in range(2))

    def reset_parameters(self):
        """Redraw the weight (He uniform, a=sqrt(5)) and the bias U(-1/sqrt(fan_in), ...)."""
        if self.weight.is_meta or self.weight.is_contiguous():
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        else:
            # a channels-last weight gets the draws in row-major order, as torch's layer
            # does (a plain init_ call would fill it in memory order)
            tmp = _creation.empty(tuple(self.weight.shape), dtype=self.weight.dtype,
                                  device=self.weight.device)
            init.kaiming_uniform_(tmp, a=math.sqrt(5))
            with no_grad():
                self.weight.copy_(tmp)
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            # no input channels: torch still draws the bias, from U(0, 0) (zeros)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        n = len(self.kernel_size)
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * n:
            s += ", padding=" + (self.padding if isinstance(self.padding, str)
                                 else str(self.padding))
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):  # pickles from before padding modes existed
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    """A convolution layer of ``_nd`` spatial dims."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        n = self._nd
        padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                         padding, _ntuple(dilation, n), False, (0,) * n, groups, bias,
                         padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        """Convolve ``input`` with the layer's weight (see ``F.conv{1,2,3}d``)."""
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """Apply a 1-D convolution over ``(N, C_in, L)`` (or unbatched ``(C_in, L)``) inputs.

    Args:
        in_channels (int): channels of the input.
        out_channels (int): channels of the output (number of filters).
        kernel_size (int or tuple): filter length.
        stride (int or tuple): step between windows. Default: 1.
        padding (int, tuple or str): padding on both sides, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing between kernel taps. Default: 1.
        groups (int): independent channel groups. Default: 1.
        bias (bool): learn an additive bias. Default: True.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.

    Shape:
        - Input: ``(N, C_in, L_in)``; Output: ``(N, C_out, L_out)`` with
          ``L_out = floor((L_in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)``.

    Example:
        >>> torch.nn.Conv1d(16, 33, 3, stride=2)(torch.randn(20, 16, 50)).shape
        torch.Size([20, 33, 24])
    """

    _nd = 1


class Conv2d(_Conv):
    """Apply a 2-D convolution over ``(N, C_in, H, W)`` (or unbatched ``(C_in, H, W)``) inputs.

    Weight ``(out_channels, in_channels / groups, kH, kW)`` and bias start as
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with ``fan_in = in_channels / groups * kH * kW``.

    Args:
        in_channels (int): channels of the input.
        out_channels (int): channels of the output.
        kernel_size (int or tuple): filter size.
        stride (int or tuple): step between windows. Default: 1.
        padding (int, tuple or str): padding of each spatial dim, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing between kernel taps. Default: 1.
        groups (int): independent channel groups. Default: 1.
        bias (bool): learn an additive bias. Default: True.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.

    Shape:
        - Input: ``(N, C_in, H, W)``; Output: ``(N, C_out, H_out, W_out)``.

    Example:
        >>> m = torch.nn.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2))
        >>> m(torch.randn(2, 16, 50, 100)).shape
        torch.Size([2, 33, 28, 100])
    """

    _nd = 2


class Conv3d(_Conv):
    """Apply a 3-D convolution over ``(N, C_in, D, H, W)`` (or unbatched) inputs.

    Args: as :class:`Conv2d`, with three spatial dims.

    Shape:
        - Input: ``(N, C_in, D, H, W)``; Output: ``(N, C_out, D_out, H_out, W_out)``.

    Example:
        >>> torch.nn.Conv3d(2, 4, 3, padding=1)(torch.randn(1, 2, 5, 6, 7)).shape
        torch.Size([1, 4, 5, 6, 7])
    """

    _nd = 3


class _ConvTransposeNd(_ConvNd):
    """Shared code of the transposed convolutions: the ``output_size`` argument."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         transposed, output_padding, groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        """The output padding that makes the output ``output_size`` (or the set one)."""
        if output_size is None:
            return _ntuple(self.output_padding, num_spatial_dims)
        n = num_spatial_dims
        lead = 2 if input.dim() == n + 2 else 1
        if len(output_size) == lead + n:
            output_size = output_size[lead:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must "
                             f"have {n} or {lead + n} elements (got {len(output_size)})")
        sizes = [int(s) for s in output_size]
        dilation = dilation if dilation is not None else (1,) * n
        smallest = [(input.shape[d + lead] - 1) * stride[d] - 2 * padding[d]
                    + dilation[d] * (kernel_size[d] - 1) + 1 for d in range(n)]
        largest = [s + stride[d] - 1 for d, s in enumerate(smallest)]
        for d in range(n):
            if not smallest[d] <= sizes[d] <= largest[d]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {smallest} to {largest} (for an input of "
                                 f"{input.size()[2:]})")
        return tuple(sizes[d] - smallest[d] for d in range(n))

    def forward(self, input, output_size=None):
        """Transposed convolution of ``input``, optionally to a given ``output_size``."""
        n = self._nd
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, n, self.dilation)
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                  self.groups, self.dilation)


class _ConvTranspose(_ConvTransposeNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        n = self._nd
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                         _ntuple(padding, n) if not isinstance(padding, str) else padding,
                         _ntuple(dilation, n), True, _ntuple(output_padding, n), groups, bias,
                         padding_mode, device, dtype)


class ConvTranspose1d(_ConvTranspose):
    """Apply a 1-D transposed convolution (the gradient of :class:`Conv1d` w.r.t. its input).

    Weight ``(in_channels, out_channels / groups, kW)``.

    Args:
        in_channels (int), out_channels (int), kernel_size (int or tuple): as for Conv1d.
        stride (int or tuple): stride of the convolution this transposes. Default: 1.
        padding (int or tuple): padding of the convolution this transposes. Default: 0.
        output_padding (int or tuple): extra size on one side of the output. Default: 0.
        groups (int): independent channel groups. Default: 1.
        bias (bool): learn an additive bias. Default: True.
        dilation (int or tuple): spacing between kernel taps. Default: 1.

    Shape:
        - Input: ``(N, C_in, L_in)``; Output: ``(N, C_out, L_out)`` with
          ``L_out = (L_in - 1) * stride - 2 * padding + dilation * (kW - 1) + output_padding + 1``.

    Example:
        >>> torch.nn.ConvTranspose1d(4, 2, 3, stride=2)(torch.randn(1, 4, 5)).shape
        torch.Size([1, 2, 11])
    """

    _nd = 1


class ConvTranspose2d(_ConvTranspose):
    """Apply a 2-D transposed convolution; ``forward(input, output_size=None)``.

    ``output_size`` picks among the output sizes a strided convolution maps onto the input's
    size (it sets the output padding).

    Args: as :class:`ConvTranspose1d`, with two spatial dims.

    Example:
        >>> m = torch.nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1)
        >>> m(torch.randn(1, 16, 12, 12), output_size=[24, 24]).shape
        torch.Size([1, 8, 24, 24])
    """

    _nd = 2


class ConvTranspose3d(_ConvTranspose):
    """Apply a 3-D transposed convolution over ``(N, C_in, D, H, W)`` inputs.

    Args: as :class:`ConvTranspose1d`, with three spatial dims.

    Example:
        >>> torch.nn.ConvTranspose3d(2, 3, 2, stride=2)(torch.randn(1, 2, 2, 3, 4)).shape
        torch.Size([1, 3, 4, 6, 8])
    """

    _nd = 3


def _own_init(*classes):
    """Give each layer its own copy of the shared ``__init__``: Python names a missing or
    unexpected argument after the function's qualified name, and torch's messages name the
    layer (``Conv2d.__init__() missing 1 required positional argument: 'kernel_size'``)."""
    for cls in classes:
        shared = cls.__init__
        own = types.FunctionType(shared.__code__, shared.__globals__, "__init__",
                                 shared.__defaults__, shared.__closure__)
        own.__kwdefaults__, own.__doc__ = shared.__kwdefaults__, shared.__doc__
        own.__qualname__ = f"{cls.__name__}.__init__"
        cls.__init__ = own


_own_init(Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)


class _LazyConvMixin(LazyModuleMixin):
    """Lazy convolutions: ``in_channels`` is read from the first input."""

    def reset_parameters(self):
        """Initialise as the eager layer once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _lazy_setup(self, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = self._lazy_out
        if self._lazy_bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def initialize_parameters(self, input, *args, **kwargs):
        """Materialise weight and bias from the channels of ``input``."""
        if not self.has_uninitialized_params():
            return
        n = self._nd
        if input.dim() not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                               f"{self._get_name()}, but got input of size: {input.shape}")
        with no_grad():
            self.in_channels = input.shape[1 if input.dim() == n + 2 else 0]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            g = self.groups
            lead = ((self.in_channels, self.out_channels // g) if self.transposed else
                    (self.out_channels, self.in_channels // g))
            self.weight.materialize(lead + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy(base, name):
    """A Lazy variant of ``base`` (a zero-channel layer until the first call)."""

    def __init__(self, out_channels, kernel_size, *args, bias=True, device=None, dtype=None,
                 **kwargs):
        self._lazy_out, self._lazy_bias = out_channels, bias
        # a zero-channel layer first (nothing drawn); the mixin then adds its hooks
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, *args, bias=False, **kwargs)
        self._lazy_setup(device, dtype)

    __init__.__qualname__ = f"{name}.__init__"  # argument errors name the layer (see _own_init)
    doc = (f"A :class:`{base.__name__}` whose ``in_channels`` is read from the first input.\n\n"
           f"    The parameters stay :class:`UninitializedParameter` until the first call; the\n"
           f"    module then becomes a plain :class:`{base.__name__}`.\n")
    return type(name, (_LazyConvMixin, base), {"__init__": __init__, "cls_to_become": base,
                                                "__doc__": doc, "__module__": __name__})


LazyConv1d = _lazy(Conv1d, "LazyConv1d")
LazyConv2d = _lazy(Conv2d, "LazyConv2d")
LazyConv3d = _lazy(Conv3d, "LazyConv3d")
LazyConvTranspose1d = _lazy(ConvTranspose1d, "LazyConvTranspose1d")
LazyConvTranspose2d = _lazy(ConvTranspose2d, "LazyConvTranspose2d")
LazyConvTranspose3d = _lazy(ConvTranspose3d, "LazyConvTranspose3d")
