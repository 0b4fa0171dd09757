"""Building blocks the models share: conv-norm-activation stacks, squeeze-and-excitation,
MLP heads, a permute layer and a batch norm with frozen statistics."""

import warnings
from collections.abc import Sequence

import numtorch
from numtorch import nn

__all__ = ["FrozenBatchNorm2d", "ConvNormActivation", "Conv2dNormActivation",
           "Conv3dNormActivation", "SqueezeExcitation", "MLP", "Permute"]

interpolate = nn.functional.interpolate


class FrozenBatchNorm2d(nn.Module):
    """A 2-d batch norm whose statistics and affine parameters are buffers, never trained.

    Detection backbones use it so that small batches do not disturb ImageNet statistics.

    Args:
        num_features (int): channels ``C`` of an ``(N, C, H, W)`` input.
        eps (float): added to the variance before the square root. Default: 1e-5.
    """

    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", numtorch.ones(num_features))
        self.register_buffer("bias", numtorch.zeros(num_features))
        self.register_buffer("running_mean", numtorch.zeros(num_features))
        self.register_buffer("running_var", numtorch.ones(num_features))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # checkpoints of a trainable BatchNorm2d carry a counter this layer has no use for
        state_dict.pop(prefix + "num_batches_tracked", None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, x):
        scale = self.weight.reshape(1, -1, 1, 1) * (
            self.running_var.reshape(1, -1, 1, 1) + self.eps).rsqrt()
        shift = self.bias.reshape(1, -1, 1, 1) - self.running_mean.reshape(1, -1, 1, 1) * scale
        return x * scale + shift

    def __repr__(self):
        return f"{self.__class__.__name__}({self.weight.shape[0]}, eps={self.eps})"


def _same_padding(kernel_size, dilation):
    if isinstance(kernel_size, int) and isinstance(dilation, int):
        return (kernel_size - 1) // 2 * dilation
    n = len(kernel_size) if isinstance(kernel_size, Sequence) else len(dilation)
    ks = tuple(kernel_size) if isinstance(kernel_size, Sequence) else (kernel_size,) * n
    dil = tuple(dilation) if isinstance(dilation, Sequence) else (dilation,) * n
    return tuple((k - 1) // 2 * d for k, d in zip(ks, dil))


class ConvNormActivation(nn.Sequential):
    """Convolution, then an optional norm layer, then an optional activation, as children
    ``0``, ``1``, ``2`` of a Sequential. Use :class:`Conv2dNormActivation` or
    :class:`Conv3dNormActivation`; this base warns when built directly.

    Args:
        in_channels (int), out_channels (int): channel counts of the convolution.
        kernel_size, stride, dilation, groups: as for the convolution. Defaults 3, 1, 1, 1.
        padding: default None keeps the spatial size at stride 1:
            ``(kernel_size - 1) // 2 * dilation``.
        norm_layer (callable, optional): built with ``out_channels``; None for no norm.
        activation_layer (callable, optional): built with ``inplace=inplace`` (unless
            ``inplace`` is None); None for no activation.
        inplace (bool, optional): passed to the activation. Default: True.
        bias (bool, optional): the convolution's bias; default: only when there is no norm.
        conv_layer (callable): the convolution class. Default: ``nn.Conv2d``.
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU, dilation=1,
                 inplace=True, bias=None, conv_layer=nn.Conv2d):
        if padding is None:
            padding = _same_padding(kernel_size, dilation)
        if bias is None:
            bias = norm_layer is None
        layers = [conv_layer(in_channels, out_channels, kernel_size, stride, padding,
                             dilation=dilation, groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(**({} if inplace is None else {"inplace": inplace})))
        super().__init__(*layers)
        self.out_channels = out_channels
        if self.__class__ == ConvNormActivation:
            warnings.warn("Don't use ConvNormActivation directly, please use "
                          "Conv2dNormActivation and Conv3dNormActivation instead.")


class Conv2dNormActivation(ConvNormActivation):
    """:class:`ConvNormActivation` with ``nn.Conv2d`` (default norm ``nn.BatchNorm2d``)."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU, dilation=1,
                 inplace=True, bias=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, groups,
                         norm_layer, activation_layer, dilation, inplace, bias, nn.Conv2d)


class Conv3dNormActivation(ConvNormActivation):
    """:class:`ConvNormActivation` with ``nn.Conv3d`` (default norm ``nn.BatchNorm3d``)."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=nn.BatchNorm3d, activation_layer=nn.ReLU, dilation=1,
                 inplace=True, bias=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, groups,
                         norm_layer, activation_layer, dilation, inplace, bias, nn.Conv3d)


class SqueezeExcitation(nn.Module):
    """Channel attention: average-pool to one value per channel, squeeze through
    ``fc1`` -> ``activation`` -> ``fc2`` (1x1 convolutions), gate with ``scale_activation``
    and multiply the input by the gate.

    Args:
        input_channels (int): channels of the input.
        squeeze_channels (int): channels in the bottleneck.
        activation (callable): hidden activation class. Default: ``nn.ReLU``.
        scale_activation (callable): gate activation class. Default: ``nn.Sigmoid``.
    """

    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU,
                 scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, input):
        hidden = self.activation(self.fc1(self.avgpool(input)))
        return self.scale_activation(self.fc2(hidden))

    def forward(self, input):
        return self._scale(input) * input


class MLP(nn.Sequential):
    """Linear layers of widths ``hidden_channels``; each but the last is followed by the
    optional norm, the activation and dropout, the last by dropout only.

    Args:
        in_channels (int): input features.
        hidden_channels (list of int): output features of each linear layer.
        norm_layer (callable, optional): built with each hidden width. Default: None.
        activation_layer (callable): Default: ``nn.ReLU``.
        inplace (bool, optional): passed to the activation and dropout when not None.
        bias (bool): linear biases. Default: True.
        dropout (float): dropout probability. Default: 0.0.
    """

    def __init__(self, in_channels, hidden_channels, norm_layer=None, activation_layer=nn.ReLU,
                 inplace=None, bias=True, dropout=0.0):
        extra = {} if inplace is None else {"inplace": inplace}
        layers = []
        width = in_channels
        for hidden in hidden_channels[:-1]:
            layers.append(nn.Linear(width, hidden, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden))
            layers += [activation_layer(**extra), nn.Dropout(dropout, **extra)]
            width = hidden
        layers += [nn.Linear(width, hidden_channels[-1], bias=bias), nn.Dropout(dropout, **extra)]
        super().__init__(*layers)


class Permute(nn.Module):
    """Return ``x.permute(dims)`` (a view).

    Args:
        dims (list of int): the new order of the dimensions.
    """

    def __init__(self, dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return numtorch.permute(x, self.dims)
