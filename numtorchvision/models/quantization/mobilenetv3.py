"""Quantizable MobileNetV3-Large: quant/dequant stubs, the residual sum and the
squeeze-excitation product through ``FloatFunctional``, fusable conv-BN(-ReLU) groups.
Its int8 checkpoint was trained with quantization-aware training (qnnpack), so
``quantize=True`` prepares the model for QAT, loads the checkpoint into it, and then
converts it to int8."""


from typing import Optional, Union

import numtorch
from numtorch import nn
from numtorch.ao import quantization as tq
from numtorch.ao.nn.quantized import FloatFunctional

from ...ops.misc import Conv2dNormActivation, SqueezeExcitation
from .. import mobilenetv3 as float_mobilenet
from .._api import WeightsEnum, register_model
from .._utils import _imagenet, _ovewrite_named_param, handle_legacy_interface
from .utils import _fuse_modules, _replace_relu

__all__ = ["QuantizableMobileNetV3", "MobileNet_V3_Large_QuantizedWeights",
           "mobilenet_v3_large"]

# what a version-1 checkpoint lacks: the hard-sigmoid gate's fixed-qparams fake quantizer,
# which QAT adds (its values are recomputed from the fixed range on convert)
_GATE_DEFAULTS = (("fake_quant_enabled", lambda: numtorch.tensor([1])),
                  ("observer_enabled", lambda: numtorch.tensor([1])),
                  ("scale", lambda: numtorch.tensor([1.0])),
                  ("zero_point", lambda: numtorch.tensor([0], dtype=numtorch.int32)),
                  ("activation_post_process.scale", lambda: numtorch.tensor([1.0])),
                  ("activation_post_process.zero_point",
                   lambda: numtorch.tensor([0], dtype=numtorch.int32)))


class QuantizableSqueezeExcitation(SqueezeExcitation):
    _version = 2

    def __init__(self, *args, **kwargs):
        kwargs["scale_activation"] = nn.Hardsigmoid
        super().__init__(*args, **kwargs)
        self.skip_mul = FloatFunctional()

    def forward(self, input):
        return self.skip_mul.mul(self._scale(input), input)

    def fuse_model(self, is_qat=None):
        _fuse_modules(self, ["fc1", "activation"], is_qat, inplace=True)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if hasattr(self, "qconfig") and (version is None or version < 2):
            gate = prefix + "scale_activation.activation_post_process."
            for key, make in _GATE_DEFAULTS:
                state_dict.setdefault(gate + key, make())
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)


class QuantizableInvertedResidual(float_mobilenet.InvertedResidual):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, se_layer=QuantizableSqueezeExcitation, **kwargs)
        self.skip_add = FloatFunctional()

    def forward(self, x):
        out = self.block(x)
        return self.skip_add.add(x, out) if self.use_res_connect else out


class QuantizableMobileNetV3(float_mobilenet.MobileNetV3):
    """MobileNetV3 between a QuantStub and a DeQuantStub (arguments as MobileNetV3's)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.quant = tq.QuantStub()
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        return self.dequant(self._forward_impl(self.quant(x)))

    def fuse_model(self, is_qat=None):
        """Fuse conv-BN(-ReLU) units (hard-swish ones fuse conv and BN only) and each
        squeeze-excitation's first conv with its ReLU."""
        for m in self.modules():
            if type(m) is Conv2dNormActivation:
                names = ["0", "1"] + (["2"] if len(m) == 3 and type(m[2]) is nn.ReLU else [])
                _fuse_modules(m, names, is_qat, inplace=True)
            elif type(m) is QuantizableSqueezeExcitation:
                m.fuse_model(is_qat)


class MobileNet_V3_Large_QuantizedWeights(WeightsEnum):
    IMAGENET1K_QNNPACK_V1 = _imagenet(
        "quantized/mobilenet_v3_large_qnnpack-5bcacf28.pth", 5483032, 73.004, 90.858, 0.217,
        21.554, "https://github.com/pytorch/vision/tree/main/references/classification"
        "#qat-mobilenetv3", backend="qnnpack",
        unquantized=float_mobilenet.MobileNet_V3_Large_Weights.IMAGENET1K_V1)
    DEFAULT = IMAGENET1K_QNNPACK_V1


def _qat_build(setting, last_channel, weights, progress, quantize, kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        if "backend" in weights.meta:
            _ovewrite_named_param(kwargs, "backend", weights.meta["backend"])
    backend = kwargs.pop("backend", "qnnpack")
    model = QuantizableMobileNetV3(setting, last_channel,
                                   block=QuantizableInvertedResidual, **kwargs)
    _replace_relu(model)
    if quantize:
        # the checkpoint holds the QAT state (fake quantizers included): load it there
        model.fuse_model(is_qat=True)
        model.qconfig = tq.get_default_qat_qconfig(backend)
        tq.prepare_qat(model, inplace=True)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    if quantize:
        tq.convert(model, inplace=True)
        model.eval()
    return model


@register_model(name="quantized_mobilenet_v3_large")
@handle_legacy_interface(weights=("pretrained", lambda kw: (
    MobileNet_V3_Large_QuantizedWeights.IMAGENET1K_QNNPACK_V1 if kw.get("quantize", False)
    else float_mobilenet.MobileNet_V3_Large_Weights.IMAGENET1K_V1)))
def mobilenet_v3_large(*, weights: Optional[Union[
        MobileNet_V3_Large_QuantizedWeights,
        float_mobilenet.MobileNet_V3_Large_Weights]] = None,
        progress: bool = True, quantize: bool = False, **kwargs):
    """MobileNetV3-Large, quantizable (int8 with ``quantize=True``).

    Args:
        weights (MobileNet_V3_Large_QuantizedWeights or MobileNet_V3_Large_Weights,
            optional): quantized weights when ``quantize=True``, float weights otherwise.
        progress (bool): show a download progress bar. Default: True.
        quantize (bool): convert the model to int8 (through QAT) before returning it.
        **kwargs: ``width_mult``, ``reduced_tail``, ``dilated``, arguments of
            :class:`QuantizableMobileNetV3` (and ``backend``).
    """
    enum = (MobileNet_V3_Large_QuantizedWeights if quantize
            else float_mobilenet.MobileNet_V3_Large_Weights)
    weights = enum.verify(weights)
    setting, last = float_mobilenet._mobilenet_v3_conf("mobilenet_v3_large", **kwargs)
    for key in ("width_mult", "reduced_tail", "dilated"):
        kwargs.pop(key, None)
    return _qat_build(setting, last, weights, progress, quantize, kwargs)

