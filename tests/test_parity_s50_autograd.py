"""Session 50 parity tests of autograd (module backward hooks, custom Functions, engine,
torch.autograd.functional): each case runs the same user code under real torch and under
numtorch and compares values, dtypes, shapes and exceptions at test time."""

import warnings

import numpy as np
import torch

import numtorch


def _outcome(lib, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn(lib)
        except Exception as e:  # noqa: BLE001 - the exception itself is compared
            return "err", (type(e).__name__, str(e))


def _leaves(x):
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in _leaves(v)]
    if isinstance(x, dict):
        return [y for k in sorted(x) for y in _leaves(x[k])]
    return [x]


def _check(fn, rtol=1e-5, atol=1e-6, msg=True):
    kind_t, want = _outcome(torch, fn)
    kind_n, got = _outcome(numtorch, fn)
    assert kind_n == kind_t, (want, got)
    if kind_t == "err":
        assert got[0] == want[0], (want, got)
        if msg:
            assert got == want
        return
    lw, lg = _leaves(want), _leaves(got)
    assert len(lw) == len(lg), (want, got)
    for w, g in zip(lw, lg):
        if isinstance(w, torch.Tensor):
            assert isinstance(g, numtorch.Tensor), (want, got)
            assert str(g.dtype) == str(w.dtype)
            assert tuple(g.shape) == tuple(w.shape)
            assert g.requires_grad == w.requires_grad, (want, got)
            np.testing.assert_allclose(np.asarray(g.detach().tolist()),
                                       np.asarray(w.detach().tolist()), rtol=rtol, atol=atol)
        else:
            assert g == w, (want, got)


# -- full backward hooks: an input that got no gradient gets zeros ----------------------------
def _hooked_inputs(lib, kind):
    class M(lib.nn.Module):
        def forward(self, a, b, c):
            return a * 2, b * 3

    m = M()
    seen = []
    if kind == "full":
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    elif kind == "replace":
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[1] + 1, None))
    else:
        m.register_full_backward_pre_hook(lambda mod, go: seen.append(go))
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(3, requires_grad=True)
    o1, _ = m(a, b, lib.ones(1))
    o1.sum().backward()
    return a.grad, b.grad, seen


def test_full_backward_hook_unreached_input_gets_zeros():
    for kind in ("full", "replace", "pre"):
        _check(lambda lib, kind=kind: _hooked_inputs(lib, kind))
