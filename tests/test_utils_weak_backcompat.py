"""torch.utils.weak (identity-keyed weak dictionaries and references, usable with tensors as
keys) and torch.utils.backcompat's switches, against torch."""

import gc

import pytest
import torch

import numtorch


def _session(L):
    import importlib

    w = importlib.import_module(L.__name__ + ".utils.weak")
    out = []
    a, b = L.ones(2), L.ones(2)
    d = w.WeakIdKeyDictionary()
    d[a], d[b] = 1, 2
    out.append((len(d), d[a], a in d, L.ones(1) in d, 3 in d))
    del b
    gc.collect()
    out.append((len(d), list(d.values()), [k is a for k in d]))
    r = w.WeakIdRef(a)
    out.append((r() is a, hash(r) == hash(w.WeakIdRef(a)), r == w.WeakIdRef(a)))
    out.append(w.TensorWeakRef(a)() is a)
    d2 = w.WeakTensorKeyDictionary({a: 5})
    out.append((d2[a], d2.get(L.ones(1), "none"), len(d2.copy())))
    del d2[a]
    out.append(len(d2))
    c = L.zeros(3)
    ref = w.TensorWeakRef(c)
    del c
    gc.collect()
    out.append(ref() is None)
    with pytest.raises(KeyError):
        d[L.ones(1)]
    return out


def test_weak_matches_torch():
    assert _session(numtorch) == _session(torch)


def test_backcompat_switches():
    import torch.utils.backcompat as tb

    import numtorch.utils.backcompat as nb

    for m in (tb, nb):
        assert m.broadcast_warning.enabled is False and m.keepdim_warning.enabled is False
        m.keepdim_warning.enabled = True
        assert m.keepdim_warning.enabled is True
        m.keepdim_warning.enabled = False
