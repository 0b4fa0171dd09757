"""Quantizable GoogLeNet: conv-BN-ReLU units with a ReLU module to fuse, the branch
concatenation through ``FloatFunctional.cat``, quant/dequant stubs around the network;
``quantize=True`` converts it to int8 (fbgemm) so that torchvision's checkpoint loads."""

import warnings
from typing import Optional, Union

import numtorch
from numtorch import nn
from numtorch.ao.nn.quantized import FloatFunctional
from numtorch.ao.quantization import DeQuantStub, QuantStub
from numtorch.nn import functional as F

from .. import googlenet as float_googlenet
from .. import inception as float_inception
from .._api import WeightsEnum, register_model
from .._utils import _imagenet, _ovewrite_named_param, handle_legacy_interface
from .utils import _fuse_modules, _replace_relu, quantize_model

__all__ = ["QuantizableGoogLeNet", "GoogLeNet_QuantizedWeights", "googlenet"]


class QuantizableBasicConv2d(float_inception.BasicConv2d):
    """Conv-BN-ReLU with the ReLU as a module, so that the three fuse into one."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))

    def fuse_model(self, is_qat=None):
        _fuse_modules(self, ["conv", "bn", "relu"], is_qat, inplace=True)


def _quantizable_cat(float_block, names):
    """``float_block`` whose concatenations go through ``FloatFunctional`` modules called
    ``names`` (the block's ``_forward`` gives the pieces; the last name joins them)."""

    class Block(float_block):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, conv_block=QuantizableBasicConv2d, **kwargs)
            for name in names:
                setattr(self, name, FloatFunctional())

        def forward(self, x):
            return getattr(self, names[-1]).cat(self._forward(x), 1)

    Block.__name__ = Block.__qualname__ = "Quantizable" + float_block.__name__
    return Block


QuantizableInception = _quantizable_cat(float_googlenet.Inception, ["cat"])


class QuantizableInceptionAux(float_googlenet.InceptionAux):
    """The auxiliary head with its ReLU as a module (quantized ReLU after ``fc1``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, conv_block=QuantizableBasicConv2d, **kwargs)
        self.relu = nn.ReLU()

    def forward(self, x):
        x = numtorch.flatten(self.conv(F.adaptive_avg_pool2d(x, (4, 4))), 1)
        return self.fc2(self.dropout(self.relu(self.fc1(x))))


class QuantizableGoogLeNet(float_googlenet.GoogLeNet):
    """GoogLeNet between a QuantStub and a DeQuantStub (arguments as GoogLeNet's)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, blocks=[QuantizableBasicConv2d, QuantizableInception,
                                        QuantizableInceptionAux], **kwargs)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(self._transform_input(x))
        x, aux2, aux1 = self._forward(x)
        x = self.dequant(x)
        if self.training and self.aux_logits:
            # torchvision's quantizable GoogLeNet fills the two auxiliary fields the other
            # way round from the float model (aux_logits2 holds aux1's output); kept so that
            # training code sees the same tuple
            return float_googlenet.GoogLeNetOutputs(x, aux1, aux2)
        return x

    def fuse_model(self, is_qat=None):
        """Fuse every conv-BN-ReLU unit (before quantization)."""
        for m in self.modules():
            if type(m) is QuantizableBasicConv2d:
                m.fuse_model(is_qat)


def _drop_aux(model, attrs):
    model.aux_logits = False
    for attr in attrs:
        setattr(model, attr, None)


def _inception_family_build(cls, weights, progress, quantize, kwargs, aux_attrs,
                            drop_aux_before_quantizing, warn_kept_aux):
    """The GoogLeNet / Inception v3 builders: with weights, ``transform_input`` defaults to
    True and the checkpoint's auxiliary heads are built (``aux_logits=True``) then dropped
    unless the caller asked for them."""
    keep_aux = kwargs.get("aux_logits", False)
    if weights is not None:
        kwargs.setdefault("transform_input", True)
        # what the checkpoint was built with: a caller's other choice is a ValueError
        required = {"aux_logits": True, "init_weights": False,
                    "num_classes": len(weights.meta["categories"])}
        required.update({"backend": weights.meta["backend"]} if "backend" in weights.meta
                        else {})
        for name, value in required.items():
            _ovewrite_named_param(kwargs, name, value)
    backend = kwargs.pop("backend", "fbgemm")
    model = cls(**kwargs)
    _replace_relu(model)
    if quantize:
        if weights is not None and not keep_aux and drop_aux_before_quantizing:
            _drop_aux(model, aux_attrs)  # the int8 checkpoint has no auxiliary head
        quantize_model(model, backend)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if not keep_aux:
            _drop_aux(model, aux_attrs)
        elif warn_kept_aux:
            warnings.warn("auxiliary heads in the pretrained googlenet model are NOT "
                          "pretrained, so make sure to train them")
    return model


class GoogLeNet_QuantizedWeights(WeightsEnum):
    IMAGENET1K_FBGEMM_V1 = _imagenet(
        "quantized/googlenet_fbgemm-c81f6644.pth", 6624904, 69.826, 89.404, 1.498, 12.618,
        "https://github.com/pytorch/vision/tree/main/references/classification"
        "#post-training-quantized-models",
        min_size=(15, 15), backend="fbgemm",
        unquantized=float_googlenet.GoogLeNet_Weights.IMAGENET1K_V1)
    DEFAULT = IMAGENET1K_FBGEMM_V1


@register_model(name="quantized_googlenet")
@handle_legacy_interface(weights=("pretrained", lambda kw: (
    GoogLeNet_QuantizedWeights.IMAGENET1K_FBGEMM_V1 if kw.get("quantize", False)
    else float_googlenet.GoogLeNet_Weights.IMAGENET1K_V1)))
def googlenet(*, weights: Optional[Union[GoogLeNet_QuantizedWeights,
                                         float_googlenet.GoogLeNet_Weights]] = None,
              progress: bool = True, quantize: bool = False, **kwargs):
    """GoogLeNet, quantizable (int8 with ``quantize=True``).

    Args:
        weights (GoogLeNet_QuantizedWeights or GoogLeNet_Weights, optional): quantized
            weights when ``quantize=True``, float weights otherwise; None for random.
        progress (bool): show a download progress bar. Default: True.
        quantize (bool): convert the model to int8 before loading. Default: False.
        **kwargs: arguments of :class:`QuantizableGoogLeNet` (and ``backend``).
    """
    enum = GoogLeNet_QuantizedWeights if quantize else float_googlenet.GoogLeNet_Weights
    weights = enum.verify(weights)
    return _inception_family_build(QuantizableGoogLeNet, weights, progress, quantize, kwargs,
                                   ("aux1", "aux2"), False, True)
