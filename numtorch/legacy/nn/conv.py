"""Convolutions and pooling with Lua's argument order (width before height) and weight
layouts; 3-D (one sample) and 4-D (batch) inputs for the spatial ones."""

import math

from ..._tensor import Tensor
from ...nn import functional as F
from .linear import _uniform
from .module import Module

__all__ = ["SpatialConvolution", "SpatialFullConvolution", "VolumetricConvolution",
           "TemporalConvolution", "SpatialMaxPooling", "SpatialAveragePooling"]


def _as_batch(input, sample_dims, name):
    if input.dim() == sample_dims:
        return input.unsqueeze(0), True
    if input.dim() == sample_dims + 1:
        return input, False
    raise RuntimeError(f"{name}: expected a {sample_dims}D or {sample_dims + 1}D input, got "
                       f"{input.dim()}D")


def _unbatch(out, single):
    return out.squeeze(0) if single else out


class SpatialConvolution(Module):
    """2-D convolution; ``weight`` is nOutputPlane x nInputPlane x kH x kW (a Lua
    ``SpatialConvolutionMM``'s nOutputPlane x (nInputPlane*kH*kW) matrix works too)."""

    padW = padH = 0

    def __init__(self, nInputPlane, nOutputPlane, kW, kH, dW=1, dH=1, padW=0, padH=None):
        super().__init__()
        self.nInputPlane, self.nOutputPlane = nInputPlane, nOutputPlane
        self.kW, self.kH, self.dW, self.dH = kW, kH, dW, dH
        self.padW, self.padH = padW, padW if padH is None else padH
        shape = (nOutputPlane, nInputPlane, kH, kW)
        self.weight, self.gradWeight = Tensor(*shape), Tensor(*shape).zero_()
        self.bias, self.gradBias = Tensor(nOutputPlane), Tensor(nOutputPlane).zero_()
        self.reset()

    def noBias(self):
        self.bias = self.gradBias = None
        return self

    def reset(self, stdv=None):
        _uniform([self.weight, self.bias],
                 1 / math.sqrt(self.kW * self.kH * self.nInputPlane), stdv)
        return self

    def _post_load(self):
        super()._post_load()
        padding = self.__dict__.pop("padding", None)  # old files: one padding for both
        if padding is not None and "padW" not in self.__dict__:
            self.padW = self.padH = padding

    def _forward(self, input, weight, bias):
        x, single = _as_batch(input, 3, type(self).__name__)
        w = weight.reshape(self.nOutputPlane, self.nInputPlane, self.kH, self.kW)
        out = F.conv2d(x, w, bias, (self.dH, self.dW), (self.padH, self.padW))
        return _unbatch(out, single)

    def __repr__(self):
        return (f"nn.{type(self).__name__}({self.nInputPlane} -> {self.nOutputPlane}, "
                f"{self.kW}x{self.kH}, {self.dW},{self.dH}, {self.padW},{self.padH})")


class SpatialFullConvolution(Module):
    """Transposed 2-D convolution; ``weight`` is nInputPlane x nOutputPlane x kH x kW and
    ``adjW``/``adjH`` add columns/rows to the output."""

    padW = padH = adjW = adjH = 0

    def __init__(self, nInputPlane, nOutputPlane, kW, kH, dW=1, dH=1, padW=0, padH=None,
                 adjW=0, adjH=0):
        super().__init__()
        self.nInputPlane, self.nOutputPlane = nInputPlane, nOutputPlane
        self.kW, self.kH, self.dW, self.dH = kW, kH, dW, dH
        self.padW, self.padH = padW, padW if padH is None else padH
        self.adjW, self.adjH = adjW, adjH
        if adjW > dW - 1 or adjH > dH - 1:
            raise ValueError("SpatialFullConvolution: adjW and adjH must be smaller than dW "
                             "and dH")
        shape = (nInputPlane, nOutputPlane, kH, kW)
        self.weight, self.gradWeight = Tensor(*shape), Tensor(*shape).zero_()
        self.bias, self.gradBias = Tensor(nOutputPlane), Tensor(nOutputPlane).zero_()
        self.reset()

    def noBias(self):
        self.bias = self.gradBias = None
        return self

    def reset(self, stdv=None):
        _uniform([self.weight, self.bias],
                 1 / math.sqrt(self.kW * self.kH * self.nInputPlane), stdv)
        return self

    def _forward(self, input, weight, bias):
        x, single = _as_batch(input, 3, "SpatialFullConvolution")
        out = F.conv_transpose2d(x, weight, bias, (self.dH, self.dW), (self.padH, self.padW),
                                 (self.adjH, self.adjW))
        return _unbatch(out, single)


class VolumetricConvolution(Module):
    """3-D convolution; ``weight`` is nOutputPlane x nInputPlane x kT x kH x kW."""

    padT = padW = padH = 0

    def __init__(self, nInputPlane, nOutputPlane, kT, kW, kH, dT=1, dW=1, dH=1, padT=0,
                 padW=None, padH=None):
        super().__init__()
        self.nInputPlane, self.nOutputPlane = nInputPlane, nOutputPlane
        self.kT, self.kW, self.kH, self.dT, self.dW, self.dH = kT, kW, kH, dT, dW, dH
        self.padT = padT
        self.padW = padT if padW is None else padW
        self.padH = self.padW if padH is None else padH
        shape = (nOutputPlane, nInputPlane, kT, kH, kW)
        self.weight, self.gradWeight = Tensor(*shape), Tensor(*shape).zero_()
        self.bias, self.gradBias = Tensor(nOutputPlane), Tensor(nOutputPlane).zero_()
        self.reset()

    def reset(self, stdv=None):
        _uniform([self.weight, self.bias],
                 1 / math.sqrt(self.kT * self.kW * self.kH * self.nInputPlane), stdv)
        return self

    def _forward(self, input, weight, bias):
        x, single = _as_batch(input, 4, "VolumetricConvolution")
        w = weight.reshape(self.nOutputPlane, self.nInputPlane, self.kT, self.kH, self.kW)
        out = F.conv3d(x, w, bias, (self.dT, self.dH, self.dW),
                       (self.padT, self.padH, self.padW))
        return _unbatch(out, single)


class TemporalConvolution(Module):
    """1-D convolution over frames: input nFrames x inputFrameSize (or a batch of those),
    output nOutputFrames x outputFrameSize. ``weight`` is outputFrameSize x
    (kW * inputFrameSize), each row the kW input frames one after the other."""

    def __init__(self, inputFrameSize, outputFrameSize, kW, dW=1):
        super().__init__()
        self.inputFrameSize, self.outputFrameSize = inputFrameSize, outputFrameSize
        self.kW, self.dW = kW, dW
        shape = (outputFrameSize, kW * inputFrameSize)
        self.weight, self.gradWeight = Tensor(*shape), Tensor(*shape).zero_()
        self.bias, self.gradBias = Tensor(outputFrameSize), Tensor(outputFrameSize).zero_()
        self.reset()

    def reset(self, stdv=None):
        _uniform([self.weight, self.bias], 1 / math.sqrt(self.kW * self.inputFrameSize), stdv)
        return self

    def _forward(self, input, weight, bias):
        x, single = _as_batch(input, 2, "TemporalConvolution")
        if x.size(2) != self.inputFrameSize:
            raise RuntimeError(f"TemporalConvolution: expected frames of size "
                               f"{self.inputFrameSize}, got {x.size(2)}")
        w = weight.reshape(self.outputFrameSize, self.kW, self.inputFrameSize).transpose(1, 2)
        out = F.conv1d(x.transpose(1, 2), w, bias, self.dW)
        return _unbatch(out.transpose(1, 2), single)


class SpatialMaxPooling(Module):
    """2-D max pooling over kW x kH windows (``ceil()`` rounds the output size up)."""

    _params = ()
    padW = padH = 0
    ceil_mode = False

    def __init__(self, kW, kH, dW=None, dH=None, padW=0, padH=0):
        super().__init__()
        self.kW, self.kH = kW, kH
        self.dW, self.dH = dW or kW, dH or kH
        self.padW, self.padH = padW, padH
        self.ceil_mode = False

    def ceil(self):
        self.ceil_mode = True
        return self

    def floor(self):
        self.ceil_mode = False
        return self

    def _forward(self, input):
        x, single = _as_batch(input, 3, "SpatialMaxPooling")
        out = F.max_pool2d(x, (self.kH, self.kW), (self.dH, self.dW), (self.padH, self.padW),
                           ceil_mode=self.ceil_mode)
        return _unbatch(out, single)


class SpatialAveragePooling(Module):
    """2-D average pooling; the stride defaults to 1 as in Lua. Padding counts in the
    divisor unless ``setCountExcludePad()``; ``divide=False`` gives window sums."""

    _params = ()
    padW = padH = 0
    ceil_mode = False
    count_include_pad = True
    divide = True

    def __init__(self, kW, kH, dW=1, dH=1, padW=0, padH=0):
        super().__init__()
        self.kW, self.kH, self.dW, self.dH = kW, kH, dW, dH
        self.padW, self.padH = padW, padH
        self.ceil_mode = False
        self.count_include_pad = True
        self.divide = True

    def ceil(self):
        self.ceil_mode = True
        return self

    def floor(self):
        self.ceil_mode = False
        return self

    def setCountIncludePad(self):
        self.count_include_pad = True
        return self

    def setCountExcludePad(self):
        self.count_include_pad = False
        return self

    def _forward(self, input):
        x, single = _as_batch(input, 3, "SpatialAveragePooling")
        out = F.avg_pool2d(x, (self.kH, self.kW), (self.dH, self.dW), (self.padH, self.padW),
                           ceil_mode=self.ceil_mode, count_include_pad=self.count_include_pad)
        if not getattr(self, "divide", True):
            out = out * (self.kW * self.kH)
        return _unbatch(out, single)
