"""``torch.distributed.nn.functional``: collectives that gradients flow through.

Each collective is an autograd function whose backward is the collective that moves the
gradients back: broadcast <-> reduce (to the source), gather <-> scatter, all_gather <->
reduce-scatter (sum), all_to_all <-> all_to_all (split sizes swapped), all_reduce <->
all_reduce (same op). Contrastive-learning code gathers embeddings with these so every rank's
loss reaches every rank's encoder.

``broadcast``, ``reduce_scatter``, ``all_gather``, ``all_to_all_single`` and ``all_reduce``
warn a ``FutureWarning`` as torch's do (torch points to ``_functional_collectives``).
"""

import warnings

from ... import autograd as _autograd
from ... import distributed as dist
from ..._creation import empty, zeros_like
from .._names import ReduceOp

__all__ = ["all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast",
           "gather", "reduce", "reduce_scatter", "scatter"]

_Function = _autograd.Function


def _deprecated(name, suggestion):
    warnings.warn(f"torch.distributed.nn.functional.{name} is deprecated, use {suggestion} "
                  f"instead.", category=FutureWarning, stacklevel=3)


def broadcast(tensor, src, group=None):
    """``tensor`` of rank ``src`` on every rank; the gradients are summed back to ``src``
    (the other ranks' inputs get zeros)."""
    _deprecated("broadcast", "torch.distributed._functional_collectives.broadcast")
    return _Broadcast.apply(src, group, tensor)


def gather(tensor, dst=0, group=None):
    """A tuple of every rank's ``tensor`` on rank ``dst`` (zeros elsewhere); each rank's
    gradient comes from ``dst``'s gradient of its piece."""
    return _Gather.apply(dst, group, tensor)


def scatter(tensors, src=0, group=None):
    """Rank ``i`` gets ``tensors[i]`` of rank ``src``; the gradients go back to ``src``."""
    return _Scatter.apply(src, group, *tensors)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None):
    """``tensor`` reduced onto rank ``dst``; every rank's gradient is ``dst``'s."""
    return _Reduce.apply(dst, op, group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None):
    """Rank ``i`` gets the reduction of every rank's ``input_list[i]`` (written into
    ``output`` too); the gradients are all-gathered back."""
    _deprecated("reduce_scatter",
                "torch.distributed._functional_collectives.reduce_scatter_single")
    return _ReduceScatter.apply(op, group, output, *input_list)


def all_gather(tensor, group=None):
    """A tuple of every rank's ``tensor``; the gradients are summed back to their owners."""
    _deprecated("all_gather", "torch.distributed._functional_collectives.all_gather_single")
    return _AllGather.apply(group, tensor)


def _all_gather_base(output_tensor, input_tensor, group=None):
    """Every rank's ``input_tensor`` stacked along dim 0 into ``output_tensor``; as in torch
    its backward needs the NCCL backend."""
    return _AllGatherBase.apply(output_tensor, input_tensor, group)


def all_to_all(output_tensor_list, input_tensor_list, group=None):
    """Rank ``i``'s ``input_tensor_list[j]`` lands in rank ``j``'s ``output_tensor_list[i]``;
    gradients travel the opposite way."""
    return _AlltoAll.apply(group, output_tensor_list, *input_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None):
    """:func:`torch.distributed.all_to_all_single` that gradients flow through."""
    _deprecated("all_to_all_single",
                "torch.distributed._functional_collectives.all_to_all_single")
    return _AlltoAllSingle.apply(group, output, output_split_sizes, input_split_sizes, input)


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """``tensor`` reduced over the ranks (a new tensor); the gradients are all-reduced with
    the same ``op``."""
    _deprecated("all_reduce", "torch.distributed._functional_collectives.all_reduce")
    return _AllReduce.apply(op, group, tensor)


class _Broadcast(_Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group = src, group
        out = tensor.clone().contiguous()
        dist.broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        grad = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad_output)
        if dist.get_rank() != ctx.src:
            grad = zeros_like(grad)
        return None, None, grad


class _Gather(_Function):
    @staticmethod
    def forward(ctx, dst, group, tensor):
        ctx.dst, ctx.group = dst, group
        pieces = [zeros_like(tensor) for _ in range(dist.get_world_size(group=group))]
        tensor = tensor.contiguous()
        if dist.get_rank() == dst:
            dist.gather(tensor, pieces, dst, group=group)
        else:
            dist.gather(tensor, None, dst, group=group)
        return tuple(pieces)

    @staticmethod
    def backward(ctx, *grad_outputs):
        return None, None, _Scatter.apply(ctx.dst, ctx.group, *grad_outputs)


class _Scatter(_Function):
    @staticmethod
    def forward(ctx, src, group, *tensors):
        ctx.src, ctx.group = src, group
        out = zeros_like(tensors[0])
        if dist.get_rank() == src:
            dist.scatter(out, [t.contiguous() for t in tensors], src, group=group)
        else:
            dist.scatter(out, None, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None) + _Gather.apply(ctx.src, ctx.group, grad_output)


class _Reduce(_Function):
    @staticmethod
    def forward(ctx, dst, op, group, tensor):
        ctx.dst, ctx.group = dst, group
        out = tensor.clone().contiguous()
        dist.reduce(out, dst, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, None, _Broadcast.apply(ctx.dst, ctx.group, grad_output)


class _ReduceScatter(_Function):
    @staticmethod
    def forward(ctx, op, group, output, *input_list):
        ctx.group = group
        dist.reduce_scatter(output, [t.contiguous() for t in input_list], op=op, group=group)
        return output.view_as(output)

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, None) + _AllGather.apply(ctx.group, grad_output)


class _AllGather(_Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        pieces = [zeros_like(tensor) for _ in range(dist.get_world_size(group=group))]
        dist.all_gather(pieces, tensor.contiguous(), group=group)
        return tuple(pieces)

    @staticmethod
    def backward(ctx, *grad_outputs):
        rank = dist.get_rank(group=ctx.group)
        grad = empty(grad_outputs[rank].shape, dtype=grad_outputs[rank].dtype,
                     device=grad_outputs[rank].device)
        dist.reduce_scatter(grad, [g.contiguous() for g in grad_outputs], op=ReduceOp.SUM,
                            group=ctx.group)
        return None, grad


class _AllGatherBase(_Function):
    @staticmethod
    def forward(ctx, output_tensor, input_tensor, group):
        ctx.group = group
        dist.all_gather_single(output_tensor, input_tensor.contiguous(), group=group)
        return output_tensor.view_as(output_tensor)

    @staticmethod
    def backward(ctx, grad_output):
        # torch reduce-scatters the gradient only on NCCL (and XCCL); gloo refuses
        raise RuntimeError("Backend not supported!")


class _AlltoAll(_Function):
    @staticmethod
    def forward(ctx, group, out_tensor_list, *tensors):
        ctx.group = group
        ctx.input_shapes = [(t.shape, t.dtype, t.device) for t in tensors]
        dist.all_to_all(out_tensor_list, [t.contiguous() for t in tensors], group=group)
        return tuple(t.view_as(t) for t in out_tensor_list)

    @staticmethod
    def backward(ctx, *grad_outputs):
        back = [empty(s, dtype=d, device=dev) for s, d, dev in ctx.input_shapes]
        return (None, None) + _AlltoAll.apply(ctx.group, back,
                                              *[g.contiguous() for g in grad_outputs])


class _AlltoAllSingle(_Function):
    @staticmethod
    def forward(ctx, group, output, output_split_sizes, input_split_sizes, input):
        ctx.group = group
        ctx.input_meta = (input.shape, input.dtype, input.device)
        ctx.splits = (output_split_sizes, input_split_sizes)
        dist.all_to_all_single(output, input.contiguous(), output_split_sizes,
                               input_split_sizes, group=group)
        return output.view_as(output)

    @staticmethod
    def backward(ctx, grad_output):
        shape, dtype, device = ctx.input_meta
        out_splits, in_splits = ctx.splits
        back = empty(shape, dtype=dtype, device=device)
        grad = _AlltoAllSingle.apply(ctx.group, back, in_splits, out_splits,
                                     grad_output.contiguous())
        return None, None, None, None, grad


class _AllReduce(_Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.op, ctx.group = op, group
        out = tensor.clone().contiguous()
        dist.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad_output)
