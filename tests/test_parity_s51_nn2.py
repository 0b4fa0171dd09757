"""Session 51 (helper nn2) parity fixes, each checked against real torch at test time: the
float32 exact GELU's tails (erf = +-1), ..."""

import numpy as np
import pytest
import torch

import numtorch

_TAIL = [-1e30, -100.0, -20.0, -10.0, -8.0, -7.0, -6.5, -6.2, 5.6, 6.0, 10.0, 1e30]


def _bits_equal(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, what
    na, nb = np.isnan(a), np.isnan(b)
    assert (na == nb).all(), f"{what}: NaN at {np.nonzero(na != nb)}"
    assert (np.signbit(a) == np.signbit(b)).all(), f"{what}: sign {a} != {b}"
    assert (a[~na] == b[~nb]).all(), f"{what}: {a} != {b}"


def _gelu_run(lib, values, layout, grad):
    base = lib.tensor(values, dtype=lib.float32)
    x = lib.stack([base, base.flip(0), base]).contiguous()  # (3, n)
    if layout == "flat":
        x = base.clone()
    elif layout == "t":
        x = x.t()
    elif layout == "strided":
        x = x[::2]
    if grad:
        x.requires_grad_()
    y = lib.nn.functional.gelu(x)
    if not grad:
        return [y.numpy()]
    g = lib.ones_like(y) * 3
    gx, = lib.autograd.grad(y, x, g)
    return [y.detach().numpy(), gx.numpy()]


# -- 1. float32 exact GELU: zero slope once erf is -1 (x <= -6.15), GELU(+-inf) is NaN --------
# (torch runs contiguous inputs through oneDNN; the others keep GELU(inf) = inf: checked too)
@pytest.mark.parametrize("layout,grad", [("contiguous", True), ("contiguous", False),
                                         ("flat", True), ("flat", False), ("t", False),
                                         ("strided", False)])
def test_gelu_float32_tails(layout, grad):
    values = _TAIL + [float("inf"), float("-inf"), float("nan")]
    got = _gelu_run(numtorch, values, layout, grad)
    want = _gelu_run(torch, values, layout, grad)
    for i, (a, b) in enumerate(zip(got, want)):
        _bits_equal(a, b, f"gelu output {i}")


def test_gelu_float32_tail_double_backward():
    def run(lib):
        x = lib.tensor(_TAIL, dtype=lib.float32, requires_grad=True)
        g = lib.full((len(_TAIL),), 2.0, requires_grad=True)
        gx, = lib.autograd.grad(lib.nn.functional.gelu(x), x, g, create_graph=True)
        gg, = lib.autograd.grad(gx.sum(), g)
        return gx.detach().numpy(), gg.numpy()

    for i, (a, b) in enumerate(zip(run(numtorch), run(torch))):
        _bits_equal(a, b, f"double backward {i}")
