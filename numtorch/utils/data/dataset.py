"""Datasets: map-style and iterable, and the wrappers torch provides around them."""

import bisect
from collections.abc import Iterable
import math
from typing import Generic, TypeVar
import warnings

from ..._class_repr import object_repr

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
           "Subset", "StackDataset", "random_split"]


# Generic as torch's, so user code can write ``Dataset[Tensor]`` in a class statement
_T_co = TypeVar("_T_co", covariant=True)
_T_stack = TypeVar("_T_stack")


class Dataset(Generic[_T_co]):
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``)."""

    __repr__ = object_repr  # <torch.utils.data...> as printed and quoted in errors

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], Iterable[_T_co]):
    """A dataset that is a stream: subclasses define ``__iter__``.

    ``__iter__`` is abstract (from ``collections.abc.Iterable``), so a subclass without it
    cannot be instantiated, as in torch. With ``num_workers > 0`` every worker runs its own
    copy; shard with ``utils.data.get_worker_info()`` inside ``__iter__`` to avoid duplicates.
    """

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Rows of several tensors with the same first dimension, returned as tuples."""

    def __init__(self, *tensors):
        # no tensors is allowed, as in torch (len() then fails with IndexError)
        if tensors and any(t.size(0) != tensors[0].size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


def tensor_columns(dataset, indices):
    """The batch ``default_collate`` would build from a TensorDataset (possibly inside
    Subsets), gathered with one index op per tensor; None for any other dataset."""
    import numpy as np

    from ..._tensor import _make

    chain = []
    while isinstance(dataset, Subset):
        chain.append(dataset.indices)
        dataset = dataset.dataset
    if type(dataset) is not TensorDataset:
        return None
    # integer indices only: others (floats, bools, strings) take the per-sample path and its
    # errors, as in torch, instead of being cast
    idx = np.asarray(indices)
    for sub in [*chain, None]:
        n = len(dataset) if sub is None else len(sub)
        # and in range: an index past the end fails on the per-sample path in torch's words
        if idx.dtype.kind not in "iu" or (idx.size and (idx.min() < -n or idx.max() >= n)):
            return None
        if isinstance(sub, (list, tuple, range)):  # B look-ups, not a copy of the whole list
            idx = np.asarray([sub[i] for i in idx.tolist()])
        elif sub is not None:
            idx = np.asarray(sub)[idx]
    return [_make(np.take(t._array, idx, axis=0)) if type(t._array) is np.ndarray
            else t[_make(idx)] for t in dataset.tensors]


class StackDataset(Dataset[_T_stack]):
    """Zip datasets of equal length: items are tuples (positional) or dicts (keyword)."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args or kwargs
        lens = {len(d) for d in (args or kwargs.values())}
        if len(lens) != 1:
            raise ValueError("Size mismatch between datasets")
        self._length = lens.pop()

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        """The items at ``indices`` (each dataset's own ``__getitems__`` is used when it has one),
        as the DataLoader's batch fetch asks for them."""
        named = isinstance(self.datasets, dict)
        columns = {}
        for key, d in (self.datasets.items() if named else enumerate(self.datasets)):
            if callable(getattr(d, "__getitems__", None)):
                items = d.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch. Expected "
                                     f"{len(indices)}, got {len(items)}")
            else:
                items = [d[i] for i in indices]
            columns[key] = items
        if named:
            return [{k: col[n] for k, col in columns.items()} for n in range(len(indices))]
        return [tuple(col[n] for col in columns.values()) for n in range(len(indices))]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset[_T_co]):
    """Concatenation of map-style datasets."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        # torch checks these with assert statements: AssertionError is what callers catch
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    @staticmethod
    def cumsum(sequence):
        """The running totals of the lengths of ``sequence``'s items."""
        out, total = [], 0
        for d in sequence:
            total += len(d)
            out.append(total)
        return out

    @property
    def cummulative_sizes(self):
        """The old (misspelt) name of ``cumulative_sizes``, with torch's FutureWarning."""
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if d == 0 else self.cumulative_sizes[d - 1]
        return self.datasets[d][idx - start]


class ChainDataset(IterableDataset):
    """Chain iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


class Subset(Dataset[_T_co]):
    """The items of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        inner = getattr(self.dataset, "__getitems__", None)
        if inner is not None:
            return inner([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into random non-overlapping subsets of the given lengths (or
    fractions summing to 1, as torch: remainders go round-robin to the first subsets)."""
    from ..._sampling import randperm

    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, f in enumerate(lengths):
            if not 0 <= f <= 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        sizes = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, s in enumerate(sizes):
            if s == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.", UserWarning, stacklevel=2)
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = randperm(n, generator=generator).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[start:start + length]))
        start += length
    return out
