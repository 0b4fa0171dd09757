"""Run one piece of user code under real torch and under numtorch and compare what it gives
(the parity files of torch.func and autograd: ``fn(lib)`` is called with each library)."""

import warnings

import numpy as np
import torch

import numtorch


def outcome(lib, fn):
    """("ok", what ``fn(lib)`` returned) or ("err", (exception class name, message))."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn(lib)
        except Exception as e:  # noqa: BLE001 - the exception itself is compared
            return "err", (type(e).__name__, str(e))


def leaves(x):
    """The values of nested tuples/lists/dicts (dicts by sorted key), flattened."""
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in leaves(v)]
    if isinstance(x, dict):
        return [y for k in sorted(x) for y in leaves(x[k])]
    return [x]


def check(fn, rtol=1e-5, atol=1e-6, msg=True, same_container=False, grad_flags=False):
    """``fn`` gives the same under both libraries: the same exception (class, and message
    unless ``msg`` is false), or the same leaves (tensors: dtype, shape and values within
    tolerance; others equal). ``same_container`` compares the outer result's type name too;
    ``grad_flags`` each tensor's class and ``requires_grad``."""
    kind_t, want = outcome(torch, fn)
    kind_n, got = outcome(numtorch, fn)
    assert kind_n == kind_t, (want, got)
    if kind_t == "err":
        assert got[0] == want[0], (want, got)
        if msg:
            assert got == want
        return
    lw, lg = leaves(want), leaves(got)
    assert len(lw) == len(lg), (want, got)
    if same_container:
        assert type(got).__name__ == type(want).__name__
    for w, g in zip(lw, lg):
        if isinstance(w, torch.Tensor):
            if grad_flags:
                assert isinstance(g, numtorch.Tensor), (want, got)
                assert g.requires_grad == w.requires_grad, (want, got)
            assert str(g.dtype) == str(w.dtype)
            assert tuple(g.shape) == tuple(w.shape)
            np.testing.assert_allclose(np.asarray(g.detach().tolist()),
                                       np.asarray(w.detach().tolist()), rtol=rtol, atol=atol)
        else:
            assert g == w, (want, got)
