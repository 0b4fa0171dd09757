"""Ranges: ``arange``, ``range``, ``linspace`` and ``logspace``, rounded as torch rounds them.

torch's CPU kernels compute ``start + step * i`` with fused multiply-adds, fill 256-bit vectors
two at a time, and count the second half of a linspace down from its end. The helpers below
reproduce those roundings with exact NumPy arithmetic, so the values match torch bit for bit
(logspace's float64 ``pow`` may still differ in the last bit).
"""

import builtins
import math
import warnings

import numpy as np

from . import _dtype
from ._alloc_errors import result_alloc_error
from ._creation import (
    _cast_scalar, _check_fits, _factory_dtype, _finish, _int_arg, check_pin_memory, dtype_arg,
)
from ._required_dim import missing_arg
from ._tensor import Tensor

__all__ = ["arange", "range", "linspace", "logspace"]

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's constant for splitting a double in two halves


def _split(a):
    """Veltkamp's split of the double ``a`` into two 26-bit halves: ``a == hi + lo``."""
    t = _SPLIT * a
    hi = t - (t - a)
    return hi, a - hi


def _two_prod(a, k):
    """``(p, e)`` with ``p = fl(a * k)`` and ``p + e == a * k`` exactly (Dekker), for a
    Python float ``a`` and float64 integers ``k`` below 2**26 (which need no split)."""
    ah, al = _split(a)
    p = a * k
    return p, (ah * k - p) + al * k


def _sum_fused(p, e, c):
    """``fl(p + e + c)`` for an exact product ``p + e``: how a fused multiply-add rounds."""
    s = p + c
    bb = s - p
    return s + (((p - (s - bb)) + (c - bb)) + e)


def _exact_ok(a, c, kmax):
    return kmax < 2.0 ** 26 and abs(a) < 1e290 and abs(c) < 1e290


def _fma(a, k, c):
    """``a * k + c`` rounded once, for Python floats ``a``, ``c`` and float64 integers ``k``.

    torch's range kernels compile ``start + step * i`` to fused multiply-adds; an exact
    product followed by a compensated sum reproduces their results.
    """
    k = np.asarray(k, dtype=np.float64)
    if not _exact_ok(a, c, float(np.abs(k).max()) if k.size else 0.0):
        return a * k + c  # outside the exact range the plain rounding is within an ulp
    p, e = _two_prod(a, k)
    return _sum_fused(p, e, c)


def _float_range(start, step, n, np_dtype):
    """``start + step * k`` for k < n, rounded the way torch's CPU kernel rounds it.

    The kernel fills 256-bit vectors two at a time: each vector starts at a fused
    ``start + step * k0`` rounded to the dtype, and its lanes add ``i * step`` to that; the
    elements after the last pair of vectors use the fused formula directly. float16 and
    bfloat16 work in float32 (their accumulation type), the others in float64.
    """
    np_dtype = np.dtype(np_dtype)
    half = np_dtype.itemsize == 2  # float16 and bfloat16: float32 accumulation, 16 lanes
    lanes = 16 if half else (8 if np_dtype == np.float32 else 4)
    start, step = float(start), float(step)
    if start.is_integer() and step.is_integer() and abs(start) + abs(step) * n < 2.0 ** 53:
        # integer-valued ranges are exact in float64 however they are computed
        with np.errstate(over="ignore"):
            return (np.arange(n, dtype=np.float64) * step + start).astype(np_dtype)
    if half:
        start, step = float(np.float32(start)), float(np.float32(step))

        def fused(k):  # a float32 times an integer is exact in float64: one rounding
            return (step * k + start).astype(np.float32)
    else:
        def fused(k):
            return _fma(step, k, start)
    nvec = n // (2 * lanes) * (2 * lanes)
    out = np.empty(n, dtype=np_dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        if nvec:
            base = fused(np.arange(0, nvec, lanes, dtype=np.float64)).astype(np_dtype)
            base = base.astype(np.float64)[:, None]
            lane = np.arange(lanes, dtype=np.float64)
            if np_dtype == np.float64 and _exact_ok(step, float(np.abs(base).max()), lanes):
                p, e = _two_prod(step, lane)
                vals = _sum_fused(p, e, base)
            else:
                # the lane product is exact, and narrower results round once more anyway
                vals = lane * step + base
                if half:
                    vals = vals.astype(np.float32)
            out[:nvec].reshape(-1, lanes)[...] = vals
        out[nvec:] = fused(np.arange(nvec, n, dtype=np.float64))
    return out


def _number(x, fn):
    """A Python number from a range argument (numbers, NumPy scalars, 0-d tensors)."""
    if isinstance(x, (Tensor, np.generic)):
        x = x.item()
    if isinstance(x, builtins.complex):
        raise RuntimeError("value cannot be converted to type double without overflow")
    if not isinstance(x, (builtins.int, builtins.float)):
        raise TypeError(f"{fn}(): expected a number, but got {type(x).__name__}")
    return x


def _is_float_arg(x):
    return isinstance(x, (builtins.float, np.floating)) or (
        isinstance(x, Tensor) and x.dtype._category >= _dtype._FLOAT)


def _fmt(x):
    return f"{x:g}" if isinstance(x, builtins.float) else str(x)


def _check_range_dtype(dt, kernel):
    if dt is _dtype.bool or dt._category == _dtype._COMPLEX:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[dt.name]}'")


_ARANGE_KW = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
              "bool pin_memory = False, bool requires_grad = False")
_ARANGE_FORMS = (f"(Number end, *, Tensor out = None, {_ARANGE_KW})",
                 f"(Number start, Number end, *, {_ARANGE_KW})",
                 f"(Number start, Number end, Number step = 1, *, Tensor out = None, {_ARANGE_KW})")


def _arange_call_error(start, step, kwargs, requires_grad, pin_memory):
    """torch's parser error for an ``arange`` call that matches none of its forms: "missing
    ... "end"" when only keywords other than start/end/step were given, else the listing of
    the forms. Error path only (it reads the call)."""
    if start is missing_arg and (step is not missing_arg or requires_grad or pin_memory or
                                 any(v is not None for v in kwargs)):
        return TypeError('arange() missing 1 required positional arguments: "end"')
    from .ops._util import invalid_combination

    return invalid_combination(_ARANGE_FORMS, _ARANGE_FORMS)


def arange(start=missing_arg, end=missing_arg, step=missing_arg, *, out=None, dtype=None,
           layout=None, device=None, requires_grad=False, pin_memory=False):
    """Return the values from ``start`` up to (not including) ``end`` in steps of ``step``.

    The dtype is int64 when every argument is an integer, else the default float dtype.

    Example:
        >>> torch.arange(5)
        tensor([0, 1, 2, 3, 4])
        >>> torch.arange(1, 2.5, 0.5)
        tensor([1.0000, 1.5000, 2.0000])
    """
    if end is missing_arg:  # arange(end)
        if start is missing_arg or step is not missing_arg:
            raise _arange_call_error(start, step, (out, dtype, layout, device),
                                     requires_grad, pin_memory)
        start, end, step, one = 0, start, 1, True
    else:
        one = False
        if step is missing_arg:
            step = 1
            if start is missing_arg:  # arange(end=n)
                start = 0
    floats = _is_float_arg(start) or _is_float_arg(end) or _is_float_arg(step)
    try:
        start, end, step = _number(start, "arange"), _number(end, "arange"), _number(step,
                                                                                      "arange")
    except TypeError:
        if one:  # (the one-number form names its argument)
            raise TypeError(f"arange(): argument 'end' (position 1) must be Number, not "
                            f"{type(end).__name__}") from None
        from .ops._util import invalid_combination

        raise invalid_combination(_ARANGE_FORMS, _ARANGE_FORMS) from None
    check_pin_memory(pin_memory, out)
    if dtype is None and out is not None:
        dtype = out.dtype
    dt = dtype_arg(dtype, "arange") or (_dtype.get_default_dtype() if floats else _dtype.int64)
    _check_range_dtype(dt, "arange_cpu")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_fmt(start)} -> {_fmt(end)}")
    if dt._category == _dtype._INT:
        # integer kernels truncate the arguments to integers first (int64 even sizes with them)
        istart, istep = math.trunc(start), math.trunc(step)
        if dt is _dtype.int64:
            iend = math.trunc(end)
            if istep == 0:
                raise ValueError("step must be nonzero")
            _check_sign(istart, iend, istep)
            sgn = 1 if istep > 0 else -1
            # torch counts int64 ranges in int64 arithmetic, which wraps around
            span = _wrap_int64(iend - istart + istep - sgn)
            n = _checked_size(float(abs(span) // abs(istep) * (1 if (span < 0) == (istep < 0)
                                                                 else -1)))
        else:
            _check_sign(start, end, step)
            n = _checked_size(math.ceil((end - start) / step))
        try:
            arr = (istart + istep * np.arange(n, dtype=np.int64)).astype(dt.np)
        except (MemoryError, ValueError) as e:
            raise result_alloc_error(e, (n,), dt.itemsize) from None
    else:
        _check_sign(start, end, step)
        n = _checked_size(math.ceil((end - start) / step))
        try:
            arr = _float_range(start, step, n, dt.np)
        except (MemoryError, ValueError) as e:
            raise result_alloc_error(e, (n,), dt.itemsize) from None
    return _finish_range(arr, device, requires_grad, out, warn=True)


def _finish_range(arr, device, requires_grad, out, warn=False):
    """``_finish`` for the range factories: an ``out`` holding as many elements as the range
    keeps its shape (torch fills it in place); another is resized, which arange warns about
    when ``out`` was not empty."""
    if out is not None and isinstance(out, Tensor):
        n = out.numel()
        if n == arr.size:
            arr = arr.reshape(tuple(out.shape))
        elif warn and n:
            warnings.warn(f"The number of elements in the out tensor of shape {list(out.shape)} "
                          f"is {n} which does not match the computed number of elements "
                          f"{arr.size}. Note that this may occur as a result of rounding error. "
                          f"The out tensor will be resized to a tensor of shape ({arr.size},).",
                          UserWarning, stacklevel=3)
    return _finish(arr, device, requires_grad, out)


def _wrap_int64(v):
    return (v + (1 << 63)) % (1 << 64) - (1 << 63)


def _checked_size(size):
    """arange's element count from its (double) estimate, with torch's overflow checks."""
    if not 0 <= size <= 2.0 ** 63:
        raise RuntimeError("invalid size, possible overflow?")
    if size == 2.0 ** 63:  # the conversion to int64 overflows to its minimum
        raise RuntimeError("IntArrayRef contains an int that cannot be represented as a "
                           "SymInt: -9223372036854775808")
    return int(size)


def _check_sign(start, end, step):
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None,  # noqa: A001
          device=None, requires_grad=False):
    """Deprecated: like :func:`arange` but ``end`` is included and the dtype defaults to float.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     torch.range(0, 2)
        tensor([0., 1., 2.])
    """
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    start, end, step = _number(start, "range"), _number(end, "range"), _number(step, "range")
    dt = _factory_dtype(dtype, out, "range")
    _check_range_dtype(dt, "range_cpu")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    _check_sign(start, end, step)
    n = int(math.floor((end - start) / step)) + 1
    if dt._category == _dtype._INT:
        arr = (math.trunc(start) + math.trunc(step) * np.arange(n, dtype=np.int64))
    else:
        arr = _fma(np.float64(step), np.arange(n, dtype=np.float64), np.float64(start))
    return _finish_range(arr.astype(dt.np), device, requires_grad, out)


def _steps_arg(steps, fn):
    steps = _int_arg(steps, "steps", fn, 3)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return steps


def _linspace_values(start, end, steps, dt):
    """torch's linspace: the first half counts up from ``start``, the rest down from ``end``.

    Float dtypes compute the step and the fused ``start + step * i`` in their own precision
    (float16 rounds after every operation); integer dtypes truncate the ends and step in
    double precision.
    """
    if steps == 0:
        return np.empty(0, dtype=dt.np)
    k = np.arange(steps, dtype=np.float64)
    half = steps // 2
    up, down = k < half, steps - 1 - k
    if dt._category == _dtype._INT:
        s, e = float(_cast_scalar(start, dt)), float(_cast_scalar(end, dt))
        if steps == 1:
            return np.array([s]).astype(dt.np)
        step = (e - s) / (steps - 1)
        vals = np.where(up, _fma(step, k, s), _fma(-step, down, e))
        return np.trunc(vals).astype(dt.np)
    if dt._category == _dtype._COMPLEX:
        s, e = complex(start), complex(end)
        step = (e - s) / (steps - 1) if steps > 1 else 0
        return np.where(up, s + step * k, e - step * down).astype(dt.np)
    T = dt.np.type
    s, e = T(start), T(end)
    if steps == 1:
        return np.array([s], dtype=dt.np)
    if dt is _dtype.float16 or dt is _dtype.bfloat16:  # both round after every operation
        step = T(T(e - s) / T(steps - 1))
        kh, dh = k.astype(dt.np), down.astype(dt.np)
        return np.where(up, s + step * kh, e - step * dh).astype(dt.np)
    step = T(T(e - s) / T(steps - 1))
    f, fs, fe = np.float64(step), np.float64(s), np.float64(e)
    if dt is _dtype.float32:
        # the float32 product is exact in float64, so one float64 sum then rounding is fused
        vals = np.where(up, f * k + fs, fe - f * down)
    else:
        vals = np.where(up, _fma(f, k, fs), _fma(-f, down, fe))
    return vals.astype(dt.np)


_ABSENT = object()  # linspace/logspace arguments torch requires; it names the call's types


def _refuse_absent(fn, given):
    """torch's TypeError for a linspace/logspace call without start, end or steps: the call's
    argument types as written, then the four (start, end) overloads."""
    names = ("start", "end", "steps") + (("base",) if fn == "logspace" else ())
    if all(given[n] is not _ABSENT for n in names[:3]):
        return
    import sys

    from ._generator_args import _got, _written_call, program_frame

    try:
        site = _written_call(program_frame(sys._getframe(2)))
    except Exception:  # noqa: BLE001 - an unfamiliar bytecode layout: the values given
        site = None
    if site is None:
        site = sum(given[n] is not _ABSENT for n in names[:3]), ()
    npos, written = site
    positional = [given[n] for n in names][:npos]
    keywords = [(k, given.get(k)) for k in reversed(written)]
    base = ", float base = 10.0" if fn == "logspace" else ""
    lines = [f" * ({a} start, {b} end, int steps{base}, *, Tensor out = None, torch.dtype dtype "
             "= None, torch.layout layout = None, torch.device device = None, bool pin_memory "
             "= False, bool requires_grad = False)"
             for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                          ("Number", "Number"))]
    raise TypeError(f"{fn}() received an invalid combination of arguments - got "
                    f"{_got(positional, keywords)}, but expected one of:\n"
                    + "\n".join(lines) + "\n")


def linspace(start=_ABSENT, end=_ABSENT, steps=_ABSENT, *, out=None, dtype=None, layout=None,
             device=None, requires_grad=False, pin_memory=False):
    """Return ``steps`` evenly spaced values from ``start`` to ``end``, both included.

    Example:
        >>> torch.linspace(0, 1, 5)
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    _refuse_absent("linspace", locals())
    start, end = _number_or_complex(start, "linspace"), _number_or_complex(end, "linspace")
    steps = _steps_arg(steps, "linspace")
    check_pin_memory(pin_memory, out)
    if dtype is None and out is not None:
        dtype = out.dtype
    complex_args = isinstance(start, builtins.complex) or isinstance(end, builtins.complex)
    dt = dtype_arg(dtype, "linspace") or (_dtype.default_complex() if complex_args
                                           else _dtype.get_default_dtype())
    if dt is _dtype.bool:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if dt._category != _dtype._COMPLEX:
        for v in (start, end):
            _check_fits(np.asarray(v), dt, c_names=True)
    try:
        arr = _linspace_values(start, end, steps, dt)
    except (MemoryError, ValueError) as e:
        raise result_alloc_error(e, (steps,), dt.itemsize) from None
    return _finish_range(arr, device, requires_grad, out)


def _number_or_complex(x, fn):
    if isinstance(x, Tensor):
        x = x.item()
    elif isinstance(x, np.generic):
        x = x.item()
    if not isinstance(x, (builtins.int, builtins.float, builtins.complex)):
        raise TypeError(f"{fn}(): expected a number, but got {type(x).__name__}")
    return x


def logspace(start=_ABSENT, end=_ABSENT, steps=_ABSENT, base=10.0, *, out=None, dtype=None,
             layout=None, device=None, requires_grad=False, pin_memory=False):
    """Return ``base ** linspace(start, end, steps)``.

    Example:
        >>> torch.logspace(0, 2, 3)
        tensor([  1.,  10., 100.])
    """
    _refuse_absent("logspace", locals())
    start, end = _number_or_complex(start, "logspace"), _number_or_complex(end, "logspace")
    steps = _steps_arg(steps, "logspace")
    check_pin_memory(pin_memory, out)
    base = _number_or_complex(base, "logspace")
    if dtype is None and out is not None:
        dtype = out.dtype
    dt = dtype_arg(dtype, "logspace") or _dtype.get_default_dtype()
    if dt is _dtype.bool:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    try:
        vals = _logspace_values(start, end, steps, base, dt)
    except (MemoryError, ValueError) as e:
        raise result_alloc_error(e, (steps,), dt.itemsize) from None
    return _finish_range(vals, device, requires_grad, out)


def _logspace_values(start, end, steps, base, dt):
    if dt._category == _dtype._COMPLEX:
        exps = _linspace_values(start, end, steps, dt)
        vals = np.power(dt.np.type(base), exps)
    else:
        exps = np.float64([start]) if steps == 1 else _log_exponents(start, end, steps, dt)
        # long double power rounded to double agrees with the C library's pow (torch's)
        # far more often than NumPy's own float64 power does
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            vals = np.power(np.longdouble(base), exps.astype(np.longdouble)).astype(np.float64)
    if dt._category == _dtype._INT:
        vals = np.trunc(vals)
    with np.errstate(invalid="ignore", over="ignore"):
        return vals.astype(dt.np)


def _log_exponents(start, end, steps, dt):
    """The float64 exponents of torch's real logspace: the ends are first rounded (or
    truncated) to ``dt`` and subtracted in ``dt``; the step and ``start + step * i`` are
    float64 (not fused here), counting down from ``end`` for the second half."""
    for v in (start, end):
        _check_fits(np.asarray(v), dt, c_names=True)
    if dt._category == _dtype._INT:
        s, e = int(_cast_scalar(start, dt)), int(_cast_scalar(end, dt))
        diff = float(e - s)
    else:
        s, e = dt.np.type(start), dt.np.type(end)
        diff = float(dt.np.type(e - s))
    step = diff / (steps - 1)
    k = np.arange(steps, dtype=np.float64)
    return np.where(k < steps // 2, np.float64(s) + step * k,
                    np.float64(e) - step * (steps - 1 - k))
