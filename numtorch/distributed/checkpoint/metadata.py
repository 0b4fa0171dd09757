"""``torch.distributed.checkpoint.metadata``: what a checkpoint's ``.metadata`` file records.

Every saved entry has a storage description (a tensor's dtype, global size and the chunks
the ranks wrote, or "opaque bytes" for other values); ``Metadata.storage_data`` says where
each chunk lies (see ``filesystem._StorageInfo``). The classes pickle under torch's names
(``_pickle.py``), so the file is the one torch writes and reads.
"""

import dataclasses
import enum
from typing import Any

__all__ = [
    "STATE_DICT_TYPE",
    "STORAGE_TYPES",
    "BytesStorageMetadata",
    "ChunkStorageMetadata",
    "Metadata",
    "MetadataIndex",
    "StorageMeta",
    "TensorProperties",
    "TensorStorageMetadata",
]


@dataclasses.dataclass
class ChunkStorageMetadata:
    """One rank's block of a tensor: where it starts and its sizes (both ``torch.Size``)."""

    offsets: Any
    sizes: Any


class _MEM_FORMAT_ENCODING(enum.Enum):
    # how torch encodes a memory format in the file (the objects are not picklable there)
    TORCH_CONTIGUOUS_FORMAT = 0
    TORCH_CHANNELS_LAST = 1
    TORCH_PRESERVE_FORMAT = 2


def _memory_formats():
    from ... import channels_last, contiguous_format, preserve_format

    return {_MEM_FORMAT_ENCODING.TORCH_CONTIGUOUS_FORMAT: contiguous_format,
            _MEM_FORMAT_ENCODING.TORCH_CHANNELS_LAST: channels_last,
            _MEM_FORMAT_ENCODING.TORCH_PRESERVE_FORMAT: preserve_format}


def _default_dtype():
    from ... import get_default_dtype

    return get_default_dtype()


def _strided():
    from ... import strided

    return strided


def _contiguous():
    from ... import contiguous_format

    return contiguous_format


@dataclasses.dataclass
class TensorProperties:
    """A saved tensor's dtype, layout and flags."""

    dtype: Any = dataclasses.field(default_factory=_default_dtype)
    layout: Any = dataclasses.field(default_factory=_strided)
    requires_grad: bool = False
    memory_format: Any = dataclasses.field(default_factory=_contiguous)
    pin_memory: bool = False

    def __getstate__(self):
        # torch stores a tuple with the memory format as its enum code
        code = next(k for k, v in _memory_formats().items() if v == self.memory_format)
        return (self.dtype, self.layout, self.requires_grad, code, self.pin_memory)

    def __setstate__(self, state):
        dtype, layout, requires_grad, code, pin_memory = state
        self.dtype, self.layout = dtype, layout
        self.requires_grad, self.pin_memory = requires_grad, pin_memory
        self.memory_format = _memory_formats()[_MEM_FORMAT_ENCODING(getattr(code, "value", code))]

    @staticmethod
    def create_from_tensor(tensor):
        """The properties of ``tensor`` (a contiguous strided tensor as DCP writes it)."""
        return TensorProperties(dtype=tensor.dtype, layout=tensor.layout,
                                requires_grad=tensor.requires_grad,
                                memory_format=_contiguous(),
                                pin_memory=bool(tensor.is_pinned()))


@dataclasses.dataclass
class TensorStorageMetadata:
    """A tensor entry: its properties, global size and the chunks written for it."""

    properties: TensorProperties
    size: Any
    chunks: list


@dataclasses.dataclass
class BytesStorageMetadata:
    """A non-tensor entry, written as one ``torch.save`` blob."""


@dataclasses.dataclass
class StorageMeta:
    """Where and when a checkpoint was written or read."""

    checkpoint_id: Any = None
    save_id: str | None = None
    load_id: str | None = None
    modules: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Metadata:
    """The whole checkpoint's description (the ``.metadata`` file)."""

    state_dict_metadata: dict
    planner_data: Any = None
    storage_data: Any = None
    storage_meta: StorageMeta | None = None
    version: str | None = None


@dataclasses.dataclass(frozen=True)
class MetadataIndex:
    """Names one entry, or one chunk of a tensor entry (by its ``offset``); ``index`` is only
    a lookup hint and takes no part in comparisons."""

    fqn: str
    offset: Any = None
    index: int | None = dataclasses.field(hash=False, compare=False, default=None)

    def __init__(self, fqn, offset=None, index=None):
        from ..._size import Size

        object.__setattr__(self, "fqn", fqn)
        object.__setattr__(self, "offset", None if offset is None else Size(offset))
        object.__setattr__(self, "index", index)


# the aliases torch's modules and users' type hints import
STATE_DICT_TYPE = dict[str, Any]
STORAGE_TYPES = TensorStorageMetadata | BytesStorageMetadata
