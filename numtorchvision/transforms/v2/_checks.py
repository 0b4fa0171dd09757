"""Argument checks and normalisations shared by the v2 transforms' constructors (fill values,
padding, ranges), with torchvision's exception classes and messages."""

import collections.abc
import numbers

from .functional._utils import is_pure_tensor

_PAD_MODES = ("constant", "edge", "reflect", "symmetric")
_FILL_TYPES = (numbers.Number, tuple, list)


def _fill_ok(fill):
    if isinstance(fill, dict):
        return all(_fill_ok(v) for v in fill.values())
    return fill is None or isinstance(fill, _FILL_TYPES)


def _fill_value(fill):
    return fill if fill is None or isinstance(fill, (int, float)) else [float(v) for v in fill]


def fill_table(fill):
    """``fill`` as a dict from input type to fill value; ``"others"`` holds the value for the
    types not named.  A dict given by the caller is normalised in place and returned."""
    if not _fill_ok(fill):
        raise TypeError("Got inappropriate fill arg, only Numbers, tuples, lists and dicts are "
                        "allowed.")
    if not isinstance(fill, dict):
        return {"others": _fill_value(fill)}
    for key in fill:
        fill[key] = _fill_value(fill[key])
    return fill


def fill_for(table, inpt):
    kind = type(inpt)
    return table[kind] if kind in table else table.get("others")


def check_padding(padding):
    good = isinstance(padding, int) or (
        isinstance(padding, (tuple, list)) and len(padding) in (1, 2, 4)
        and all(isinstance(v, int) for v in padding))
    if not good:
        raise ValueError("Padding must be an int or a 1, 2, or 4 element of tuple or list, got "
                         f"{padding}.")


def check_padding_mode(mode):
    if mode not in _PAD_MODES:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")


def number_pair(arg, name):
    """A number or a 1- or 2-sequence of numbers as a [lo, hi] list of floats."""
    is_seq = isinstance(arg, collections.abc.Sequence)
    if not (is_seq or isinstance(arg, (int, float))):
        raise TypeError(f"{name} should be a number or a sequence of numbers. Got {type(arg)}")
    if not is_seq:
        return [float(arg)] * 2
    if len(arg) not in (1, 2):
        raise ValueError(f"If {name} is a sequence its length should be 1 or 2. Got {len(arg)}")
    bad = [v for v in arg if not isinstance(v, (int, float))]
    if bad:
        raise ValueError(f"{name} should be a sequence of numbers. Got {type(bad[0])}")
    return [float(arg[0]), float(arg[-1])]


def jitter_range(value, name, center=1.0, bound=(0, float("inf")), clip_at_zero=True):
    """ColorJitter's factor ranges: ``None`` for no change, else a (lo, hi) float pair."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        lo, hi = center - value, center + value
        if clip_at_zero:
            lo = max(lo, 0.0)
    elif isinstance(value, collections.abc.Sequence) and len(value) == 2:
        lo, hi = (float(v) for v in value)
    else:
        raise TypeError(f"{name}={value} should be a single number or a sequence with "
                        "length 2.")
    if not bound[0] <= lo <= hi <= bound[1]:
        raise ValueError(f"{name} values should be between {bound} and increasing, but got "
                         f"{[lo, hi]}.")
    if lo == hi == center:
        return None
    return float(lo), float(hi)


def _labels_by_convention(sample):
    """The labels of a sample: the second item of a pair when it is a tensor, else the value
    of the dict key (of the pair's second item, or of the sample itself) that is "labels" or
    failing that contains "label", case ignored."""
    if isinstance(sample, (tuple, list)):
        sample = sample[1]
    if is_pure_tensor(sample):
        return sample
    if not isinstance(sample, collections.abc.Mapping):
        raise ValueError("When using the default labels_getter, the input passed to forward "
                         "must be a dictionary or a two-tuple whose second item is a dictionary "
                         f"or a tensor, but got {sample} instead.")
    for accept in (lambda k: k.lower() == "labels", lambda k: "label" in k.lower()):
        for key in sample:
            if accept(key):
                return sample[key]
    raise ValueError("Could not infer where the labels are in the sample. Try passing a "
                     "callable as the labels_getter parameter?If there are no labels in the "
                     "sample by design, pass labels_getter=None.")


def labels_getter_fn(labels_getter):
    """The function that finds the labels of a sample, from a transform's ``labels_getter``."""
    if labels_getter == "default":
        return _labels_by_convention
    if callable(labels_getter):
        return labels_getter
    if labels_getter is None:
        return lambda sample: None
    raise ValueError("labels_getter should either be 'default', a callable, or None, but got "
                     f"{labels_getter}.")
