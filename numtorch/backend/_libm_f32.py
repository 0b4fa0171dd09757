"""Float32 transcendental functions rounded as torch's CPU kernels round them.

torch computes a float32 ``exp``/``tanh``/``log10``/... with glibc's scalar functions for the
few values outside its vector loop and with SLEEF's 1-ulp vector functions inside it; both give
the correctly rounded float32 on all but ~1% of values. NumPy's own float32 SIMD kernels are
less accurate: they differ from torch's on 10-45% of values (exp 39%, log10 45%, tanh 32%), so
a scalar ``x.exp().item()`` printed the last digits differently. Computing in float64 and
rounding once reproduces the correctly rounded value. It costs 2-3x NumPy's float32 kernel, so
only arrays up to ``SMALL`` values take that route: there the extra 0.5-2.5 us is below one op's
dispatch, and those are the values users print. Larger arrays keep NumPy's fast kernel.
Measured against torch 2.13 (tests/test_libm_f32.py): erf, asinh, acosh and sqrt gain nothing
this way (their torch kernels are not correctly rounded), so they are not routed here.
"""

import numpy as np

SMALL = 1024
_F32 = np.dtype(np.float32)  # NumPy's native-order float32 dtype is one object
_F64 = np.float64


def float32_rounded(ufunc, x, out=None):
    """``ufunc(x, out=out)``; a float32 array of at most ``SMALL`` values computes in float64
    and is rounded once to float32."""
    if type(x) is np.ndarray and x.dtype is _F32 and x.size <= SMALL:
        # (other array-likes, such as sparse values, keep the ufunc's own dispatch)
        r = ufunc(x.astype(_F64))  # a third faster than ufunc(x, dtype=float64) on small x
        if out is None:
            return r.astype(_F32)
        out[...] = r
        return out
    return ufunc(x) if out is None else ufunc(x, out=out)
