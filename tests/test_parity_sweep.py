"""Small parity defects found in passing, each checked against torch: integer wrap-around of
out-of-range Python numbers, reduced-precision normalisation, messages and exception classes
torch gives for bad input, 0-d and empty inputs of losses and random functions."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import _builtin_base, assert_same


def _run(fn, lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn(lib)
        except Exception as e:  # noqa: BLE001 - the exception is the result compared
            r = e
    return r, [(x.category, str(x.message)) for x in w]


def _comparable(a, b):
    """bfloat16 tensors as float32 ones (torch has no NumPy bfloat16), dtypes checked first."""
    if isinstance(b, torch.Tensor) and b.dtype == torch.bfloat16:
        assert isinstance(a, numtorch.Tensor) and str(a.dtype) == str(b.dtype), f"{a!r}"
        return a.float(), b.float()
    return a, b


def _same(fn, rtol=0, atol=0, warns=True):
    """``fn(numtorch)`` and ``fn(torch)`` give the same values/dtypes/shapes, or raise the same
    builtin class with the same message; and the same warnings unless ``warns`` is False."""
    (a, wa), (b, wb) = _run(fn, numtorch), _run(fn, torch)
    if isinstance(b, Exception):
        assert isinstance(a, Exception), f"numtorch returned {a!r}; torch raised {b!r}"
        assert isinstance(a, _builtin_base(type(b))), f"{a!r} vs {b!r}"
        assert str(a) == str(b).split(" (Triggered internally")[0], f"{a} vs {b}"
    else:
        assert not isinstance(a, Exception), f"numtorch raised {a!r}; torch gave {b!r}"
        if isinstance(b, (list, tuple)):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                assert_same(*_comparable(x, y), rtol, atol)
        else:
            assert_same(*_comparable(a, b), rtol, atol)
    if warns:
        assert wa == [(c, m.split(" (Triggered internally")[0]) for c, m in wb], f"{wa} != {wb}"


# -- rms_norm in half precision -------------------------------------------------------------------
def _rms(t, dt, value=None, weight_dt=None, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 4)) * 100 if value is None else np.full((3, 4), value)
    w = None if weight_dt is None else t.tensor(rng.standard_normal(4), dtype=weight_dt)
    return t.nn.functional.rms_norm(t.tensor(x, dtype=dt), (4,), w)


RMS = [("f16-300", lambda t: _rms(t, t.float16, 300.)),
       ("f16-small", lambda t: _rms(t, t.float16, 0.01)),
       ("f16-random", lambda t: _rms(t, t.float16)),
       ("bf16-small", lambda t: _rms(t, t.bfloat16, 0.01)),
       ("bf16-huge", lambda t: _rms(t, t.bfloat16, 3e30)),
       ("bf16-random", lambda t: _rms(t, t.bfloat16)),
       ("f16-f32-weight", lambda t: _rms(t, t.float16, weight_dt=t.float32)),
       ("bf16-f64-weight", lambda t: _rms(t, t.bfloat16, weight_dt=t.float64)),
       ("f32-f64-weight", lambda t: _rms(t, t.float32, weight_dt=t.float64)),
       ("f64-f16-weight", lambda t: _rms(t, t.float64, weight_dt=t.float16)),
       ("module-f16", lambda t: t.nn.RMSNorm(4, dtype=t.float16)(t.full((2, 4), 300.,
                                                                       dtype=t.float16))),
       ("module-bf16", lambda t: t.nn.RMSNorm(4, dtype=t.bfloat16)(t.full((2, 4), .01,
                                                                         dtype=t.bfloat16))),
       ("module-f32-on-f16", lambda t: t.nn.RMSNorm(4)(t.full((2, 4), 300., dtype=t.float16)))]


@pytest.mark.parametrize("name,fn", RMS, ids=[c[0] for c in RMS])
def test_rms_norm_reduced_precision(name, fn):
    # torch warns once per process about mixed dtypes (not reproducible per call)
    _same(lambda t: fn(t).detach(), rtol=1e-2, atol=1e-3, warns=False)


def test_rms_norm_half_gradient():
    rng = np.random.default_rng(1)
    x, w, g = rng.standard_normal((3, 4)) * 200, rng.standard_normal(4), rng.standard_normal(
        (3, 4))
    res = []
    for t in (numtorch, torch):
        xt = t.tensor(x, dtype=t.float16, requires_grad=True)
        wt = t.tensor(w, dtype=t.float16, requires_grad=True)
        t.nn.functional.rms_norm(xt, (4,), wt).backward(t.tensor(g, dtype=t.float16))
        res.append((xt.grad, wt.grad))
    for a, b in zip(*res):
        assert_same(a, b, 2e-2, 2e-3)
        assert bool(np.isfinite(a.numpy()).all())
