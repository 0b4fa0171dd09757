"""``F.linear_cross_entropy``: cross entropy of a linear layer's logits, in one call."""

__all__ = ["linear_cross_entropy"]


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``.

    Args:
        input (Tensor): ``(N, in_features)`` or ``(in_features,)``.
        linear_weight (Tensor): ``(C, in_features)``, or ``(C, d_1, ..., d_K, in_features)``
            for a K-dimensional loss (logits ``(N, C, d_1, ..., d_K)``).
        target (Tensor): class indices or class probabilities, as for
            :func:`numtorch.nn.functional.cross_entropy`.
        linear_bias (Tensor, optional): ``(C,)`` or ``(C, d_1, ..., d_K)``.
        weight, reduction, label_smoothing: as for ``cross_entropy``.
        ignore_index (int, optional): ignored target class; None means -100.
        options (LinearCrossEntropyOptions, optional): torch's chunking choices.

    Note: numtorch always computes the full logits (torch's reference path); ``options`` is
    accepted and changes nothing.
    """
    from . import cross_entropy, linear

    if input.dim() not in (1, 2):
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    in_features = linear_weight.shape[-1]
    if input.shape[-1] != in_features:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and {in_features}, "
                           f"respectively")
    if ignore_index is not None and target.dtype.is_floating_point:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    class_shape = tuple(linear_weight.shape[:-1])  # (C, d_1, ..., d_K)
    flat_bias = None if linear_bias is None else linear_bias.reshape(-1)
    logits = linear(input, linear_weight.reshape(-1, in_features), flat_bias)
    logits = logits.reshape(tuple(input.shape[:-1]) + class_shape)
    return cross_entropy(logits, target, weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)
