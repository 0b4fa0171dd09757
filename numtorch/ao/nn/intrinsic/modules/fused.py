"""Fused float modules: a conv/linear followed by batch norm and/or an activation, kept as one
Sequential so the quantization workflow treats them as one quantized op."""

from numtorch import nn
from numtorch.nn.utils.parametrize import type_before_parametrizations

__all__ = ["ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "LinearReLU", "ConvBn1d", "ConvBn2d",
           "ConvBnReLU1d", "ConvBnReLU2d", "ConvBn3d", "ConvBnReLU3d", "BNReLU2d", "BNReLU3d",
           "LinearBn1d", "LinearLeakyReLU", "LinearTanh", "ConvAdd2d", "ConvAddReLU2d"]


class _FusedModule(nn.Sequential):
    """Base of the fused modules."""


def _require(modules, types, exact=False):
    got = [type(m) if exact else type_before_parametrizations(m) for m in modules]
    if any(g is not t for g, t in zip(got, types)):
        raise AssertionError("Incorrect types for input modules: "
                             + " and ".join(g.__name__ for g in got))


def _fused(name, parts, doc):
    """A fused Sequential class taking modules of the classes named in ``parts``."""
    def __init__(self, *modules):
        if len(modules) != len(parts):
            raise TypeError(f"{name}.__init__() takes {len(parts)} modules")
        _require(modules, [getattr(nn, p) for p in parts])
        _FusedModule.__init__(self, *modules)

    cls = type(name, (_FusedModule,), {"__init__": __init__, "__doc__": doc,
                                       "__module__": __name__})
    return cls


ConvReLU1d = _fused("ConvReLU1d", ("Conv1d", "ReLU"), "Conv1d then ReLU, fused.")
ConvReLU2d = _fused("ConvReLU2d", ("Conv2d", "ReLU"), "Conv2d then ReLU, fused.")
ConvReLU3d = _fused("ConvReLU3d", ("Conv3d", "ReLU"), "Conv3d then ReLU, fused.")
LinearReLU = _fused("LinearReLU", ("Linear", "ReLU"), "Linear then ReLU, fused.")
ConvBn1d = _fused("ConvBn1d", ("Conv1d", "BatchNorm1d"), "Conv1d then BatchNorm1d, fused.")
ConvBn2d = _fused("ConvBn2d", ("Conv2d", "BatchNorm2d"), "Conv2d then BatchNorm2d, fused.")
ConvBn3d = _fused("ConvBn3d", ("Conv3d", "BatchNorm3d"), "Conv3d then BatchNorm3d, fused.")
ConvBnReLU1d = _fused("ConvBnReLU1d", ("Conv1d", "BatchNorm1d", "ReLU"),
                      "Conv1d, BatchNorm1d and ReLU, fused.")
ConvBnReLU2d = _fused("ConvBnReLU2d", ("Conv2d", "BatchNorm2d", "ReLU"),
                      "Conv2d, BatchNorm2d and ReLU, fused.")
ConvBnReLU3d = _fused("ConvBnReLU3d", ("Conv3d", "BatchNorm3d", "ReLU"),
                      "Conv3d, BatchNorm3d and ReLU, fused.")
BNReLU2d = _fused("BNReLU2d", ("BatchNorm2d", "ReLU"), "BatchNorm2d then ReLU, fused.")
BNReLU3d = _fused("BNReLU3d", ("BatchNorm3d", "ReLU"), "BatchNorm3d then ReLU, fused.")
LinearBn1d = _fused("LinearBn1d", ("Linear", "BatchNorm1d"), "Linear then BatchNorm1d, fused.")


class LinearLeakyReLU(_FusedModule):
    """Linear then LeakyReLU, fused."""

    def __init__(self, linear, leaky_relu):
        _require((linear, leaky_relu), (nn.Linear, nn.LeakyReLU), exact=True)
        super().__init__(linear, leaky_relu)


class LinearTanh(_FusedModule):
    """Linear then Tanh, fused."""

    def __init__(self, linear, tanh):
        _require((linear, tanh), (nn.Linear, nn.Tanh), exact=True)
        super().__init__(linear, tanh)


class ConvAdd2d(_FusedModule):
    """Conv2d whose output is added to a second input: ``add(conv(x1), x2)``."""

    def __init__(self, conv, add):
        super().__init__(conv)
        self.add = add

    def forward(self, x1, x2):
        return self.add(self[0](x1), x2)


class ConvAddReLU2d(_FusedModule):
    """``relu(add(conv(x1), x2))``."""

    def __init__(self, conv, add, relu):
        super().__init__(conv)
        self.add = add
        self.relu = relu

    def forward(self, x1, x2):
        return self.relu(self.add(self[0](x1), x2))
