"""Gap (s37): first and second derivatives of logaddexp/logaddexp2 at infinite inputs.

torch differentiates ``log(e^a + e^b)`` as ``g / (1 + exp(b - a))`` (``2 ** (b - a)`` for
logaddexp2), and its second derivative is that formula's own: where one operand is -inf and
the other finite or +inf, ``exp`` overflows to inf and inf / inf gives NaN (numtorch's
sigmoid form gave 0). Values are compared bit for bit with torch, first and second order,
over every pair of {-inf, +inf, 0, 1, -2.5, NaN}; random finite values to the ulps that
NumPy's and torch's exp differ by; complex values closely.
"""

import itertools
import math

import numpy as np
import pytest
import torch

import numtorch

SPECIAL = [-math.inf, math.inf, 0.0, 1.0, -2.5, math.nan]


def _derivatives(T, fn, a, b, dtype, w):
    x = T.tensor(a, dtype=dtype, requires_grad=True)
    y = T.tensor(b, dtype=dtype, requires_grad=True)
    out = getattr(T, fn)(x, y)
    cot = T.tensor(w, dtype=out.dtype)
    gx, gy = T.autograd.grad(out, (x, y), cot, create_graph=True)
    rows = [out, gx, gy]
    for g in (gx, gy):
        rows.extend(T.autograd.grad(g, (x, y), T.ones_like(g), retain_graph=True))
    return [r.detach().numpy() for r in rows]


def _same(got, ref):
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(g, r)  # NaN where NaN, same bits of -0. aside
        assert np.array_equal(np.signbit(g), np.signbit(r)) or np.isnan(r).any()


@pytest.mark.parametrize("fn", ["logaddexp", "logaddexp2"])
@pytest.mark.parametrize("a,b", list(itertools.product(SPECIAL, SPECIAL)))
def test_special_points(fn, a, b):
    ref = _derivatives(torch, fn, a, b, torch.float64, 1.0)
    got = _derivatives(numtorch, fn, a, b, numtorch.float64, 1.0)
    _same(got, ref)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fn", ["logaddexp", "logaddexp2"])
def test_random_values_bitwise(fn, dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(40) * 5).tolist() + [-math.inf] * 3 + [math.inf, 3.0, 0.5]
    b = (rng.standard_normal(40) * 5).tolist() + [2.0, -math.inf, math.inf, -math.inf,
                                                 math.inf, -math.inf]
    w = rng.standard_normal(46).tolist()
    ref = _derivatives(torch, fn, a, b, getattr(torch, dtype), w)
    got = _derivatives(numtorch, fn, a, b, getattr(numtorch, dtype), w)
    # NaN and infinities where torch's are; finite values within the ulps that NumPy's and
    # torch's exp differ by (their forward values differ so too)
    tol = 1e-14 if dtype == "float64" else 2e-6
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
        np.testing.assert_allclose(g, r, rtol=tol, atol=tol * 1e-3)


def test_complex_first_and_second_order():
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).tolist()
    b = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).tolist()
    w = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).tolist()
    ref = _derivatives(torch, "logaddexp", a, b, torch.complex128, w)
    got = _derivatives(numtorch, "logaddexp", a, b, numtorch.complex128, w)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-14)


def test_broadcast_gradients():
    rng = np.random.default_rng(2)
    xa, ya = rng.standard_normal((3, 1)), rng.standard_normal((4,))
    xa[0, 0] = -math.inf
    res = []
    for T in (torch, numtorch):
        x = T.tensor(xa, requires_grad=True)
        y = T.tensor(ya, requires_grad=True)
        gx, gy = T.autograd.grad(T.logaddexp(x, y).sum(), (x, y), create_graph=True)
        hx, hy = T.autograd.grad((gx.sum() + 2 * gy.sum()), (x, y))
        res.append([t.detach().numpy() for t in (gx, gy, hx, hy)])
    _same(res[1], res[0])
