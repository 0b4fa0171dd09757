"""Deformable convolution v1/v2 (Dai et al. 2017, Zhu et al. 2018).

Each kernel tap ``(i, j)`` of output position ``(y, x)`` reads the input at
``(y * stride - pad + i * dilation + dy, x * stride - pad + j * dilation + dx)``, where
``(dy, dx)`` come from ``offset`` (one pair per offset group, tap and position), bilinearly,
with zeros outside the map, optionally scaled by ``mask`` (v2). The sampled columns are then
contracted with the weight as an ordinary grouped convolution.

Everything is built from numtorch ops (a gather of the four neighbours, their bilinear
weights, one batched matmul), so autograd gives the gradients with respect to input,
offset, mask, weight and bias.
"""

import numtorch
import numtorch.fx
from numtorch import nn
from numtorch.nn import init
from numtorch.nn.modules.utils import _pair

__all__ = ["DeformConv2d", "deform_conv2d"]


def _sample_columns(input, offset, mask, kh, kw, stride, padding, dilation, out_hw):
    """Bilinear samples ``(N, C, kh*kw, Ho*Wo)`` at the deformed tap positions."""
    n, c, height, width = input.shape
    ho, wo = out_hw
    taps = kh * kw
    groups = offset.shape[1] // (2 * taps)
    dev, dtype = input.device, input.dtype
    # regular grid positions of every (tap, output position), shape (taps, Ho*Wo)
    ty = (numtorch.arange(kh, device=dev) * dilation[0]).repeat_interleave(kw)
    tx = (numtorch.arange(kw, device=dev) * dilation[1]).repeat(kh)
    oy = (numtorch.arange(ho, device=dev) * stride[0] - padding[0]).repeat_interleave(wo)
    ox = (numtorch.arange(wo, device=dev) * stride[1] - padding[1]).repeat(ho)
    base_y = (ty[:, None] + oy[None, :]).to(dtype)
    base_x = (tx[:, None] + ox[None, :]).to(dtype)
    off = offset.reshape(n, groups, taps, 2, ho * wo)
    y = base_y + off[:, :, :, 0]                                   # (N, G, taps, L)
    x = base_x + off[:, :, :, 1]
    y0 = numtorch.floor(y.detach())
    x0 = numtorch.floor(x.detach())
    fy, fx = y - y0, x - x0
    y0, x0 = y0.long(), x0.long()
    flat = input.reshape(n, groups, c // groups, height * width)
    total = None
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            yy, xx = y0 + dy, x0 + dx
            inside = (yy >= 0) & (yy < height) & (xx >= 0) & (xx < width)
            pos = (yy.clamp(0, height - 1) * width + xx.clamp(0, width - 1))
            pos = pos.reshape(n, groups, 1, taps * ho * wo).expand(-1, -1, c // groups, -1)
            vals = numtorch.gather(flat, 3, pos)                      # (N, G, C/G, taps*L)
            weight = (wy * wx * inside.to(dtype)).reshape(n, groups, 1, taps * ho * wo)
            term = vals * weight
            total = term if total is None else total + term
    if mask is not None:
        total = total * mask.reshape(n, groups, 1, taps * ho * wo)
    return total.reshape(n, c, taps, ho * wo)


def _check(input, offset, weight, mask, kh, kw, out_hw):
    n_off = 2 * kh * kw
    if offset.shape[1] % n_off != 0:
        raise RuntimeError(
            f"the shape of the offset tensor at dimension 1 is not valid. It should be a "
            f"multiple of 2 * weight.size[2] * weight.size[3].\nGot offset.shape[1]="
            f"{offset.shape[1]}, while 2 * weight.size[2] * weight.size[3]={n_off}")
    groups = offset.shape[1] // n_off
    if input.shape[1] % groups != 0:
        raise RuntimeError("input.shape[1] is not valid: offset groups must divide the input "
                           "channels")
    if input.shape[1] % weight.shape[1] != 0:
        raise RuntimeError("the input channels must be a multiple of weight.size(1)")
    if out_hw[0] <= 0 or out_hw[1] <= 0:
        raise RuntimeError(f"Calculated output size too small - out_h: {out_hw[0]} out_w: "
                           f"{out_hw[1]}")
    if tuple(offset.shape[2:]) != tuple(out_hw) or offset.shape[0] != input.shape[0]:
        raise RuntimeError(f"offset output dims: ({offset.shape[2]}, {offset.shape[3]}) - "
                           f"computed output dims: ({out_hw[0]}, {out_hw[1]})")
    if mask is not None:
        if mask.shape[1] != groups * kh * kw:
            raise RuntimeError(f"mask.shape[1] is not valid: got mask.shape[1] = "
                               f"{mask.shape[1]}, expected {groups * kh * kw}")
        if tuple(mask.shape[2:]) != tuple(out_hw) or mask.shape[0] != input.shape[0]:
            raise RuntimeError(f"mask output dims: ({mask.shape[2]}, {mask.shape[3]}) - "
                               f"computed output dims: ({out_hw[0]}, {out_hw[1]})")


@numtorch.fx.wrap
def deform_conv2d(input, offset, weight, bias=None, stride=(1, 1), padding=(0, 0),
                  dilation=(1, 1), mask=None):
    """Deformable 2-D convolution (v2 when ``mask`` is given, else v1).

    Args:
        input (Tensor[N, C_in, H, W]): the input.
        offset (Tensor[N, 2 * offset_groups * kh * kw, H_out, W_out]): ``(dy, dx)`` pairs per
            offset group, kernel tap (row-major) and output position.
        weight (Tensor[C_out, C_in / groups, kh, kw]): convolution weights.
        bias (Tensor[C_out], optional): added to the output.
        stride, padding, dilation (int or (int, int)): as in ``conv2d``.
        mask (Tensor[N, offset_groups * kh * kw, H_out, W_out], optional): modulation of
            every sample.

    Returns:
        Tensor[N, C_out, H_out, W_out].
    """
    stride, padding, dilation = _pair(stride), _pair(padding), _pair(dilation)
    out_channels, in_per_group, kh, kw = weight.shape
    n, c, height, width = input.shape
    out_hw = ((height + 2 * padding[0] - (dilation[0] * (kh - 1) + 1)) // stride[0] + 1,
              (width + 2 * padding[1] - (dilation[1] * (kw - 1) + 1)) // stride[1] + 1)
    _check(input, offset, weight, mask, kh, kw, out_hw)
    groups = c // in_per_group
    cols = _sample_columns(input, offset, mask, kh, kw, stride, padding, dilation, out_hw)
    cols = cols.reshape(n, groups, in_per_group * kh * kw, out_hw[0] * out_hw[1])
    w = weight.reshape(groups, out_channels // groups, in_per_group * kh * kw)
    out = numtorch.matmul(w, cols).reshape(n, out_channels, out_hw[0], out_hw[1])
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return out


class DeformConv2d(nn.Module):
    """Module form of :func:`deform_conv2d`; ``offset`` (and ``mask``) are passed to
    ``forward``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True):
        super().__init__()
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = _pair(padding)
        self.dilation = _pair(dilation)
        self.groups = groups
        self.weight = nn.Parameter(numtorch.empty(out_channels, in_channels // groups,
                                                  *self.kernel_size))
        if bias:
            self.bias = nn.Parameter(numtorch.empty(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # the default of nn.Conv2d
        init.kaiming_uniform_(self.weight, a=5 ** 0.5)
        if self.bias is not None:
            fan_in = self.weight[0].numel()
            bound = 1 / fan_in ** 0.5
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input, offset, mask=None):
        return deform_conv2d(input, offset, self.weight, self.bias, stride=self.stride,
                             padding=self.padding, dilation=self.dilation, mask=mask)

    def __repr__(self):
        s = (f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, "
             f"kernel_size={self.kernel_size}, stride={self.stride}")
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s + ")"
