"""The sharded values of FSDP's SHARDED and LOCAL state dicts.

A :class:`ShardedTensor` holds this rank's piece of a tensor and where every rank's piece
sits in the whole (torch's metadata: offsets, sizes, placement). SHARDED_STATE_DICT cuts
each parameter along dim 0 as ``torch.chunk`` would; loading gathers the pieces back.
"""

from dataclasses import dataclass, field

import numpy as np

from ..._tensor import _make

__all__ = ["Shard", "ShardMetadata", "ShardedTensor", "ShardedTensorMetadata"]


@dataclass
class ShardMetadata:
    shard_offsets: list
    shard_sizes: list
    placement: str = None

    def __repr__(self):
        return (f"ShardMetadata(shard_offsets={self.shard_offsets}, shard_sizes="
                f"{self.shard_sizes}, placement={self.placement})")


@dataclass
class Shard:
    tensor: object
    metadata: ShardMetadata


@dataclass
class ShardedTensorMetadata:
    shards_metadata: list = field(default_factory=list)
    size: tuple = ()
    dtype: object = None


class ShardedTensor:
    """This rank's piece of a tensor sharded across a group (see the module docstring)."""

    def __init__(self, local, rank, metadata):
        self._local_shards = [Shard(local, metadata.shards_metadata[rank])]
        self._metadata = metadata
        self._rank = rank

    def local_shards(self):
        return self._local_shards

    def local_tensor(self):
        return self._local_shards[0].tensor

    def metadata(self):
        return self._metadata

    def size(self, dim=None):
        from ..._size import Size

        s = Size(self._metadata.size)
        return s if dim is None else s[dim]

    @property
    def shape(self):
        return self.size()

    @property
    def dtype(self):
        return self._metadata.dtype

    def dim(self):
        return len(self._metadata.size)

    def __repr__(self):
        shards = ", ".join(repr(m) for m in self._metadata.shards_metadata)
        return (f"ShardedTensor(ShardedTensorMetadata(shards_metadata=[{shards}], "
                f"size=torch.Size({list(self._metadata.size)}), dtype={self.dtype}))")


def chunk_bounds(d0, world):
    """(start, stop) of each rank's ``torch.chunk`` piece of a dimension of size ``d0``."""
    c = -(-d0 // world) if d0 else 0
    return [(min(r * c, d0), min((r + 1) * c, d0)) for r in range(world)]


def make_sharded(t, group, whole=None, layout=None):
    """This rank's dim-0 chunk of the whole tensor ``t`` (or the given ``layout``:
    [(offsets, sizes)] per rank, with ``t`` already the local piece)."""
    world, rank = group.size(), group.rank()
    if layout is None:
        shape = tuple(t.shape)
        if not shape:
            return t
        bounds = chunk_bounds(shape[0], world)
        layout = [((a,) + (0,) * (len(shape) - 1), (b - a,) + shape[1:]) for a, b in bounds]
        a, b = bounds[rank]
        local = _make(np.array(t._array[a:b], copy=True))
        whole = shape
    else:
        local = t
    metas = [ShardMetadata(list(o), list(s), f"rank:{r}/cpu")
             for r, (o, s) in enumerate(layout)]
    return ShardedTensor(local, rank, ShardedTensorMetadata(metas, tuple(whole), t.dtype))


def local_of(v):
    """The local array of a ShardedTensor (or a plain tensor)."""
    if isinstance(v, ShardedTensor):
        return v.local_tensor()._array
    return v._array


def gather_chunks(v, group):
    """The whole tensor from every rank's dim-0 chunk (a plain tensor passes through)."""
    if not isinstance(v, ShardedTensor):
        return v
    from .. import all_gather_single

    meta = v.metadata()
    shape = tuple(meta.size)
    local = v.local_tensor()._array
    world = group.size()
    if world == 1:
        return _make(np.array(local, copy=True).reshape(shape))
    sizes = [m.shard_sizes[0] for m in meta.shards_metadata]
    c = max(sizes) if sizes else 0
    rest = shape[1:]
    send = np.zeros((c,) + rest, local.dtype)
    send[:local.shape[0]] = local
    recv = np.empty((c * world,) + rest, local.dtype)
    all_gather_single(_make(recv), _make(send), group=group)
    parts = [recv[r * c:r * c + sizes[r]] for r in range(world)]
    return _make(np.concatenate(parts).reshape(shape))
