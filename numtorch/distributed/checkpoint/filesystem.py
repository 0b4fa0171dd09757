"""``torch.distributed.checkpoint.filesystem``: a checkpoint as a directory.

Each rank writes its items into ``__<rank>_<n>.distcp`` files, one ``torch.save`` blob per
item, back to back; the coordinator writes ``.metadata`` (the pickled ``Metadata``, whose
``storage_data`` maps each item to its file, offset and length). Reading opens each file
once and loads only the blobs a rank's plan names.
"""

import dataclasses
import enum
import io
import os
import pathlib
import uuid
import warnings
from collections.abc import Sequence

from ... import futures as _futures
from ._direct_read import read_into
from .metadata import MetadataIndex
from .planner import LoadItemType, WriteItemType
from .storage import StorageReader, StorageWriter, WriteResult

__all__ = ["FileSystem", "FileSystemBase", "FileSystemReader", "FileSystemWriter",
           "SerializationFormat"]

_METADATA = ".metadata"


class SerializationFormat(enum.Enum):
    TORCH_SAVE = "torch_save"
    SAFETENSORS = "safetensors"


@dataclasses.dataclass
class _StorageInfo:
    """Where one item's blob is: file (relative to the checkpoint), byte offset, length."""

    relative_path: str
    offset: int
    length: int
    transform_descriptors: Sequence[str] | None = None


class FileSystemBase:
    """Streams and paths of a local file system (the only one numtorch has)."""

    def create_stream(self, path, mode):
        return open(path, mode)

    def concat_path(self, path, suffix):
        return pathlib.Path(path) / suffix

    def rename(self, path, new_path):
        os.replace(path, new_path)

    def init_path(self, path):
        return pathlib.Path(path)

    def mkdir(self, path):
        pathlib.Path(path).mkdir(parents=True, exist_ok=True)

    def exists(self, path):
        return pathlib.Path(path).exists()

    def rm_file(self, path):
        os.remove(path)

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return isinstance(checkpoint_id, (str, os.PathLike))


FileSystem = FileSystemBase


def _blob(obj):
    """``obj`` as ``torch.save`` writes it."""
    from ... import save

    buf = io.BytesIO()
    save(obj, buf)
    return buf.getvalue()


def _tensor_blob(tensor):
    # the chunk alone, compact and without autograd state, as torch writes it (torch.save
    # of a view would write the whole storage it looks into)
    t = tensor.detach()
    if t.device.type != "cpu":  # a device tensor is written from a host copy, readable anywhere
        t = t.cpu()
    alone = (t.is_contiguous() and t.storage_offset() == 0
             and t.untyped_storage().nbytes() == t.numel() * t.element_size())
    if not alone:
        t = t.contiguous()
        if t.untyped_storage().nbytes() != t.numel() * t.element_size():
            t = t.clone()
    return _blob(t)


class FileSystemWriter(StorageWriter):
    """Writes a checkpoint directory at ``path`` (see the module docstring)."""

    def __init__(self, path, single_file_per_rank=True, sync_files=True, thread_count=1,
                 per_thread_copy_ahead=10_000_000, cache_staged_state_dict=False,
                 overwrite=True, _extensions=None,
                 serialization_format=SerializationFormat.TORCH_SAVE):
        if serialization_format is not SerializationFormat.TORCH_SAVE:
            raise NotImplementedError(
                "numtorch's FileSystemWriter writes the torch_save serialization format only")
        self.fs = FileSystem()
        self.path = self.fs.init_path(path)
        self.single_file_per_rank = single_file_per_rank
        self.sync_files = sync_files
        self.thread_count = thread_count
        self.per_thread_copy_ahead = per_thread_copy_ahead
        self.cache_staged_state_dict = cache_staged_state_dict
        self.overwrite = overwrite
        self.serialization_format = serialization_format
        self.save_id = str(uuid.uuid4())
        self.rank = 0
        self.use_collectives = True

    @property
    def checkpoint_id(self):
        return self.path

    def reset(self, checkpoint_id=None):
        if checkpoint_id:
            self.path = self.fs.init_path(checkpoint_id)
        self.save_id = str(uuid.uuid4())

    def set_up_storage_writer(self, is_coordinator, *args, rank=0, use_collectives=True,
                              **kwargs):
        self.rank = rank
        self.use_collectives = use_collectives

    def prepare_local_plan(self, plan):
        self.fs.mkdir(self.path)
        if self.fs.exists(self.fs.concat_path(self.path, _METADATA)):
            if not self.overwrite:
                raise RuntimeError("Checkpoint already exists and self.overwrite=False.")
            warnings.warn(f"Detected an existing checkpoint in {self.path}, overwriting since "
                          f"self.overwrite=True. Past version 2.5 of PyTorch, `overwrite` will "
                          f"default to False. Set this variable to True to maintain this "
                          f"functionality or False to raise when an existing checkpoint is "
                          f"found.", stacklevel=2)
        return plan

    def prepare_global_plan(self, plans):
        # each rank's files start with its plan's position: __<rank>_
        return [dataclasses.replace(p, storage_data=f"__{i}_") for i, p in enumerate(plans)]

    def _buckets(self, items):
        # bytes entries first, then tensors; spread over thread_count files (or one file
        # per item)
        ordered = ([w for w in items if w.type is WriteItemType.BYTE_IO]
                   + [w for w in items if w.type is not WriteItemType.BYTE_IO])
        if not self.single_file_per_rank:
            return [[w] for w in ordered]
        count = max(1, min(int(self.thread_count), len(ordered)))
        return [ordered[k::count] for k in range(count)] if ordered else []

    def write_data(self, plan, planner):
        prefix = plan.storage_data if isinstance(plan.storage_data, str) else f"__{self.rank}_"
        results = []
        for n, bucket in enumerate(self._buckets(plan.items)):
            name = f"{prefix}{n}.distcp"
            with self.fs.create_stream(self.fs.concat_path(self.path, name), "wb") as f:
                offset = 0
                for item in bucket:
                    data = planner.resolve_data(item)
                    if item.type is WriteItemType.BYTE_IO:
                        blob = data.getvalue() if hasattr(data, "getvalue") else bytes(data)
                    else:
                        blob = _tensor_blob(data)
                    f.write(blob)
                    results.append(WriteResult(index=item.index, size_in_bytes=len(blob),
                                               storage_data=_StorageInfo(name, offset,
                                                                         len(blob))))
                    offset += len(blob)
                if self.sync_files:
                    f.flush()
                    os.fsync(f.fileno())
        fut = _futures.Future()
        fut.set_result(results)
        return fut

    def finish(self, metadata, results):
        from ._pickle import dumps

        metadata.storage_data = {wr.index: wr.storage_data for per_rank in results
                                 for wr in per_rank}
        metadata.storage_meta = self.storage_meta()
        final = self.fs.concat_path(self.path, _METADATA)
        tmp = self.fs.concat_path(self.path, _METADATA + ".tmp")
        with self.fs.create_stream(tmp, "wb") as f:
            f.write(dumps(metadata))
            if self.sync_files:
                f.flush()
                os.fsync(f.fileno())
        self.fs.rename(tmp, final)

    def storage_meta(self):
        from .metadata import StorageMeta

        return StorageMeta(checkpoint_id=self.checkpoint_id, save_id=self.save_id)

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return FileSystem.validate_checkpoint_id(checkpoint_id)


class FileSystemReader(StorageReader):
    """Reads a checkpoint directory at ``path``."""

    def __init__(self, path, _extension_registry=None):
        self.fs = FileSystem()
        self.path = self.fs.init_path(path)
        self.storage_data = {}
        self.storage_chunk_sizes = {}
        self.load_id = str(uuid.uuid4())

    @property
    def checkpoint_id(self):
        return self.path

    def reset(self, checkpoint_id=None):
        self.storage_data = {}
        if checkpoint_id:
            self.path = self.fs.init_path(checkpoint_id)
        self.load_id = str(uuid.uuid4())

    def read_metadata(self, *args, rank=None, **kwargs):
        """The checkpoint's ``Metadata`` (``__<rank>.metadata`` when ``rank`` is given);
        only the classes of the format are unpickled (see ``_pickle.py``)."""
        from ._pickle import loads

        name = _METADATA if rank is None else f"__{rank}{_METADATA}"
        with self.fs.create_stream(self.fs.concat_path(self.path, name), "rb") as f:
            metadata = loads(f.read())
        if getattr(metadata, "storage_meta", None) is None:
            from .metadata import StorageMeta

            metadata.storage_meta = StorageMeta()
        metadata.storage_meta.load_id = self.load_id
        return metadata

    def set_up_storage_reader(self, metadata, is_coordinator, *args, **kwargs):
        self.storage_data = metadata.storage_data
        # each saved chunk's sizes: a read of all of it may go straight into its destination
        self.storage_chunk_sizes = {}
        for fqn, md in metadata.state_dict_metadata.items():
            for chunk in getattr(md, "chunks", ()):
                self.storage_chunk_sizes[MetadataIndex(fqn, chunk.offsets)] = tuple(chunk.sizes)

    def prepare_local_plan(self, plan):
        return plan

    def prepare_global_plan(self, plans):
        return plans

    def read_data(self, plan, planner):
        from ... import load

        by_file = {}
        for item in plan.items:
            info = self.storage_data[item.storage_index]
            by_file.setdefault(info.relative_path, []).append((info, item))
        for rel, entries in by_file.items():
            with self.fs.create_stream(self.fs.concat_path(self.path, rel), "rb") as f:
                loaded = {}
                for info, item in sorted(entries, key=lambda e: e[0].offset):
                    key = (info.offset, info.length)
                    if item.type is LoadItemType.BYTE_IO:
                        f.seek(info.offset)
                        planner.load_bytes(item, io.BytesIO(f.read(info.length)))
                        continue
                    target = planner.resolve_tensor(item).detach()
                    whole = tuple(item.lengths) == tuple(
                        self.storage_chunk_sizes.get(item.storage_index, ()))
                    if whole and key not in loaded and read_into(
                            f, info.offset, info.length, _Window, target):
                        planner.commit_tensor(item, target)
                        continue
                    saved = loaded.get(key)
                    if saved is None:
                        # read in place from the file (no copy of the blob first)
                        saved = load(_Window(f, info.offset, info.length),
                                     map_location="cpu", weights_only=True)
                        loaded[key] = saved
                    piece = _narrow(saved, item.storage_offsets, item.lengths)
                    if tuple(target.shape) != tuple(piece.shape):
                        raise AssertionError(
                            f"req {item.storage_index} mismatch sizes {tuple(target.shape)} "
                            f"vs {tuple(piece.shape)}")
                    target.copy_(piece)
                    planner.commit_tensor(item, target)
        fut = _futures.Future()
        fut.set_result(None)
        return fut

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return FileSystem.validate_checkpoint_id(checkpoint_id)


class _Window(io.RawIOBase):
    """``length`` bytes of the open file ``f`` from ``start``, as a file of their own."""

    def __init__(self, f, start, length):
        super().__init__()
        self._f, self._start, self._length, self._pos = f, start, length, 0

    def seekable(self):
        return True

    def readable(self):
        return True

    def tell(self):
        return self._pos

    def seek(self, offset, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._length}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        n = max(0, min(len(view), self._length - self._pos))
        self._f.seek(self._start + self._pos)
        got = self._f.readinto(view[:n])
        self._pos += got
        return got


def _narrow(tensor, offsets, lengths):
    """The ``lengths`` block of ``tensor`` starting at ``offsets`` (itself when whole)."""
    for dim, (start, length) in enumerate(zip(offsets, lengths)):
        if start or length != tensor.shape[dim]:
            tensor = tensor.narrow(dim, start, length)
    return tensor
