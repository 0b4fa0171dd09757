"""``torch.distributed._functional_collectives``: collectives that return a new tensor
instead of writing into their argument.

numtorch's collectives complete before they return, so ``wait_tensor`` has nothing to wait
for and gives its argument back. As in torch 2.13, all_reduce, all_gather_single,
reduce_scatter_single and all_to_all_single are differentiable (their backward is the
transposed collective); the ``*_autograd`` names are the same functions.
"""

import warnings

from ..autograd.graph import Op
from ..ops import cat as _cat

__all__ = [
    "all_gather_single",
    "all_gather_single_autograd",
    "all_gather_tensor",
    "all_gather_tensor_autograd",
    "all_reduce",
    "all_reduce_coalesced",
    "all_to_all_single",
    "all_to_all_single_autograd",
    "broadcast",
    "reduce_scatter_single",
    "reduce_scatter_single_autograd",
    "reduce_scatter_tensor",
    "reduce_scatter_tensor_autograd",
    "wait_tensor",
]


def _dist():
    from .. import distributed

    return distributed


def _group(group):
    """The process group that ``group`` names: a ProcessGroup, a 1-d DeviceMesh, a
    (DeviceMesh, mesh dim) pair, or the list of all ranks."""
    from .device_mesh import DeviceMesh

    dist = _dist()
    if isinstance(group, DeviceMesh):
        return group.get_group()
    if isinstance(group, tuple) and len(group) == 2 and isinstance(group[0], DeviceMesh):
        return group[0].get_group(group[1])
    if isinstance(group, list):
        if sorted(group) == list(range(dist.get_world_size())):
            return dist.group.WORLD
        raise NotImplementedError("numtorch's functional collectives take a list of ranks only "
                                  "when it is the whole world; pass a ProcessGroup from "
                                  "new_group() or a DeviceMesh instead")
    return group


def _op(name):
    dist = _dist()
    table = {"sum": dist.ReduceOp.SUM, "avg": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX,
             "min": dist.ReduceOp.MIN, "product": dist.ReduceOp.PRODUCT}
    try:
        return table[name.lower()]
    except KeyError:
        raise ValueError(f"Unrecognized reduce op {name!r}") from None


def wait_tensor(tensor):
    """The finished result of a functional collective (numtorch's are finished already)."""
    return tensor


def _all_reduced(x, reduceOp, group):
    out = x.detach().clone()
    _dist().all_reduce(out, op=_op(reduceOp), group=group)
    if reduceOp.lower() == "avg":
        out = out / _dist().get_world_size(group)
    return out


def all_reduce(self, reduceOp, group, tag=""):
    """A new tensor: ``self`` reduced over the group; as in torch 2.13 gradients flow
    through it (all-reduced with the same op)."""
    return _AllReduce.apply(self, op=reduceOp, group=_group(group))


def _deprecated(old, new):
    warnings.warn(f"`torch.distributed._functional_collectives.{old}` is deprecated. Please "
                  f"use `torch.distributed._functional_collectives.{new}` instead.",
                  FutureWarning, stacklevel=3)


def all_reduce_coalesced(self, reduceOp, group, tag=""):
    return [all_reduce(t, reduceOp, group, tag) for t in self]


def broadcast(self, src, group, tag=""):
    """A new tensor holding rank ``src``'s ``self``."""
    return _Broadcast.apply(self, src=src, group=_group(group))


def _gather_arrays(x, dim, group):
    dist = _dist()
    pieces = [x.new_empty(x.shape) for _ in range(dist.get_world_size(group))]
    dist.all_gather(pieces, x.contiguous(), group=group)
    return _cat(pieces, dim)


def _reduce_scatter(x, op, dim, group):
    dist = _dist()
    size = dist.get_world_size(group)
    if x.size(dim) % size:
        raise ValueError(f"input dimension {dim} ({x.size(dim)}) must be a multiple of "
                         f"group_size {size}")
    total = x.detach().clone()
    dist.all_reduce(total, op=_op(op), group=group)
    if op.lower() == "avg":
        total = total / size
    rank = dist.get_rank(group)
    step = x.size(dim) // size
    return total.narrow(dim, rank * step, step).contiguous()


def all_gather_single(self, gather_dim, group, tag=""):
    """Every rank's ``self`` concatenated along ``gather_dim`` (gradients are summed and
    scattered back)."""
    return _AllGather.apply(self, dim=gather_dim, group=_group(group))


def reduce_scatter_single(self, reduceOp, scatter_dim, group, tag=""):
    """``self`` reduced over the group, each rank keeping its block along ``scatter_dim``
    (gradients are all-gathered back)."""
    return _ReduceScatter.apply(self, op=reduceOp, dim=scatter_dim, group=_group(group))


def all_gather_tensor(self, gather_dim, group, tag=""):
    """The older name of :func:`all_gather_single` (a ``FutureWarning``, as in torch 2.13)."""
    _deprecated("all_gather_tensor", "all_gather_single")
    return all_gather_single(self, gather_dim, group, tag)


def reduce_scatter_tensor(self, reduceOp, scatter_dim, group, tag=""):
    """The older name of :func:`reduce_scatter_single` (a ``FutureWarning``, as in torch
    2.13)."""
    _deprecated("reduce_scatter_tensor", "reduce_scatter_single")
    return reduce_scatter_single(self, reduceOp, scatter_dim, group, tag)


def _all_to_all(x, output_split_sizes, input_split_sizes, group):
    dist = _dist()
    size = dist.get_world_size(group)
    if output_split_sizes is None:
        rows = x.size(0)
        output_split_sizes = [rows // size] * size
    out = x.new_empty((sum(output_split_sizes), *x.shape[1:]))
    dist.all_to_all_single(out, x.contiguous(), output_split_sizes, input_split_sizes,
                           group=group)
    return out


def all_to_all_single(self, output_split_sizes, input_split_sizes, group, tag=""):
    """Blocks of ``self`` (dim 0, ``input_split_sizes``) sent to each rank; the blocks
    received, concatenated (gradients are sent back with the splits swapped)."""
    return _AllToAll.apply(self, out_splits=output_split_sizes, in_splits=input_split_sizes,
                           group=_group(group))


class _AllReduce(Op):
    """y = x reduced over the group; dx = dy reduced with the same op."""

    def forward(self, x):
        from .._tensor import _make

        return _all_reduced(_make(x), self.op, self.group)._array

    def backward(self, grad):
        if self.op.lower() != "sum":  # torch's refusal, raised by backward
            raise RuntimeError(f"all_reduce backward only supports 'sum' reduction, got "
                               f"'{self.op}'")
        return _AllReduce.apply(grad, op=self.op, group=self.group)


class _Broadcast(Op):
    """y = rank src's x; dx = dy (torch 2.13 passes the gradient through unchanged)."""

    def forward(self, x):
        from .._tensor import _make

        out = _make(x).clone()
        _dist().broadcast(out, src=self.src, group=self.group)
        return out._array

    def backward(self, grad):
        return grad


class _AllGather(Op):
    """y = cat of every rank's x along dim; dx = this rank's block of the summed dy."""

    def forward(self, x):
        from .._tensor import _make

        return _gather_arrays(_make(x), self.dim, self.group)._array

    def backward(self, grad):
        return _ReduceScatter.apply(grad, op="sum", dim=self.dim, group=self.group)


class _ReduceScatter(Op):
    """y = this rank's block of the group's reduction of x; dx = all-gather of dy."""

    def forward(self, x):
        from .._tensor import _make

        return _reduce_scatter(_make(x), self.op, self.dim, self.group)._array

    def backward(self, grad):
        out = _AllGather.apply(grad, dim=self.dim, group=self.group)
        if self.op.lower() == "avg":
            out = out / _dist().get_world_size(self.group)
        return out


class _AllToAll(Op):
    """y = the blocks every rank sent here; dx = dy's blocks sent back (splits swapped)."""

    def forward(self, x):
        from .._tensor import _make

        return _all_to_all(_make(x), self.out_splits, self.in_splits, self.group)._array

    def backward(self, grad):
        return _AllToAll.apply(grad, out_splits=self.in_splits, in_splits=self.out_splits,
                               group=self.group)


def all_gather_tensor_autograd(self, gather_dim, group, tag=""):
    """:func:`all_gather_single` (the gradient is reduce-scattered back)."""
    return _AllGather.apply(self, dim=gather_dim, group=_group(group))


def reduce_scatter_tensor_autograd(self, reduceOp, scatter_dim, group, tag=""):
    """:func:`reduce_scatter_single` (the gradient is all-gathered back)."""
    return _ReduceScatter.apply(self, op=reduceOp, dim=scatter_dim, group=_group(group))


all_gather_single_autograd = all_gather_tensor_autograd
reduce_scatter_single_autograd = reduce_scatter_tensor_autograd


def all_to_all_single_autograd(self, output_split_sizes, input_split_sizes, group, tag=""):
    """:func:`all_to_all_single` with a gradient (sent back with the splits swapped)."""
    return _AllToAll.apply(self, out_splits=output_split_sizes, in_splits=input_split_sizes,
                           group=_group(group))
