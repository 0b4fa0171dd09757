"""``torch.masked``: reductions and normalizations that skip the elements a boolean mask
leaves out (``mask=`` broadcast to the input; None keeps every element)."""

from ._normalizations import (cumprod, cumsum, log_softmax, logaddexp, normalize, softmax,
                              softmin)
from ._reductions import (amax, amin, argmax, argmin, logsumexp, mean, median, norm, prod,
                          std, sum, var)

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax",
           "logaddexp", "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax",
           "softmin", "std", "sum", "var"]

__all__ += ["MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor"]


def __getattr__(name):
    # loaded on first use: defining the class installs the Tensor-subclass dispatch, which
    # programs that never use a MaskedTensor should not pay for
    if name in ("MaskedTensor", "as_masked_tensor", "masked_tensor"):
        from . import _maskedtensor

        return getattr(_maskedtensor, name)
    if name in ("is_masked_tensor", "maskedtensor"):
        import importlib  # (``from . import`` would ask this hook for the name again)

        sub = importlib.import_module(__name__ + ".maskedtensor")
        return sub if name == "maskedtensor" else sub.is_masked_tensor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
