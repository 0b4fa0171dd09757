"""Process-wide load/save settings of ``torch.serialization``: the byte order assumed for
checkpoints that do not record one, whether ``save`` writes CRC-32s, and the mmap flags
``load(mmap=True)`` maps with."""

import enum
import mmap

__all__ = ["LoadEndianness", "get_crc32_options", "get_default_load_endianness",
           "get_default_mmap_options", "set_crc32_options", "set_default_load_endianness",
           "set_default_mmap_options"]


class LoadEndianness(enum.Enum):
    """The byte order to read a checkpoint's storages in when it has no ``byteorder``
    record (files written by torch before 2.1)."""

    NATIVE = 1
    LITTLE = 2
    BIG = 3


_STATE = {"endianness": None, "crc32": True,
          "mmap": getattr(mmap, "MAP_PRIVATE", 2)}


def get_default_load_endianness():
    """The byte order set by ``set_default_load_endianness`` (None: the machine's)."""
    return _STATE["endianness"]


def set_default_load_endianness(endianness):
    if endianness is not None and not isinstance(endianness, LoadEndianness):
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _STATE["endianness"] = endianness


def unrecorded_byteorder():
    """'little' or 'big': the order a checkpoint without a ``byteorder`` record is read in."""
    import sys

    e = _STATE["endianness"]
    if e is None or e is LoadEndianness.NATIVE:
        return sys.byteorder
    return "big" if e is LoadEndianness.BIG else "little"


def get_crc32_options():
    """Whether ``save`` computes CRC-32 checksums of its records."""
    return _STATE["crc32"]


def set_crc32_options(compute_crc32):
    # (numtorch always writes the checksums: reading them back is what needs them)
    _STATE["crc32"] = compute_crc32


def get_default_mmap_options():
    """The flags ``load(mmap=True)`` maps files with."""
    return _STATE["mmap"]


class set_default_mmap_options:
    """Set the flags ``load(mmap=True)`` maps files with: at once when called, and back to
    the previous flags on leaving a ``with`` block.

    Args:
        flags: ``mmap.MAP_PRIVATE`` (writes to loaded tensors stay in memory) or
            ``mmap.MAP_SHARED`` (writes reach the file).
    """

    def __init__(self, flags):
        allowed = (getattr(mmap, "MAP_PRIVATE", 2), getattr(mmap, "MAP_SHARED", 1))
        if flags not in allowed:
            raise ValueError("Invalid argument in function set_default_mmap_options, expected "
                             f"mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}")
        self.prev = _STATE["mmap"]
        _STATE["mmap"] = flags

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        _STATE["mmap"] = self.prev
