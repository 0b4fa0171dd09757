"""Folding an eval-mode batch norm into the convolution or linear layer before it
(``torch.nn.utils.fusion``): ``y = bn(conv(x))`` becomes one conv with scaled weights and a
shifted bias."""

import copy

import numtorch as torch

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` that computes ``bn(conv(x))`` (both in eval mode)."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn running stats must be computed before fusion")
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """``(weight, bias)`` Parameters of the conv that equals conv then batch norm:
    ``w * gamma / sqrt(var + eps)`` per output channel and ``(b - mean) * gamma / sqrt(var +
    eps) + beta``."""
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    conv_b = torch.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = torch.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = torch.zeros_like(bn_rm) if bn_b is None else bn_b
    rsqrt = torch.rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
    fused_w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=w_dtype)
    fused_b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return (torch.nn.Parameter(fused_w, conv_w.requires_grad),
            torch.nn.Parameter(fused_b, conv_b.requires_grad))


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` that computes ``bn(linear(x))`` (both in eval mode)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(f"To fuse, linear.out_features == bn.num_features or "
                             f"bn.num_features == 1, got linear.out_features="
                             f"{linear.out_features} and bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn running stats must be computed before fusion")
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """``(weight, bias)`` Parameters of the linear layer that equals linear then batch
    norm."""
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    linear_b = torch.zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * torch.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return (torch.nn.Parameter(fused_w, linear_w.requires_grad),
            torch.nn.Parameter(fused_b, linear_b.requires_grad))
