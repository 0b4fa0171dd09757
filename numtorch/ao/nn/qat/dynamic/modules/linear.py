"""Dynamic QAT ``Linear``: a QAT linear whose activation observer is a dynamic placeholder."""

from numtorch.ao.nn.qat.modules import linear as _qat_linear

__all__ = ["Linear"]


class Linear(_qat_linear.Linear):
    """A QAT linear layer meant to become a dynamically quantized one (its qconfig's
    activation must be a memoryless moving-average observer)."""

    def __init__(self, in_features, out_features, bias=True, qconfig=None, device=None,
                 dtype=None):
        super().__init__(in_features, out_features, bias, qconfig, device, dtype)
        from numtorch.ao.quantization.qconfig import _activation_is_memoryless

        if not _activation_is_memoryless(qconfig):
            raise ValueError("Dynamic QAT requires a memoryless observer. This means a "
                             "MovingAverage observer with averaging constant equal to 1")
