"""``numtorch.utils.serialization``: reading Lua Torch7 files (``load_lua``)."""

from ._t7_reader import T7Reader, TorchObject
from ._t7_source import T7ReaderException
from . import config  # noqa: E402,F401  (torch.utils.serialization.config)

__all__ = ["load_lua", "T7Reader", "TorchObject", "T7ReaderException"]


def load_lua(filename, **kwargs):
    """Load the object saved in a Lua Torch7 file (``torch.save`` in Lua, binary or ASCII).

    Numbers, strings, booleans and nil become Python values; tables become dicts (lists
    when their keys are 1..n); tensors and storages of every Torch7 type become numtorch
    tensors and storages (CUDA ones on the CPU), sharing memory where they did in Lua;
    ``nn`` modules and criteria become ``numtorch.legacy.nn`` objects. Files holding Lua
    functions are refused.

    Args:
        filename: path of the file (or an object with ``read()``).
        list_heuristic: turn tables keyed 1..n into lists (default True).
        int_heuristic: turn integral numbers into ``int`` (default True).
        unknown_classes: load objects of classes numtorch does not know as
            ``TorchObject`` dicts instead of raising (default False).
        long_size: size of a C ``long`` in a binary file, 8 (default) or 4.
        format: ``"binary"``, ``"ascii"``, or None (default) to tell from the file.

    Raises:
        T7ReaderException: the file is corrupt or truncated, or holds something that
            cannot be loaded (a Lua function, an unknown class).
    """
    if hasattr(filename, "read"):
        data = filename.read()
    else:
        with open(filename, "rb") as f:
            data = f.read()
    try:
        return T7Reader(memoryview(data), **kwargs).read()
    except RecursionError:
        raise T7ReaderException("objects nested too deeply to load") from None
