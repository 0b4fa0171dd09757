"""Where CuPy 14's elementwise math differs from NumPy's, the stand-in follows CuPy (read from
its source; the values were seen on an H100).

- ``cupy.broadcast_arrays`` broadcasts only the device arrays among its arguments and hands
  anything else (a Python int) back untouched (``internal._broadcast_core``), and
  ``cupy.where`` calls ``condition.astype``: a Python ``bool`` condition raises
  AttributeError. ``cupyx.scipy.special.polygamma`` is written on both, so a Python int order
  fails there ('bool' object has no attribute 'astype').
- ``cupyx.scipy.special.i0`` is CUDA's ``cyl_bessel_i0``: +inf at +-inf on the H100 (SciPy and
  torch give NaN there); ``i0e`` multiplies it by ``exp(-|x|)``, which makes 0 * inf = NaN at
  +-inf (SciPy and torch: 0).
- float ``floor_divide`` is ``floor(a / b)`` and float ``remainder`` is ``a - floor(a / b) * b``
  (``cupy/_core/include/cupy/carray.cuh``'s ``_floor_divide``, ``_routines_math.pyx``), the
  product contracted into a fused multiply-add by NVRTC for float32/float64; NumPy and torch
  correct the quotient with ``fmod``. So ``1 // -inf`` is -0.0 (torch -1), ``inf // 1`` is inf
  (torch NaN), ``1 // 0.1`` is 10 (torch 9), and ``0 % inf`` is 0 - 0 * inf = NaN (torch 0).
- complex ``true_divide`` (thrust's ``operator/`` in ``cupy/complex/arithmetic.h``) scales by
  ``1 / (|c| + |d|)``: any quotient by zero is NaN + NaN j (NumPy and torch: inf or NaN per
  part, so ``nan_to_num(z / 0)`` gave 0 on the GPU), and its sums of products are contracted.
- signed ``lcm`` (``cupy/_math/rational.py``) is ``r = a / gcd * b`` stored in the type, then
  ``-r`` if negative: for int8/int16 the product is formed in C's ``int`` and wraps on the
  store, so lcm(-14, 13) = int8(-182) = 74 (NumPy and torch wrap |a| / gcd * |b|: -74).
- ``round``/``around`` with ``decimals`` (``_round_float`` in ``cupy/_core/core.pyx``) scale by
  10^|decimals| in double precision, whatever the float type: float32 0.35 (0.3499999940...)
  rounds to 0.3, where NumPy and torch scale in float32 (3.5 exactly) and give 0.4.
- ``sum`` with a ``dtype`` other than the input's cannot use CUB (``cub._cub_reduce_dtype_
  compatible``) and runs ``cupy_sum_with_dtype``: the input cast to ``dtype``, then each
  thread's elements combined in a tree (x0 + x2) + (x1 + x3), where NumPy and torch add a short
  row in order: an ulp apart in float32 (test_sum_mean_dtype_argument[cuda-sum]).
- ``logical_and``/``or``/``xor``/``not`` have no complex loops (``_routines_logic.pyx``'s
  ``create_comparison``, ``cupy/_logic/ops.py``): TypeError "Wrong type ... of arguments".
- float ``maximum``/``minimum`` are ``max``/``min`` of CUDA after a NaN test, and
  ``fmax``/``fmin`` are CUDA's ``fmax``/``fmin`` (``cupy/_math/misc.py``; the half types convert
  to float, ``cupy/_core/include/cupy/float16.cuh``): all compile to PTX ``max``/``min``, which
  order +0.0 above -0.0 (the PTX ISA's semantics of ``max.f32``/``max.f64``). So max(-0., 0.) is
  +0. and min(0., -0.) is -0. in either operand order, where NumPy gives its second operand on
  ties (relu(-0.) written as maximum(0, x) gave +0. on an H200, torch and NumPy -0.).
- ``clip`` is one ufunc, ``in1 > in2 ? in2 : (in0 < in1 ? in1 : (in0 > in2 ? in2 : in0))``
  (``_routines_math.pyx``), a missing bound being -inf/+inf (or the integer type's limits):
  ties keep x (-0. stays -0. against a 0 bound), a NaN x stays NaN, and lo > hi gives hi.
  NumPy's clip with one bound runs maximum/minimum and gives the bound on ties.
"""

import numpy as np

from ._kernels import fma

from ._array import STATS, ndarray, row_major, wrap


def _broadcast_arrays(cp):
    def broadcast_arrays(*args):
        arrays = [a for a in args if type(a) is ndarray]
        if not arrays:
            return tuple(args)
        shape = cp.broadcast_shapes(*(a.shape for a in arrays))
        return tuple(cp.broadcast_to(a, shape) if type(a) is ndarray else a for a in args)

    return broadcast_arrays


def _where(original):
    def where(condition, x=None, y=None):
        if x is not None and y is not None and not hasattr(condition, "astype"):
            raise AttributeError(f"'{type(condition).__name__}' object has no attribute "
                                 "'astype'")
        return original(condition, x, y)

    where.__name__ = "where"
    return where


def _polygamma(cp, special):
    def polygamma(n, x):
        """CuPy's composition (cupyx/scipy/special/_polygamma.py)."""
        n, x = cp.broadcast_arrays(n, x)
        fac2 = (-1.0) ** (n + 1) * special.gamma(n + 1.0) * special.zeta(n + 1.0, x)
        return cp.where(n == 0, special.digamma(x), fac2)

    return polygamma


def _elementwise(fn):
    """A ufunc body (the stand-in's ``ufunc`` passes ``casting``/``dtype``/``out``) around a
    function of arrays that takes no keywords (SciPy's Python-level ``zeta``)."""
    def f(*ins, out=None, dtype=None, casting="same_kind", where=None):
        r = np.asarray(fn(*ins))
        if dtype is not None:
            r = r.astype(dtype)
        if out is not None:
            np.copyto(out[0], r, casting=casting)
            return out[0]
        return r

    return f


def _cyl_bessel_i0(x):
    """CUDA's ``cyl_bessel_i0``: SciPy's values, but +inf at +-inf."""
    from scipy import special as sp

    r = np.asarray(sp.i0(x))
    return np.where(np.isinf(x), r.dtype.type(np.inf), r)


def _i0e(x):
    with np.errstate(invalid="ignore"):
        return np.exp(-np.abs(x)) * _cyl_bessel_i0(x)


def _i1e(x):
    """CuPy's ``i1e``: ``exp(-|x|)`` times CUDA's ``cyl_bessel_i1`` (+-inf at +-inf), so NaN
    at +-inf (an H200 gave NaN where torch gives +-0)."""
    from scipy import special as sp

    r = np.asarray(sp.i1(x))
    r = np.where(np.isinf(x), np.copysign(r.dtype.type(np.inf), x), r)
    with np.errstate(invalid="ignore"):
        return np.exp(-np.abs(x)) * r


def _float_rule(np_fn, rule, kind="f"):
    """A ufunc body: NumPy's ``np_fn`` for the result dtype and other kinds, CuPy's ``rule``
    for results of ``kind`` (computed in the result dtype)."""
    def f(a, b, out=None, dtype=None, casting="same_kind", where=None):
        kw = {"casting": casting} if dtype is None else {"casting": casting, "dtype": dtype}
        r = np_fn(a, b, **kw)
        t = np.asarray(r).dtype
        if t.kind == kind:
            r = np.asarray(rule(np.asarray(a).astype(t), np.asarray(b).astype(t)), dtype=t)
        if out is not None:
            np.copyto(out[0], r, casting=casting)
            return out[0]
        return r

    return f


def _floor_div(a, b):
    return np.floor(a / b)


def _remainder(a, b):
    q = np.floor(a / b)
    if a.dtype.itemsize >= 4:
        return fma(-q, b, a)
    return a - q * b  # the half types' operators round each step


def _real_only(name, np_fn):
    """A ufunc body refusing complex operands as a CuPy ufunc without complex loops does."""
    def f(*args, **kw):
        ins = args[:np_fn.nin]
        if any(np.asarray(x).dtype.kind == "c" for x in ins):
            types = tuple(np.asarray(x).dtype for x in ins)
            raise TypeError(f"Wrong type ({types}) of arguments for cupy_{name}")
        return np_fn(*args, **kw)

    return f


def _lcm(a, b):
    t = a.dtype
    work = np.dtype(np.int64 if t.itemsize == 8 else np.int32)  # C promotes narrow types
    x, y = a.astype(work), b.astype(work)
    g = np.gcd(x, y)
    with np.errstate(all="ignore"):
        r = (x // np.where(g == 0, 1, g) * y).astype(t)  # exact quotient; the store wraps
        r = np.where(r < 0, (-r.astype(work)).astype(t), r)
    return np.where(g == 0, t.type(0), r)


def _round_in_double(x, decimals):
    """CuPy's rounding of float or complex host array ``x``."""
    if x.dtype.kind not in "fc" or decimals == 0:
        return np.round(x, decimals)
    if x.dtype.kind == "c":
        out = np.empty_like(x)
        out.real, out.imag = _round_in_double(x.real, decimals), _round_in_double(x.imag,
                                                                                  decimals)
        return out
    f = 10.0 ** abs(decimals)
    w = x.astype(np.float64)
    with np.errstate(all="ignore"):
        r = np.rint(w / f) * f if decimals < 0 else np.rint(w * f) / f
    return r.astype(x.dtype)


def _round_function(make_function, name):
    def fn(a, decimals=0, out=None):
        r = _round_in_double(a, decimals)
        if out is not None:
            out[...] = r
            return out
        return r

    return make_function(name, fn, ["a", "decimals", "out"])


def _round_method(self, decimals=0, out=None):
    STATS["kernels"] += 1  # (a method replaced here counts its launch as the others do)
    r = wrap(row_major(_round_in_double(self._d, decimals)))
    if out is not None:
        out[...] = r
        return out
    return r


def _tree_sum(x, axis, dtype, keepdims):
    """``x`` cast to ``dtype`` and summed over ``axis`` as a GPU block does: padded with zeros
    to a power of two, each half added onto the other until one value is left."""
    x = np.asarray(x).astype(dtype)
    nd = x.ndim
    axes = tuple(range(nd)) if axis is None else tuple(
        a % nd for a in (axis if isinstance(axis, tuple) else (axis,)))
    keep = [k for k in range(nd) if k not in axes]
    y = x.transpose(keep + list(axes)).reshape([x.shape[k] for k in keep] + [-1])
    n = y.shape[-1]
    p = 1 << max(n - 1, 0).bit_length()
    if p > n:
        y = np.concatenate([y, np.zeros(y.shape[:-1] + (p - n,), y.dtype)], axis=-1)
    while y.shape[-1] > 1:
        h = y.shape[-1] // 2
        y = y[..., :h] + y[..., h:]
    y = y[..., 0] if n else np.zeros(y.shape[:-1], y.dtype)
    if keepdims:
        y = y.reshape([1 if k in axes else x.shape[k] for k in range(nd)])
    return y


def _with_dtype_reduction(np_sum):
    def total(a, axis=None, dtype=None, out=None, keepdims=False):
        if dtype is None or np.dtype(dtype) == np.asarray(a).dtype or \
                np.dtype(dtype).kind != "f":
            return np_sum(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
        r = _tree_sum(a, axis, dtype, keepdims)
        if out is not None:
            out[...] = r
            return out
        return r

    return total


def _sum_method(self, axis=None, dtype=None, out=None, keepdims=False):
    STATS["kernels"] += 1
    if out is not None:
        out = out._d
    r = _with_dtype_reduction(np.sum)(self._d, axis, dtype, out, keepdims)
    return wrap(row_major(np.asarray(r))) if out is None else out


def _complex_quotient(a, b):
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    with np.errstate(all="ignore"):
        oos = 1 / (np.abs(br) + np.abs(bi))
        ars, ais, brs, bis = ar * oos, ai * oos, br * oos, bi * oos
        oos = 1 / fma(brs, brs, bis * bis)
        out = np.empty(np.broadcast_shapes(a.shape, b.shape), a.dtype)
        out.real = fma(ars, brs, ais * bis) * oos
        out.imag = fma(ais, brs, -(ars * bis)) * oos
    return out


def _zero_ordered(np_fn, larger):
    """A ufunc body: NumPy's ``np_fn`` (maximum, minimum, fmax, fmin; NaN rules as CuPy's), with
    zeros of both signs ordered as PTX's ``max``/``min`` order them (+0. above -0.)."""
    def f(a, b, out=None, dtype=None, casting="same_kind", where=None):
        kw = {"casting": casting}
        if dtype is not None:
            kw["dtype"] = dtype
        if where is not None:
            kw["where"] = where
        if out is not None:
            kw["out"] = out
        x, y = np.asarray(a), np.asarray(b)
        negative = None
        if x.dtype.kind in "fiub" and y.dtype.kind in "fiub":
            both = (x == 0) & (y == 0)  # read before an ``out`` that is an operand changes
            if where is not None:
                both &= where
            if both.any():
                sx, sy = np.signbit(x), np.signbit(y)
                negative = (sx & sy) if larger else (sx | sy)
        r = np_fn(a, b, **kw)
        if negative is not None and r.dtype.kind == "f":
            if type(r) is not np.ndarray:  # a NumPy scalar from 0-d operands
                r = np.array(r)
            np.copyto(r, np.where(negative, r.dtype.type(-0.0), r.dtype.type(0.0)),
                      where=np.broadcast_to(both, r.shape))
        return r

    return f


def _clip(a, a_min, a_max, out=None):
    """CuPy's clip of host array ``a`` (see the module docstring)."""
    kind = a.dtype.kind
    if a_min is None:
        a_min = a.dtype.type(-np.inf) if kind == "f" else \
            np.iinfo(a.dtype).min if kind in "iu" else None
    if a_max is None:
        a_max = a.dtype.type(np.inf) if kind == "f" else \
            np.iinfo(a.dtype).max if kind in "iu" else None
    if kind == "c":
        raise TypeError(f"Wrong type ({a.dtype}, {np.asarray(a_min).dtype}, "
                        f"{np.asarray(a_max).dtype}) of arguments for cupy_clip")
    r = np.clip(a, a_min, a_max)  # the loop's dtype and shape (and NumPy's errors)
    if r.dtype.kind == "f":
        x, lo, hi = (np.asarray(v).astype(r.dtype) for v in (a, a_min, a_max))
        r = np.where(lo > hi, hi, np.where(x < lo, lo, np.where(x > hi, hi, x)))
    if out is not None:
        np.copyto(out, r, casting="same_kind")
        return out
    return row_major(r)


def _clip_method(self, min=None, max=None, out=None):  # CuPy's names
    STATS["kernels"] += 1
    r = _clip(self._d, _unwrap_scalar(min), _unwrap_scalar(max),
              None if out is None else out._d)
    return out if out is not None else wrap(r)


def _clip_function(a, a_min, a_max, out=None):
    return a.clip(a_min, a_max, out=out)  # as CuPy's (cupy/_math/misc.py)


def _unwrap_scalar(v):
    return v._d if type(v) is ndarray else v


def install(cp, cpx, ufunc, make_function):
    """Replace the stand-in's NumPy-faithful names by CuPy-faithful ones."""
    from scipy import special as sp

    cp.floor_divide = ufunc("floor_divide", _float_rule(np.floor_divide, _floor_div), 2, 1)
    cp.remainder = cp.mod = ufunc("remainder", _float_rule(np.remainder, _remainder), 2, 1)
    for name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
        fn = getattr(np, name)
        setattr(cp, name, ufunc(name, _real_only(name, fn), fn.nin, fn.nout))
    cp.true_divide = cp.divide = ufunc(
        "true_divide", _float_rule(np.true_divide, _complex_quotient, "c"), 2, 1)
    cp.lcm = ufunc("lcm", _float_rule(np.lcm, _lcm, "i"), 2, 1)
    for name, larger in (("maximum", True), ("minimum", False), ("fmax", True),
                         ("fmin", False)):
        setattr(cp, name, ufunc(name, _zero_ordered(getattr(np, name), larger), 2, 1))
    cp.clip = _clip_function
    ndarray.clip = _clip_method
    for name in ("round", "around", "round_"):
        setattr(cp, name, _round_function(make_function, name))
    ndarray.round = _round_method
    cp.sum = make_function("sum", _with_dtype_reduction(np.sum),
                           ["a", "axis", "dtype", "out", "keepdims"])
    ndarray.sum = _sum_method
    cp.broadcast_arrays = _broadcast_arrays(cp)
    cp.where = _where(cp.where)
    special = cpx.scipy.special
    special.zeta = ufunc("zeta", _elementwise(sp.zeta), 2, 1)
    special.polygamma = _polygamma(cp, special)
    special.i0 = ufunc("i0", _elementwise(_cyl_bessel_i0), 1, 1)
    special.i0e = ufunc("i0e", _elementwise(_i0e), 1, 1)
    special.i1e = ufunc("i1e", _elementwise(_i1e), 1, 1)
