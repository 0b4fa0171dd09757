"""Variable-length batches for recurrent layers: PackedSequence and the pack/pad helpers.

A packed batch stores, time step after time step, only the rows of the sequences still running
at that step (sequences sorted by decreasing length), plus ``batch_sizes[t]``, the number of
such rows. Packing and unpacking are each one gather through a precomputed index, so they stay
differentiable and need no Python loop over the data.
"""

from collections import namedtuple

import numpy as np

import numtorch

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
        moved = [None if i is None else i.to(data.device)
                 for i in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *moved)

    def cpu(self, *args, **kwargs):
        """Return the sequence with ``data`` on the CPU."""
        return self.to("cpu")

    def cuda(self, *args, **kwargs):
        """Return the sequence with ``data`` (and its permutations) on a CUDA device."""
        return self.to(self.data.cuda(*args, **kwargs).device)

    def double(self):
        """Return the sequence with float64 ``data``."""
        return self.to(dtype=numtorch.float64)

    def float(self):
        """Return the sequence with float32 ``data``."""
        return self.to(dtype=numtorch.float32)

    def half(self):
        """Return the sequence with float16 ``data``."""
        return self.to(dtype=numtorch.float16)

    @property
    def is_cuda(self):
        """Whether ``data`` lives on a CUDA device (never, on NumPy)."""
        return self.data.is_cuda

    def is_pinned(self):
        """Whether ``data`` is in pinned memory (never, on NumPy)."""
        return False


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
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    if isinstance(sequences, numtorch.Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    longest = max(int(s.shape[0]) for s in sequences)
    rows = []
    for s in sequences:
        missing = longest - int(s.shape[0])
        if missing:
            fill = numtorch.full((missing,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype,
                                 device=s.device)
            s = numtorch.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        rows.append(s)
    return numtorch.stack(rows, 0 if batch_first else 1)


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
