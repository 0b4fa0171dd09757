"""Shape arithmetic of sharded tensors."""

from .placement_types import Shard, _StridedShard

__all__ = [
    "compute_global_shape",
    "compute_local_shape",
    "compute_local_shape_and_global_offset",
]


def compute_local_shape_and_global_offset(global_shape, mesh, placements):
    """This rank's (local shape, offset of its first element in the global tensor).

    Mesh dimensions apply in order: each ``Shard(d)`` splits the part the earlier ones left
    along ``d`` torch.chunk-style (pieces of ceil(n / k); trailing ranks may get a smaller
    piece or none, whose offset is then clamped to the end). A rank outside the mesh gets
    ``((0,), ())``.
    """
    coordinate = mesh.get_coordinate()
    if coordinate is None:
        return ((0,), ())
    local = list(global_shape)
    offset = [0] * len(local)
    for mesh_dim, placement in enumerate(placements):
        if not isinstance(placement, Shard):
            continue
        dim = placement.dim
        if dim < -len(local) or dim >= len(local):
            raise AssertionError(f"Sharding dim {dim} greater than tensor ndim {len(local)}")
        dim %= len(local)
        parts = mesh.size(mesh_dim)
        if isinstance(placement, _StridedShard):
            size, start = _strided_split(local[dim], parts, coordinate[mesh_dim],
                                         placement.split_factor)
        else:
            size, start = placement.local_shard_size_and_offset(local[dim], parts, coordinate[mesh_dim])
        local[dim] = size
        offset[dim] += start
    return tuple(local), tuple(offset)


def _strided_split(size, parts, index, split_factor):
    # the first element of this rank's rows: the dimension was cut into split_factor pieces
    # first, and each piece is chunked over the ranks; only the rows' count and the first
    # row's position are reported
    total = 0
    first = None
    piece = -(-size // split_factor) if split_factor else 0
    for p in range(split_factor):
        start = min(p * piece, size)
        length = min(size, start + piece) - start
        chunk = -(-length // parts) if parts else 0
        s = min(index * chunk, length)
        n = min(length, s + chunk) - s
        if first is None and n:
            first = start + s
        total += n
    return total, first if first is not None else size


def compute_local_shape(global_shape, mesh, placements):
    return compute_local_shape_and_global_offset(global_shape, mesh, placements)[0]


def compute_global_shape(local_shape, mesh, placements):
    """The global shape of evenly sharded local pieces of ``local_shape`` (what
    ``DTensor.from_local`` assumes without ``shape=``)."""
    shape = list(local_shape)
    for mesh_dim, placement in enumerate(placements):
        if isinstance(placement, Shard):
            shape[placement.dim % len(shape)] *= mesh.size(mesh_dim)
    return tuple(shape)
