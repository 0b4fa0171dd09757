"""Process-wide load/save settings of ``torch.serialization``: the byte order assumed for
checkpoints that do not record one, whether ``save`` writes CRC-32s, the byte boundary its
records start on, whether ``load`` maps files by default and the mmap flags it maps with. They
live in the ``load`` and ``save`` sections of ``torch.utils.serialization.config``; the
``get_*``/``set_*`` functions of ``torch.serialization`` read and write the same values."""

import enum
import mmap
import sys

__all__ = ["LoadEndianness", "get_crc32_options", "get_default_load_endianness",
           "get_default_mmap_options", "set_crc32_options", "set_default_load_endianness",
           "set_default_mmap_options"]


class LoadEndianness(enum.Enum):
    """The byte order to read a checkpoint's storages in when it has no ``byteorder``
    record (files written by torch before 2.1)."""

    NATIVE = 1
    LITTLE = 2
    BIG = 3


class _Section:
    """One section of ``torch.utils.serialization.config`` (``load`` or ``save``): its
    settings as attributes; assigning one it does not have is an AttributeError, as in
    torch's config modules."""

    def __init__(self, path, defaults):
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_values", dict(defaults))

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"{object.__getattribute__(self, '_path')}.{name} does not exist")

    def __setattr__(self, name, value):
        if name not in self._values:
            raise AttributeError(f"{self._path}.{name} does not exist")
        self._values[name] = value

    def __delattr__(self, name):
        raise AttributeError(f"{self._path}.{name} cannot be deleted")

    def __dir__(self):
        return sorted(self._values)

    def __repr__(self):
        return f"<{self._path}: {self._values}>"


_CONFIG = "torch.utils.serialization.config"
# the process-wide settings (numtorch.utils.serialization.config re-exports the sections)
load = _Section(f"{_CONFIG}.load", {
    "mmap": False,  # load(mmap=None) maps the file when True
    "endianness": None,  # the byte order of checkpoints without a byteorder record
    "mmap_flags": None if sys.platform == "win32" else getattr(mmap, "MAP_PRIVATE", 2),
    "calculate_storage_offsets": False,  # (torch's reading shortcut; numtorch reads the same)
})
save = _Section(f"{_CONFIG}.save", {
    "compute_crc32": True,  # False: every record's CRC-32 is written as 0, as torch does
    "use_pinned_memory_for_d2h": False,  # (no device copies to pin on numtorch's CPU)
    "storage_alignment": 64,  # the byte boundary each record's data starts on
})


def get_default_load_endianness():
    """The byte order set by ``set_default_load_endianness`` (None: the machine's)."""
    return load.endianness


def set_default_load_endianness(endianness):
    if endianness is not None and not isinstance(endianness, LoadEndianness):
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    load.endianness = endianness


def unrecorded_byteorder():
    """'little' or 'big': the order a checkpoint without a ``byteorder`` record is read in."""
    import sys

    e = load.endianness
    if e is None or e is LoadEndianness.NATIVE:
        return sys.byteorder
    return "big" if e is LoadEndianness.BIG else "little"


def get_crc32_options():
    """Whether ``save`` computes CRC-32 checksums of its records."""
    return save.compute_crc32


def set_crc32_options(compute_crc32):
    save.compute_crc32 = compute_crc32


def get_default_mmap_options():
    """The flags ``load(mmap=True)`` maps files with."""
    return load.mmap_flags


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
        self.prev = load.mmap_flags
        load.mmap_flags = flags

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        load.mmap_flags = self.prev
