"""``torch._check`` and its family: the runtime checks library code (transformers' models,
kornia, torch's own decompositions) writes in place of ``assert``, which raise a chosen error
class with a lazily built message."""

import builtins
import warnings

from . import _dtype
from ._tensor import Tensor

__all__ = ["_check", "_check_index", "_check_is_size", "_check_not_implemented",
           "_check_tensor_all", "_check_tensor_all_with", "_check_type", "_check_value",
           "_check_with"]

_DEFAULT = ("Expected cond to be True, but got False. (Could this error message be improved? "
            "If so, please report an enhancement request to PyTorch.)")


def _check_with(error_type, cond, message):
    """Raise ``error_type(message())`` unless ``cond`` (a Python bool) is True."""
    if not (isinstance(error_type, type) and issubclass(error_type, Exception)
            and not issubclass(error_type, Warning)):
        raise AssertionError(f"error_type must be a subclass of Exception but not Warning, "
                             f"got {error_type}")
    if not isinstance(cond, builtins.bool):
        if isinstance(cond, Tensor):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true.")
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if message is None:
        text = _DEFAULT
    elif not callable(message):
        raise TypeError("message must be a callable")
    else:
        text = str(message())
    raise error_type(text)


def _check(cond, message=None):
    """RuntimeError unless ``cond``; ``message`` is a callable returning the error text."""
    _check_with(RuntimeError, cond, message)


def _check_index(cond, message=None):
    _check_with(IndexError, cond, message)


def _check_value(cond, message=None):
    _check_with(ValueError, cond, message)


def _check_type(cond, message=None):
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond, message=None):
    _check_with(NotImplementedError, cond, message)


def _check_is_size(i, message=None, *, max=None):  # noqa: A002 - torch's argument name
    """Check that ``i`` can be a size: ``0 <= i`` (and ``i <= max`` when given)."""
    warnings.warn("_check_is_size will be removed in a future PyTorch release along with "
                  "guard_size_oblivious.     Use _check(i >= 0) instead.", FutureWarning,
                  stacklevel=2)
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


def _check_tensor_all_with(error_type, cond, message=None):
    """Raise ``error_type`` unless every element of the bool tensor ``cond`` is True."""
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype is not _dtype.bool:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, builtins.bool(cond._array.all()), message)


def _check_tensor_all(cond, message=None):
    _check_tensor_all_with(RuntimeError, cond, message)
