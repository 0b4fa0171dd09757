"""Connectionist temporal classification loss (argument checks; the recursions live in
``numtorch.ops.loss_ops``)."""

import numpy as np

from ... import _dtype
from ..._tensor import Tensor, _make
from ...amp.autocast_mode import is_autocast_enabled
from ...backend import xp_of
from ...ops.comparison import where
from ...ops.loss_ops import ctc_loss_op
from ._loss_util import check_reduction, is_float, type_name

__all__ = ["ctc_loss"]

_CHECKING = "(while checking arguments for ctc_loss_allocate_outputs)"


def _lengths(value, name, batch):
    """Lengths as an int64 NumPy/CuPy array of size ``batch``."""
    if isinstance(value, Tensor):
        if value.dtype._category != _dtype._INT:
            raise RuntimeError(f"{name} must be integral")
        arr = value.cpu()._array.reshape(-1).astype(np.int64)  # small: keep lengths on host
    elif isinstance(value, (tuple, list)):
        for v in value:
            if not isinstance(v, (int, np.integer)):
                raise TypeError(f"ctc_loss(): argument '{name}' failed to unpack the object "
                                f"with error \"type must be tuple of ints,but got "
                                f"{type(v).__name__}\"")
        arr = np.array(value, dtype=np.int64).reshape(-1)
    else:
        raise TypeError(f"ctc_loss(): argument '{name}' must be tuple of ints or Tensor, not "
                        f"{type(value).__name__}")
    if arr.size != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return arr


def _extended_labels(xp, targets, tl, blank, n_classes):
    """Each sample's labels with blanks around and between them: (N, 2 S + 1), padded with
    blanks. ``targets`` is padded (N, S) or concatenated (sum of lengths,)."""
    n = tl.shape[0]
    s_max = int(tl.max()) if n else 0
    if targets.ndim == 2:
        labels = targets[:, :s_max]
    else:
        # scatter the concatenated targets into rows, padding the short ones
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]]) if n else np.zeros(0, np.int64)
        pos = np.arange(s_max)
        idx = starts[:, None] + pos[None, :]
        inside = pos[None, :] < tl[:, None]
        labels = xp.where(xp.asarray(inside), targets[xp.asarray(np.where(inside, idx, 0))],
                          blank)
    labels = labels.astype(np.int64)
    inside = xp.arange(s_max)[None, :] < xp.asarray(tl)[:, None]
    if labels.size and bool(((labels < 0) | (labels >= n_classes))[inside].any()):
        bad = int(labels[inside & ((labels < 0) | (labels >= n_classes))][0])
        raise RuntimeError(f"ctc_loss: target label {bad} is out of range for {n_classes} "
                           f"classes")
    ext = xp.full((n, 2 * s_max + 1), blank, dtype=np.int64)
    ext[:, 1::2] = xp.where(inside, labels, blank)
    return ext


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification loss: ``-log`` of the total probability of all
    alignments of each target sequence to its input frames.

    Args:
        log_probs (Tensor): ``(T, N, C)`` (or unbatched ``(T, C)``) log-probabilities, e.g.
            from ``log_softmax(dim=2)``.
        targets (Tensor): padded ``(N, S)`` labels, or all targets concatenated
            (``sum(target_lengths)``,); labels should differ from ``blank``.
        input_lengths (Tensor or tuple of ints): frames used per sample, each ``<= T``.
        target_lengths (Tensor or tuple of ints): labels per sample.
        blank (int): the blank label. Default: 0.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``; 'mean' divides each loss by its
            target length and averages over the batch. Default: ``'mean'``.
        zero_infinity (bool): replace infinite losses (impossible alignments) and their
            gradients by 0. Default: False.

    Returns:
        Tensor: the per-sample losses (``'none'``) or their reduction.

    Example:
        >>> lp = torch.zeros(3, 1, 2).log_softmax(2)
        >>> torch.nn.functional.ctc_loss(lp, torch.tensor([[1]]), (3,), (1,), reduction="sum")
        tensor(0.2877)

    Note:
        As in torch, the gradient with respect to ``log_probs`` is ``exp(log_probs) -
        posterior`` (the gradient through a log_softmax that produced them), not the plain
        derivative; it is 0 for frames past a sample's input length. It is differentiable
        once. A label outside ``[0, C)`` raises here, where torch reads out of bounds.
    """
    red = check_reduction(reduction)
    nd = log_probs.dim()
    if nd not in (2, 3):
        # torch reads anything but 3-d as unbatched: it adds the batch dim before checking
        if nd == 0:
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                             "got 1)")
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {nd + 1}-dimensional tensor "
                           f"for argument #1 'log_probs' {_CHECKING}")
    if isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor):
        raise TypeError("ctc_loss(): input_lengths and target_lengths must both be Tensors or "
                        "both be tuples of ints")
    if not is_float(log_probs):
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for '
                                  f"'{type_name(log_probs)}'")
    if log_probs.dtype in (_dtype.float16, _dtype.bfloat16) and \
            log_probs.device.type == "cpu" and not is_autocast_enabled("cpu"):
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for '
                                  f"'{type_name(log_probs)}'")
    unbatched = nd == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        if targets.dim() == 1:
            targets = targets.unsqueeze(0)
    T, N, C = log_probs.shape
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    il = _lengths(input_lengths, "input_lengths", N)
    tl = _lengths(target_lengths, "target_lengths", N)
    for name, arr in (("input_lengths", il), ("target_lengths", tl)):
        if arr.size and arr.min() < 0:
            raise RuntimeError(f"Expected {name} to have value at least 0, but got value "
                               f"{int(arr.min())} {_CHECKING}")
    if il.size and il.max() > T:
        raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value "
                           f"{int(il.max())} {_CHECKING}")
    if targets.dim() not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional "
                           f"tensor for argument #2 'targets' {_CHECKING}")
    t_arr = targets._array
    if targets.dim() == 1:
        if t_arr.shape[0] != int(tl.sum()):
            raise RuntimeError(f"Expected tensor to have size {int(tl.sum())} at dimension 0, "
                               f"but got size {t_arr.shape[0]} for argument #2 'targets' "
                               f"{_CHECKING}")
    else:
        if t_arr.shape[0] != N:
            raise RuntimeError(f"Expected tensor to have size {N} at dimension 0, but got size "
                               f"{t_arr.shape[0]} for argument #2 'targets' {_CHECKING}")
        if tl.size and t_arr.shape[1] < tl.max():
            raise RuntimeError(f"Expected tensor to have size at least {int(tl.max())} at "
                               f"dimension 1, but got size {t_arr.shape[1]} for argument #2 "
                               f"'targets' {_CHECKING}")
    xp = xp_of(log_probs._array)
    ext = _extended_labels(xp, t_arr, tl, blank, C)
    loss = ctc_loss_op(log_probs, ext, xp.asarray(il), xp.asarray(tl), blank, zero_infinity)
    if zero_infinity:
        loss = where(loss.isinf(), 0.0, loss)
    if red == "mean":
        denom = xp.maximum(xp.asarray(tl), 1).astype(log_probs._array.dtype)
        out = (loss / _make(denom)).mean()
    elif red == "sum":
        out = loss.sum()
    else:
        out = loss
    if unbatched and red == "none":
        out = out.squeeze(0)
    return out
