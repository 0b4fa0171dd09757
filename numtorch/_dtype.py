"""dtype objects, the default dtype, and torch's type-promotion rules.

Each numtorch dtype wraps one NumPy dtype. Promotion follows torch's category rules: dimensioned
tensors decide the result unless a zero-dim tensor or Python scalar belongs to a higher category
(bool < integer < floating < complex); in that case the higher category wins, and a Python float
counts as the default float dtype.

``bfloat16`` is backed by ``ml_dtypes.bfloat16``, an optional dependency
(``pip install numtorch[bfloat16]``). Without it the dtype object still exists, so code that
names ``torch.bfloat16`` imports, but making an array of it raises a RuntimeError.
"""

from ._class_repr import TorchNamed
import numpy as np

from . import _float8
from . import _quantized_dtypes as _qkeys
from ._threads import fit_blas_threads as _fit_blas_threads

try:
    import ml_dtypes as _ml_dtypes
except ImportError:  # optional: everything but bfloat16 works without it
    _ml_dtypes = None

_BF16_AVAILABLE = _ml_dtypes is not None
_BF16_MISSING = ("bfloat16 needs the optional package ml_dtypes (pip install numtorch[bfloat16] "
                 "or pip install ml_dtypes)")

__all__ = [
    "dtype", "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8",
    "int16", "int32", "int64", "uint8", "bool", "half", "float", "double", "short", "int", "long",
    "cfloat", "cdouble", "get_default_dtype", "set_default_dtype", "promote_types",
    "result_type", "can_cast", "finfo", "iinfo",
]

_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3
_QUANT = -1  # quint8/qint8/qint32/...: outside the promotion order (torch refuses to promote)


class dtype(metaclass=TorchNamed):
    """A tensor element type, e.g. ``numtorch.float32``; compares by identity like torch's.

    The dtypes are module-level singletons (``float32 is float``); there is no public
    constructor, and pickling or copying a dtype gives back the same object.

    Attributes:
        itemsize (int): bytes per element.
        is_signed (bool): whether the type can hold negative values.
        abbr (str): torch's short name, e.g. ``"f32"``, ``"i64"``, ``"b8"``.
    """

    _torch_name = "torch.dtype"  # its repr: <class 'torch.dtype'>

    __slots__ = ("name", "np", "itemsize", "_category", "_signed", "_legacy", "abbr")

    def __init__(self, name, np_dtype, category, legacy, abbr, itemsize=None):
        self.name = name
        self.np = np.dtype(np_dtype) if itemsize is None else np_dtype
        self.itemsize = self.np.itemsize if itemsize is None else itemsize
        self._category = category
        self._signed = category != _BOOL and not name.startswith("uint")
        self._legacy = legacy
        self.abbr = abbr

    @property
    def is_signed(self):
        """Whether the type can hold negative values (torch refuses to say for quantized)."""
        if self._category == _QUANT:
            raise RuntimeError("isSignedType not supported for quantized types")
        return self._signed

    @property
    def is_floating_point(self):
        """True for float16, bfloat16, float32 and float64."""
        return self._category == _FLOAT

    @property
    def is_complex(self):
        """True for complex64 and complex128."""
        return self._category == _COMPLEX

    def to_real(self):
        """The real counterpart of a complex dtype (float32 for complex64); others unchanged."""
        return _TO_REAL.get(self, self)

    def to_complex(self):
        """The complex counterpart of a floating or complex dtype (complex64 for float32).

        float16 gives complex32 (ComplexHalf), as in torch: the dtype object exists, though
        numtorch cannot make tensors of it.
        """
        c = _TO_COMPLEX.get(self)
        if c is None:
            raise RuntimeError(f"Unknown Complex ScalarType for {_TYPE_DISPLAY[self.name]}")
        return c

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_from_name, (self.name,))


def _from_name(name):
    return _BY_NAME[name]


float16 = dtype("float16", np.float16, _FLOAT, "HalfTensor", "f16")


class _MissingBFloat16:
    """Stands in for the NumPy dtype of bfloat16 when ml_dtypes is absent: NumPy reads an
    object's ``dtype`` attribute when given it as a dtype, so every array made with
    ``bfloat16.np`` (zeros, astype, array) raises this clear error instead of guessing."""

    @property
    def dtype(self):
        raise RuntimeError(_BF16_MISSING)

    def __getattr__(self, name):  # np_dtype.kind, .type, .itemsize, ... in numtorch's code
        raise RuntimeError(_BF16_MISSING)

    def __repr__(self):
        return "<bfloat16: ml_dtypes not installed>"


if _BF16_AVAILABLE:
    bfloat16 = dtype("bfloat16", _ml_dtypes.bfloat16, _FLOAT, "BFloat16Tensor", "bf16")
else:
    bfloat16 = dtype("bfloat16", _MissingBFloat16(), _FLOAT, "BFloat16Tensor", "bf16",
                     itemsize=2)
float32 = dtype("float32", np.float32, _FLOAT, "FloatTensor", "f32")
float64 = dtype("float64", np.float64, _FLOAT, "DoubleTensor", "f64")
complex64 = dtype("complex64", np.complex64, _COMPLEX, "ComplexFloatTensor", "c64")
complex128 = dtype("complex128", np.complex128, _COMPLEX, "ComplexDoubleTensor", "c128")
int8 = dtype("int8", np.int8, _INT, "CharTensor", "i8")
int16 = dtype("int16", np.int16, _INT, "ShortTensor", "i16")
int32 = dtype("int32", np.int32, _INT, "IntTensor", "i32")
int64 = dtype("int64", np.int64, _INT, "LongTensor", "i64")
uint8 = dtype("uint8", np.uint8, _INT, "ByteTensor", "u8")
# torch 2.x's "barebones" unsigned types: tensors of them exist, but they promote with no
# other integer type and few of torch's CPU kernels accept them
uint16 = dtype("uint16", np.uint16, _INT, "UInt16Tensor", "u16")
uint32 = dtype("uint32", np.uint32, _INT, "UInt32Tensor", "u32")
uint64 = dtype("uint64", np.uint64, _INT, "UInt64Tensor", "u64")
_BARE_UINTS = (uint16, uint32, uint64)
_FLOAT8 = set()  # the float8 dtypes (made in _dtype_extra.py)
bool = dtype("bool", np.bool_, _BOOL, "BoolTensor", "b8")  # noqa: A001 - torch.bool

half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

# quantized dtypes: the array holds integers of key.storage (see _quantized_dtypes.py)
quint8 = dtype("quint8", _qkeys.KEYS["quint8"], _QUANT, None, "qu8", itemsize=1)
qint8 = dtype("qint8", _qkeys.KEYS["qint8"], _QUANT, None, "qi8", itemsize=1)
qint32 = dtype("qint32", _qkeys.KEYS["qint32"], _QUANT, None, "qi32", itemsize=4)
quint4x2 = dtype("quint4x2", _qkeys.KEYS["quint4x2"], _QUANT, None, "qu4x2", itemsize=1)
quint2x4 = dtype("quint2x4", _qkeys.KEYS["quint2x4"], _QUANT, None, "qu2x4", itemsize=1)
_QUANTIZED = (quint8, qint8, qint32, quint4x2, quint2x4)

_ALL = (float16, float32, float64, complex64, complex128, int8, int16, int32, int64, uint8, bool,
        uint16, uint32, uint64)
if _BF16_AVAILABLE:
    _ALL += (bfloat16,)
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME["bfloat16"] = bfloat16  # named even without ml_dtypes, so pickles name it
_BY_NAME.update(half=half, float=float32, double=float64, short=int16, int=int32, long=int64,
                cfloat=complex64, cdouble=complex128)
_FROM_NP = {d.np: d for d in _ALL}
_BY_NAME.update((d.name, d) for d in _QUANTIZED)
_FROM_NP.update((d.np, d) for d in _QUANTIZED)
_BY_LEGACY = {d._legacy: d for d in _ALL + (bfloat16,)}
_TO_REAL = {complex64: float32, complex128: float64}
_TO_COMPLEX = {float32: complex64, float64: complex128, complex64: complex64,
               complex128: complex128, bfloat16: complex64}

# how torch names dtypes in error messages ("result type Float can't be cast ...")
_TYPE_DISPLAY = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                 "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
                 "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
                 "bfloat16": "BFloat16", "quint8": "QUInt8", "qint8": "QInt8",
                 "qint32": "QInt32", "quint4x2": "QUInt4x2", "quint2x4": "QUInt2x4"}

# how torch's C++ kernels name dtypes ("Expected out tensor to have dtype float, but got ...")
_CPP_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
             "int8": "signed char", "uint8": "unsigned char", "uint16": "short unsigned int",
             "uint32": "unsigned int", "uint64": "long unsigned int", "bool": "bool",
             "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
             "float8_e4m3fn": "c10::Float8_e4m3fn", "float8_e5m2": "c10::Float8_e5m2",
             "float8_e4m3fnuz": "c10::Float8_e4m3fnuz", "float8_e5m2fnuz": "c10::Float8_e5m2fnuz",
             "float8_e8m0fnu": "c10::Float8_e8m0fnu"}

_default = [float32]


def get_default_dtype():
    """Return the current default floating point dtype (``float32`` unless changed)."""
    return _default[0]


def set_default_dtype(d):
    """Set the default floating point dtype used for Python floats and new float tensors.

    Args:
        d (dtype): ``float32`` or ``float64`` (``float16`` is accepted as torch does).

    Example:
        >>> torch.set_default_dtype(torch.float64)
        >>> torch.tensor([1.5]).dtype
        torch.float64
        >>> torch.set_default_dtype(torch.float32)
    """
    if type(d) is not dtype:
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def default_complex():
    """The complex dtype Python complex numbers get: complex128 under a float64 default."""
    return complex128 if _default[0] is float64 else complex64


def from_numpy_dtype(np_dtype):
    """Map a NumPy dtype to the numtorch dtype, raising TypeError for unsupported ones."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        # torch names the NumPy scalar type ("numpy.object_"), not the dtype string ("<U1")
        raise TypeError(f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}"
                        ". The only supported types are: float64, float32, float16, complex64, "
                        "complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
                        "and bool.") from None


def as_dtype(d):
    """Accept a numtorch dtype, a NumPy dtype, a Python type or a dtype name."""
    if type(d) is dtype:
        return d
    if d is None:
        return None
    # torch's parser reads the Python types as double, long, bool and complex double, whatever
    # the default dtype
    if d is builtins_float:
        return float64
    if d is builtins_int:
        return int64
    if d is builtins_bool:
        return bool
    if d is builtins_complex:
        return complex128
    if isinstance(d, str):
        key = d[6:] if d.startswith("torch.") else d
        if key in _BY_NAME:
            return _BY_NAME[key]
    try:
        return from_numpy_dtype(d)
    except TypeError:
        raise TypeError(f"expected a dtype, but got {d!r}") from None


import builtins  # noqa: E402  (the names above shadow float/int/bool on purpose)

builtins_float, builtins_int, builtins_bool, builtins_complex = (
    builtins.float, builtins.int, builtins.bool, builtins.complex)

# promote_types table: bool < uint8/int8 < ... ; uint8 with int8 gives int16 as in torch.
_INT_ORDER = {uint8: 0, int8: 0, int16: 1, int32: 2, int64: 3}
_FLOAT_ORDER = {float16: 0, bfloat16: 0, float32: 1, float64: 2}


def _check_dtype_arg(fn, d, name, pos):
    if type(d) is not dtype:
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be torch.dtype, not "
                        f"{type(d).__name__}")


def promote_types(type1, type2):
    """Return the smallest dtype to which both dtypes can be promoted, as torch does.

    Example:
        >>> torch.promote_types(torch.uint8, torch.int8)
        torch.int16
    """
    if type(type1) is not dtype or type(type2) is not dtype:
        _check_dtype_arg("promote_types", type1, "type1", 1)
        _check_dtype_arg("promote_types", type2, "type2", 2)
    return _promote(type1, type2)


def _promote(a, b):
    if a is b:
        return a
    ca, cb = a._category, b._category
    if ca == _QUANT or cb == _QUANT:
        raise RuntimeError(f"promoteTypes with quantized numbers is not handled yet; figure out "
                           f"what the correct rules should be, offending types: "
                           f"{_TYPE_DISPLAY[a.name]} {_TYPE_DISPLAY[b.name]}")
    if a in _FLOAT8 or b in _FLOAT8:  # (a float8 type promotes with nothing but itself)
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to "
                           f"promote {_TYPE_DISPLAY[a.name]} and {_TYPE_DISPLAY[b.name]}")
    if (a in _BARE_UINTS or b in _BARE_UINTS) and not (ca == _FLOAT or cb == _FLOAT):
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {_TYPE_DISPLAY[a.name]} and "
                           f"{_TYPE_DISPLAY[b.name]}")
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi._category == _COMPLEX and lo._category == _FLOAT:
            # the complex type of the promoted real parts (complex32 with bfloat16: complex64)
            real = _TO_REAL[hi]
            joined = _promote(real, lo)
            return hi if joined is real else _TO_COMPLEX[joined]
        return hi
    if ca == _INT:
        if {a, b} == {uint8, int8}:
            return int16
        return a if _INT_ORDER[a] >= _INT_ORDER[b] else b
    if ca == _FLOAT:
        oa, ob = _FLOAT_ORDER[a], _FLOAT_ORDER[b]
        if oa == ob:  # float16 with bfloat16: neither holds the other, float32 holds both
            return float32
        return a if oa > ob else b
    return complex128 if complex128 in (a, b) else complex64


def _scalar_dtype(x):
    t = type(x)
    if t is builtins_bool:
        return bool
    if t is builtins_int:
        return int64
    if t is builtins_float:
        return _default[0]
    if t is builtins_complex:
        return default_complex()
    if isinstance(x, np.generic):
        # torch reads NumPy scalars as Python numbers: integers as int, floats (and, oddly,
        # NumPy bools) as float
        kind = x.dtype.kind
        if kind in "iu":
            return int64
        if kind == "c":
            return default_complex()
        if kind in "fb" or x.dtype is bfloat16.np:
            return _default[0]
    raise TypeError(f"expected a Tensor or a number, but got {type(x).__name__}")


def _combine(higher, lower):
    """Join the dimensioned-result with a lower-priority (0-d or scalar) result, as torch does."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = higher._category, lower._category
    if ch >= cl:
        return higher
    if cl == _COMPLEX and ch == _FLOAT:
        # torch would give complex32 for float16; NumPy has none, so complex64 stands in
        return complex64 if higher is float16 else _TO_COMPLEX.get(higher, complex64)
    return lower


def result_type(*inputs):
    """Result dtype of an op over Tensors and Python scalars, by torch's promotion rules."""
    dim = zero = wrapped = None
    for x in inputs:
        d = getattr(x, "_array", None)
        if d is not None:
            td = _FROM_NP[d.dtype]
            if d.ndim:
                dim = td if dim is None else _promote(dim, td)
            else:
                zero = td if zero is None else _promote(zero, td)
        elif x is not None:
            sd = _scalar_dtype(x)
            wrapped = sd if wrapped is None else _promote(wrapped, sd)
    return _combine(dim, _combine(zero, wrapped))


def can_cast(from_, to):
    """True when torch allows an op result of dtype ``from_`` to be written into ``to``.

    Casting may not go down a category (complex > floating > integer > bool).

    Example:
        >>> torch.can_cast(torch.float64, torch.int32)
        False
    """
    if type(from_) is not dtype or type(to) is not dtype:
        _check_dtype_arg("can_cast", from_, "from_", 1)
        _check_dtype_arg("can_cast", to, "to", 2)
    return from_._category <= to._category


# eps, max, tiny and min of the 8-bit float formats (e8m0 holds powers of two only, all positive)
_FLOAT8_LIMITS = {
    "float8_e4m3fn": (2.0 ** -3, 448.0, 2.0 ** -6, -448.0),
    "float8_e5m2": (2.0 ** -2, 57344.0, 2.0 ** -14, -57344.0),
    "float8_e4m3fnuz": (2.0 ** -3, 240.0, 2.0 ** -7, -240.0),
    "float8_e5m2fnuz": (2.0 ** -3, 57344.0, 2.0 ** -15, -57344.0),
    "float8_e8m0fnu": (1.0, 2.0 ** 127, 2.0 ** -127, 2.0 ** -127),
}


class finfo(metaclass=TorchNamed):
    """Machine limits of a floating point dtype (the default dtype when called bare).

    Attributes:
        bits (int): storage bits. eps (float): the gap between 1 and the next value.
        max, min (float): the largest and most negative finite values.
        tiny, smallest_normal (float): the smallest positive normal value.
        resolution (float): ``10 ** -precision``, precision being the decimal digits kept.
        dtype (str): the dtype's name (the real counterpart for complex dtypes).

    Example:
        >>> torch.finfo(torch.float16).max
        65504.0
    """

    _torch_name = "torch.finfo"

    def __init__(self, type=None):  # noqa: A002 - torch's argument name
        if type is None:
            type = _default[0]  # noqa: A001
        _check_dtype_arg("finfo", type, "type", 1)
        if type._category < _FLOAT:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        real = _TO_REAL.get(type, type)
        small = _FLOAT8_LIMITS.get(real.name)
        if small is not None:  # no NumPy type to ask: the format's own limits
            self.bits = 8
            self.eps, self.max, self.tiny, self.min = small
            self.smallest_normal, self.resolution, self.dtype = self.tiny, 1.0, real.name
            return
        if real is bfloat16 and not _BF16_AVAILABLE:
            # bfloat16 is float32's upper half: same exponent range, 8 significand bits
            self.bits, self.eps, self.tiny, precision = 16, 2.0 ** -7, 2.0 ** -126, 2
            self.max = builtins_float.fromhex("0x1.fep127")
        else:
            info = (np.finfo if real is not bfloat16 else _ml_dtypes.finfo)(real.np)
            self.bits, self.eps = info.bits, builtins_float(info.eps)
            self.max, self.tiny = builtins_float(info.max), builtins_float(info.tiny)
            precision = info.precision
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -precision
        self.dtype = real.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo(metaclass=TorchNamed):
    """Machine limits of an integer dtype: ``bits``, ``min``, ``max``, ``dtype``.

    Example:
        >>> torch.iinfo(torch.int8).min
        -128
    """

    _torch_name = "torch.iinfo"

    def __init__(self, type):  # noqa: A002 - torch's argument name
        _check_dtype_arg("iinfo", type, "type", 1)
        if type._category > _INT:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        if type is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type._category == _QUANT:  # the storage's limits; no dtype name (torch raises)
            info = np.iinfo(type.np.storage)
            self._quantized = _TYPE_DISPLAY[type.name]
        else:
            info = np.iinfo(type.np)
            self.dtype = type.name
        self.bits, self.min, self.max = info.bits, builtins_int(info.min), builtins_int(info.max)

    def __getattr__(self, name):
        quantized = self.__dict__.get("_quantized")
        if name == "dtype" and quantized is not None:
            raise NotImplementedError(f"\"dtype\" not implemented for '{quantized}'")
        raise AttributeError(f"'torch.iinfo' object has no attribute '{name}'")

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


_BF16_NP = bfloat16.np if _BF16_AVAILABLE else None


def opmath_matmul(xp, a, b):
    """``xp.matmul(a, b)``; bfloat16 operands are multiplied in float32 (through BLAS) and the
    result rounded once, as torch accumulates bfloat16 products in float32."""
    if xp is np:  # (a GPU's products use no BLAS threads)
        _fit_blas_threads()  # fewer BLAS threads while other processes keep the cores busy
    if a.dtype is _BF16_NP:
        return xp.matmul(a.astype(np.float32), b.astype(np.float32)).astype(_BF16_NP)
    if a.dtype in _float8.FLOAT8:  # (ml_dtypes' own matmul answers in float32)
        if a.dtype.name == "float8_e8m0fnu":  # (scales only: torch has no product kernel)
            raise NotImplementedError('"addmm_impl_cpu_" not implemented for '
                                      "'Float8_e8m0fnu'")
        return _float8.to_float8(xp.matmul(a.astype(np.float32), b.astype(np.float32)), a.dtype)
    return xp.matmul(a, b)


def np_kind(np_dtype):
    """NumPy's kind letter of an array dtype, with ml_dtypes' bfloat16 ("V") reported as "f"."""
    return "f" if np_dtype is _BF16_NP else np_dtype.kind
