"""The CuPy stand-in rounds as CuPy's compiled kernels do (read from CuPy 14's source).

- ``cupy/cuda/compiler.py`` passes NVRTC no ``--fmad`` option, so its default contracts
  ``a * b + c`` into one fused multiply-add rounded once (the fused Adam update was an ulp off
  the plain rule on an H100); a kernel built with ``options=('--fmad=false',)`` rounds twice.
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
