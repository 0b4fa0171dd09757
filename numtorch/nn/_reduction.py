"""``nn._reduction``: the reduction-argument helpers custom losses import from torch."""

from .functional._loss_util import legacy_get_string  # noqa: F401

__all__ = ["get_enum", "legacy_get_string", "legacy_get_enum"]

_ENUM = {"none": 0, "mean": 1, "elementwise_mean": 1, "sum": 2}


def get_enum(reduction):
    """The integer torch uses internally for a reduction name."""
    if reduction not in _ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ENUM[reduction]


def legacy_get_enum(size_average, reduce, emit_warning=True):
    """The reduction enum for the deprecated ``size_average``/``reduce`` pair."""
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
