"""The array-side identity of torch's quantized dtypes (``quint8``, ``qint8``, ``qint32``, ...).

A numtorch dtype names the NumPy dtype of the arrays that hold it (``dtype.np``), and
``Tensor.dtype`` looks the array's dtype up in ``_dtype._FROM_NP``. A quantized tensor holds
its integers in a :class:`numtorch._quantized_array.QArray`, whose ``dtype`` is one of the keys
below: an object distinct from every NumPy dtype, so the lookup finds the quantized dtype while
the integer storage (``storage``) stays an ordinary NumPy dtype. NumPy cannot make arrays of a
key (``np.empty(n, dtype=key)`` raises), so nothing creates a quantized array by accident.

This module imports nothing from numtorch: ``_dtype`` imports it.
"""

import numpy as np

__all__ = ["QuantizedKey", "KEYS", "QConst"]


class QConst(float):
    """A number made by ``quantized_dtype.type(v)`` (as kernels write ``x.dtype.type(0)``): a
    QArray quantizes it with its own parameters when it meets it in max/min/clip/where, which
    gives torch's quantized relu, clamp and hardtanh (bounds rounded to the quantized grid)."""

    __slots__ = ()


class QuantizedKey:
    """Stands for one quantized dtype where a NumPy dtype would be (``QArray.dtype``).

    Attributes:
        name (str): the dtype's name, e.g. ``"quint8"``.
        storage (numpy.dtype): the integer type the values are stored in.
        qmin, qmax (int): the range of the stored integers (sub-byte types pack two or four
            values per byte; the range is that of one value).
        kind (str): ``"q"``, a kind letter no NumPy dtype has, so code that branches on
            ``dtype.kind`` treats these as neither integer, float nor bool.
    """

    __slots__ = ("name", "storage", "qmin", "qmax", "itemsize", "kind", "bits")
    type = QConst  # noqa: A003 - NumPy's name for a dtype's scalar type

    def __init__(self, name, storage, qmin, qmax, bits):
        self.name = name
        self.storage = np.dtype(storage)
        self.qmin, self.qmax, self.bits = qmin, qmax, bits
        self.itemsize = self.storage.itemsize
        self.kind = "q"

    def __repr__(self):
        return f"<quantized array dtype {self.name}>"

    def __reduce__(self):
        return (_key, (self.name,))


def _key(name):
    return KEYS[name]


KEYS = {k.name: k for k in (
    QuantizedKey("quint8", np.uint8, 0, 255, 8),
    QuantizedKey("qint8", np.int8, -128, 127, 8),
    QuantizedKey("qint32", np.int32, -2 ** 31, 2 ** 31 - 1, 32),
    QuantizedKey("quint4x2", np.uint8, 0, 15, 4),
    QuantizedKey("quint2x4", np.uint8, 0, 3, 2),
)}
