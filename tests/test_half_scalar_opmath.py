"""A float16/bfloat16 tensor times (or divided by) a Python number: torch computes in float32
with the number as a float32 and rounds once; rounding the number to the tensor's dtype first
(NumPy's weak-scalar rule) gave another last bit on 15-30% of values (``-0.1 * x`` of a
float16 3.0: torch -0.3000, that rule -0.2998). Sums and differences with a number round the
number first in torch too, and stay as they were."""

import numpy as np
import pytest
import torch

import numtorch as nt

SCALARS = [0.1, 0.3, -2.3, 1e-3, 123.456, 3, 70000, 1e-8]
FORMS = {
    "mul": lambda x, s: x * s, "rmul": lambda x, s: s * x, "div": lambda x, s: x / s,
    "rdiv": lambda x, s: s / x, "mul_fn": lambda x, s: x.mul(s), "true_divide": lambda x, s:
    x.true_divide(s), "mul_": lambda x, s: x.clone().mul_(s), "div_": lambda x, s: x.clone().div_(s),
    "imul": lambda x, s: _imul(x.clone(), s), "add": lambda x, s: x + s, "rsub": lambda x, s: s - x,
}


def _imul(x, s):
    x *= s
    return x


def _values(seed=0, n=3000):
    return (np.random.default_rng(seed).standard_normal(n) * 3).astype(np.float32)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_values_as_torch(dtype, form):
    v = _values()
    for s in SCALARS:
        got = FORMS[form](nt.tensor(v).to(getattr(nt, dtype)), s)
        want = FORMS[form](torch.tensor(v).to(getattr(torch, dtype)), s)
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy(), err_msg=str(s))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("form", ["mul", "rmul", "div"])
def test_gradients_as_torch(dtype, form):
    v, g = _values(1, 500), _values(2, 500)
    grads = []
    for lib in (nt, torch):
        x = lib.tensor(v).to(getattr(lib, dtype)).requires_grad_()
        y = FORMS[form](x, 0.3)
        y.backward(lib.tensor(g).to(getattr(lib, dtype)))
        grads.append((y.detach().float().numpy(), x.grad.float().numpy(), str(x.grad.dtype)))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])
    assert grads[0][2] == grads[1][2]


def test_float32_and_float64_unchanged():
    v = _values(3, 1000)
    for dtype in ("float32", "float64"):
        got = (nt.tensor(v).to(getattr(nt, dtype)) * 0.1).numpy()
        want = (torch.tensor(v).to(getattr(torch, dtype)) * 0.1).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("form", ["add", "sub", "add_", "sub_"])
def test_alpha_as_torch(dtype, form):
    # torch holds alpha in the tensor's dtype and adds in float32, rounding once
    v, w = _values(4), _values(5)
    for alpha in (0.1, -0.3, 1.7, 2.5, -1e-3):
        outs = []
        for lib in (nt, torch):
            x, y = (lib.tensor(a).to(getattr(lib, dtype)) for a in (v, w))
            f = getattr(x.clone() if form.endswith("_") else x, form)
            outs.append(f(y, alpha=alpha).float().numpy())
        np.testing.assert_array_equal(outs[0], outs[1], err_msg=str(alpha))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("inplace", [False, True])
def test_addcmul_as_torch(dtype, inplace):
    # torch: value * b in float32, then a + that * c rounded once in float32, then to 16 bits
    v = [_values(k) for k in (6, 7, 8)]
    for value in (1, 0.1, -0.3, 1.7):
        outs, grads = [], []
        for lib in (nt, torch):
            a, b, c = (lib.tensor(x).to(getattr(lib, dtype)) for x in v)
            if inplace:
                outs.append(a.clone().addcmul_(b, c, value=value).float().numpy())
            else:
                outs.append(lib.addcmul(a, b, c, value=value).float().numpy())
            a.requires_grad_()
            lib.addcmul(a, b, c, value=value).sum().backward()
            grads.append(str(a.grad.dtype))
        np.testing.assert_array_equal(outs[0], outs[1], err_msg=str(value))
        assert grads[0] == grads[1]
