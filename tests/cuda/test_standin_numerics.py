"""The CuPy stand-in rounds as CuPy's compiled kernels do (read from CuPy 14's source).

- ``cupy/cuda/compiler.py`` passes NVRTC no ``--fmad`` option, so its default contracts
  ``a * b + c`` into one fused multiply-add rounded once (the fused Adam update was an ulp off
  the plain rule on an H100); a kernel built with ``options=('--fmad=false',)`` rounds twice.
- the same file compiles every kernel with ``-ftz=true``: float32 arithmetic reads and writes
  subnormals as signed zeros (bfloat16 GELU of 1.8e-40 gave 0 on the H100, torch 9.18e-41);
  float64, conversions and bit operations keep them.
"""

import numpy as np
import pytest

from tests.cuda import standin
from tests.cuda.standin._kernels import fma

cp, cupyx = standin.modules()


@standin.reference("standin_selftest_mad", fmad=True)
def _mad_reference(a, b, c, y, *, fmad):
    y[...] = fma(a, b, c) if fmad else a * b + c


# a * b = 1 + 2 eps' + eps'^2 with eps' = 2^-12 (float32) or 2^-27 (float64): the last term is
# half an ulp of 1, lost (ties to even) when the product is rounded before the addition
@pytest.mark.parametrize("dtype,k", [(np.float32, 12), (np.float64, 27)])
def test_kernels_contract_a_times_b_plus_c_unless_fmad_is_off(dtype, k):
    a = cp.asarray(np.full(3, 1 + 2.0 ** -k, dtype=dtype))
    c = cp.asarray(np.full(3, -1, dtype=dtype))
    exact = 2.0 ** (1 - k) + 2.0 ** (-2 * k)
    contracted = cp.ElementwiseKernel("T a, T b, T c", "T y", "y = a * b + c",
                                      "standin_selftest_mad")(a, a, c)
    assert (contracted.get() == dtype(exact)).all()
    plain = cp.ElementwiseKernel("T a, T b, T c", "T y", "y = a * b + c",
                                 "standin_selftest_mad", options=("--fmad=false",))(a, a, c)
    assert (plain.get() == dtype(2.0 ** (1 - k))).all()
    assert (plain.get() == (a * a + c).get()).all()  # as the ufuncs, one rounding each


def test_kernel_options_must_be_a_tuple():
    k = cp.ElementwiseKernel("T a, T b, T c", "T y", "y = a * b + c", "standin_selftest_mad",
                             options=["--fmad=false"])
    x = cp.asarray(np.ones(2))
    with pytest.raises(TypeError, match="expected tuple"):
        k(x, x, x)


def test_fma_is_rounded_once_on_random_values():
    if np.finfo(np.longdouble).nmant < 63:
        pytest.skip("needs an 80-bit long double for its exact reference")
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(4000) for _ in range(3))
    c *= 1e-3  # much cancellation-free error would hide in a large c
    for dt in (np.float32, np.float64):
        x, y, z = a.astype(dt), b.astype(dt), c.astype(dt)
        exact = x.astype(np.longdouble) * y + z  # 64-bit significand: within 2^-63 here
        r = fma(x, y, z)
        assert r.dtype == dt
        err = np.abs(r.astype(np.longdouble) - exact)
        assert (err <= 0.5001 * np.spacing(np.abs(r)).astype(np.longdouble)).all()
        twice = (x * y + z).astype(np.longdouble)  # two roundings: sometimes farther off
        assert (np.abs(twice - exact) > 0.5001 * np.spacing(np.abs(r))).any()


_SUB = np.float32(1e-40)  # a float32 subnormal


@standin.reference("standin_selftest_halve")
def _halve_reference(a, y):
    y[...] = a * a.dtype.type(0.5)


def test_float32_arithmetic_flushes_subnormals_to_signed_zero():
    x = cp.asarray(np.array([_SUB, -_SUB, 1.5], dtype=np.float32))
    got = (x * 1).get()
    assert got.tolist() == [0.0, 0.0, 1.5] and np.signbit(got).tolist() == [False, True, False]
    tiny = cp.asarray(np.array([1e-20, -3e-20], dtype=np.float32))
    assert (tiny * tiny).get().tolist() == [0.0, 0.0]  # subnormal products
    assert not (x > 0).get()[0]  # a comparison reads the subnormal as zero
    assert cp.exp(cp.asarray(np.array([-88.5], np.float32))).get()[0] == 0  # 3.4e-39
    z = np.empty(1, np.complex64)
    z.real, z.imag = _SUB, np.inf  # each part of a complex64 is flushed, infinities kept
    assert cp.conjugate(cp.asarray(z)).get()[0] == complex(0, -np.inf)
    y = cp.ElementwiseKernel("T a", "T y", "y = a * (T)0.5", "standin_selftest_halve")(
        cp.asarray(np.array([2e-38], np.float32)))
    assert y.get()[0] == 0


def test_what_keeps_subnormals():
    x = cp.asarray(np.array([_SUB, -_SUB], dtype=np.float32))
    assert (x.astype(np.float64) * 1).get()[0] == np.float64(_SUB)  # float64 math, conversion
    assert cp.signbit(x).get().tolist() == [False, True]  # bit operations
    assert cp.isfinite(x).get().all() and cp.copysign(x, 1).get()[1] == _SUB
    assert cp.where(x > -1, x, 0).get()[0] == _SUB  # a selection moves bits
    half = cp.asarray(np.array([1e-7], np.float16))  # half's subnormals are normal float32s
    assert (half * np.float16(0.5)).get()[0] != 0
    d = cp.asarray(np.array([1e-310]))
    assert (d * 0.5).get()[0] == 5e-311
