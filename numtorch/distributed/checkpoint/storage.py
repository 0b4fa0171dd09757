"""``torch.distributed.checkpoint.storage``: the interface a checkpoint's storage layer
implements (``filesystem.py`` is the one numtorch has)."""

import abc
import dataclasses
from typing import Any

from .metadata import MetadataIndex

__all__ = ["StorageReader", "StorageWriter", "WriteResult"]


@dataclasses.dataclass(frozen=True)
class WriteResult:
    """Where one written item ended up (``storage_data``: the layer's own record)."""

    index: MetadataIndex
    size_in_bytes: int
    storage_data: Any


class StorageWriter(abc.ABC):
    @abc.abstractmethod
    def reset(self, checkpoint_id=None):
        ...

    @abc.abstractmethod
    def set_up_storage_writer(self, is_coordinator, *args, **kwargs):
        ...

    @abc.abstractmethod
    def prepare_local_plan(self, plan):
        ...

    @abc.abstractmethod
    def prepare_global_plan(self, plans):
        ...

    @abc.abstractmethod
    def write_data(self, plan, planner):
        ...

    @abc.abstractmethod
    def finish(self, metadata, results):
        ...

    @classmethod
    @abc.abstractmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        ...

    def storage_meta(self):
        return None


class StorageReader(abc.ABC):
    @abc.abstractmethod
    def reset(self, checkpoint_id=None):
        ...

    @abc.abstractmethod
    def read_metadata(self, *args, **kwargs):
        ...

    @abc.abstractmethod
    def set_up_storage_reader(self, metadata, is_coordinator, *args, **kwargs):
        ...

    @abc.abstractmethod
    def prepare_local_plan(self, plan):
        ...

    @abc.abstractmethod
    def prepare_global_plan(self, plans):
        ...

    @abc.abstractmethod
    def read_data(self, plan, planner):
        ...

    @classmethod
    @abc.abstractmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        ...
