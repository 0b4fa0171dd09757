"""Quantized dropout: the identity (quantized models run in inference)."""

import numtorch as torch

__all__ = ["Dropout"]


class Dropout(torch.nn.Dropout):
    """Returns its input (dropout has no effect in a quantized model)."""

    def forward(self, input):
        return input

    def _get_name(self):
        return "QuantizedDropout"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(mod.p, mod.inplace)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        return cls(mod.p, mod.inplace)
