"""Element-wise and softmax activations with Lua's field names and in-place flags."""

from ..._tensor import Tensor
from ...nn import functional as F
from .module import Module

__all__ = ["Threshold", "ReLU", "HardTanh", "ELU", "PReLU", "Tanh", "Sigmoid", "SoftMax",
           "LogSoftMax", "SoftPlus"]


class Threshold(Module):
    """``y = x`` where ``x > threshold``, else ``val`` (``ip=True`` writes into the input)."""

    _params = ()

    def __init__(self, th=1e-6, v=0, ip=False):
        super().__init__()
        self.threshold = th
        self.val = v
        self.inplace = ip

    def _forward(self, input):
        return F.threshold(input, self.threshold, self.val)


class ReLU(Threshold):
    """``max(0, x)``."""

    threshold = 0
    val = 0

    def __init__(self, ip=False):
        super().__init__(0, 0, ip)


class HardTanh(Module):
    """Clamps to ``[min_val, max_val]``."""

    _params = ()

    def __init__(self, min_val=-1, max_val=1, inplace=False):
        super().__init__()
        if max_val <= min_val:
            raise ValueError("HardTanh: max_val must be larger than min_val")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def _forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val)


class ELU(Module):
    """``x`` for positive ``x``, else ``alpha * (exp(x) - 1)``."""

    _params = ()

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def _forward(self, input):
        return F.elu(input, self.alpha)


class PReLU(Module):
    """``max(0, x) + a * min(0, x)`` with a learnt slope ``a``: one shared (``nOutputPlane=0``)
    or one per feature plane (dim 1 of a batch, dim 0 of a single sample)."""

    _params = (("weight", "gradWeight"),)

    def __init__(self, nOutputPlane=0):
        super().__init__()
        self.nOutputPlane = nOutputPlane
        n = nOutputPlane or 1
        self.weight = Tensor(n).fill_(0.25)
        self.gradWeight = Tensor(n).zero_()

    def reset(self, stdv=None):
        self.weight.fill_(0.25)
        return self

    def _forward(self, input, weight):
        if self.nOutputPlane and input.dim() in (1, 3):  # one sample: planes along dim 0
            return F.prelu(input.unsqueeze(0), weight).squeeze(0)
        return F.prelu(input, weight)


class Tanh(Module):
    _params = ()

    def _forward(self, input):
        return input.tanh()


class Sigmoid(Module):
    _params = ()

    def _forward(self, input):
        return input.sigmoid()


def _feature_dim(input):
    # Lua's softmax runs over the features: dim 0 of a vector or a C x H x W sample,
    # dim 1 of a batch of vectors or of N x C x H x W maps.
    if input.dim() not in (1, 2, 3, 4):
        raise RuntimeError(f"softmax: input must be 1D, 2D, 3D or 4D, got {input.dim()}D")
    return 0 if input.dim() in (1, 3) else 1


class SoftMax(Module):
    _params = ()

    def _forward(self, input):
        return F.softmax(input, _feature_dim(input))


class LogSoftMax(Module):
    _params = ()

    def _forward(self, input):
        return F.log_softmax(input, _feature_dim(input))


class SoftPlus(Module):
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``."""

    _params = ()

    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def _forward(self, input):
        return F.softplus(input, self.beta, self.threshold)
