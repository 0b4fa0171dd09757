"""The loss criteria, on ``nn.functional``'s losses. ``sizeAverage`` (default True) divides
by Lua's count (elements, samples or the summed class weights); False sums. Class targets
count from 1."""

from ... import tensor as _tensor
from ..._tensor import Tensor
from ...nn import functional as F
from .criterion import Criterion, _reduction

__all__ = ["ClassNLLCriterion", "CrossEntropyCriterion", "MSECriterion", "AbsCriterion",
           "BCECriterion", "SmoothL1Criterion", "MarginCriterion", "MultiMarginCriterion",
           "HingeEmbeddingCriterion", "CosineEmbeddingCriterion", "DistKLDivCriterion",
           "MarginRankingCriterion"]


def _as_tensor(value, like, dtype=None):
    if isinstance(value, Tensor):
        return value if dtype is None else value.to(dtype)
    return _tensor(value, dtype=dtype or like.dtype)


def _classes(input, target, name):
    """(batched input, 0-based long targets) from Lua's 1-based class targets."""
    target = _as_tensor(target, input).long()
    if input.dim() == 1:
        input, target = input.unsqueeze(0), target.reshape(1)
    elif input.dim() != 2:
        raise RuntimeError(f"{name}: input must be a vector or a matrix, got {input.dim()}D")
    return input, target.reshape(-1)


class ClassNLLCriterion(Criterion):
    """``-weights[t] * input[t]`` for log-probabilities ``input`` and 1-based classes ``t``;
    ``sizeAverage`` divides by the summed weights of the targets. Targets equal to
    ``ignoreIndex`` are skipped."""

    weights = None
    sizeAverage = True
    ignoreIndex = -100

    def __init__(self, weights=None, sizeAverage=True, ignoreIndex=-100):
        super().__init__()
        self.weights = weights
        self.sizeAverage = sizeAverage
        self.ignoreIndex = ignoreIndex

    def _loss(self, input, target):
        input, target = _classes(input, target, "ClassNLLCriterion")
        ignored = target == self.ignoreIndex
        zero_based = (target - 1).masked_fill(ignored, -100)
        n = input.size(1)
        live = zero_based[~ignored]
        if live.numel() and (int(live.min()) < 0 or int(live.max()) >= n):
            raise IndexError(f"ClassNLLCriterion: target out of range (classes count from 1 "
                             f"to {n})")
        return F.nll_loss(input, zero_based, weight=self.weights, ignore_index=-100,
                          reduction=_reduction(self.sizeAverage))


class CrossEntropyCriterion(Criterion):
    """``LogSoftMax`` followed by ``ClassNLLCriterion`` (the fields ``lsm`` and ``nll``)."""

    def __init__(self, weights=None, sizeAverage=True):
        super().__init__()
        from .activation import LogSoftMax

        self.lsm = LogSoftMax()
        self.nll = ClassNLLCriterion(weights, sizeAverage)
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        self.nll.sizeAverage = self.sizeAverage
        if input.dim() not in (1, 2):
            raise RuntimeError("CrossEntropyCriterion: input must be a vector or a matrix")
        return self.nll._loss(F.log_softmax(input, input.dim() - 1), target)


class _PointwiseCriterion(Criterion):
    """A criterion that is an elementwise loss ``_fn`` (an ``nn.functional`` loss) of input
    and target (reshaped to the input's shape, as Lua's accepted any shape of as many
    elements), averaged or summed."""

    _fn = None

    def __init__(self, sizeAverage=True):
        super().__init__()
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        return type(self)._fn(input, target.reshape(input.shape),
                              reduction=_reduction(self.sizeAverage))


class MSECriterion(_PointwiseCriterion):
    """Mean (or sum) of ``(input - target)^2``."""

    _fn = staticmethod(F.mse_loss)


class AbsCriterion(_PointwiseCriterion):
    """Mean (or sum) of ``|input - target|``."""

    _fn = staticmethod(F.l1_loss)


class SmoothL1Criterion(_PointwiseCriterion):
    """Huber loss with threshold 1: ``0.5 d^2`` for ``|d| < 1``, else ``|d| - 0.5``."""

    _fn = staticmethod(F.smooth_l1_loss)


class BCECriterion(Criterion):
    """``-w (t log(x + eps) + (1 - t) log(1 - x + eps))`` with ``eps = 1e-12``; ``weights``
    has one entry per element of a sample and applies to every sample of a batch."""

    eps = 1e-12
    weights = None

    def __init__(self, weights=None, sizeAverage=True):
        super().__init__()
        self.weights = weights
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        if target.numel() != input.numel():
            raise RuntimeError("BCECriterion: input and target must have the same number of "
                               "elements")
        t = target.reshape(input.shape).to(input.dtype)
        terms = t * (input + self.eps).log() + (1 - t) * (1 - input + self.eps).log()
        if self.weights is not None:
            w = self.weights.to(input.dtype)
            if w.numel() == input.numel():
                terms = terms * w.reshape(input.shape)
            else:
                terms = (terms.reshape(input.size(0), -1) * w.reshape(1, -1))
        total = -terms.sum()
        return total / input.numel() if self.sizeAverage else total


class MarginCriterion(Criterion):
    """Two-class hinge loss ``max(0, margin - y x)`` for labels ``y`` in {1, -1}."""

    def __init__(self, margin=1, sizeAverage=True):
        super().__init__()
        self.margin = margin
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        y = _as_tensor(target, input).reshape(input.shape).to(input.dtype)
        terms = (self.margin - y * input).clamp(min=0)
        return terms.mean() if self.sizeAverage else terms.sum()


class MultiMarginCriterion(Criterion):
    """Multi-class hinge loss: ``sum_{i != t} max(0, margin - x[t] + x[i])^p / nClasses``
    per sample (``p`` is 1 or 2), times ``weights[t]``; 1-based classes ``t``."""

    weights = None
    margin = 1

    def __init__(self, p=1, weights=None, margin=1, sizeAverage=True):
        super().__init__()
        if p not in (1, 2):
            raise ValueError("MultiMarginCriterion: only p == 1 and p == 2 are supported")
        self.p = p
        self.weights = weights
        self.margin = margin
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        input, target = _classes(input, target, "MultiMarginCriterion")
        n = input.size(1)
        if target.numel() and (int(target.min()) < 1 or int(target.max()) > n):
            raise IndexError(f"MultiMarginCriterion: target out of range (classes count from "
                             f"1 to {n})")
        return F.multi_margin_loss(input, target - 1, self.p, self.margin, self.weights,
                                   reduction=_reduction(self.sizeAverage))


class HingeEmbeddingCriterion(Criterion):
    """``x`` where ``y = 1``, ``max(0, margin - x)`` where ``y = -1``."""

    def __init__(self, margin=1, sizeAverage=True):
        super().__init__()
        self.margin = margin
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        y = _as_tensor(target, input).reshape(input.shape).to(input.dtype)
        return F.hinge_embedding_loss(input, y, self.margin,
                                      reduction=_reduction(self.sizeAverage))


class CosineEmbeddingCriterion(Criterion):
    """On ``{x1, x2}``: ``1 - cos(x1, x2)`` where ``y = 1``, ``max(0, cos - margin)`` where
    ``y = -1``; batched rows or one pair of vectors."""

    def __init__(self, margin=0, sizeAverage=True):
        super().__init__()
        self.margin = margin
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        x1, x2 = input
        y = _as_tensor(target, x1).to(x1.dtype)
        y = y.reshape(()) if x1.dim() == 1 else y.reshape(-1)
        return F.cosine_embedding_loss(x1, x2, y, self.margin,
                                       reduction=_reduction(self.sizeAverage))


class DistKLDivCriterion(Criterion):
    """Kullback-Leibler divergence ``target (log target - input)`` for log-probabilities
    ``input``; ``sizeAverage`` divides by the number of elements."""

    def __init__(self, sizeAverage=True):
        super().__init__()
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        total = F.kl_div(input, target.reshape(input.shape), reduction="sum")
        return total / input.numel() if self.sizeAverage else total


class MarginRankingCriterion(Criterion):
    """On ``{x1, x2}``: ``max(0, -y (x1 - x2) + margin)``, averaged over the batch."""

    def __init__(self, margin=0, sizeAverage=True):
        super().__init__()
        self.margin = margin
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        x1, x2 = input
        y = _as_tensor(target, x1).to(x1.dtype).reshape(-1)
        x1, x2 = x1.reshape(-1), x2.reshape(-1)
        return F.margin_ranking_loss(x1, x2, y.expand(x1.shape), self.margin,
                                     reduction=_reduction(self.sizeAverage))
