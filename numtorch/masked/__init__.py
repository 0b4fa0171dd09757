"""``torch.masked``: reductions and normalizations that skip the elements a boolean mask
leaves out (``mask=`` broadcast to the input; None keeps every element)."""

from ._normalizations import (cumprod, cumsum, log_softmax, logaddexp, normalize, softmax,
                              softmin)
from ._reductions import (amax, amin, argmax, argmin, logsumexp, mean, median, norm, prod,
                          std, sum, var)

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax",
           "logaddexp", "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax",
           "softmin", "std", "sum", "var"]
