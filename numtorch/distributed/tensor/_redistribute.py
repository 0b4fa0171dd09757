"""Moving a DTensor's local data between placements with collectives over the mesh's groups,
as one differentiable op (its backward moves the gradient back the other way)."""

from ...autograd.graph import Op
from ...ops import cat as _cat
from ._utils import compute_local_shape
from .placement_types import Partial, Replicate, Shard


def _dist():
    from ... import distributed

    return distributed


def _row(mesh, mesh_dim):
    """The global ranks along ``mesh_dim`` through this rank, in coordinate order."""
    coord = list(mesh.get_coordinate())
    index = tuple(slice(None) if d == mesh_dim else c for d, c in enumerate(coord))
    return mesh.mesh[index].tolist()


def _gather_shard(local, mesh, mesh_dim, dim, full_size):
    """Concatenate the pieces of ``dim`` held along ``mesh_dim`` (sizes torch.chunk-style out
    of ``full_size``): padded to one size for all_gather, then trimmed."""
    parts = mesh.size(mesh_dim)
    placement = Shard(dim)
    sizes = [placement.local_shard_size_and_offset(full_size, parts, j)[0] for j in range(parts)]
    chunk = max(sizes) if sizes else 0
    shape = list(local.shape)
    shape[dim] = chunk
    padded = local.new_zeros(shape)
    padded.narrow(dim, 0, local.size(dim)).copy_(local)
    gathered = [padded.new_empty(shape) for _ in range(parts)]
    _dist().all_gather(gathered, padded, group=mesh.get_group(mesh_dim))
    row = _row(mesh, mesh_dim)
    by_rank = dict(zip(sorted(row), gathered))
    pieces = [by_rank[r].narrow(dim, 0, sizes[j]) for j, r in enumerate(row)]
    return _cat(pieces, dim)


def _reduce(local, mesh, mesh_dim, reduce_op):
    dist = _dist()
    out = local.clone()
    op = {"sum": dist.ReduceOp.SUM, "avg": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX,
          "min": dist.ReduceOp.MIN}[reduce_op]
    dist.all_reduce(out, op=op, group=mesh.get_group(mesh_dim))
    if reduce_op == "avg":
        out = out / mesh.size(mesh_dim)
    return out


def _take_shard(local, mesh, mesh_dim, dim):
    size, start = Shard.local_shard_size_and_offset(local.size(dim), mesh.size(mesh_dim),
                                    mesh.get_local_rank(mesh_dim))
    return local.narrow(dim, start, size).contiguous()


def transform(local, mesh, global_shape, src, dst):
    """``local`` (plain tensor, this rank's data under ``src``) as it is under ``dst``."""
    src, dst = list(src), list(dst)
    current = list(src)
    ndim = len(global_shape)
    # undo shards/partials from the last mesh dimension back: a dimension sharded on several
    # mesh dims is split by the earlier ones first, so it is rebuilt in the opposite order
    for i in reversed(range(mesh.ndim)):
        if current[i] == dst[i] or isinstance(current[i], Replicate):
            continue
        if isinstance(current[i], Partial):
            if mesh.size(i) > 1:
                local = _reduce(local, mesh, i, current[i].reduce_op)
        elif isinstance(current[i], Shard):
            dim = current[i].dim % ndim
            before = current[:i] + [Replicate()] * (mesh.ndim - i)
            full = compute_local_shape(global_shape, mesh, before)[dim]
            if mesh.size(i) > 1:
                local = _gather_shard(local, mesh, i, dim, full)
        current[i] = Replicate()
    for i in range(mesh.ndim):
        if current[i] == dst[i]:
            continue
        if isinstance(dst[i], Shard):
            local = _take_shard(local, mesh, i, dst[i].dim % ndim)
        elif isinstance(dst[i], Partial) and dst[i].reduce_op == "sum":
            # every rank holds an equal term (avg/max/min keep the value itself), as torch
            local = local / mesh.size(i)
        current[i] = dst[i]
    return local


class Redistribute(Op):
    """y = x's data moved from placements ``src`` to ``dst`` over ``mesh``; the gradient
    moves back from ``dst`` to ``src`` (a Partial source receives the replicated gradient:
    every term's derivative is the whole gradient)."""

    def forward(self, x):
        with _no_grad():
            out = transform(_plain(x), self.mesh, self.shape,
                            self.src, self.dst)
        return out._array

    def backward(self, grad):
        back_src = [Replicate() if isinstance(p, Partial) else p for p in self.dst]
        back_dst = [Replicate() if isinstance(p, Partial) else p for p in self.src]
        return Redistribute.apply(grad, mesh=self.mesh, shape=self.shape, src=tuple(back_src),
                                  dst=tuple(back_dst))


def _plain(array):
    from ..._tensor import _make

    return _make(array)


def _no_grad():
    from ...autograd import no_grad

    return no_grad()



class ReduceGrad(Op):
    """y = x; the gradient is summed over the mesh dimensions ``mesh_dims``.

    Why: an operand replicated along a mesh dimension on which the result is sharded (a bias
    added to row shards, the weight of a row-sharded matmul) receives, on each rank, only the
    contribution of that rank's piece: the terms of a Partial(sum). Summing them here gives
    every replica the whole gradient, so parameters (and numtorch's optimizers, which update
    the local arrays) see what a single process would. torch keeps such a gradient Partial and
    reduces it later; the values agree.
    """

    def forward(self, x):
        return x.view()

    def backward(self, grad):
        from ... import distributed as dist

        out = grad.clone()
        for i in self.mesh_dims:
            if self.mesh.size(i) > 1:
                dist.all_reduce(out, group=self.mesh.get_group(i))
        return out
