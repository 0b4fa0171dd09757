"""Argument helpers layer code imports from torch's ``nn.modules.utils`` (``_pair`` and kin),
and ``consume_prefix_in_state_dict_if_present``."""

import collections.abc

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n, name="parse"):
    """A function that repeats a scalar ``n`` times and turns an iterable into a tuple."""

    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return (x,) * n

    parse.__name__ = parse.__qualname__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """``t`` reversed with each entry repeated ``n`` times: the order ``F.pad`` wants for
    per-dimension padding given first dimension first."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """``out_size`` with each None replaced by the matching trailing entry of ``defaults``
    (an adaptive pooling output size where None keeps the input's size)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    tail = defaults[len(defaults) - len(out_size):]
    return [d if v is None else v for v, d in zip(out_size, tail)]


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strip ``prefix`` from the keys of ``state_dict`` that have it, in place.

    Used to load a checkpoint saved from a wrapped model (``DataParallel`` writes
    ``module.``-prefixed keys) into the bare model. The ``_metadata`` entries are renamed
    the same way, the wrapper's own entry (``prefix`` without its dot) becoming ``""``.

    Args:
        state_dict (OrderedDict): the state dict to edit.
        prefix (str): the prefix to remove, e.g. ``"module."``.
    """
    for key in [k for k in state_dict if k.startswith(prefix)]:
        state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    for key in list(metadata):
        if key.startswith(prefix):
            metadata[key[len(prefix):]] = metadata.pop(key)
        elif prefix.endswith(".") and key == prefix[:-1]:
            metadata[""] = metadata.pop(key)
