"""Layers with weights on vectors: Linear, Bilinear, LookupTable, CMul, Mul, Add, Euclidean,
Cosine, and the parameterless MulConstant and Normalize.

Each ``reset`` draws Lua's initial values: uniform in ``(-stdv, stdv)`` with ``stdv``
1/sqrt(fan-in), or ``stdv * sqrt(3)`` when ``stdv`` is given (so it is the standard
deviation).
"""

import math

from ..._tensor import Tensor
from ...nn import functional as F
from .module import Module

__all__ = ["Linear", "Bilinear", "LookupTable", "CMul", "Mul", "Add", "MulConstant",
           "Euclidean", "Cosine", "Normalize"]


def _uniform(tensors, default_stdv, stdv):
    bound = stdv * math.sqrt(3) if stdv is not None else default_stdv
    for t in tensors:
        if t is not None:
            t.uniform_(-bound, bound)


def _batched(x, n_per_sample, param):
    """``param`` shaped to broadcast against ``x``: one sample, or a batch along dim 0."""
    if x.numel() == n_per_sample:
        return x, param.reshape(x.shape)
    return x.reshape(x.size(0), -1), param.reshape(1, -1)


class Linear(Module):
    """``y = W x + b`` with ``W`` of shape outputSize x inputSize; 1-D or batched 2-D input."""

    def __init__(self, inputSize, outputSize, bias=True):
        super().__init__()
        self.weight = Tensor(outputSize, inputSize)
        self.gradWeight = Tensor(outputSize, inputSize).zero_()
        self.bias = Tensor(outputSize) if bias else None
        self.gradBias = Tensor(outputSize).zero_() if bias else None
        self.reset()

    def noBias(self):
        self.bias = self.gradBias = None
        return self

    def reset(self, stdv=None):
        _uniform([self.weight, self.bias], 1 / math.sqrt(self.weight.size(1)), stdv)
        return self

    def _forward(self, input, weight, bias):
        if input.dim() not in (1, 2):
            raise RuntimeError(f"Linear: input must be a vector or a matrix, got "
                               f"{input.dim()}D")
        return F.linear(input, weight, bias)

    def __repr__(self):
        extra = "" if self.bias is not None else " without bias"
        return f"nn.Linear({self.weight.size(1)} -> {self.weight.size(0)}){extra}"


class Bilinear(Module):
    """``y_k = x1^T W_k x2 + b_k`` on the table ``{x1, x2}`` of batched matrices."""

    def __init__(self, inputSize1, inputSize2, outputSize, bias=True):
        super().__init__()
        self.weight = Tensor(outputSize, inputSize1, inputSize2)
        self.gradWeight = Tensor(outputSize, inputSize1, inputSize2).zero_()
        self.bias = Tensor(outputSize) if bias else None
        self.gradBias = Tensor(outputSize).zero_() if bias else None
        self.reset()

    def reset(self, stdv=None):
        _uniform([self.weight, self.bias], 1 / math.sqrt(self.weight.size(1)), stdv)
        return self

    def _forward(self, input, weight, bias):
        if len(input) != 2 or input[0].dim() != 2 or input[1].dim() != 2:
            raise RuntimeError("Bilinear: input must be a table of two batched matrices")
        return F.bilinear(input[0], input[1], weight, bias)


class LookupTable(Module):
    """Rows of ``weight`` (nIndex x nOutput) picked by 1-based indices (1-D or 2-D input).

    ``paddingValue`` (1-based; 0 for none) names a row whose gradient stays zero;
    ``maxNorm`` renormalises the rows used to at most that ``normType``-norm."""

    _params = (("weight", "gradWeight"),)
    paddingValue = 0
    maxNorm = None
    normType = None
    shouldScaleGradByFreq = False

    def __init__(self, nIndex, nOutput, paddingValue=0, maxNorm=None, normType=None):
        super().__init__()
        self.weight = Tensor(nIndex, nOutput)
        self.gradWeight = Tensor(nIndex, nOutput).zero_()
        self.paddingValue = paddingValue
        self.maxNorm = maxNorm
        self.normType = normType
        self.shouldScaleGradByFreq = False
        self.reset()

    def reset(self, stdv=1):
        self.weight.normal_(0, stdv)
        return self

    def scaleGradByFreq(self):
        self.shouldScaleGradByFreq = True
        return self

    def _forward(self, input, weight):
        if input.dim() not in (1, 2):
            raise RuntimeError("LookupTable: input must be a vector or a matrix of indices")
        index = input.long()
        n = weight.size(0)
        if index.numel() and (int(index.min()) < 1 or int(index.max()) > n):
            raise IndexError(f"LookupTable: index out of range (indices count from 1 to {n}, "
                             f"got {int(index.min())}..{int(index.max())})")
        padding = self.paddingValue - 1 if self.paddingValue and self.paddingValue > 0 else None
        return F.embedding(index - 1, weight, padding_idx=padding, max_norm=self.maxNorm,
                           norm_type=self.normType or 2.0,
                           scale_grad_by_freq=self.shouldScaleGradByFreq)


class CMul(Module):
    """Element-wise product with a learnt tensor of the given size (batched along dim 1)."""

    _params = (("weight", "gradWeight"),)

    def __init__(self, *size):
        super().__init__()
        if len(size) == 1 and not isinstance(size[0], int):
            size = tuple(size[0])
        self.size = tuple(size)
        self.weight = Tensor(*self.size)
        self.gradWeight = Tensor(*self.size).zero_()
        self.reset()

    def _post_load(self):
        super()._post_load()
        size = getattr(self, "size", None)
        self.size = tuple(self.weight.shape) if size is None else tuple(int(s) for s in size)

    def reset(self, stdv=None):
        _uniform([self.weight], 1 / math.sqrt(self.weight.numel()), stdv)
        return self

    def _forward(self, input, weight):
        x, w = _batched(input, weight.numel(), weight)
        return (x * w).reshape(input.shape)


class Mul(Module):
    """Multiplies the input by one learnt scalar."""

    _params = (("weight", "gradWeight"),)

    def __init__(self):
        super().__init__()
        self.weight = Tensor(1)
        self.gradWeight = Tensor(1).zero_()
        self.reset()

    def reset(self, stdv=None):
        _uniform([self.weight], 1.0, stdv)
        return self

    def _forward(self, input, weight):
        return input * weight.reshape(())


class Add(Module):
    """Adds a learnt bias: a tensor of ``inputSize`` (batched along dim 1) or, with
    ``scalar=True``, one number."""

    _params = (("bias", "gradBias"),)

    def __init__(self, inputSize, scalar=False):
        super().__init__()
        self.scalar = scalar
        size = 1 if scalar else inputSize
        self.bias = Tensor(size)
        self.gradBias = Tensor(size).zero_()
        self.reset()

    def reset(self, stdv=None):
        _uniform([self.bias], 1 / math.sqrt(self.bias.size(0)), stdv)
        return self

    def _forward(self, input, bias):
        if self.scalar:
            return input + bias.reshape(())
        x, b = _batched(input, bias.numel(), bias)
        return (x + b).reshape(input.shape)


class MulConstant(Module):
    """Multiplies by a fixed number (``ip=True`` writes into the input)."""

    _params = ()

    def __init__(self, constant_scalar, ip=False):
        super().__init__()
        self.constant_scalar = constant_scalar
        self.inplace = ip

    def _forward(self, input):
        return input * self.constant_scalar


class Euclidean(Module):
    """``y_j = ||x - w_j||`` for the columns ``w_j`` of ``weight`` (inputSize x outputSize).

    Note: as in Lua, the gradient divides by ``y_j + 1e-7``, so an input equal to a column
    gets a zero gradient rather than NaN."""

    _params = (("weight", "gradWeight"),)

    def __init__(self, inputSize, outputSize):
        super().__init__()
        self.weight = Tensor(inputSize, outputSize)
        self.gradWeight = Tensor(inputSize, outputSize).zero_()
        self.reset()

    def reset(self, stdv=None):
        _uniform([self.weight], 1 / math.sqrt(self.weight.size(0)), stdv)
        return self

    def _forward(self, input, weight):
        diff = input.unsqueeze(-1) - weight  # (..., inputSize, outputSize)
        sq = (diff * diff).sum(-2)
        dist = sq.detach().sqrt()
        # value dist, derivative d(sq) / (2 (dist + 1e-7)) = (x - w) / (dist + 1e-7)
        return dist + (sq - sq.detach()) / (2 * (dist + 1e-7))


class Cosine(Module):
    """``y_j = <x, w_j> / (||x|| ||w_j||)`` for the rows of ``weight`` (outputSize x
    inputSize); each norm gets ``1e-12`` added."""

    _params = (("weight", "gradWeight"),)

    def __init__(self, inputSize, outputSize):
        super().__init__()
        self.weight = Tensor(outputSize, inputSize)
        self.gradWeight = Tensor(outputSize, inputSize).zero_()
        self.reset()

    def reset(self, stdv=None):
        _uniform([self.weight], 1 / math.sqrt(self.weight.size(1)), stdv)
        return self

    def _forward(self, input, weight):
        w_norm = weight.norm(2, 1) + 1e-12
        x_norm = input.norm(2, -1, keepdim=True) + 1e-12
        return (input @ weight.t()) / (x_norm * w_norm)


class Normalize(Module):
    """Divides each vector (a 1-D input or each row of a 2-D one) by its ``p``-norm.

    The norm is ``(sum |x|^p + eps)^(1/p)``; for ``p = inf`` it is ``max |x| + eps``."""

    _params = ()

    def __init__(self, p, eps=1e-10):
        super().__init__()
        if p <= 0:
            raise ValueError(f"Normalize: p must be positive, got {p}")
        self.p = p
        self.eps = eps

    def _forward(self, input):
        if input.dim() not in (1, 2):
            raise RuntimeError("Normalize: input must be a vector or a matrix")
        mag = input.abs()
        if math.isinf(self.p):
            norm = mag.amax(-1, keepdim=True) + self.eps
        else:
            norm = ((mag ** self.p).sum(-1, keepdim=True) + self.eps) ** (1.0 / self.p)
        return input / norm
