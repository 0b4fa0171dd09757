"""nn modules: loss (torch's file of the same name; forward passes call nn.functional).

Each module holds its hyperparameters (and class weights as buffers) and calls the function
of the same name in ``numtorch.nn.functional``.
"""

import warnings

from .. import functional as F
from ..functional._loss_util import legacy_get_string
from .distance import PairwiseDistance
from .module import Module

__all__ = ["L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "NLLLoss2d", "CTCLoss",
           "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "BCELoss", "BCEWithLogitsLoss",
           "MarginRankingLoss", "HingeEmbeddingLoss", "MultiLabelMarginLoss", "SmoothL1Loss",
           "HuberLoss", "SoftMarginLoss", "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss",
           "MultiMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss"]


class _Loss(Module):
    """Base of the losses: stores ``reduction`` (mapped from the deprecated
    ``size_average``/``reduce`` pair when either is given, with torch's warning)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = legacy_get_string(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with an optional per-class ``weight`` kept as a buffer (moves with ``.to``)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """Mean absolute error; see :func:`numtorch.nn.functional.l1_loss`.

    Example:
        >>> torch.nn.L1Loss()(torch.tensor([1., 2.]), torch.tensor([0., 4.]))
        tensor(1.5000)
    """

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error; see :func:`numtorch.nn.functional.mse_loss`.

    Example:
        >>> torch.nn.MSELoss()(torch.tensor([1., 2.]), torch.tensor([0., 4.]))
        tensor(2.5000)
    """

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or probabilities; see
    :func:`numtorch.nn.functional.cross_entropy`.

    Args:
        weight (Tensor, optional): per-class weights (a buffer).
        size_average (bool, optional): deprecated; see ``reduction``.
        ignore_index (int): class-index target to skip. Default: -100.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        label_smoothing (float): in ``[0, 1]``. Default: 0.0.

    Example:
        >>> loss = torch.nn.CrossEntropyLoss()
        >>> loss(torch.tensor([[2., 0.], [0., 2.]]), torch.tensor([0, 1]))
        tensor(0.1269)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices; see :func:`numtorch.nn.functional.nll_loss`.

    Example:
        >>> logp = torch.tensor([[0., -1.], [-2., 0.]])
        >>> torch.nn.NLLLoss()(logp, torch.tensor([1, 0]))
        tensor(1.5000)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """The 0.x name of :class:`NLLLoss` for (N, C, H, W) inputs; deprecated (warns)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.",
                      FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class CTCLoss(_Loss):
    """Connectionist temporal classification loss; see
    :func:`numtorch.nn.functional.ctc_loss`.

    Args:
        blank (int): the blank label. Default: 0.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        zero_infinity (bool): zero infinite losses and their gradients. Default: False.
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of log-probabilities; see
    :func:`numtorch.nn.functional.kl_div` (use ``reduction='batchmean'`` for the true KL)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """Poisson negative log-likelihood; see :func:`numtorch.nn.functional.poisson_nll_loss`."""

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log-likelihood with predicted variances; see
    :func:`numtorch.nn.functional.gaussian_nll_loss`."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities; see
    :func:`numtorch.nn.functional.binary_cross_entropy`."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits (stable); see
    :func:`numtorch.nn.functional.binary_cross_entropy_with_logits`.

    Args:
        weight (Tensor, optional): element weights (a buffer).
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        pos_weight (Tensor, optional): weight of positives per class (a buffer).
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """Ranking hinge on pairs of scores; see
    :func:`numtorch.nn.functional.margin_ranking_loss`."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """Hinge loss on distances of similar / dissimilar pairs; see
    :func:`numtorch.nn.functional.hinge_embedding_loss`."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss; see :func:`numtorch.nn.functional.multilabel_margin_loss`."""

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above; see
    :func:`numtorch.nn.functional.smooth_l1_loss`."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, scaled absolute error above; see
    :func:`numtorch.nn.functional.huber_loss`."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss; see :func:`numtorch.nn.functional.soft_margin_loss`."""

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """One-vs-all logistic loss; see
    :func:`numtorch.nn.functional.multilabel_soft_margin_loss`."""

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """Cosine-similarity loss of embedding pairs; see
    :func:`numtorch.nn.functional.cosine_embedding_loss`."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss; see :func:`numtorch.nn.functional.multi_margin_loss`.

    Args:
        p (int): 1 or 2. Default: 1.
        margin (float): Default: 1.0.
        weight (Tensor, optional): 1-D per-class weights (a buffer).
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
    """

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """Triplet loss with the p-norm distance; see
    :func:`numtorch.nn.functional.triplet_margin_loss`."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet loss with any distance function (a module or a callable); see
    :func:`numtorch.nn.functional.triplet_margin_with_distance_loss`.

    Args:
        distance_function (callable, optional): ``d(x, y)``; ``nn.PairwiseDistance()`` when
            None.
        margin (float): must be positive. Default: 1.0.
        swap (bool): use the smaller of ``d(a, n)`` and ``d(p, n)``. Default: False.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
    """

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than "
                             f"0, got {margin} instead")
        if distance_function is None:
            distance_function = PairwiseDistance()
        self.distance_function = distance_function
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


from ._linear_cross_entropy import LinearCrossEntropyLoss  # noqa: E402,F401  (torch keeps it here)
