"""Variable-length batches for recurrent layers: PackedSequence and the pack/pad helpers.

A packed batch stores, time step after time step, only the rows of the sequences still running
at that step (sequences sorted by decreasing length), plus ``batch_sizes[t]``, the number of
such rows. Packing and unpacking are each one gather through a precomputed index, so they stay
differentiable and need no Python loop over the data.
"""

from collections import namedtuple
from collections.abc import Iterable
from numbers import Real

import numpy as np

import numtorch

from ...ops._util import no_dims_error

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "pack_sequence", "unpack_sequence", "unpad_sequence", "invert_permutation"]


def invert_permutation(permutation):
    """Return the permutation that undoes ``permutation`` (None stays None).

    Args:
        permutation (Tensor or None): a 1-D int64 permutation.
    """
    if permutation is None:
        return None
    device = permutation.device if isinstance(permutation, numtorch.Tensor) else None
    perm = np.asarray(permutation.cpu().numpy() if device is not None else permutation,
                      dtype=np.int64)
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size, dtype=np.int64)
    return numtorch.from_numpy(inv).to(device or "cpu")


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices",
                                                     "unsorted_indices"])):
    """A batch of variable-length sequences stored without padding.

    Build it with :func:`pack_padded_sequence` or :func:`pack_sequence` rather than by hand.

    Attributes:
        data (Tensor): the packed rows, ``(sum(lengths), *)``.
        batch_sizes (Tensor): int64, how many sequences are still running at each step.
        sorted_indices (Tensor or None): the order that sorted the batch by length.
        unsorted_indices (Tensor or None): the inverse of ``sorted_indices``.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise ValueError("PackedSequence: batch_sizes must be given, got None")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """Move or cast ``data``; the permutations follow it to its device, ``batch_sizes``
        stays on the CPU (as in torch)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        # a copy argument (keyword or positional) is refused only when the data changes
        at = 3 if args and isinstance(args[0], (str, int, numtorch.device)) else 2
        if "copy" in kwargs or len(args) > at:
            raise RuntimeError(".to() does not accept copy argument")
        moved = [None if i is None else i.to(data.device)
                 for i in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *moved)

    def cpu(self, *args, **kwargs):
        """Return the sequence with ``data`` on the CPU (``args``/``kwargs`` as for ``to``,
        then moved to the CPU; a ``device`` keyword is overruled)."""
        kwargs.pop("device", None)
        moved = self.to(*args, **kwargs)
        return moved if moved.data.device.type == "cpu" else moved.to("cpu")

    def cuda(self, *args, **kwargs):
        """Return the sequence with ``data`` (and its permutations) on a CUDA device."""
        return self.to(self.data.cuda(*args, **kwargs).device)

    def pin_memory(self):
        """Return the sequence with ``data`` (and its permutations) in pinned memory; raises
        as ``Tensor.pin_memory`` does without an accelerator."""
        data = self.data.pin_memory()
        pinned = [None if i is None else i.pin_memory()
                  for i in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *pinned)

    def double(self):
        """Return the sequence with float64 ``data``."""
        return self.to(dtype=numtorch.float64)

    def float(self):
        """Return the sequence with float32 ``data``."""
        return self.to(dtype=numtorch.float32)

    def half(self):
        """Return the sequence with float16 ``data``."""
        return self.to(dtype=numtorch.float16)

    def long(self):
        """Return the sequence with int64 ``data``."""
        return self.to(dtype=numtorch.int64)

    def int(self):
        """Return the sequence with int32 ``data``."""
        return self.to(dtype=numtorch.int32)

    def short(self):
        """Return the sequence with int16 ``data``."""
        return self.to(dtype=numtorch.int16)

    def char(self):
        """Return the sequence with int8 ``data``."""
        return self.to(dtype=numtorch.int8)

    def byte(self):
        """Return the sequence with uint8 ``data``."""
        return self.to(dtype=numtorch.uint8)

    @property
    def is_cuda(self):
        """Whether ``data`` lives on a CUDA device."""
        return self.data.is_cuda

    def is_pinned(self):
        """Whether ``data`` is in pinned memory."""
        return self.data.is_pinned()


def _lengths_list(lengths):
    if isinstance(lengths, numtorch.Tensor):
        return [int(v) for v in lengths.reshape(-1).tolist()]
    return [int(v) for v in lengths]


def _pack_index(lengths_sorted, batch):
    """Flat ``t * batch + b`` rows of a time-major padded tensor, in packed order."""
    lens = np.asarray(lengths_sorted, dtype=np.int64)
    steps = int(lens.max()) if lens.size else 0
    bs = (lens[None, :] > np.arange(steps)[:, None]).sum(1)
    t = np.repeat(np.arange(steps), bs)
    starts = np.concatenate([[0], np.cumsum(bs)[:-1]]).astype(np.int64)
    b = np.arange(t.size) - np.repeat(starts, bs)
    return t * batch + b, bs.astype(np.int64)


def _pack_time_major(padded, lengths_sorted):
    """Pack a time-major ``(T, B, *)`` tensor whose batch is already sorted by length."""
    steps, batch = padded.shape[0], padded.shape[1]
    idx, bs = _pack_index(lengths_sorted, batch)
    flat = padded.reshape((steps * batch,) + tuple(padded.shape[2:]))
    # batch_sizes stays on the CPU, as torch's
    return flat.index_select(0, numtorch.from_numpy(idx).to(padded.device)), \
        numtorch.from_numpy(bs)


def _unpack_time_major(data, batch_sizes, padding_value=0.0, total_length=None):
    """Inverse of :func:`_pack_time_major`: ``(T, B, *)`` in sorted order, and the lengths."""
    bs = np.asarray(batch_sizes.numpy() if isinstance(batch_sizes, numtorch.Tensor)
                    else batch_sizes, dtype=np.int64)
    batch = int(bs[0]) if bs.size else 0
    lens = (bs[None, :] > np.arange(batch)[:, None]).sum(1)
    steps = bs.size if total_length is None else total_length
    idx, _ = _pack_index(lens, batch)
    # rows absent from the packed data read the extra padding row appended at the end
    where = np.full(steps * batch, data.shape[0], dtype=np.int64)
    where[idx] = np.arange(idx.size)
    pad = numtorch.full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                        device=data.device)
    src = numtorch.cat([data, pad], 0)
    out = src.index_select(0, numtorch.from_numpy(where).to(data.device))
    return out.reshape((steps, batch) + tuple(data.shape[1:])), lens


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch of variable-length sequences.

    Args:
        input (Tensor): ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``.
        lengths (Tensor or list of int): each sequence's length.
        batch_first (bool): whether the batch is the first dimension.
        enforce_sorted (bool): require lengths in decreasing order; otherwise the batch is
            sorted here and the permutation recorded in the result.

    Returns:
        PackedSequence: the packed batch.

    Raises:
        RuntimeError: lengths not sorted while ``enforce_sorted``, or a length <= 0.
    """
    nd = lengths.dim() if isinstance(lengths, numtorch.Tensor) else np.ndim(lengths)
    if nd > 1 and not enforce_sorted:  # torch reorders the batch by them first
        raise IndexError("index_select(): Index is supposed to be a vector")
    if nd != 1:  # torch reads lengths as an int64 tensor first, so the type is always Long
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {nd}D "
                           f"cpu Long tensor")
    lens = _lengths_list(lengths)
    bdim = 0 if batch_first else 1
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-np.asarray(lens, dtype=np.int64), kind="stable")
        sorted_indices = numtorch.from_numpy(order.astype(np.int64)).to(input.device)
        input = input.index_select(bdim, sorted_indices)
        lens = [lens[i] for i in order]
    # torch's order of checks: the count, the last (smallest) length, then the order
    if len(lens) != input.shape[bdim]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={input.shape[bdim]})")
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(lens[i] < lens[i + 1] for i in range(len(lens) - 1)):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX "
            "exportability.")
    if max(lens) > input.shape[1 - bdim]:
        raise RuntimeError(f"pack_padded_sequence: a length {max(lens)} exceeds the padded "
                           f"length {input.shape[1 - bdim]}")
    if batch_first:
        input = input.transpose(0, 1)
    data, bs = _pack_time_major(input, lens)
    return PackedSequence(data, bs, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Turn a PackedSequence back into a padded batch (inverse of pack_padded_sequence).

    Args:
        sequence (PackedSequence): the packed batch.
        batch_first (bool): return ``(B, T, *)`` instead of ``(T, B, *)``.
        padding_value (float): value of the padded positions.
        total_length (int, optional): pad to this many steps instead of the longest length.

    Returns:
        tuple: the padded tensor and an int64 tensor of lengths, in the original batch order.

    Raises:
        ValueError: ``total_length`` shorter than the longest sequence.
    """
    max_len = int(sequence.batch_sizes.shape[0])
    if total_length is not None and total_length < max_len:
        raise ValueError("Expected total_length to be at least the length of the longest "
                         f"sequence in input, but got total_length={total_length} and max "
                         f"sequence length being {max_len}")
    out, lens = _unpack_time_major(sequence.data, sequence.batch_sizes, padding_value,
                                   total_length)
    lengths = numtorch.from_numpy(lens.astype(np.int64))
    if sequence.unsorted_indices is not None:
        out = out.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.cpu())
    if batch_first:
        out = out.transpose(0, 1)
    return out, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of different lengths into one padded tensor.

    Args:
        sequences (list of Tensor): each ``(L_i, *)`` with the same trailing shape.
        batch_first (bool): return ``(B, T, *)`` instead of ``(T, B, *)``.
        padding_value (float): value of the padded positions.
        padding_side (str): ``"right"`` or ``"left"``.

    Returns:
        Tensor: the padded batch.
    """
    if not isinstance(sequences, (numtorch.Tensor, Iterable)):  # torch's class: RuntimeError
        raise RuntimeError(  # noqa: TRY004
            f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}")
    if isinstance(sequences, numtorch.Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    _check_pad_arguments(sequences, batch_first, padding_value, padding_side)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    for s in sequences:
        if s.dim() == 0:
            raise no_dims_error(0)
    longest = max(int(s.shape[0]) for s in sequences)
    trailing = tuple(first.shape[1:])
    dtype, device = first.dtype, first.device
    rows = []
    for s in sequences:
        # each sequence is copied into its row of the output: it broadcasts to its rows'
        # shape and takes the first sequence's dtype and device (as torch's copies do)
        n = int(s.shape[0])
        rows_shape = (n,) + trailing
        if tuple(s.shape) != rows_shape:
            src = tuple(s.shape)
            lead = len(rows_shape) - len(src)
            if lead < 0 or any(b not in (a, 1) for a, b in zip(rows_shape[lead:], src)):
                from ...ops.cast import copy_shape_error

                raise copy_shape_error(rows_shape, src)
            s = s.expand(rows_shape)
        if s.dtype != dtype or s.device != device:
            s = s.to(device=device, dtype=dtype)
        missing = longest - n
        if missing:
            fill = numtorch.full((missing,) + trailing, padding_value, dtype=dtype,
                                 device=device)
            s = numtorch.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        rows.append(s)
    return numtorch.stack(rows, 0 if batch_first else 1)


def _check_pad_arguments(sequences, batch_first, padding_value, padding_side):
    """torch's argument parsing for pad_sequence: the TypeErrors it raises, in its order."""
    for i, s in enumerate(sequences):
        if not isinstance(s, numtorch.Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(s).__name__}")
    if not isinstance(batch_first, (bool, np.bool_)):
        raise TypeError(f"pad_sequence(): argument 'batch_first' (position 2) must be bool, "
                        f"not {type(batch_first).__name__}")
    if not isinstance(padding_value, (Real, numtorch.Tensor)):
        raise TypeError(f"pad_sequence(): argument 'padding_value' (position 3) must be float, "
                        f"not {type(padding_value).__name__}")
    if not isinstance(padding_side, str):
        raise TypeError(f"pad_sequence(): argument 'padding_side' (position 4) must be str, "
                        f"not {type(padding_side).__name__}")


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into a list of unpadded sequences.

    Args:
        padded_sequences (Tensor): ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``.
        lengths (Tensor or list of int): each sequence's length.
        batch_first (bool): whether the batch is the first dimension.

    Returns:
        list of Tensor: the sequences, each ``(L_i, *)``.
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :n] for i, n in enumerate(_lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of variable-length sequences.

    Args:
        sequences (list of Tensor): each ``(L_i, *)``.
        enforce_sorted (bool): require the sequences in decreasing length order.

    Returns:
        PackedSequence: the packed batch.
    """
    lengths = [int(s.shape[0]) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Turn a PackedSequence back into a list of unpadded sequences.

    Args:
        packed_sequences (PackedSequence): the packed batch.

    Returns:
        list of Tensor: the sequences in their original order.
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
