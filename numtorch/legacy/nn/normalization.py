"""Batch normalization and dropout, whose forward depends on ``train`` and keeps state
(running statistics, the dropout mask ``noise``) outside the recorded graph."""

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...nn import functional as F
from .module import Module

__all__ = ["BatchNormalization", "SpatialBatchNormalization", "Dropout", "SpatialDropout"]


class BatchNormalization(Module):
    """Normalises each feature over the batch (N x C input).

    Training uses the batch statistics and moves ``running_mean``/``running_var`` (the
    unbiased batch variance) by ``momentum``; evaluation uses the running ones. With
    ``affine`` the result is scaled by ``weight`` (drawn uniform in [0, 1), as in Lua)
    and shifted by ``bias``."""

    nDim = 2
    affine = True
    eps = 1e-5
    momentum = 0.1

    def __init__(self, nOutput, eps=1e-5, momentum=0.1, affine=True):
        super().__init__()
        if nOutput <= 0:
            raise ValueError("BatchNormalization: nOutput must be positive")
        self.eps, self.momentum, self.affine = eps, momentum, affine
        self.running_mean = Tensor(nOutput).zero_()
        self.running_var = Tensor(nOutput).fill_(1)
        if affine:
            self.weight, self.gradWeight = Tensor(nOutput), Tensor(nOutput).zero_()
            self.bias, self.gradBias = Tensor(nOutput), Tensor(nOutput).zero_()
            self.reset()
        else:
            self.weight = self.gradWeight = self.bias = self.gradBias = None

    def reset(self, stdv=None):
        if self.weight is not None:
            self.weight.uniform_()
        if self.bias is not None:
            self.bias.zero_()
        self.running_mean.zero_()
        self.running_var.fill_(1)
        return self

    def _post_load(self):
        super()._post_load()
        std = self.__dict__.pop("running_std", None)  # old files: 1 / sqrt(var + eps)
        if std is not None and "running_var" not in self.__dict__:
            self.running_var = std.pow(-2) - self.eps

    def _check(self, input):
        if input.dim() != self.nDim:
            raise RuntimeError(f"{type(self).__name__}: only mini-batch supported "
                               f"({self.nDim}D tensor), got {input.dim()}D tensor instead")
        if input.size(1) != self.running_mean.numel():
            raise RuntimeError(f"{type(self).__name__}: got {input.size(1)} features, "
                               f"expected {self.running_mean.numel()}")

    def updateOutput(self, input):
        self._check(input)
        if self.train:
            with no_grad():
                dims = [0] + list(range(2, input.dim()))
                mean = input.mean(dims)
                var = input.var(dims, unbiased=True)
                self.running_mean.mul_(1 - self.momentum).add_(mean, alpha=self.momentum)
                self.running_var.mul_(1 - self.momentum).add_(var, alpha=self.momentum)
        return super().updateOutput(input)

    def _forward(self, input, weight, bias):
        if self.train:
            return F.batch_norm(input, None, None, weight, bias, True, 0.0, self.eps)
        return F.batch_norm(input, self.running_mean, self.running_var, weight, bias, False,
                            0.0, self.eps)


class SpatialBatchNormalization(BatchNormalization):
    """``BatchNormalization`` of feature maps (N x C x H x W), per channel."""

    nDim = 4


class Dropout(Module):
    """Zeroes each element with probability ``p`` while training and scales the rest by
    ``1/(1-p)``; ``v1=True`` scales at evaluation by ``1-p`` instead. The mask drawn by the
    last forward is ``noise``. ``stochasticInference`` keeps dropping at evaluation."""

    _params = ()
    v2 = True
    stochastic_inference = False
    _masked = False

    def __init__(self, p=0.5, v1=False, inplace=False, stochasticInference=False):
        super().__init__()
        if not 0 <= p < 1:
            raise ValueError("<Dropout> illegal percentage, must be 0 <= p < 1")
        self.p = p
        self.v2 = not v1
        self.inplace = inplace
        self.stochastic_inference = stochasticInference
        self.noise = Tensor()
        self._masked = False

    def setp(self, p):
        self.p = p
        return self

    def _draw(self, input):
        noise = input.new_empty(input.shape)
        if self.p > 0:
            noise.bernoulli_(1 - self.p)
            if self.v2:
                noise.div_(1 - self.p)
        else:
            noise.fill_(1)
        return noise

    def updateOutput(self, input):
        self._masked = bool(self.train or self.stochastic_inference)
        if self._masked:
            self.noise = self._draw(input)
        return super().updateOutput(input)

    def _forward(self, input):
        if self._masked:
            return input * self.noise
        return input if self.v2 else input * (1 - self.p)


class SpatialDropout(Module):
    """Drops whole feature maps (3-D C x H x W or 4-D N x C x H x W input) with probability
    ``p`` while training, without rescaling; evaluation multiplies by ``1-p``."""

    _params = ()

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p
        self.noise = Tensor()

    def updateOutput(self, input):
        if input.dim() == 4:
            shape = (input.size(0), input.size(1), 1, 1)
        elif input.dim() == 3:
            shape = (input.size(0), 1, 1)
        else:
            raise RuntimeError("SpatialDropout: input must be 4D (nbatch, nfeat, h, w) or 3D "
                               "(nfeat, h, w)")
        if self.train:
            self.noise = input.new_empty(shape).bernoulli_(1 - self.p)
        return super().updateOutput(input)

    def _forward(self, input):
        if self.train:
            return input * self.noise
        return input * (1 - self.p)
