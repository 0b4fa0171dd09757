"""How a DTensor's data is laid out along one mesh dimension: ``Shard(dim)`` (split along a
tensor dimension, torch.chunk-style: ceil-sized pieces, the last ranks may get fewer rows or
none), ``Replicate()`` (a full copy everywhere) or ``Partial(op)`` (every rank holds a term;
the tensor is their reduction)."""

__all__ = ["Partial", "Placement", "Replicate", "Shard"]


class Placement:
    """Base of the placement kinds."""

    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self, reduce_op=None):
        return False


class Shard(Placement):
    """Split along tensor dimension ``dim``: mesh coordinate i holds chunk i of
    ``torch.chunk(tensor, mesh_size, dim)`` (empty when there are fewer chunks)."""

    __slots__ = ("dim",)

    def __init__(self, dim):
        self.dim = dim

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    @staticmethod
    def local_shard_size_and_offset(curr_local_size, num_chunks, rank):
        """(local size, offset) of chunk ``rank`` of a dimension of ``curr_local_size`` split
        in ``num_chunks`` torch.chunk-style (an empty chunk's offset is clamped to the end)."""
        chunk = -(-curr_local_size // num_chunks) if num_chunks else 0
        start = min(rank * chunk, curr_local_size)
        return min(curr_local_size, start + chunk) - start, start

    def _local_shard_size_and_offset(self, curr_local_size, num_chunks, rank):
        return Shard.local_shard_size_and_offset(curr_local_size, num_chunks, rank)

    def __eq__(self, other):
        return type(other) is type(self) and other.dim == self.dim

    def __hash__(self):
        return hash((type(self).__name__, self.dim))

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"


class _StridedShard(Shard):
    """A shard of a dimension that was split ``split_factor`` ways before (so each rank's
    rows come from every one of those pieces): the layout a Shard along the same dimension on
    an earlier mesh dimension produces when applied after a later one."""

    __slots__ = ("split_factor",)

    def __init__(self, dim, split_factor):
        super().__init__(dim)
        self.split_factor = split_factor

    def __eq__(self, other):
        return (type(other) is type(self) and other.dim == self.dim
                and other.split_factor == self.split_factor)

    def __hash__(self):
        return hash((type(self).__name__, self.dim, self.split_factor))

    def __repr__(self):
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"

    def __str__(self):
        return f"_S({self.dim}, {self.split_factor})"


class Replicate(Placement):
    """A full copy on every rank of the mesh dimension."""

    def is_replicate(self):
        return True

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self).__name__)

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


class Partial(Placement):
    """Each rank holds a term; the tensor is their reduction by ``reduce_op`` ("sum",
    "avg", "max", "min")."""

    __slots__ = ("reduce_op",)

    def __init__(self, reduce_op="sum"):
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op=None):
        return reduce_op is None or reduce_op == self.reduce_op

    def __eq__(self, other):
        return type(other) is type(self) and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash((type(self).__name__, self.reduce_op))

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"
