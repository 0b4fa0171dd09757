"""Conversions into torch's 8-bit float formats. ml_dtypes holds the bits (its decoding is
torch's for every one of the 256 patterns of each format), but its encoding differs from
torch's at the edges, so values pass through here first:

- everything converts through float32, as torch's kernels do (a float64 rounds twice);
- float8_e4m3fn saturates: finite values past 448 and infinities become +-448 (ml_dtypes: NaN);
- float8_e5m2 writes NaN as 0x7F (with the sign), ml_dtypes as 0x7E;
- float8_e8m0fnu (powers of two, no sign) takes the magnitude and writes zero as 2**-127
  (ml_dtypes: NaN for both).
"""

import numpy as np

_NAMES = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
          "float8_e8m0fnu")


def _types():
    try:
        import ml_dtypes
    except ImportError:
        return frozenset()
    return frozenset(np.dtype(getattr(ml_dtypes, n)) for n in _NAMES if hasattr(ml_dtypes, n))


FLOAT8 = _types()  # the NumPy dtypes of the float8 formats ml_dtypes provides


def to_float8(a, np_dtype):
    """``a`` (any real array) converted to the float8 ``np_dtype`` as torch converts."""
    name = np_dtype.name
    f = a.astype(np.float32)
    if name == "float8_e4m3fn":
        f = np.asarray(np.clip(f, -448.0, 448.0))  # (NaN stays NaN; asarray: 0-d stays array)
    elif name == "float8_e8m0fnu":
        f = np.asarray(np.abs(f))
    out = f.astype(np_dtype)
    if name == "float8_e5m2":
        bits = out.view(np.uint8)
        nan = np.isnan(f)
        if nan.any():
            bits[nan] = np.where(np.signbit(f[nan]), 0xFF, 0x7F)
    elif name == "float8_e8m0fnu":
        out.view(np.uint8)[f == 0] = 0
    return out


def from_float8(a, np_dtype):
    """A float8 array ``a`` converted to ``np_dtype`` (through float32, exact)."""
    return a.astype(np.float32).astype(np_dtype)
