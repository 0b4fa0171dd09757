"""torch's dtypes that NumPy cannot hold: complex32 (``chalf``), the float8/float4 formats,
the sub-byte ``uint1``..``uint7`` / ``int1``..``int7`` and the ``bits*`` types.

The dtype objects exist with torch's properties (``itemsize``, ``is_floating_point``,
``is_complex``, ``is_signed``, ``to_real``/``to_complex``; the ``bits*`` types say they
are unsigned where torch refuses to answer), so code that names them imports
and can compare or pickle them. numtorch cannot make tensors of them: NumPy has no such
element type, so creating or converting to one raises a RuntimeError that says so.
"""

from . import _dtype
from ._dtype import _COMPLEX, _FLOAT, _INT, dtype

__all__ = [
    "complex32", "chalf", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e8m0fnu", "float4_e2m1fn_x2", "uint1", "uint2", "uint3", "uint4", "uint5", "uint6",
    "uint7", "int1", "int2", "int3", "int4", "int5", "int6", "int7", "bits8", "bits16",
    "bits1x8", "bits2x4", "bits4x2",
]


class _NoArrays:
    """Stands in for the NumPy dtype: NumPy reads an object's ``dtype`` attribute when given
    it as a dtype, so every array made with it (zeros, astype, array) raises instead."""

    __slots__ = ("_message",)

    def __init__(self, name):
        self._message = (f"numtorch cannot make tensors of dtype torch.{name}: NumPy has no "
                         f"such element type")

    @property
    def dtype(self):
        raise RuntimeError(self._message)

    def __getattr__(self, name):
        raise RuntimeError(self._message)

    def __repr__(self):
        return "<no NumPy dtype>"


def _make(name, category, itemsize, display, signed=None):
    d = dtype(name, _NoArrays(name), category, None, name, itemsize=itemsize)
    if signed is not None:
        d._signed = signed
    _dtype._BY_NAME[name] = d  # pickles name dtypes by their name
    _dtype._TYPE_DISPLAY[name] = display
    return d


def _make_float8(name, display, abbr, signed=None):
    """A float8 dtype: backed by ml_dtypes' type of the same name when that package is there
    (tensors of it then exist; see numtorch/_float8.py for the conversions), else a dtype
    without arrays, as the others here."""
    np_type = getattr(_dtype._ml_dtypes, name, None) if _dtype._ml_dtypes is not None else None
    if np_type is None:
        d = _make(name, _FLOAT, 1, display, signed)
        _dtype._FLOAT8.add(d)
        return d
    d = dtype(name, np_type, _FLOAT, None, abbr)
    if signed is not None:
        d._signed = signed
    _dtype._BY_NAME[name] = d
    _dtype._FROM_NP[d.np] = d
    _dtype._TYPE_DISPLAY[name] = display
    _dtype._FLOAT8.add(d)
    return d


complex32 = chalf = _make("complex32", _COMPLEX, 4, "ComplexHalf")
float8_e4m3fn = _make_float8("float8_e4m3fn", "Float8_e4m3fn", "f8e4m3fn")
float8_e5m2 = _make_float8("float8_e5m2", "Float8_e5m2", "f8e5m2")
float8_e4m3fnuz = _make_float8("float8_e4m3fnuz", "Float8_e4m3fnuz", "f8e4m3fnuz")
float8_e5m2fnuz = _make_float8("float8_e5m2fnuz", "Float8_e5m2fnuz", "f8e5m2fnuz")
float8_e8m0fnu = _make_float8("float8_e8m0fnu", "Float8_e8m0fnu", "f8e8m0fnu", signed=False)
float4_e2m1fn_x2 = _make("float4_e2m1fn_x2", _FLOAT, 1, "Float4_e2m1fn_x2")
uint1, uint2, uint3, uint4, uint5, uint6, uint7 = (
    _make(f"uint{b}", _INT, 1, f"UInt{b}") for b in range(1, 8))
int1, int2, int3, int4, int5, int6, int7 = (
    _make(f"int{b}", _INT, 1, f"Int{b}") for b in range(1, 8))
bits8 = _make("bits8", _INT, 1, "Bits8", signed=False)
bits16 = _make("bits16", _INT, 2, "Bits16", signed=False)
bits1x8 = _make("bits1x8", _INT, 1, "Bits1x8", signed=False)
bits2x4 = _make("bits2x4", _INT, 1, "Bits2x4", signed=False)
bits4x2 = _make("bits4x2", _INT, 1, "Bits4x2", signed=False)
_dtype._BY_NAME["chalf"] = complex32

# complex32's real counterpart is float16, and float16's complex one complex32 (the dtype
# promotion of float16 with complex values still computes in complex64, which NumPy holds)
_dtype._TO_COMPLEX[complex32] = complex32
_dtype._TO_COMPLEX[_dtype.float16] = complex32
_dtype._TO_REAL[complex32] = _dtype.float16
