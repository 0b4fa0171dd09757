"""``torch.cuda.make_graphed_callables``: a callable's forward and backward each captured once
into a CUDA graph, then replayed on every call.

The graphs read and write fixed ("static") tensors: a call copies its inputs into the static
inputs and replays the forward graph; backward copies the incoming gradients into the static
gradient slots and replays the backward graph. Warm-up iterations run first on a side stream,
as torch's do, so lazily built state (workspaces, caches) exists before the capture.
"""

from .. import autograd
from .._tensor import Tensor
from ..autograd.function import Function
from .graphs import CUDAGraph, graph


def _flat(out):
    return (out,) if isinstance(out, Tensor) else tuple(out)


def make_graphed_callables(callables, sample_args, num_warmup_iters=3,
                           allow_unused_input=False, pool=None):
    """Graph-captured versions of ``callables`` (a module or function, or a tuple of them,
    with ``sample_args`` the matching tuple of argument tuples). A module comes back with its
    training-mode ``forward`` replaced; a function comes back as a new function."""
    import numtorch

    if numtorch.is_autocast_enabled() and numtorch.is_autocast_cache_enabled():
        raise RuntimeError("make_graphed_callables does not support the autocast caching. "
                           "Please set `cache_enabled=False`.")
    CUDAGraph()  # torch's error on a machine without CUDA
    just_one = not isinstance(callables, tuple)
    if just_one:
        callables, sample_args = (callables,), (sample_args,)
    made = tuple(_graph_one(fn, tuple(args), num_warmup_iters, allow_unused_input, pool)
                 for fn, args in zip(callables, sample_args))
    return made[0] if just_one else made


def _graph_one(fn, args, warmup, allow_unused, pool):
    import numtorch
    from .streams import Stream, stream

    module = isinstance(fn, numtorch.nn.Module)
    params = tuple(p for p in fn.parameters() if p.requires_grad) if module else ()
    inputs = args + params
    diff = tuple(t for t in inputs if isinstance(t, Tensor) and t.requires_grad)

    def grads_of(outs, grad_outs):
        pairs = [(o, g) for o, g in zip(outs, grad_outs) if o.requires_grad]
        if not pairs or not diff:
            return (None,) * len(diff)
        return autograd.grad([o for o, _ in pairs], diff, grad_outputs=[g for _, g in pairs],
                             allow_unused=allow_unused)

    numtorch.cuda.synchronize()
    with stream(Stream()):
        for _ in range(warmup):
            outs = _flat(fn(*args))
            grads_of(outs, [numtorch.ones_like(o) for o in outs])
    numtorch.cuda.synchronize()

    fwd, bwd = CUDAGraph(), CUDAGraph()
    with graph(fwd, pool=pool):
        static_out = fn(*args)
    static_outs = _flat(static_out)
    static_grad_outs = [numtorch.empty_like(o) if o.requires_grad else None
                        for o in static_outs]
    with graph(bwd, pool=fwd.pool()):
        static_grads = grads_of(static_outs, static_grad_outs)

    class Graphed(Function):
        @staticmethod
        def forward(ctx, *new_inputs):
            for static, new in zip(args, new_inputs[:len(args)]):
                if isinstance(static, Tensor) and static.data_ptr() != new.data_ptr():
                    static.copy_(new)
            fwd.replay()
            return tuple(o.detach() for o in static_outs)

        @staticmethod
        def backward(ctx, *grads):
            for slot, g in zip(static_grad_outs, grads):
                if slot is not None and g is not None and slot.data_ptr() != g.data_ptr():
                    slot.copy_(g)
            bwd.replay()
            it = iter(static_grads)
            out = []
            for t in inputs:
                g = next(it) if isinstance(t, Tensor) and t.requires_grad else None
                out.append(None if g is None else g.detach())
            return tuple(out)

    def graphed(*user_args):
        out = Graphed.apply(*(user_args + params))
        return out[0] if isinstance(static_out, Tensor) else type(static_out)(out)

    if not module:
        return graphed
    plain_forward = fn.forward

    def forward(*user_args):
        return graphed(*user_args) if fn.training else plain_forward(*user_args)

    fn.forward = forward
    return fn
