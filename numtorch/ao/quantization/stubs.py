"""Markers for eager-mode quantization: where float tensors become quantized
(:class:`QuantStub`) and back (:class:`DeQuantStub`), and :class:`QuantWrapper` around a
module. ``convert`` swaps the stubs for ``nn.quantized.Quantize``/``DeQuantize``."""

from numtorch import nn

__all__ = ["QuantStub", "DeQuantStub", "QuantWrapper"]


class QuantStub(nn.Module):
    """Identity until ``convert``, which replaces it with a quantize op (calibrated by the
    observer ``prepare`` attaches).

    Args:
        qconfig: the stub's own qconfig (optional; otherwise propagated from its parents).
    """

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class DeQuantStub(nn.Module):
    """Identity until ``convert``, which replaces it with a dequantize op."""

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class QuantWrapper(nn.Module):
    """``module`` between a QuantStub and a DeQuantStub (the qconfig travels with it).

    Attributes:
        quant, dequant, module: the three children.
    """

    def __init__(self, module):
        super().__init__()
        qconfig = getattr(module, "qconfig", None)
        self.add_module("quant", QuantStub(qconfig))
        self.add_module("dequant", DeQuantStub(qconfig))
        self.add_module("module", module)
        self.train(module.training)

    def forward(self, X):
        return self.dequant(self.module(self.quant(X)))
