"""``torch.distributed.checkpoint``: saving and loading (sharded) state dicts in torch's
on-disk format.

A checkpoint is a directory: ``.metadata`` (the pickled ``Metadata``) and each rank's
``__<rank>_<n>.distcp`` files of ``torch.save`` blobs. ``save`` writes one from any process
count, ``load`` fills a state dict in place under any other sharding or world size;
checkpoints written by torch 2.13 load here and the other way round. ``state_dict`` holds
``get_state_dict``/``set_state_dict`` for models and optimizers (DTensor / FSDP2 aware).
"""

from . import (  # noqa: F401  (torch's submodules, importable as attributes)
    api,
    default_planner,
    filesystem,
    format_utils,
    metadata,
    planner,
    state_dict,
    state_dict_loader,
    state_dict_saver,
    stateful,
    storage,
)
from .api import CheckpointException
from .default_planner import DefaultLoadPlanner, DefaultSavePlanner
from .filesystem import FileSystemReader, FileSystemWriter
from .hf_storage import HuggingFaceStorageReader, HuggingFaceStorageWriter
from .metadata import (
    BytesStorageMetadata,
    ChunkStorageMetadata,
    Metadata,
    TensorStorageMetadata,
)
from .planner import LoadPlan, LoadPlanner, ReadItem, SavePlan, SavePlanner, WriteItem
from .state_dict_loader import load, load_state_dict
from .state_dict_saver import async_save, save, save_state_dict
from .storage import StorageReader, StorageWriter

__all__ = [
    "BytesStorageMetadata",
    "CheckpointException",
    "ChunkStorageMetadata",
    "DefaultLoadPlanner",
    "DefaultSavePlanner",
    "FileSystemReader",
    "FileSystemWriter",
    "HuggingFaceStorageReader",
    "HuggingFaceStorageWriter",
    "LoadPlan",
    "LoadPlanner",
    "Metadata",
    "ReadItem",
    "SavePlan",
    "SavePlanner",
    "StorageReader",
    "StorageWriter",
    "TensorStorageMetadata",
    "WriteItem",
    "async_save",
    "load",
    "load_state_dict",
    "save",
    "save_state_dict",
]
