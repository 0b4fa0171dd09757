"""Top-level normalization, dropout and embedding functions (``torch.batch_norm``, ...).

torch offers these besides ``torch.nn.functional``, with its own argument order (``weight``
and ``bias`` before the running statistics), required positional arguments, RuntimeError
for a bad dropout probability, and the ``native_*`` forms that also return the saved
statistics or masks. Each one here reorders its arguments and calls the ``F`` function (the
single definition of the math); the extra outputs are computed without gradient, as in torch.
"""

from ._inplace_functions import _dropout_form, _require_tensor
from .autograd.grad_mode import no_grad

__all__ = [
    "dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout", "batch_norm",
    "instance_norm", "layer_norm", "group_norm", "rms_norm", "native_batch_norm",
    "native_layer_norm", "native_group_norm", "native_dropout", "embedding",
    "embedding_bag",
]

dropout = _dropout_form("dropout", False, False)
alpha_dropout = _dropout_form("alpha_dropout", False, True)
feature_dropout = _dropout_form("feature_dropout", True, False)
feature_alpha_dropout = _dropout_form("feature_alpha_dropout", True, True)


def _F():
    from .nn import functional

    return functional


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """Batch normalization with torch's top-level argument order; see
    :func:`numtorch.nn.functional.batch_norm`. ``cudnn_enabled`` has no effect."""
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                           eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """Instance normalization with torch's top-level argument order; see
    :func:`numtorch.nn.functional.instance_norm`. ``cudnn_enabled`` has no effect."""
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                              momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """Layer normalization over the trailing ``normalized_shape`` dimensions; see
    :func:`numtorch.nn.functional.layer_norm`. ``cudnn_enable`` has no effect."""
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """Group normalization; see :func:`numtorch.nn.functional.group_norm`.
    ``cudnn_enabled`` has no effect."""
    return _F().group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalization; see :func:`numtorch.nn.functional.rms_norm`."""
    return _F().rms_norm(input, normalized_shape, weight, eps)


def _mean_rstd(x, dims, eps):
    """Biased mean and ``1 / sqrt(var + eps)`` over ``dims`` (kept), without gradient."""
    with no_grad():
        x = x.detach()
        mean = x.mean(dims, keepdim=True)
        var = x.var(dims, unbiased=False, keepdim=True)
        return mean, (var + eps).rsqrt()


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Layer normalization that also returns the statistics it used.

    Returns:
        tuple: ``(output, mean, rstd)``; ``mean`` and ``rstd`` (the reciprocal standard
        deviation) keep the normalized dimensions as size 1 and carry no gradient.
    """
    out = _F().layer_norm(input, normalized_shape, weight, bias, eps)
    dims = tuple(range(input.dim() - len(tuple(normalized_shape)), input.dim()))
    mean, rstd = _mean_rstd(input, dims, eps)
    return out, mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Batch normalization that also returns the batch statistics it used.

    Returns:
        tuple: ``(output, save_mean, save_invstd)``: per-channel batch mean and
        ``1 / sqrt(var + eps)`` when ``training``, empty tensors otherwise (the running
        estimates were used). The statistics carry no gradient.
    """
    out = _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                          eps)
    if not training:
        with no_grad():
            empty = input.new_empty((0,))
        return out, empty, empty.clone()
    dims = (0,) + tuple(range(2, input.dim()))
    mean, rstd = _mean_rstd(input, dims, eps)
    return out, mean.reshape(-1), rstd.reshape(-1)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Group normalization of ``input`` seen as ``(N, C, HxW)`` that also returns the
    per-(sample, group) mean and reciprocal standard deviation, both of shape
    ``(N, group)``."""
    if input.numel() != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    x = input.reshape(N, C, HxW)
    out = _F().group_norm(x, group, weight, bias, eps).reshape(input.shape)
    mean, rstd = _mean_rstd(x.reshape(N, group, -1), (2,), eps)
    return out, mean.reshape(N, group), rstd.reshape(N, group)


def native_dropout(input, p, train):
    """Dropout that also returns the keep mask.

    Args:
        input (Tensor): the values.
        p (float): probability of zeroing an element.
        train (bool or None): apply dropout when true or None; otherwise return a copy of
            ``input`` and an all-true mask.

    Returns:
        tuple: ``(output, mask)``, ``mask`` a bool tensor of ``input``'s shape.
    """
    _require_tensor("native_dropout", input)
    if train is not None and not train:
        with no_grad():
            mask = input.new_ones(input.shape, dtype=_bool())
        return input.clone(), mask
    with no_grad():
        mask = input.detach().new_empty(input.shape).bernoulli_(1.0 - p).to(_bool())
        scale = mask.to(input.dtype) * (0.0 if p == 1 else 1.0 / (1.0 - p))
    return input * scale, mask


def _bool():
    from ._dtype import bool as bool_

    return bool_


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by ``indices`` (torch's top-level argument order: weight
    first). A negative ``padding_idx`` means no padding row; see
    :func:`numtorch.nn.functional.embedding`."""
    pad = None if padding_idx is None or padding_idx < 0 else padding_idx
    return _F().embedding(indices, weight, pad, None, 2.0, scale_grad_by_freq, sparse)


_MODES = ("sum", "mean", "max")


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima over bags of embedding rows, with torch's top-level signature.

    Args:
        mode (int): 0 sum, 1 mean, 2 max.
        (the rest as in :func:`numtorch.nn.functional.embedding_bag`; weight comes first)

    Returns:
        tuple: ``(output, offset2bag, bag_size, max_indices)``: the bag of each index (empty
        for sum), the number of non-padding indices per bag (zeros for sum), and the row
        that gave each maximum (mode 2; otherwise the bag sizes, or zeros for sum).
    """
    _require_tensor("embedding_bag", weight)
    if isinstance(mode, str):
        mode = _MODES.index(mode)
    pad = None if padding_idx is None or padding_idx < 0 else padding_idx
    out = _F().embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq,
                             _MODES[mode], sparse, per_sample_weights, include_last_offset,
                             pad)
    return (out,) + _bag_bookkeeping(weight, indices, offsets, out.shape[0], mode, pad)


def _bag_bookkeeping(weight, indices, offsets, n_bags, mode, pad):
    import numtorch as ops

    # torch's sum mode skips the index-to-bag map unless backward or padding needs it, and
    # sizes its (all-zero) bag_size/max_indices by the offsets
    # (its float32 fast path)
    need_map = (pad is not None or weight.dtype != ops.float32
                or (weight.requires_grad and ops.is_grad_enabled()))
    with no_grad():
        long_zeros = indices.new_zeros((n_bags,))
        n = indices.numel()
        starts = offsets[:n_bags].reshape(-1)
        # the bag of index i is the number of bag starts <= i, minus one
        offset2bag = ops.searchsorted(starts, ops.arange(n, device=indices.device),
                                      right=True) - 1
        offset2bag = offset2bag.clamp(min=0)
        if mode == 0:
            zeros = indices.new_zeros((offsets.numel(),))
            return (offset2bag if need_map else indices.new_empty((0,))), zeros, zeros.clone()
        keep = indices.new_ones((n,)) if pad is None else (indices != pad).to(indices.dtype)
        bag_size = long_zeros.index_add(0, offset2bag, keep)
        if mode == 1:
            return offset2bag, bag_size, bag_size.clone()
        rows = weight.detach()[indices]
        if pad is not None:
            rows = rows.masked_fill((indices == pad).unsqueeze(1), float("-inf"))
        best = weight.new_full((n_bags, weight.shape[1]), float("-inf"))
        best = best.scatter_reduce(0, offset2bag.unsqueeze(1).expand_as(rows), rows, "amax")
        # the first index of each bag whose row reaches the bag's maximum, per column
        hit = (rows == best[offset2bag]) & (best[offset2bag] > float("-inf"))
        pos = ops.arange(n, device=indices.device).unsqueeze(1).expand_as(rows)
        first = pos.masked_fill(~hit, n).new_full((n_bags, weight.shape[1]), n)
        first = first.scatter_reduce(0, offset2bag.unsqueeze(1).expand_as(rows),
                                     pos.masked_fill(~hit, n), "amin")
        max_indices = ops.cat([indices, indices.new_zeros((1,))])[first]
        return offset2bag, bag_size, max_indices
