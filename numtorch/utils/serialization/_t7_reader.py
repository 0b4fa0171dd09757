"""``T7Reader``: Torch7's object serialization (``torch.save`` of Lua torch) as Python objects.

An object is a type tag followed by its payload: nil, a number (double), a string
(length + bytes), a boolean (int), a table (reference index, pair count, key/value
objects) or a torch object (reference index, ``"V <version>"``, class name, payload).
Tables and torch objects met again are written as their reference index alone, so
objects shared in Lua are shared after loading. Tensors become numtorch tensors viewing
their loaded storage; ``nn.*`` objects become ``numtorch.legacy.nn`` modules.
"""

import math

import numpy as np

from ... import _dtype
from ... import storage as _storage
from ..._tensor import Tensor
from ._t7_classes import fill_module, module_class
from ._t7_source import AsciiSource, BinarySource, looks_ascii

__all__ = ["T7Reader", "TorchObject"]

TYPE_NIL, TYPE_NUMBER, TYPE_STRING, TYPE_TABLE, TYPE_TORCH, TYPE_BOOLEAN = 0, 1, 2, 3, 4, 5
TYPE_FUNCTION, LEGACY_TYPE_RECUR_FUNCTION, TYPE_RECUR_FUNCTION = 6, 7, 8

# Torch7 element type -> (dtype, read raw bytes in ASCII files); Cuda types load on the CPU.
_ELEMENTS = {
    "Float": (_dtype.float32, False), "Double": (_dtype.float64, False),
    "Half": (_dtype.float16, False), "Long": (_dtype.int64, False),
    "Int": (_dtype.int32, False), "Short": (_dtype.int16, False),
    "Char": (_dtype.int8, True), "Byte": (_dtype.uint8, True),
}
_CUDA = {"Cuda": "Float", "CudaDouble": "Double", "CudaHalf": "Half", "CudaLong": "Long",
         "CudaInt": "Int", "CudaShort": "Short", "CudaChar": "Char", "CudaByte": "Byte"}
_MAX_DEPTH = 200  # each level takes three Python frames


def _element(prefix):
    return _ELEMENTS.get(_CUDA.get(prefix, prefix))


def _is_sequence(table):
    """Keys exactly 1..n (Lua's array part)."""
    n = len(table)
    for k in table:
        if type(k) not in (int, float) or not (1 <= k <= n) or k != int(k):
            return False
    return True


class TorchObject(dict):
    """A Lua object of a class numtorch does not know (read with ``unknown_classes=True``):
    its fields as a dict, its Lua class name in ``typename``."""

    def __init__(self, typename, fields=None):
        super().__init__(fields or {})
        self.typename = typename

    def torch_typename(self):
        return self.typename

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self):
        return f"TorchObject({self.typename!r}, {dict.__repr__(self)})"


class T7Reader:
    """Reads the objects of one Torch7 file held in memory.

    Args:
        data: the file's bytes.
        list_heuristic: tables whose keys are exactly 1..n become lists.
        int_heuristic: integral numbers become ``int``.
        unknown_classes: load objects of unknown Lua classes as ``TorchObject`` instead of
            raising.
        long_size: bytes of a C ``long`` in a binary file (8, or 4 for files written on
            Windows/32-bit machines).
        format: ``"binary"``, ``"ascii"`` or None to tell from the first bytes.
    """

    def __init__(self, data, list_heuristic=True, int_heuristic=True, unknown_classes=False,
                 long_size=None, format=None):  # noqa: A002 - torch.save's word
        long_size = 8 if long_size is None else long_size
        if format is None:
            format = "ascii" if looks_ascii(data) else "binary"
        if format == "binary":
            self.src = BinarySource(data, long_size)
        elif format == "ascii":
            self.src = AsciiSource(data, long_size)
        else:
            raise ValueError(f"format must be 'binary', 'ascii' or None, got {format!r}")
        self.list_heuristic = list_heuristic
        self.int_heuristic = int_heuristic
        self.unknown_classes = unknown_classes
        self.memo = {}
        self.depth = 0

    def read(self):
        """The next object of the file."""
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            self.src.fail(f"objects nested deeper than {_MAX_DEPTH} levels")
        try:
            return self._read()
        finally:
            self.depth -= 1

    def _read(self):
        src = self.src
        tag = src.read_int()
        if tag == TYPE_NIL:
            return None
        if tag == TYPE_NUMBER:
            return self._number(src.read_double())
        if tag == TYPE_STRING:
            return self._string()
        if tag == TYPE_BOOLEAN:
            return src.read_int() == 1
        if tag == TYPE_TABLE:
            return self._table()
        if tag == TYPE_TORCH:
            return self._torch_object()
        if tag in (TYPE_FUNCTION, LEGACY_TYPE_RECUR_FUNCTION, TYPE_RECUR_FUNCTION):
            src.fail("the file holds a Lua function (compiled Lua code), which cannot be "
                     "loaded into Python; remove functions before saving")
        src.fail(f"unknown object type {tag} (corrupt file, or not a Torch7 file)")

    def _number(self, x):
        if self.int_heuristic and math.isfinite(x) and x == int(x) and abs(x) < 2 ** 53:
            return int(x)
        return x

    def _string(self):
        raw = self.src.read_raw(self.src.read_int())
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw

    def _table(self):
        src = self.src
        index = src.read_int()
        if index in self.memo:
            return self.memo[index]
        size = src.read_int()
        src.need(size, 2 * src.min_object, "table size")
        table = {}
        self.memo[index] = table
        for _ in range(size):
            key = self.read()
            value = self.read()
            try:
                table[key] = value
            except TypeError:
                src.fail(f"unhashable table key of type {type(key).__name__}")
        if self.list_heuristic and table and _is_sequence(table):
            as_list = [table[i] for i in range(1, len(table) + 1)]
            self.memo[index] = as_list
            return as_list
        return table

    def _torch_object(self):
        src = self.src
        index = src.read_int()
        if index in self.memo:
            return self.memo[index]
        head = self._class_string()
        if head.startswith("V "):
            class_name = self._class_string()
        else:
            class_name = head  # version-0 files name the class directly
        obj = self._torch_payload(class_name, index)
        self.memo[index] = obj
        return obj

    def _class_string(self):
        s = self._string()
        if isinstance(s, bytes):
            self.src.fail("a class name that is not text")
        return s

    def _torch_payload(self, class_name, index):
        if class_name.startswith("torch.") and class_name.endswith("Tensor"):
            element = _element(class_name[6:-6])
            if element is not None:
                return self._tensor(element)
        if class_name.startswith("torch.") and class_name.endswith("Storage"):
            element = _element(class_name[6:-7])
            if element is not None:
                return self._storage(element)
        cls = module_class(class_name)
        if cls is None and not self.unknown_classes:
            self.src.fail(f"don't know how to load Lua class {class_name!r}; pass "
                          f"unknown_classes=True to load such objects as dicts")
        # created before its fields are read, so references to it from inside resolve
        obj = TorchObject(class_name) if cls is None else cls.__new__(cls)
        self.memo[index] = obj
        fields = self.read()
        if isinstance(fields, list):
            fields = dict(enumerate(fields, 1))
        if not isinstance(fields, dict):
            if cls is None:
                return fields  # a class with its own writer: keep what it wrote
            self.src.fail(f"{class_name} saved without its field table")
        if cls is None:
            obj.update(fields)
            return obj
        try:
            return fill_module(obj, fields)
        except (TypeError, ValueError, AttributeError, KeyError, RuntimeError) as e:
            self.src.fail(f"{class_name} with unusable fields ({type(e).__name__}: {e})")

    def _storage(self, element):
        dt, raw = element
        size = self.src.read_long()
        arr = self.src.read_array(dt.np, size, raw)
        return _storage._CLASS_OF[dt](wrap=arr)

    def _tensor(self, element):
        src = self.src
        dt = element[0]
        ndim = src.read_int()
        src.need(ndim, 2, "dimension count")
        sizes = src.read_longs(ndim)
        strides = src.read_longs(ndim)
        offset = src.read_long() - 1  # Lua counts storage positions from 1
        if any(s < 0 for s in sizes) or any(s < 0 for s in strides) or offset < 0:
            src.fail(f"a tensor with negative sizes, strides or offset ({sizes}, {strides}, "
                     f"{offset + 1})")
        storage = self.read()
        if ndim == 0 or storage is None:
            return Tensor().to(dt)
        if not isinstance(storage, _storage.TypedStorage) or storage.dtype != dt:
            src.fail(f"a {dt} tensor whose storage is {type(storage).__name__}")
        if all(s > 0 for s in sizes):
            last = offset + sum((n - 1) * st for n, st in zip(sizes, strides))
            if last >= storage.size():
                src.fail(f"a tensor of size {sizes} and strides {strides} at offset "
                         f"{offset + 1} reaching past its storage of {storage.size()} "
                         f"elements")
        t = Tensor().to(dt)
        if np.prod(sizes) == 0:
            return t.new_empty(sizes)
        return t.set_(storage, offset, sizes, strides)
