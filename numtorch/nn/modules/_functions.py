"""SyncBatchNorm's cross-process batch norm (torch keeps it in a file of this name).

Forward: each rank computes its per-channel count, mean and sum of squared deviations; one
all-gather gives every rank all of them, combined (Chan's parallel variance formula, exact
and stable) into the global mean and variance. Backward: one all-reduce sums the two
per-channel gradient reductions over all ranks; the weight and bias gradients stay local
(DistributedDataParallel averages them like any other gradient).
"""

from ... import _creation
from ...ops import cat
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad

__all__ = ["SyncBatchNorm", "sync_group", "sync_batch_norm"]


def _reduce_dims(x):
    return (0,) + tuple(range(2, x.dim()))


def _per_channel(v, x):
    return v.reshape((1, -1) + (1,) * (x.dim() - 2))


class SyncBatchNorm(Function):
    """Batch norm whose statistics and input gradient span every rank of a process group."""

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, group):
        from ... import distributed as dist

        dims = _reduce_dims(input)
        c = input.size(1)
        count = input.numel() // c if c else 0
        x = input.detach()
        if count:
            mean = x.mean(dim=dims)
            m2 = ((x - _per_channel(mean, x)) ** 2).sum(dim=dims)
        else:  # an empty local batch adds nothing but still takes part
            mean = _creation.zeros(c, dtype=x.dtype)
            m2 = _creation.zeros(c, dtype=x.dtype)
        n = group.size()
        local = cat([_creation.full((1,), float(count), dtype=x.dtype), mean, m2])
        every = _creation.zeros((n, 2 * c + 1), dtype=x.dtype)
        dist.all_gather_single(every, local, group=group)
        counts, means, m2s = every[:, :1], every[:, 1:c + 1], every[:, c + 1:]
        total = counts.sum()
        if float(total) <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {int(total)}")
        g_mean = (counts * means).sum(dim=0) / total
        g_m2 = (m2s + counts * (means - g_mean) ** 2).sum(dim=0)
        var = g_m2 / total
        invstd = (var + eps).rsqrt()
        with no_grad():
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(g_mean.to(running_mean.dtype) * momentum)
            if running_var is not None:
                unbiased = g_m2 / (total - 1)
                running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
        xhat = (x - _per_channel(g_mean, x)) * _per_channel(invstd, x)
        out = xhat
        if weight is not None:
            out = out * _per_channel(weight.detach(), x)
        if bias is not None:
            out = out + _per_channel(bias.detach(), x)
        ctx.save_for_backward(xhat, invstd, weight)
        ctx.total = total
        ctx.group = group
        return out

    @staticmethod
    def backward(ctx, grad_output):
        from ... import distributed as dist

        xhat, invstd, weight = ctx.saved_tensors
        dims = _reduce_dims(grad_output)
        sum_dy = grad_output.sum(dim=dims)
        sum_dy_xhat = (grad_output * xhat).sum(dim=dims)
        grad_weight = sum_dy_xhat if weight is not None and ctx.needs_input_grad[1] else None
        grad_bias = sum_dy if ctx.needs_input_grad[2] else None
        grad_input = None
        if ctx.needs_input_grad[0]:
            both = cat([sum_dy, sum_dy_xhat])
            dist.all_reduce(both, group=ctx.group)
            c = sum_dy.numel()
            mean_dy, mean_dy_xhat = both[:c] / ctx.total, both[c:] / ctx.total
            scale = invstd if weight is None else invstd * weight
            grad_input = (grad_output - _per_channel(mean_dy, xhat)
                          - xhat * _per_channel(mean_dy_xhat, xhat)) * _per_channel(scale, xhat)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None


def sync_group(module):
    """The process group ``module`` (a SyncBatchNorm) must synchronise over, or None."""
    if not module.training:
        return None
    from ... import distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return None
    from ...distributed.distributed_c10d import GroupMember, resolve_group

    group = resolve_group(module.process_group)
    if group is GroupMember.NON_GROUP_MEMBER or group.size() == 1:
        return None
    return group


def sync_batch_norm(module, input, group):
    """Training-mode forward of ``module`` with statistics over ``group``."""
    factor = 0.0 if module.momentum is None else module.momentum
    if module.track_running_stats:
        module.num_batches_tracked.add_(1)
        if module.momentum is None:  # cumulative moving average
            factor = 1.0 / float(module.num_batches_tracked.item())
    track = module.track_running_stats
    return SyncBatchNorm.apply(input, module.weight, module.bias,
                               module.running_mean if track else None,
                               module.running_var if track else None, module.eps, factor,
                               group)
