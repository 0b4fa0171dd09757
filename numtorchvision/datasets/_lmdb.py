"""A read-only reader of LMDB database files, used by LSUN when the ``lmdb`` package is not
installed.

It reads the main (unnamed) database of a ``data.mdb`` written by a little-endian 64-bit
LMDB: the newer of the two meta pages gives the B+tree root; branch pages point to children,
leaf pages hold (key, value) nodes, and large values live on overflow pages. Named
sub-databases and duplicate-key databases are not supported.
"""

import mmap
import os
import struct

_MAGIC = 0xBEEFC0DE
_PAGE_HEADER = 16          # page number (8), pad (2), flags (2), lower/upper (2 + 2)
_NODE_HEADER = 8           # lo (2), hi (2), flags (2), key size (2)
_P_BRANCH, _P_LEAF, _P_LEAF2 = 0x01, 0x02, 0x20
_F_BIGDATA, _F_SUBDATA, _F_DUPDATA = 0x01, 0x02, 0x04
_DB = struct.Struct("<IHHQQQQQ")   # pad (page size in the free DB), flags, depth, counts, root
_INVALID = (1 << 64) - 1


class LMDBReader:
    """Keys (in order) and values of the main database in ``path`` (a folder holding
    ``data.mdb``, or the file itself).

    Raises:
        RuntimeError: not an LMDB file, or a layout this reader does not handle.
    """

    def __init__(self, path):
        file = os.path.join(path, "data.mdb") if os.path.isdir(path) else path
        if not os.path.isfile(file):
            raise RuntimeError(f"{file}: no LMDB data file there")
        self.file = file
        with open(file, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < 2 * _PAGE_HEADER + 136:
                raise RuntimeError(f"{file} is too short to be an LMDB database")
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        metas = [self._meta(offset) for offset in (0, None)]
        meta = max((m for m in metas if m is not None), key=lambda m: m[2], default=None)
        if meta is None:
            raise RuntimeError(f"{file} is not an LMDB database (no valid meta page)")
        self.page_size, self._root, _, self.entries, flags = meta
        if flags & 0x04:  # MDB_DUPSORT
            raise RuntimeError(f"{file}: databases with duplicate keys are not supported")
        self._index = None

    def _meta(self, offset):
        if offset is None:  # the second meta page sits one page size further
            first = self._meta(0)
            if first is None:
                return None
            offset = first[0]
        m = self._map
        base = offset + _PAGE_HEADER
        magic = struct.unpack_from("<I", m, base)[0]
        if magic != _MAGIC:
            return None
        free_db = _DB.unpack_from(m, base + 24)
        main_db = _DB.unpack_from(m, base + 24 + _DB.size)
        txnid = struct.unpack_from("<Q", m, base + 24 + 2 * _DB.size + 8)[0]
        page_size = free_db[0]
        return page_size, main_db[7], txnid, main_db[6], main_db[1]

    def _page(self, pgno):
        off = pgno * self.page_size
        flags, lower = struct.unpack_from("<HH", self._map, off + 10)
        return off, flags, (lower - _PAGE_HEADER) // 2

    def _walk(self, pgno):
        """(key, value offset, value size) of every leaf node below page ``pgno``, in order."""
        stack = [pgno]
        while stack:
            off, flags, nkeys = self._page(stack.pop())
            ptrs = struct.unpack_from(f"<{nkeys}H", self._map, off + _PAGE_HEADER)
            if flags & _P_BRANCH:
                children = []
                for p in ptrs:
                    lo, hi, fl = struct.unpack_from("<HHH", self._map, off + p)
                    children.append(lo | (hi << 16) | (fl << 32))
                stack.extend(reversed(children))
            elif flags & _P_LEAF and not flags & _P_LEAF2:
                for p in ptrs:
                    node = off + p
                    lo, hi, fl, ksize = struct.unpack_from("<HHHH", self._map, node)
                    key = bytes(self._map[node + _NODE_HEADER:node + _NODE_HEADER + ksize])
                    dsize, dpos = lo | (hi << 16), node + _NODE_HEADER + ksize
                    if fl & (_F_SUBDATA | _F_DUPDATA):
                        raise RuntimeError(f"{self.file}: sub-databases are not supported")
                    if fl & _F_BIGDATA:
                        overflow = struct.unpack_from("<Q", self._map, dpos)[0]
                        dpos = overflow * self.page_size + _PAGE_HEADER
                    yield key, dpos, dsize
            else:
                raise RuntimeError(f"{self.file}: unexpected page flags {flags:#x}")

    def _build(self):
        if self._index is None:
            items = [] if self._root == _INVALID else list(self._walk(self._root))
            self._keys = [k for k, _, _ in items]
            self._index = {k: (o, s) for k, o, s in items}
        return self._index

    def keys(self):
        """All keys, in the database's (byte-wise sorted) order."""
        self._build()
        return list(self._keys)

    def get(self, key, default=None):
        """The value stored under ``key`` (bytes), or ``default``."""
        found = self._build().get(key)
        if found is None:
            return default
        offset, size = found
        return bytes(self._map[offset:offset + size])

    def __len__(self):
        return self.entries
