"""The two encodings of Torch7 files: the primitive readers under ``T7Reader``.

Binary files hold little-endian 4-byte ints, ``long_size``-byte longs and 8-byte doubles.
ASCII files hold one whitespace-separated decimal number per value (arrays on one line),
and raw bytes for string contents and char/byte storages; every write ends with a newline,
which the next read skips. Counts read from the file are checked against the bytes left,
so a corrupt count fails at once instead of allocating or looping.
"""

import struct

import numpy as np

__all__ = []


class T7ReaderException(RuntimeError):
    """A Torch7 file that cannot be read (corrupt, truncated, or holding Lua code)."""


class _Source:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def remaining(self):
        return len(self.data) - self.pos

    def fail(self, what):
        raise T7ReaderException(f"{what} at byte {self.pos} of {len(self.data)}")

    def need(self, count, per_item, what):
        """Reject a count that cannot fit in what is left of the file."""
        if count < 0:
            self.fail(f"negative {what} ({count})")
        if count * per_item > self.remaining():
            self.fail(f"{what} {count} larger than the rest of the file (truncated or "
                      f"corrupt)")


class BinarySource(_Source):
    min_object = 4  # the smallest encoded object: a 4-byte type tag

    def __init__(self, data, long_size=8):
        super().__init__(data)
        if long_size not in (4, 8):
            raise ValueError(f"long_size must be 4 or 8, got {long_size}")
        self.long_size = long_size
        self._long = "<q" if long_size == 8 else "<i"

    def _unpack(self, fmt, size):
        if self.remaining() < size:
            self.fail("unexpected end of file")
        value = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += size
        return value

    def read_int(self):
        return self._unpack("<i", 4)

    def read_long(self):
        return self._unpack(self._long, self.long_size)

    def read_double(self):
        return self._unpack("<d", 8)

    def read_raw(self, n):
        self.need(n, 1, "string length")
        out = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return out

    def read_longs(self, n):
        return [self.read_long() for _ in range(n)]

    def read_array(self, np_dtype, n, raw=False):
        item = self.long_size if np_dtype == np.int64 else np.dtype(np_dtype).itemsize
        self.need(n, item, "storage size")
        file_dtype = np.int32 if (np_dtype == np.int64 and self.long_size == 4) else np_dtype
        arr = np.frombuffer(self.data, dtype=np.dtype(file_dtype).newbyteorder("<"), count=n,
                            offset=self.pos)
        self.pos += n * item
        return arr.astype(np_dtype)  # a copy in native order: the file buffer can go


class AsciiSource(_Source):
    min_object = 2  # "0\n"
    _space = b" \t\r\n"

    def __init__(self, data, long_size=8):
        super().__init__(data)
        self.long_size = long_size

    def _skip_newline(self):
        if self.pos < len(self.data) and self.data[self.pos] == 0x0A:
            self.pos += 1

    def _token(self):
        data, n = self.data, len(self.data)
        while self.pos < n and data[self.pos] in self._space:
            self.pos += 1
        start = self.pos
        while self.pos < n and data[self.pos] not in self._space:
            self.pos += 1
        if start == self.pos:
            self.fail("unexpected end of file")
        return bytes(data[start:self.pos])

    def _number(self, kind):
        token = self._token()
        try:
            return kind(token.decode("ascii"))
        except (ValueError, UnicodeDecodeError):
            self.fail(f"expected a number, found {token[:20]!r}")

    def read_int(self):
        value = self._number(int)
        self._skip_newline()
        return value

    read_long = read_int

    def read_double(self):
        value = self._number(float)
        self._skip_newline()
        return value

    def read_raw(self, n):
        self.need(n, 1, "string length")
        out = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        self._skip_newline()
        return out

    def read_longs(self, n):
        self.need(n, 1, "dimension count")
        values = [self._number(int) for _ in range(n)]
        if n:
            self._skip_newline()
        return values

    def read_array(self, np_dtype, n, raw=False):
        if raw:  # char and byte storages are raw bytes in both encodings
            self.need(n, 1, "storage size")
            arr = np.frombuffer(self.data, dtype=np_dtype, count=n, offset=self.pos).copy()
            self.pos += n
            self._skip_newline()
            return arr
        self.need(n, 1, "storage size")
        kind = int if np.dtype(np_dtype).kind in "iu" else float
        values = [self._number(kind) for _ in range(n)]
        if n:
            self._skip_newline()
        try:
            return np.array(values, dtype=np_dtype)
        except OverflowError:
            self.fail(f"a storage value out of range for {np.dtype(np_dtype).name}")


def looks_ascii(data):
    """True when a file starts like an ASCII Torch7 file (a decimal type tag)."""
    head = bytes(data[:8]).lstrip(b" \t\r\n")
    return bool(head) and head[:1] in b"-0123456789" and b"\x00" not in bytes(data[:8])
