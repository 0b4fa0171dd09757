"""float16/bfloat16 rounded division and powers as torch's kernels round them.

- ``//``, ``div(rounding_mode="floor"|"trunc")`` by a single value (a Python number, held as a
  float32, or a one-element tensor) work in float32 and round once; between two tensors each
  step of the floor division rounds to the 16-bit type (NumPy's float16 kernel works in
  float32 throughout: 0.1-0.7% of values differed; by a number 3-57% did).
- ``x ** p``: the exponent rounded to the dtype, the power in float32, rounded once; bfloat16's
  cube and ``** -2`` step in bfloat16 (bfloat16 ``x ** 0.3`` differed on 41% of values, float16
  ``x ** 3`` on 21%)."""

import numpy as np
import pytest
import torch

import numtorch as nt

DTYPES = ["float16", "bfloat16"]
SCALARS = [0.1, 0.3, 3, 7, -2.3, 1e-3]


def _x(lib, dtype, seed=0, n=6007, scale=30.0, positive=False):
    v = (np.random.default_rng(seed).standard_normal(n) * scale).astype(np.float32)
    v = np.abs(v) if positive else v
    v[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.0]
    return lib.tensor(v).to(getattr(lib, dtype))


def _same(f, dtype, **kw):
    got, want = f(nt, dtype, **kw), f(torch, dtype, **kw)
    for g, w in zip(got, want):
        assert str(g.dtype) == str(w.dtype)
        np.testing.assert_array_equal(g.detach().float().numpy(), w.detach().float().numpy())


FORMS = {
    "floordiv": lambda x, s: x // s,
    "rfloordiv": lambda x, s: s // x,
    "floor": lambda x, s: x.div(s, rounding_mode="floor"),
    "trunc": lambda x, s: x.div(s, rounding_mode="trunc"),
    "floor_divide_": lambda x, s: x.clone().floor_divide_(s),
    "div_trunc_": lambda x, s: x.clone().div_(s, rounding_mode="trunc"),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", sorted(FORMS))
def test_rounded_division_by_numbers(dtype, form):
    def run(lib, dtype):
        x = _x(lib, dtype)
        return [FORMS[form](x, s) for s in SCALARS]
    _same(run, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", sorted(FORMS))
def test_rounded_division_by_tensors(dtype, form):
    def run(lib, dtype):
        x, y = _x(lib, dtype), _x(lib, dtype, seed=1, scale=3.0)
        one = lib.tensor(0.1).to(x.dtype)
        outs = [FORMS[form](x, y), FORMS[form](x, one), FORMS[form](x, y[7:8])]
        if not form.endswith("_"):  # (in place, the result cannot grow)
            outs.append(FORMS[form](x.reshape(-1, 1)[:50], y[:40]))
        return outs
    _same(run, dtype)


EXPONENTS = [0.1, 0.3, 3, -2.3, 2, 0.5, -1, -2, 1.5, 4, -3, 0.25, 1 / 3, 0, 1, 10]


@pytest.mark.parametrize("dtype", DTYPES)
def test_power_of_numbers(dtype):
    def run(lib, dtype):
        x, p = _x(lib, dtype, positive=True), _x(lib, dtype, seed=2)
        return [x ** e for e in EXPONENTS] + [p ** e for e in EXPONENTS] + [
            x.pow(0.3), lib.pow(p, 3), x.clone().pow_(-2.3)]
    _same(run, dtype)


def test_float16_inverse_square_root_as_the_power():
    # (bfloat16's ** -0.5 is a reciprocal square root: -inf at -0.0, as torch's)
    for dtype in DTYPES:
        _same(lambda lib, dtype: [_x(lib, dtype)[:64] ** -0.5], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("e", [0.3, 3, -2.3, -2, 0.5])
def test_power_gradients(dtype, e):
    def run(lib, dtype):
        x = _x(lib, dtype, positive=True, n=517)[6:].clone().requires_grad_()
        g = _x(lib, dtype, seed=4, n=511, scale=1.0)
        y = x ** e
        (gx,) = lib.autograd.grad(y, x, g)
        return [y, gx]
    _same(run, dtype)
