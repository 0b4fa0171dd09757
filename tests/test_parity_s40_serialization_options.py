"""torch.serialization's process-wide options as torch 2.13 has them (oracle: real torch at
test time): LoadEndianness and the default byte order for checkpoints without a byteorder
record, the CRC-32 and mmap option getters/setters and their refusals."""

import io
import zipfile

import pytest

from tests.oracle import same


def _saved(lib, x, byteorder):
    """``x`` saved by ``lib``, its byteorder record dropped (None) or replaced."""
    buf = io.BytesIO()
    lib.save(x, buf)
    buf.seek(0)
    out = io.BytesIO()
    with zipfile.ZipFile(buf) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for n in zin.namelist():
            if n.endswith("/byteorder"):
                if byteorder is not None:
                    z.writestr(n, byteorder)
            else:
                z.writestr(n, zin.read(n))
    out.seek(0)
    return out


@pytest.mark.parametrize("setting", [None, "NATIVE", "LITTLE", "BIG"])
@pytest.mark.parametrize("record", [None, b"big", b"little"])
@pytest.mark.parametrize("dtype", ["int32", "float64", "uint8", "bool", "int16"])
def test_default_load_endianness(setting, record, dtype):
    def run(t):
        s = t.serialization
        x = t.tensor([1, 2, 256, 0], dtype=getattr(t, dtype))
        s.set_default_load_endianness(setting and getattr(s.LoadEndianness, setting))
        try:
            return s.get_default_load_endianness() is not None, t.load(_saved(t, x, record))
        finally:
            s.set_default_load_endianness(None)

    same(run)


def test_load_endianness_enum_and_refusals():
    def run(t):
        s = t.serialization
        E = s.LoadEndianness
        out = [E.__name__, [(m.name, m.value, str(m), repr(m)) for m in E],
               s.get_default_load_endianness()]
        for bad in ("big", 1, 3.0):
            try:
                s.set_default_load_endianness(bad)
            except TypeError as e:
                out.append(str(e))
        try:
            t.load(_saved(t, t.ones(2), b"middle"))
        except ValueError as e:
            out.append(str(e))
        return out

    same(run)


def test_crc32_and_mmap_options():
    def run(t):
        import mmap

        s = t.serialization
        out = [s.get_crc32_options(), s.get_default_mmap_options() == mmap.MAP_PRIVATE]
        s.set_crc32_options(False)
        out.append(s.get_crc32_options())
        s.set_crc32_options(True)
        s.set_default_mmap_options(mmap.MAP_SHARED)
        out.append(s.get_default_mmap_options() == mmap.MAP_SHARED)
        s.set_default_mmap_options(mmap.MAP_PRIVATE)
        try:
            s.set_default_mmap_options(5)
        except ValueError as e:
            out.append(str(e))
        return out

    same(run)
