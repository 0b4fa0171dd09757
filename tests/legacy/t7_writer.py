"""A small writer of Torch7 files for the load_lua tests, written from the format's
description (Lua torch's File:writeObject).

Every object is a 4-byte type tag (nil 0, number 1, string 2, table 3, torch object 4,
boolean 5, function 6) and a payload. Tables and torch objects carry a reference index;
an object written again is just its tag and index. A torch object is ``"V 1"``, the class
name and the class's data: a tensor writes its dimension count, sizes and strides (longs),
1-based storage offset (long) and storage object; a storage its size (long) and raw
elements; any other class its field table. ASCII files write every value as decimal text
ending in a newline (arrays space-separated on one line), and string contents and
char/byte storages as raw bytes.
"""

import struct

import numpy as np

NIL, NUMBER, STRING, TABLE, TORCH, BOOLEAN, FUNCTION = 0, 1, 2, 3, 4, 5, 6

DTYPES = {"Float": np.float32, "Double": np.float64, "Half": np.float16, "Long": np.int64,
          "Int": np.int32, "Short": np.int16, "Char": np.int8, "Byte": np.uint8}


class Storage:
    def __init__(self, kind, values):
        self.kind = kind
        self.values = np.asarray(values, dtype=DTYPES[kind]).reshape(-1)


class Tensor:
    """A Torch7 tensor: a view (sizes, strides, 1-based offset) of a Storage."""

    def __init__(self, kind, sizes, strides, offset, storage, class_prefix=""):
        self.kind, self.sizes, self.strides = kind, list(sizes), list(strides)
        self.offset, self.storage, self.class_prefix = offset, storage, class_prefix

    @classmethod
    def of(cls, array, kind=None):
        array = np.ascontiguousarray(array)
        kind = kind or {v: k for k, v in DTYPES.items()}[array.dtype.type]
        strides = [s // array.itemsize for s in array.strides]
        return cls(kind, array.shape, strides, 1, Storage(kind, array))


class Object:
    """A torch object with a field table (an nn module, a criterion...)."""

    def __init__(self, class_name, fields):
        self.class_name, self.fields = class_name, fields


class Function:
    def __init__(self, code=b"\x1bLJ"):
        self.code = code


class Writer:
    def __init__(self, ascii=False, long_size=8, version_strings=True):
        self.ascii, self.long_size = ascii, long_size
        self.version_strings = version_strings
        self.out = bytearray()
        self.refs = {}

    # -- primitives -----------------------------------------------------------------------
    def int(self, v):
        if self.ascii:
            self.out += b"%d\n" % v
        else:
            self.out += struct.pack("<i", v)

    def long(self, v):
        self.longs([v])

    def longs(self, values):
        if self.ascii:
            if values:
                self.out += b" ".join(b"%d" % v for v in values) + b"\n"
        else:
            fmt = "<q" if self.long_size == 8 else "<i"
            for v in values:
                self.out += struct.pack(fmt, v)

    def double(self, v):
        if self.ascii:
            self.out += repr(float(v)).encode() + b"\n"
        else:
            self.out += struct.pack("<d", v)

    def raw_string(self, b):
        self.int(len(b))
        self.out += b
        if self.ascii:
            self.out += b"\n"

    # -- objects --------------------------------------------------------------------------
    def ref(self, obj):
        """Write the reference index; True if the object was written before."""
        key = id(obj)
        if key in self.refs:
            self.int(self.refs[key][0])
            return True
        self.refs[key] = (len(self.refs) + 1, obj)
        self.int(self.refs[key][0])
        return False

    def write(self, obj):
        if obj is None:
            self.int(NIL)
        elif isinstance(obj, bool):
            self.int(BOOLEAN)
            self.int(1 if obj else 0)
        elif isinstance(obj, (int, float)):
            self.int(NUMBER)
            self.double(obj)
        elif isinstance(obj, (str, bytes)):
            self.int(STRING)
            self.raw_string(obj.encode() if isinstance(obj, str) else obj)
        elif isinstance(obj, (dict, list)):
            self.int(TABLE)
            if not self.ref(obj):
                items = obj.items() if isinstance(obj, dict) else enumerate(obj, 1)
                items = list(items)
                self.int(len(items))
                for k, v in items:
                    self.write(k)
                    self.write(v)
        elif isinstance(obj, Function):
            self.int(FUNCTION)
            self.ref(obj)
            self.raw_string(obj.code)
            self.write({})  # upvalues
        elif isinstance(obj, np.ndarray):
            self.write(Tensor.of(obj))
        else:
            self.int(TORCH)
            if self.ref(obj):
                return
            if isinstance(obj, Tensor):
                self.header(_class_name(obj.class_prefix, obj.kind, "Tensor"))
                self.int(len(obj.sizes))
                self.longs(obj.sizes)
                self.longs(obj.strides)
                self.long(obj.offset)
                self.write(obj.storage)
            elif isinstance(obj, Storage):
                self.header(f"torch.{obj.kind}Storage")
                self.long(obj.values.size)
                self.storage_data(obj)
            else:
                self.header(obj.class_name)
                self.write(obj.fields)

    def header(self, class_name):
        if self.version_strings:
            self.raw_string(b"V 1")
        self.raw_string(class_name.encode())

    def storage_data(self, s):
        v = s.values
        if s.kind in ("Char", "Byte"):
            self.out += v.tobytes()
            if self.ascii and v.size:
                self.out += b"\n"
        elif not self.ascii:
            if s.kind == "Long" and self.long_size == 4:
                v = v.astype(np.int32)
            self.out += v.astype(v.dtype.newbyteorder("<")).tobytes()
        elif v.size:
            if v.dtype.kind in "iu":
                text = b" ".join(b"%d" % x for x in v.tolist())
            else:
                text = b" ".join(repr(float(x)).encode() for x in v.tolist())
            self.out += text + b"\n"


def _class_name(prefix, kind, what):
    # Torch7's CUDA float type has no element word: torch.CudaTensor, torch.CudaStorage
    return f"torch.{prefix}{'' if prefix == 'Cuda' and kind == 'Float' else kind}{what}"


def dumps(obj, **kwargs):
    w = Writer(**kwargs)
    w.write(obj)
    return bytes(w.out)


def save(path, obj, **kwargs):
    with open(path, "wb") as f:
        f.write(dumps(obj, **kwargs))
