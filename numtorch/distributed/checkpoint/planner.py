"""``torch.distributed.checkpoint.planner``: the plans a save or load exchanges.

A save plan lists the ``WriteItem``s one rank writes (a tensor chunk or a bytes entry); a
load plan the ``ReadItem``s it reads (a region of a saved chunk copied into a region of a
destination tensor, or a bytes entry). Planners build and resolve them; storage layers
carry them out (``filesystem.py``).
"""

import abc
import dataclasses
import enum
from typing import Any

from .metadata import (  # noqa: F401  (torch's module exposes these names too)
    STATE_DICT_TYPE,
    ChunkStorageMetadata,
    Metadata,
    MetadataIndex,
    StorageMeta,
    TensorProperties,
)

__all__ = [
    "BytesIOWriteData",
    "LoadItemType",
    "LoadPlan",
    "LoadPlanner",
    "ReadItem",
    "SavePlan",
    "SavePlanner",
    "TensorWriteData",
    "WriteItem",
    "WriteItemType",
]


class WriteItemType(enum.Enum):
    TENSOR = enum.auto()
    SHARD = enum.auto()
    BYTE_IO = enum.auto()


class LoadItemType(enum.Enum):
    TENSOR = enum.auto()
    BYTE_IO = enum.auto()


@dataclasses.dataclass(frozen=True)
class BytesIOWriteData:
    nbytes: int


@dataclasses.dataclass(frozen=True)
class TensorWriteData:
    chunk: ChunkStorageMetadata
    properties: TensorProperties
    size: Any


@dataclasses.dataclass(frozen=True)
class WriteItem:
    """One thing a rank writes."""

    index: MetadataIndex
    type: WriteItemType
    bytes_io_data: Any = None
    tensor_data: TensorWriteData | None = None

    def tensor_storage_size(self):
        """Bytes of the tensor chunk, or None for a bytes item."""
        if self.tensor_data is None:
            return None
        n = 1
        for s in self.tensor_data.size:
            n *= s
        return n * self.tensor_data.properties.dtype.itemsize


@dataclasses.dataclass(frozen=True)
class ReadItem:
    """Copy ``lengths`` of the saved ``storage_index`` chunk, from ``storage_offsets``, into
    the destination ``dest_index`` at ``dest_offsets`` (bytes items: the whole entry)."""

    type: LoadItemType
    dest_index: MetadataIndex
    dest_offsets: Any
    storage_index: MetadataIndex
    storage_offsets: Any
    lengths: Any


@dataclasses.dataclass(frozen=True)
class SavePlan:
    items: list
    storage_data: Any = None
    planner_data: Any = None
    usable: bool = True


@dataclasses.dataclass
class LoadPlan:
    items: list
    storage_data: Any = None
    planner_data: Any = None


class SavePlanner(abc.ABC):
    """Decides what each rank writes (``create_local_plan``), merges the ranks' plans into the
    checkpoint's metadata (``create_global_plan``) and hands out the data (``resolve_data``)."""

    @abc.abstractmethod
    def set_up_planner(self, state_dict, storage_meta=None, is_coordinator=False):
        ...

    @abc.abstractmethod
    def create_local_plan(self):
        ...

    @abc.abstractmethod
    def create_global_plan(self, all_plans):
        ...

    @abc.abstractmethod
    def finish_plan(self, new_plan):
        ...

    @abc.abstractmethod
    def resolve_data(self, write_item):
        ...


class LoadPlanner(abc.ABC):
    """Decides what each rank reads and where it goes: ``resolve_tensor`` gives the
    destination region, ``commit_tensor`` is told when it is filled, ``load_bytes`` takes a
    bytes entry."""

    @abc.abstractmethod
    def set_up_planner(self, state_dict, metadata=None, is_coordinator=False):
        ...

    @abc.abstractmethod
    def create_local_plan(self):
        ...

    @abc.abstractmethod
    def create_global_plan(self, global_plan):
        ...

    @abc.abstractmethod
    def finish_plan(self, central_plan):
        ...

    @abc.abstractmethod
    def load_bytes(self, read_item, value):
        ...

    @abc.abstractmethod
    def resolve_tensor(self, read_item):
        ...

    @abc.abstractmethod
    def commit_tensor(self, read_item, tensor):
        ...
