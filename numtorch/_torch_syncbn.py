"""The per-channel building blocks of synchronised batch norm (``torch.batch_norm_stats``,
``batch_norm_elemt``, ``batch_norm_gather_stats(_with_counts)``, ``batch_norm_backward_reduce``,
``batch_norm_backward_elemt``, ``batch_norm_update_stats``).

They are the steps of ``nn.modules._functions.SyncBatchNorm`` split apart so a user can put
their own communication between them: local statistics, combining the ranks' statistics
(Chan's parallel formula, as SyncBatchNorm), the normalisation, and the two reductions of the
backward pass. torch has all but ``batch_norm_update_stats`` for CUDA tensors only; on the CPU
they raise its NotImplementedError, as torch does. All are compositions of numtorch ops.
"""

from . import _dtype
from ._dispatch_error import no_kernel
from .autograd.grad_mode import no_grad

__all__ = ["batch_norm_backward_elemt", "batch_norm_backward_reduce", "batch_norm_elemt",
           "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts", "batch_norm_stats",
           "batch_norm_update_stats"]


def _cuda_only(name, input):
    if input.device.type == "cpu":
        raise no_kernel(name, "CPU", mobile_hint=True)


def _dims(x):
    return (0,) + tuple(range(2, x.dim()))


def _col(v, x):
    """A per-channel vector shaped to broadcast against ``x`` (channels in dim 1)."""
    return v.reshape((1, -1) + (1,) * (x.dim() - 2))


def _moments(input):
    dims = _dims(input)
    mean = input.mean(dim=dims)
    var = ((input - _col(mean, input)) ** 2).mean(dim=dims)
    return mean, var


def batch_norm_stats(input, eps):
    """Per-channel mean and ``1 / sqrt(biased variance + eps)`` of ``input`` (channels in
    dim 1): one rank's share of SyncBatchNorm's statistics.

    Returns:
        (Tensor, Tensor): ``mean`` and ``invstd``, each of shape ``(C,)``.
    """
    _cuda_only("batch_norm_stats", input)
    mean, var = _moments(input)
    return mean, (var + eps).rsqrt()


def batch_norm_elemt(input, weight, bias, mean, invstd, eps, *, out=None):
    """``(input - mean) * invstd * weight + bias`` per channel (``weight``/``bias`` may be
    None). ``eps`` is accepted for torch's signature; ``invstd`` already holds it."""
    _cuda_only("batch_norm_elemt", input)
    y = (input - _col(mean, input)) * _col(invstd, input)
    if weight is not None:
        y = y * _col(weight, input)
    if bias is not None:
        y = y + _col(bias, input)
    if out is not None:
        return out.copy_(y)
    return y


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                        momentum, eps, counts):
    """Combine the ranks' ``(mean, invstd)`` rows (shape ``(world, C)``, ``counts[r]`` values
    each) into the global mean and invstd; update the running estimates (unbiased variance)
    in place when given.

    Returns:
        (Tensor, Tensor): the global ``mean`` and ``invstd``, each of shape ``(C,)``.
    """
    _cuda_only("batch_norm_gather_stats_with_counts", input)
    return _gather(input, mean, invstd, running_mean, running_var, momentum, eps,
                   counts.to(mean.dtype))


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps,
                            count):
    """``batch_norm_gather_stats_with_counts`` with the same ``count`` for every rank."""
    _cuda_only("batch_norm_gather_stats", input)
    counts = mean.new_full((mean.shape[0],), float(count))
    return _gather(input, mean, invstd, running_mean, running_var, momentum, eps, counts)


def _gather(input, mean, invstd, running_mean, running_var, momentum, eps, counts):
    with no_grad():
        c = counts.reshape(-1, 1)
        total = counts.sum()
        g_mean = (c * mean).sum(dim=0) / total
        local_var = invstd.pow(-2) - eps
        g_var = (c * (local_var + (mean - g_mean) ** 2)).sum(dim=0) / total
        g_invstd = (g_var + eps).rsqrt()
        _update_running(running_mean, running_var, g_mean, g_var * (total / (total - 1)),
                        momentum)
    return g_mean, g_invstd


def _update_running(running_mean, running_var, mean, unbiased_var, momentum):
    if running_mean is not None:
        running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype) * momentum)
    if running_var is not None:
        running_var.mul_(1 - momentum).add_(unbiased_var.to(running_var.dtype) * momentum)


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g,
                               bias_g):
    """The per-channel reductions of batch norm's backward on one rank.

    Returns:
        tuple: ``sum_dy`` and ``sum_dy_xmu`` (sums of ``grad_out`` and of
        ``grad_out * (input - mean)``; None unless ``input_g``), ``grad_weight``
        (``sum_dy_xmu * invstd``; None unless ``weight_g`` and a weight) and ``grad_bias``
        (``sum_dy``; None unless ``bias_g``).
    """
    _cuda_only("batch_norm_backward_reduce", input)
    dims = _dims(input)
    sum_dy = grad_out.sum(dim=dims)
    sum_dy_xmu = (grad_out * (input - _col(mean, input))).sum(dim=dims)
    grad_weight = sum_dy_xmu * invstd if weight_g and weight is not None else None
    return (sum_dy if input_g else None, sum_dy_xmu if input_g else None, grad_weight,
            sum_dy if bias_g else None)


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu,
                              count):
    """The input gradient of batch norm from the global ``sum_dy`` / ``sum_dy_xmu`` (summed
    over the ranks) and the ranks' value counts ``count`` (an integer tensor)."""
    _cuda_only("batch_norm_backward_elemt", input)
    total = count.sum().to(sum_dy.dtype)
    scale = invstd if weight is None else invstd * weight
    xmu = input - _col(mean, input)
    return (grad_out - _col(sum_dy / total, input)
            - xmu * _col(invstd * invstd * sum_dy_xmu / total, input)) * _col(scale, input)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """Per-channel mean and biased variance of ``input``; when given, the running estimates
    move toward them by ``momentum`` (the variance's unbiased form), in place.

    Returns:
        (Tensor, Tensor): ``mean`` and biased ``var``, each of shape ``(C,)``.
    """
    for buf in (running_mean, running_var):
        if buf is not None and buf.dtype != input.dtype and input.device.type == "cpu":
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of "
                               f"{_dtype._TYPE_DISPLAY[input.dtype.name]}")
    with no_grad():
        mean, var = _moments(input.detach())
        n = input.numel() // max(input.shape[1], 1)
        _update_running(running_mean, running_var, mean, var * (n / max(n - 1, 1)), momentum)
    return mean, var
