"""Samplers: which dataset indices to load, in what order, in what batches."""

from typing import Generic, TypeVar

from ..._class_repr import object_repr
from ..._random import Generator, rng_for

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


def _generator_from(generator):
    """A private generator: the given one, or one seeded from the default generator (so
    ``manual_seed`` reproduces the order, as in torch)."""
    if generator is not None:
        return generator
    seed = int(rng_for(None).integers(0, 2 ** 63))  # torch: an int64 random_()
    return Generator().manual_seed(seed)


_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class: an iterable of dataset indices (or of index lists)."""

    __repr__ = object_repr  # <torch.utils.data...> as printed and quoted in errors

    # (no __init__, as in torch: ``super().__init__(data_source)`` is object's TypeError)

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class SequentialSampler(Sampler):
    """Indices 0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order of the indices (a permutation, or draws with ``replacement``).

    ``num_samples`` may exceed the dataset length; indices are drawn lazily in chunks, so a
    huge ``num_samples`` costs nothing until iterated.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is not None:  # torch's refusal names the draw it makes first
            from ..._generator_args import check
            from ..._dtype import int64

            g = self.generator
            if self.replacement:
                check(g, "randint", (), [("high", n), ("size", (32,)), ("dtype", int64),
                                         ("generator", g)])
            else:
                check(g, "randperm", (n,))
        rng = rng_for(_generator_from(self.generator))
        total = self.num_samples
        if self.replacement:
            while total > 0:
                k = min(total, 32768)
                yield from rng.integers(0, n, size=k).tolist()
                total -= k
            return
        for _ in range(total // n):
            yield from rng.permutation(n).tolist()
        if total % n or self.generator is not None:
            # torch draws one more permutation for the remainder, even an empty one: a
            # caller's generator must advance as torch's does (a private one is dropped)
            yield from rng.permutation(n)[:total % n].tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        if self.generator is not None:
            from ..._generator_args import check

            check(self.generator, "randperm", (len(self.indices),))
        rng = rng_for(self.generator)  # the default generator itself when None, as torch's
        for i in rng.permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Indices 0..len(weights)-1 drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        from ... import as_tensor, float64

        # a float64 tensor as in torch (one sharing a float64 tensor's memory, so writes to
        # either are seen by both)
        w = as_tensor(weights, dtype=float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        from ..._sampling import multinomial
        idx = multinomial(self.weights, self.num_samples, self.replacement,
                          generator=self.generator)
        return iter(idx.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size`` (the last may be shorter
    unless ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
