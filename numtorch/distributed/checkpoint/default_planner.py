"""``torch.distributed.checkpoint.default_planner``: the planners ``save``/``load`` use
unless given others.

Saving: every tensor is one chunk at offset 0, every DTensor the block this rank holds (at its
global offset), every other value a bytes entry; the coordinator drops the copies of items
more than one rank holds (replicated tensors, plain values) and writes the metadata.
Loading: each destination tensor (or this rank's block of a DTensor) reads the overlap of
every saved chunk with it, so a checkpoint loads under any other sharding or world size.
"""

import io
import itertools

from ..._tensor import Tensor
from . import _flatten
from .metadata import (
    BytesStorageMetadata,
    ChunkStorageMetadata,
    Metadata,
    MetadataIndex,
    TensorProperties,
    TensorStorageMetadata,
)
from .planner import (
    LoadItemType,
    LoadPlan,
    LoadPlanner,
    ReadItem,
    SavePlan,
    SavePlanner,
    TensorWriteData,
    WriteItem,
    WriteItemType,
)

__all__ = ["DefaultLoadPlanner", "DefaultSavePlanner", "create_default_global_save_plan",
           "create_default_local_load_plan", "create_default_local_save_plan"]

_VERSION = "1.0.0"


def _dtensor_class():
    from ..tensor import DTensor

    return DTensor


def _chunk_of(value):
    """``(local tensor, global size, offsets)`` of a tensor or this rank's DTensor block."""
    from ..._size import Size

    if isinstance(value, _dtensor_class()):
        from ..tensor._utils import compute_local_shape_and_global_offset

        local = value.to_local()
        _, offsets = compute_local_shape_and_global_offset(value.shape, value.device_mesh,
                                                           value.placements)
        if len(offsets) != value.dim():  # a rank outside the mesh holds nothing
            return None
        return local, Size(value.shape), Size(offsets)
    return value, Size(value.shape), Size((0,) * value.dim())


def _reduced(value):
    """A DTensor with Partial placements reduced to Replicate (its pending sums are not a
    value to write; every rank reaches this in the same entry order)."""
    if not isinstance(value, _dtensor_class()):
        return value
    from ..tensor import Replicate
    from ..tensor.placement_types import Partial

    if not any(isinstance(p, Partial) for p in value.placements):
        return value
    return value.redistribute(value.device_mesh, [Replicate() if isinstance(p, Partial) else p
                                                  for p in value.placements])


def _write_item(fqn, value):
    if not isinstance(value, Tensor):
        return WriteItem(index=MetadataIndex(fqn), type=WriteItemType.BYTE_IO)
    found = _chunk_of(value)
    if found is None:
        return None
    local, size, offsets = found
    from ..._size import Size

    chunk = ChunkStorageMetadata(offsets=offsets, sizes=Size(local.shape))
    kind = WriteItemType.SHARD if isinstance(value, _dtensor_class()) else WriteItemType.TENSOR
    props = TensorProperties.create_from_tensor(local)
    props.requires_grad = False
    return WriteItem(index=MetadataIndex(fqn, offsets), type=kind,
                     tensor_data=TensorWriteData(chunk=chunk, properties=props, size=size))


def create_default_local_save_plan(state_dict, is_coordinator):
    """One write item per entry (DTensors: this rank's block)."""
    items = [_write_item(fqn, v) for fqn, v in state_dict.items()]
    return SavePlan([w for w in items if w is not None])


def _dedup(all_plans):
    # an item several ranks hold (same entry and offset) is written by the lowest rank only
    seen = set()
    out = []
    for plan in all_plans:
        keep = []
        for item in plan.items:
            if item.index in seen:
                continue
            seen.add(item.index)
            keep.append(item)
        out.append(SavePlan(keep, storage_data=plan.storage_data,
                            planner_data=plan.planner_data, usable=plan.usable))
    return out


def create_default_global_save_plan(all_plans, rewrite_index_hints=True):
    """The ranks' plans with chunk positions as index hints, and the checkpoint's metadata."""
    md = {}
    new_plans = []
    for plan in all_plans:
        items = []
        for item in plan.items:
            if item.type is WriteItemType.BYTE_IO:
                md[item.index.fqn] = BytesStorageMetadata()
                items.append(item)
                continue
            td = item.tensor_data
            entry = md.get(item.index.fqn)
            if not isinstance(entry, TensorStorageMetadata):
                entry = TensorStorageMetadata(properties=td.properties, size=td.size,
                                              chunks=[])
                md[item.index.fqn] = entry
            if rewrite_index_hints:
                item = WriteItem(index=MetadataIndex(item.index.fqn, item.index.offset,
                                                     len(entry.chunks)),
                                 type=item.type, tensor_data=td)
            entry.chunks.append(td.chunk)
            items.append(item)
        new_plans.append(SavePlan(items, storage_data=plan.storage_data,
                                  planner_data=plan.planner_data, usable=plan.usable))
    return new_plans, Metadata(state_dict_metadata=md)


class DefaultSavePlanner(SavePlanner):
    """The planner ``save`` uses by default (see the module docstring)."""

    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True,
                 dedup_replicated_tensors=None, dedup_save_to_lowest_rank=False,
                 enable_plan_caching=False):
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.dedup_save_to_lowest_rank = dedup_save_to_lowest_rank
        self.enable_plan_caching = enable_plan_caching
        self.mappings = {}

    def set_up_planner(self, state_dict, storage_meta=None, is_coordinator=False):
        if self.flatten_state_dict:
            state_dict, self.mappings = _flatten.flatten_state_dict(state_dict)
        self.state_dict = {k: _reduced(v) for k, v in state_dict.items()}
        self.storage_meta = storage_meta
        self.is_coordinator = is_coordinator

    def create_local_plan(self):
        plan = create_default_local_save_plan(self.state_dict, self.is_coordinator)
        if self.flatten_state_dict:
            plan = SavePlan(plan.items, planner_data=self.mappings)
        self.plan = plan
        return plan

    def create_global_plan(self, all_plans):
        all_plans = _dedup(all_plans)
        plans, metadata = create_default_global_save_plan(all_plans)
        if self.flatten_state_dict:
            merged = {}
            for p in plans:
                merged.update(p.planner_data or {})
            metadata.planner_data = merged
        metadata.version = _VERSION
        self.global_plan, self.metadata = plans, metadata
        return plans, metadata

    def finish_plan(self, new_plan):
        self.plan = new_plan
        return new_plan

    def resolve_data(self, write_item):
        return self.transform_object(write_item, self.lookup_object(write_item.index))

    def transform_object(self, write_item, object):
        """What the storage layer writes for ``object``: bytes entries as their
        ``torch.save`` bytes, DTensors as this rank's block."""
        if write_item.type is WriteItemType.BYTE_IO:
            from ... import save

            buf = io.BytesIO()
            save(object, buf)
            return buf
        return object.to_local() if isinstance(object, _dtensor_class()) else object

    def lookup_object(self, index):
        return self.state_dict[index.fqn]


def _overlap(dest_offsets, dest_sizes, saved):
    """(dest offsets, storage offsets, lengths) of where ``saved`` meets the destination."""
    d_off, s_off, lengths = [], [], []
    for lo, n, so, sn in zip(dest_offsets, dest_sizes, saved.offsets, saved.sizes):
        start, end = max(lo, so), min(lo + n, so + sn)
        if end <= start:
            return None
        d_off.append(start - lo)
        s_off.append(start - so)
        lengths.append(end - start)
    return d_off, s_off, lengths


def _read_items(fqn, md, value):
    from ..._size import Size

    if isinstance(md, BytesStorageMetadata):
        return [ReadItem(type=LoadItemType.BYTE_IO, dest_index=MetadataIndex(fqn),
                         dest_offsets=Size((0,)), storage_index=MetadataIndex(fqn),
                         storage_offsets=Size((0,)), lengths=Size((0,)))]
    if not isinstance(value, Tensor):
        from ._pickle import class_name

        raise ValueError(f"Invalid checkpoint metadata for {fqn}, expected "  # noqa: TRY004
                         f"BytesStorageMetadata but found <class '{class_name(type(md))}'>")
    found = _chunk_of(value)
    if found is None:
        return []
    local, _, offsets = found
    items = []
    for i, saved in enumerate(md.chunks):
        hit = _overlap(offsets, local.shape, saved)
        if hit is None:
            continue
        d_off, s_off, lengths = hit
        items.append(ReadItem(type=LoadItemType.TENSOR,
                              dest_index=MetadataIndex(fqn, offsets),
                              dest_offsets=Size(d_off),
                              storage_index=MetadataIndex(fqn, saved.offsets, i),
                              storage_offsets=Size(s_off), lengths=Size(lengths)))
    return items


def create_default_local_load_plan(state_dict, metadata, strict=True):
    """What this rank reads for each destination entry; raises for entries the checkpoint
    lacks (unless not ``strict``) and for tensors whose size differs from the saved one."""
    items = []
    for fqn, value in state_dict.items():
        md = metadata.state_dict_metadata.get(fqn)
        if md is None:
            if strict:
                raise RuntimeError(f"Missing key in checkpoint state_dict: {fqn}.")
            continue
        if (isinstance(md, TensorStorageMetadata) and isinstance(value, Tensor)
                and tuple(value.shape) != tuple(md.size)):
            raise ValueError(f"Size mismatch between saved {md.size} and current: "
                             f"{value.size()} for {fqn}")
        items.extend(_read_items(fqn, md, value))
    return LoadPlan(items)


class DefaultLoadPlanner(LoadPlanner):
    """The planner ``load`` uses by default (see the module docstring). Tensors are filled
    in place; other entries are replaced in their containers."""

    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True,
                 allow_partial_load=False):
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.allow_partial_load = allow_partial_load
        self.mappings = {}

    def set_up_planner(self, state_dict, metadata=None, is_coordinator=False):
        self.original_state_dict = state_dict
        if self.flatten_state_dict:
            self._slots = {}
            flat = {}
            for path, container, key, value in _flatten.entries(state_dict):
                name = _flatten.fqn(path)
                flat[name] = value
                self._slots[name] = (container, key)
                self.mappings[name] = path
            state_dict = flat
        else:
            self._slots = {k: (state_dict, k) for k in state_dict}
        self.state_dict = state_dict
        self.metadata = metadata
        self.is_coordinator = is_coordinator

    def create_local_plan(self):
        return create_default_local_load_plan(self.state_dict, self.metadata,
                                              not self.allow_partial_load)

    def create_global_plan(self, global_plan):
        return global_plan

    def finish_plan(self, central_plan):
        return central_plan

    def load_bytes(self, read_item, value):
        from ... import load

        obj = load(value, weights_only=False)
        fqn = read_item.dest_index.fqn
        container, key = self._slots[fqn]
        container[key] = obj
        self.state_dict[fqn] = obj

    def lookup_tensor(self, index):
        value = self.state_dict[index.fqn]
        return value.to_local() if isinstance(value, _dtensor_class()) else value

    def resolve_tensor(self, read_item):
        return self.transform_tensor(read_item, self.lookup_tensor(read_item.dest_index))

    def transform_tensor(self, read_item, tensor):
        """The region of ``tensor`` that ``read_item`` fills."""
        from .filesystem import _narrow

        return _narrow(tensor, read_item.dest_offsets, read_item.lengths)

    def commit_tensor(self, read_item, tensor):
        pass


class _EmptyStateDictLoadPlanner(DefaultLoadPlanner):
    """Loads a whole checkpoint without a template: the state dict handed to ``load`` is
    rebuilt from the metadata (nested as it was saved; ``keys`` keeps only those entries)."""

    def __init__(self, keys=None, *args, **kwargs):
        self.keys = keys
        super().__init__(*args, **kwargs)

    def _wanted(self, fqn, path):
        if not self.keys:
            return True
        return fqn in self.keys or str(path[0]) in self.keys

    def set_up_planner(self, state_dict, metadata=None, is_coordinator=False):
        from ... import empty

        self.original_state_dict = state_dict
        self.state_dict, self._slots = {}, {}
        paths = (metadata.planner_data or {}) if self.flatten_state_dict else {}
        for fqn, md in metadata.state_dict_metadata.items():
            path = tuple(paths.get(fqn, (fqn,)))
            if not self._wanted(fqn, path):
                continue
            value = (empty(tuple(md.size), dtype=md.properties.dtype)
                     if isinstance(md, TensorStorageMetadata) else None)
            container, key = _place(state_dict, path, value)
            self.state_dict[fqn] = value
            self._slots[fqn] = (container, key)
            self.mappings[fqn] = path
        self.metadata = metadata
        self.is_coordinator = is_coordinator


def _place(root, path, value):
    """Put ``value`` at ``path`` under ``root``, making the dicts and lists on the way (an
    int step is a list position); returns the container and key holding it."""
    node = root
    for step, nxt in itertools.pairwise(path):
        child_kind = list if isinstance(nxt, int) else dict
        if isinstance(node, list):
            node.extend([None] * (step + 1 - len(node)))
            if node[step] is None:
                node[step] = child_kind()
            node = node[step]
        else:
            node = node.setdefault(step, child_kind())
    last = path[-1]
    if isinstance(node, list):
        node.extend([None] * (last + 1 - len(node)))
    node[last] = value
    return node, last
