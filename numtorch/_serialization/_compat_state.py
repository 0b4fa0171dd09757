"""Attributes torch's modules need in a pickled whole model that numtorch's do not keep.

A whole-model pickle is the module's ``__dict__``. numtorch's modules mirror torch's
attributes, except for a few caches torch's ``__setstate__`` or ``forward`` expects to find
(numtorch computes the same thing when needed). The writer adds them, under torch's names,
so real torch can run a model numtorch saved; numtorch ignores them when loading torch's.
Each entry is keyed by the torch class name the numtorch class is written as.
"""

import functools

from . import _names


def _rnn_flat_weights(module, state):
    # torch's RNNBase.__setstate__ rebuilds its weak references from this list
    names = state.get("_flat_weights_names", ())
    params = state.get("_parameters", {})
    return {"_flat_weights": [params.get(n) for n in names]}


def _encoder_layer_fast_path(module, state):
    # torch's TransformerEncoderLayer.forward reads this flag in eval mode (0: other, 1: relu,
    # 2: gelu), set by its __init__ from the activation
    from ..nn import functional as F
    from ..nn.modules.activation import GELU, ReLU

    act = state.get("activation")
    flag = 1 if act is F.relu or isinstance(act, ReLU) else \
        2 if act is F.gelu or isinstance(act, GELU) else 0
    return {"activation_relu_or_gelu": flag}


_EXTRAS = {
    "torch.nn.modules.rnn.RNNBase": _rnn_flat_weights,
    "torch.nn.modules.transformer.TransformerEncoderLayer": _encoder_layer_fast_path,
}


@functools.lru_cache(maxsize=None)
def _extra_for_type(cls):
    for klass in cls.__mro__:
        module, qualname = klass.__module__, klass.__qualname__
        if not module.startswith("numtorch"):
            continue
        tmodule, tqualname = _names.torch_name(klass, module, qualname)
        fn = _EXTRAS.get(f"{tmodule}.{tqualname}")
        if fn is not None:
            return fn
    return None


def with_torch_state(obj, protocol):
    """``obj``'s reduce tuple with torch's extra attributes added to its state, or None when
    ``obj`` needs none."""
    fn = _extra_for_type(type(obj))
    if fn is None:
        return None
    rv = obj.__reduce_ex__(protocol)
    if not (isinstance(rv, tuple) and len(rv) >= 3 and isinstance(rv[2], dict)):
        return None
    state = dict(rv[2])
    for k, v in fn(obj, state).items():
        state.setdefault(k, v)
    return rv[:2] + (state,) + rv[3:]
