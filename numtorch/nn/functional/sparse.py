"""nn.functional: sparse (embedding lookups, bags of embeddings, one-hot encoding).

Lookups are row gathers (``numtorch/ops/embedding.py``) whose backward accumulates rows with
one sort-and-reduce pass; bags are sums of those rows per bag (the same primitive).
"""

import warnings

import numpy as np

from ... import _dtype, backend
from ..._device import CPU
from ..._tensor import Tensor, _make
from ...autograd.grad_mode import no_grad
from ...autograd.graph import rename_node
from ...ops.embedding import bag_max, embedding_rows, index_add_rows

__all__ = ["embedding", "embedding_bag", "one_hot"]

_INDEX_TYPES = ("int64", "int32")


def _torch_class_text(x):
    """``str(type(x))`` as torch prints it: numtorch's classes under torch's module names."""
    text = str(type(x))
    return text.replace("<class 'numtorch.", "<class 'torch.")


def _index_type_name(t):
    if t.dtype.name == "bool":
        return "CPUBoolType"
    return f"torch.{t.dtype._legacy}"


def _check_indices(fn, input, arg="indices", position=1):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position 2) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dtype.name not in _INDEX_TYPES:
        raise RuntimeError(f"Expected tensor for argument #{position} '{arg}' to have one of "
                           f"the following scalar types: Long, Int; but got "
                           f"{_index_type_name(input)} instead (while checking arguments for "
                           f"{fn})")


def _renorm_rows(weight, idx, max_norm, norm_type):
    """Scale the rows of ``weight`` named in ``idx`` down to norm ``max_norm`` in place."""
    xp = backend.xp_of(weight._array)
    rows = xp.unique(idx.reshape(-1))
    if rows.size == 0:
        return
    n = weight.shape[0]
    bad = rows[(rows < -n) | (rows >= n)]
    # torch renorms the sorted rows one by one: those before the first bad one are done
    good = rows if not bad.size else rows[rows < bad[0]]
    if good.size:
        with no_grad():
            w = weight.detach()
            sel = w[_make(good)]
            norms = sel.norm(norm_type, 1)._array
            big = norms > max_norm
            if bool(big.any()):
                # torch's rule: scale by max_norm / (norm + 1e-7) (in double), only rows
                # above max_norm
                scale = xp.where(big, max_norm / (norms.astype(xp.float64) + 1e-7), 1.0)
                w[_make(good)] = sel * _make(scale[:, None].astype(sel._array.dtype))
    if bad.size:
        raise IndexError(f"select(): index {int(bad[0])} out of range for tensor of size "
                         f"{list(weight.shape)} at dimension 0")


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Look up the rows of ``weight`` named by the integer tensor ``input``.

    Args:
        input (Tensor): int64 or int32 indices into dim 0 of ``weight``.
        weight (Tensor): the ``(num_embeddings, embedding_dim)`` table.
        padding_idx (int, optional): a row whose gradient is always zero (negative values
            count from the end).
        max_norm (float, optional): rows looked up with a larger ``norm_type``-norm are
            rescaled to this norm, in place in ``weight``.
        norm_type (float): the norm for ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): divide each row's gradient by how often its index occurs
            in ``input``. Default: False.
        sparse (bool): give ``weight`` a sparse COO gradient (one entry per looked-up index;
            see the note). Default: False.

    Returns:
        Tensor: shape ``input.shape + (embedding_dim,)``.

    Example:
        >>> w = torch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
        >>> torch.nn.functional.embedding(torch.tensor([2, 0]), w)
        tensor([[4., 5.],
                [0., 1.]])

    Note:
        ``sparse=True`` gives a sparse gradient when ``weight`` is a CPU leaf; a ``weight``
        computed from other tensors, or on a GPU, gets a dense one. With
        ``scale_grad_by_freq`` the second derivative includes the frequency scaling (torch's
        leaves it out).
    """
    if max_norm is not None:  # torch renorms first, so that op's checks come first
        _check_indices("embedding_renorm_", input, position=2)
    _check_indices("embedding", input)
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    n = weight.shape[0]
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= n or padding_idx < -n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx += n
    else:
        padding_idx = -1
    idx = input._array
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
        raise IndexError("index out of range in self")
    return embedding_rows(weight, input, padding_idx, scale_grad_by_freq,
                          _sparse_grad(weight, sparse))


def _sparse_grad(weight, sparse):
    """Whether ``weight`` gets a sparse gradient: asked for, and a CPU leaf (numtorch's sparse
    tensors live on the CPU, and only a leaf's accumulator takes one; a weight computed from
    other tensors passes a dense gradient back through its graph)."""
    return bool(sparse) and weight.grad_fn is None and weight.device.type == "cpu"


def _bag_offsets(input, offsets, include_last_offset, per_sample_weights):
    """Flatten 2-D input into fixed-size bags; return (indices, bag starts, weights, n_bags,
    end of the last bag)."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated "
                             f"is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {_torch_class_text(offsets)}")
        rows, length = input.shape
        starts = np.arange(0, rows * length, max(length, 1))[:rows]
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        return input.reshape(-1), starts, per_sample_weights, rows, rows * length
    if input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        _check_indices("embedding_bag", offsets, "offsets")
        # bag bookkeeping is small and sequential: do it on the host
        starts = backend.to_device(offsets._array, CPU).astype(np.int64)
        if starts.size and starts[0] != 0:
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the "
                               f"mini-batch has to start from position 0. However, got "
                               f"{int(starts[0])}\n[ torch."
                               f"{'Int' if offsets.dtype == _dtype.int32 else 'Long'}Tensor{{}} ]")
        if starts.size and starts[-1] > input.shape[0]:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length "
                               f"{input.shape[0]} but got offsets[-1] of {int(starts[-1])}")
        if include_last_offset and not starts.size:
            raise RuntimeError("include_last_offset: number of offset should be at least 1")
        end = input.shape[0]
        if include_last_offset and starts.size:
            # CSR offsets: the last one closes the last bag (entries past it are unused)
            starts, end = starts[:-1], int(starts[-1])
        return input, starts, per_sample_weights, starts.shape[0], end
    raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                     f"{input.ndim}")


_FBGEMM_DTYPES = ("float32", "float16", "bfloat16")
_INDEX_SIZE_CHECK = ("Expected i < index_size to be true, but got false.  (Could this error "
                     "message be improved?  If so, please report an enhancement request to "
                     "PyTorch.)")


def _check_bag_indices(weight, idx, starts, end, n_bags, mode, padding_idx):
    """torch's errors for an index outside ``[0, num_embeddings)``. Its sum/mean kernel for
    float32/float16/bfloat16 contiguous tables (no padding_idx) checks only the entries of
    the bags, names the first bad one by position, and (with several bags) reports a bad
    entry of the last bag by its own internal check; the other kernels name the first bad
    value of the whole input."""
    n = weight.shape[0]
    if not idx.size:
        return
    out_of_range = (idx < 0) | (idx >= n)
    fast = (mode != "max" and padding_idx is None and weight.dtype.name in _FBGEMM_DTYPES
            and weight.is_contiguous())
    if fast:
        out_of_range = out_of_range[:end]
    if not bool(out_of_range.any()):
        return
    first = int(backend.xp_of(idx).argmax(out_of_range))
    value = int(idx[first])
    if not fast:
        raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but "
                           f"found idx to be {value}")
    bag = int(np.searchsorted(np.asarray(starts), first, side="right")) - 1
    if n_bags > 1 and bag == n_bags - 1:
        raise RuntimeError(_INDEX_SIZE_CHECK)
    raise RuntimeError(f"Index {first} of input takes value {value} which is not in the "
                       f"valid range [0, {n})")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sum, average or take the maximum of the embeddings of each bag of indices.

    Args:
        input (Tensor): int64/int32 indices: 1-D with ``offsets`` (bag ``i`` holds
            ``input[offsets[i]:offsets[i + 1]]``), or 2-D ``(B, L)`` (B bags of length L).
        weight (Tensor): the ``(num_embeddings, embedding_dim)`` table.
        offsets (Tensor, optional): start of each bag in a 1-D ``input``.
        max_norm (float, optional): renormalise looked-up rows to at most this norm.
        norm_type (float): the norm for ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): divide row gradients by index frequency. Default: False.
        mode (str): ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
        sparse (bool): give ``weight`` a sparse COO gradient (as :func:`embedding`).
            Default: False.
        per_sample_weights (Tensor, optional): a weight per index (``mode='sum'`` only).
        include_last_offset (bool): ``offsets`` has one extra, final entry. Default: False.
        padding_idx (int, optional): entries equal to this index are left out of every bag.

    Returns:
        Tensor: ``(number of bags, embedding_dim)``; empty bags give zeros.

    Example:
        >>> w = torch.tensor([[1.0, 1.0], [2.0, 4.0], [3.0, 0.0]])
        >>> torch.nn.functional.embedding_bag(torch.tensor([0, 1, 2]), w, torch.tensor([0, 2]),
        ...                                   mode="sum")
        tensor([[3., 5.],
                [3., 0.]])

    Note:
        With ``scale_grad_by_freq`` each row's gradient is divided by how often its index
        occurs in ``input`` (torch's CPU kernel looks the counts up by sorted position).
    """
    if weight.dtype == _dtype.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(
            per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.ndim}")
    flat, starts, psw, n_bags, end = _bag_offsets(input, offsets, include_last_offset,
                                                  per_sample_weights)
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    _check_indices("embedding_bag", flat)
    if not weight.dtype.is_floating_point:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have one of the "
                           f"following scalar types: Half, BFloat16, Float, Double; but got "
                           f"torch.{weight.dtype._legacy} instead (while checking arguments "
                           f"for embedding_bag)")
    n = weight.shape[0]
    idx = flat._array
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-n} "
                               f"through {n - 1}, but got {padding_idx}")
        if padding_idx < 0:
            padding_idx += n
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    if psw is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  f"GitHub.")
    if psw is not None and psw.dtype != weight.dtype:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have the same type as "
                           f"tensor for argument #1 'per_sample_weights'; but type "
                           f"torch.{weight.dtype._legacy} does not equal "
                           f"torch.{psw.dtype._legacy} (while checking arguments for "
                           f"embedding_bag)")
    _check_bag_indices(weight, idx, starts, end, n_bags, mode, padding_idx)
    xp = backend.xp_of(idx)
    # bag number of every entry (offsets are starts; entries before a start belong to the
    # bag before it)
    ids = np.searchsorted(np.asarray(starts), np.arange(idx.shape[0]), side="right") - 1
    ids = xp.asarray(ids)
    keep = ids >= 0
    if end < idx.shape[0]:
        keep[end:] = False
    if padding_idx is not None:
        keep &= idx != padding_idx
    if not bool(keep.all()):
        sel = xp.flatnonzero(keep)
        ids, idx = ids[sel], idx[sel]
        if psw is not None:
            psw = psw[_make(sel)]
    rows = embedding_rows(weight, _make(idx), -1, scale_grad_by_freq,
                          _sparse_grad(weight, sparse))
    if mode == "max":
        return rename_node(bag_max(rows, ids, n_bags), _BAG_NODE)
    half = None
    if psw is not None:
        if rows.dtype in (_dtype.float16, _dtype.bfloat16):
            # torch sums the half products unrounded, in float32, and rounds each bag once
            half = rows.dtype
            rows, psw = rows.float(), psw.float()
        rows = rows * psw.unsqueeze(-1)
    out = index_add_rows(rows, ids, n_bags)
    if half is not None:
        out = out.to(half)
    if mode == "mean":
        counts = xp.bincount(ids, minlength=n_bags)[:n_bags]
        out = out / _make(xp.maximum(counts, 1).astype(out._array.dtype)[:, None])
    return rename_node(out, _BAG_NODE)


_BAG_NODE = "EmbeddingBagBackward0"  # torch's one node for every mode


def one_hot(tensor, num_classes=-1):
    """Encode integer class labels as one-hot int64 vectors along a new last dim.

    Args:
        tensor (Tensor): int64 class values, all ``>= 0``.
        num_classes (int): the length of each vector; -1 infers ``max + 1``. Default: -1.

    Returns:
        Tensor: int64 of shape ``tensor.shape + (num_classes,)``.

    Example:
        >>> torch.nn.functional.one_hot(torch.tensor([0, 2]))
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    if not isinstance(num_classes, (int, np.integer)) or isinstance(num_classes, bool):
        raise TypeError(f"one_hot(): argument 'num_classes' must be int, not "
                        f"{type(num_classes).__name__}")
    if tensor.dtype != _dtype.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = tensor._array
    xp = backend.xp_of(a)
    if num_classes == -1:
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size and xp is np:  # torch's CUDA kernel does not read the values back to check
        if int(a.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(a.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    elif num_classes < 0:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = (a[..., None] == xp.arange(num_classes)).astype(np.int64, order="C")
    return _make(out)
