"""``torch.distributed.checkpoint.hf_storage``: checkpoints as Hugging Face safetensors files.

Writing: tensors go to ``model-0000i-of-0000N.safetensors`` (``fqn_to_index_mapping`` picks
i) with ``model.safetensors.index.json``; each file's ``__metadata__`` records where every
tensor's block starts (``DCP_SHARDING_INFO``). With ``save_distributed`` each rank writes
its blocks to ``shard-<rank+1>-model-...`` files, and ``enable_consolidation`` then joins
them into whole-tensor model files (the shards kept under ``sharded/``). Reading takes every
``*.safetensors`` file in the directory (plain Hugging Face ones too: blocks start at 0), so
a model's published weights load straight into (sharded) parameters. Only tensors can be
stored, as in safetensors.
"""

import dataclasses
import json
import os
from typing import Any

from ... import futures as _futures
from ..._size import Size
from .filesystem import FileSystemReader, FileSystemWriter, _narrow
from .metadata import (
    ChunkStorageMetadata,
    Metadata,
    MetadataIndex,
    StorageMeta,
    TensorProperties,
    TensorStorageMetadata,
)
from .planner import WriteItemType
from .storage import WriteResult

__all__ = ["HuggingFaceStorageReader", "HuggingFaceStorageWriter"]

_INDEX = "model.safetensors.index.json"
_SHARDED = "sharded"


@dataclasses.dataclass
class _HFStorageInfo:
    """Where a tensor block is: its file, and its shape and dtype there."""

    relative_path: str
    shape: Any
    dtype: Any


def _model_file(index, count):
    return f"model-{index:05d}-of-{count:05d}.safetensors"


def _dtype_by_name(name):
    from ... import _dtype

    return getattr(_dtype, name)


def _header(path):
    """``({name: (dtype name, shape, begin, end)}, metadata, data start)`` of a file."""
    from ..._serialization._safetensors import _parse_entries, _read_header

    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        header, start = _read_header(fh, size)
        entries, meta = _parse_entries(header, size - start)
    return {e[0]: e[1:] for e in entries}, meta or {}, start


def _read_entry(path, start, entry):
    from ... import frombuffer

    dtype_name, shape, begin, end = entry
    with open(path, "rb") as fh:
        fh.seek(start + begin)
        raw = bytearray(end - begin)
        fh.readinto(raw)
    if not raw:
        from ... import empty

        return empty(shape, dtype=_dtype_by_name(dtype_name))
    return frombuffer(raw, dtype=_dtype_by_name(dtype_name)).reshape(shape)


def _sharding_info(meta):
    raw = meta.get("DCP_SHARDING_INFO")
    return json.loads(raw) if raw else {}


class HuggingFaceStorageWriter(FileSystemWriter):
    """Writes tensors as safetensors files under ``path`` (see the module docstring)."""

    def __init__(self, path, fqn_to_index_mapping=None, thread_count=1,
                 save_distributed=False, enable_consolidation=False,
                 thread_count_consolidation=1):
        super().__init__(path, thread_count=thread_count)
        self.fqn_to_index_mapping = fqn_to_index_mapping
        self.save_distributed = save_distributed
        self.enable_consolidation = enable_consolidation
        self.thread_count_consolidation = thread_count_consolidation
        self.consolidated_output_path = str(path) if enable_consolidation else None

    def _count(self):
        mapping = self.fqn_to_index_mapping
        return max(mapping.values()) if mapping else 1

    def _index_of(self, fqn):
        mapping = self.fqn_to_index_mapping
        return mapping.get(fqn, 1) if mapping else 1

    def prepare_local_plan(self, plan):
        for item in plan.items:
            if item.type is WriteItemType.BYTE_IO:
                raise ValueError(f"HuggingFaceStorageWriter stores tensors only (safetensors); "
                                 f"{item.index.fqn!r} is not a tensor")
        self.fs.mkdir(self._dir())
        return plan

    def prepare_global_plan(self, plans):
        if not self.save_distributed and any(p.items for p in plans[1:]):
            raise ValueError("HuggingFaceStorageWriter(save_distributed=False) writes the "
                             "tensors of one process; with entries sharded over several "
                             "ranks pass save_distributed=True (and enable_consolidation=True "
                             "for whole-tensor files)")
        return [dataclasses.replace(p, storage_data=i) for i, p in enumerate(plans)]

    def _dir(self):
        if self.save_distributed and self.enable_consolidation:
            return self.fs.concat_path(self.path, _SHARDED)
        return self.path

    def write_data(self, plan, planner):
        rank = plan.storage_data if isinstance(plan.storage_data, int) else self.rank
        count = self._count()
        files = {}
        for item in plan.items:
            files.setdefault(self._index_of(item.index.fqn), []).append(item)
        results = []
        for index, items in sorted(files.items()):
            name = _model_file(index, count)
            if self.save_distributed:
                name = f"shard-{rank + 1:05d}-{name}"
            tensors, info = {}, {}
            for item in items:
                fqn = item.index.fqn
                tensors[fqn] = planner.resolve_data(item).detach()
                info[fqn] = {"saved_offsets": list(item.tensor_data.chunk.offsets)}
            self._save(tensors, self.fs.concat_path(self._dir(), name), info)
            for item in items:
                t = tensors[item.index.fqn]
                results.append(WriteResult(index=item.index,
                                           size_in_bytes=t.numel() * t.element_size(),
                                           storage_data=_HFStorageInfo(name, Size(t.shape),
                                                                       t.dtype)))
        fut = _futures.Future()
        fut.set_result(results)
        return fut

    @staticmethod
    def _save(tensors, path, info):
        from ...serialization import save_safetensors

        save_safetensors(tensors, path, metadata={
            "DCP_VERSION": "1.0", "format": "pt", "DCP_SHARDING_INFO": json.dumps(info)})

    def _write_index(self, sizes, weight_map):
        text = json.dumps({"metadata": {"total_size": sizes}, "weight_map": weight_map},
                          indent=2)
        with open(self.fs.concat_path(self.path, _INDEX), "w") as f:
            f.write(text)

    def finish(self, metadata, results):
        if self.save_distributed and not self.enable_consolidation:
            return
        if self.save_distributed:
            self._consolidate(metadata)
            return
        flat = [wr for per_rank in results for wr in per_rank]
        self._write_index(sum(wr.size_in_bytes for wr in flat),
                          {wr.index.fqn: wr.storage_data.relative_path for wr in flat})

    def _consolidate(self, metadata):
        """Join the ranks' shard files into whole-tensor model files and an index."""
        from ... import zeros
        from ...serialization import save_safetensors

        blocks = _blocks_in(self.fs.concat_path(self.path, _SHARDED))
        count = self._count()
        by_file, weight_map, total = {}, {}, 0
        for fqn, md in metadata.state_dict_metadata.items():
            whole = zeros(tuple(md.size), dtype=md.properties.dtype)
            for offsets, (path, start, entry) in blocks.get(fqn, {}).items():
                piece = _read_entry(path, start, entry)
                _narrow(whole, offsets, piece.shape).copy_(piece)
            name = _model_file(self._index_of(fqn), count)
            by_file.setdefault(name, {})[fqn] = whole
            weight_map[fqn] = name
            total += whole.numel() * whole.element_size()
        for name, tensors in by_file.items():
            save_safetensors(tensors, self.fs.concat_path(self.path, name))
        self._write_index(total, weight_map)


def _blocks_in(directory):
    """``{fqn: {offsets: (file, data start, entry)}}`` of every safetensors file there."""
    out = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".safetensors"):
            continue
        path = os.path.join(directory, name)
        entries, meta, start = _header(path)
        sharding = _sharding_info(meta)
        for fqn, entry in entries.items():
            offsets = tuple(sharding.get(fqn, {}).get("saved_offsets", (0,) * len(entry[1])))
            out.setdefault(fqn, {})[offsets] = (path, start, entry)
    return out


class HuggingFaceStorageReader(FileSystemReader):
    """Reads every ``*.safetensors`` file in ``path`` (see the module docstring)."""

    def __init__(self, path, thread_count=1):
        super().__init__(path)
        self.thread_count = thread_count
        self._blocks = None

    def read_metadata(self, *args, **kwargs):
        self._blocks = _blocks_in(self.path)
        state_dict_metadata, storage_data = {}, {}
        for fqn, blocks in self._blocks.items():
            chunks, size, dtype = [], None, None
            for offsets, (path, _, (dtype_name, shape, _, _)) in blocks.items():
                chunks.append(ChunkStorageMetadata(offsets=Size(offsets), sizes=Size(shape)))
                ends = [o + n for o, n in zip(offsets, shape)]
                size = ends if size is None else [max(a, b) for a, b in zip(size, ends)]
                dtype = _dtype_by_name(dtype_name)
                storage_data[MetadataIndex(fqn, offsets)] = _HFStorageInfo(
                    path, Size(shape), dtype)
            state_dict_metadata[fqn] = TensorStorageMetadata(
                properties=TensorProperties(dtype=dtype), size=Size(size), chunks=chunks)
        return Metadata(state_dict_metadata=state_dict_metadata, storage_data=storage_data,
                        storage_meta=StorageMeta(load_id=self.load_id))

    def set_up_storage_reader(self, metadata, is_coordinator, *args, **kwargs):
        self.storage_data = metadata.storage_data
        if self._blocks is None:
            self._blocks = _blocks_in(self.path)

    def read_data(self, plan, planner):
        for item in plan.items:
            path, start, entry = self._blocks[item.storage_index.fqn][
                tuple(item.storage_index.offset)]
            piece = _narrow(_read_entry(path, start, entry), item.storage_offsets,
                            item.lengths)
            target = planner.resolve_tensor(item).detach()
            target.copy_(piece)
            planner.commit_tensor(item, target)
        fut = _futures.Future()
        fut.set_result(None)
        return fut
