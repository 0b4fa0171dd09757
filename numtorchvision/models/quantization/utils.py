"""Helpers of the quantizable models: post-training static quantization of a freshly built
model (so a quantized checkpoint's modules exist to load into), module fusion, and the ReLU
replacement that fusion needs."""

import numtorch
from numtorch import nn
from numtorch.ao import quantization as tq

# the calibration batch: the observers only need to see some activations before a quantized
# checkpoint overwrites every scale and zero point
_CALIBRATION_SHAPE = (1, 3, 299, 299)


def _replace_relu(module):
    """Swap every ReLU/ReLU6 for a fresh out-of-place ReLU (fusable, and a quantized ReLU6
    clamps at 6 in float units, which a fused conv-ReLU does not)."""
    for name, child in list(module.named_children()):
        _replace_relu(child)
        if type(child) in (nn.ReLU, nn.ReLU6):
            setattr(module, name, nn.ReLU(inplace=False))


def quantize_model(model, backend):
    """Fuse, observe one random batch and convert ``model`` to int8 in place.

    Raises:
        RuntimeError: ``backend`` is not a quantized engine of this build.
    """
    if backend not in numtorch.backends.quantized.supported_engines:
        raise RuntimeError("Quantized backend not supported ")
    numtorch.backends.quantized.engine = backend
    model.eval()
    weight = (tq.default_per_channel_weight_observer if backend == "fbgemm"
              else tq.default_weight_observer)
    model.qconfig = tq.QConfig(activation=tq.default_observer, weight=weight)
    model.fuse_model()
    tq.prepare(model, inplace=True)
    model(numtorch.rand(*_CALIBRATION_SHAPE))
    tq.convert(model, inplace=True)


def _fuse_modules(model, modules_to_fuse, is_qat, **kwargs):
    if is_qat is None:
        is_qat = model.training
    fuse = tq.fuse_modules_qat if is_qat else tq.fuse_modules
    return fuse(model, modules_to_fuse, **kwargs)
