"""``DataLoader``: batches from a dataset, in the main process or in worker processes."""

import os
from typing import Generic
import warnings

from ..._class_repr import object_repr
from ._collate import default_collate, default_convert
from .dataset import IterableDataset, _T_co, tensor_columns
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


def get_worker_info():
    """Inside a worker process: its id, the number of workers, its seed and dataset copy;
    None in the main process."""
    from . import _worker

    return _worker.current_info()


class _InfiniteConstantSampler(Sampler):
    def __iter__(self):
        while True:
            yield None


def _check_context(ctx, num_workers):
    """torch's checks of ``multiprocessing_context`` (it only applies to worker processes);
    returns the context, a start method's name made its context as torch does."""
    import multiprocessing as mp

    if num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")
    if isinstance(ctx, str):
        methods = mp.get_all_start_methods()
        if ctx not in methods:
            raise ValueError("multiprocessing_context option should specify a valid start "
                             f"method in {methods!r}, but got multiprocessing_context={ctx!r}")
        return mp.get_context(ctx)
    elif not isinstance(ctx, mp.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or a "
                        f"string specifying the start method, but got "
                        f"multiprocessing_context={ctx!r}")
    return ctx


class DataLoader(Generic[_T_co]):
    """Iterate a dataset in (shuffled) batches, optionally loading with worker processes.

    Args:
        dataset (Dataset): map-style or iterable dataset.
        batch_size (int, optional): samples per batch; None turns batching off. Default: 1.
        shuffle (bool): reshuffle every epoch. Default: False.
        sampler, batch_sampler: custom index order / batches (exclusive with shuffle etc.).
        num_workers (int): worker processes (0 loads in the main process). Default: 0.
        collate_fn (callable): merge a list of samples into a batch.
        pin_memory (bool): copy each batch into page-locked memory, for asynchronous copies
            to the GPU (a warning and no pinning without CUDA, as torch). Default: False.
        drop_last (bool): drop the last incomplete batch. Default: False.
        timeout (float): seconds to wait for a worker's batch before raising. Default: 0.
        worker_init_fn (callable): called with the worker id in each worker.
        generator (Generator): source of the shuffling and worker seeds.
        prefetch_factor (int): batches loaded in advance per worker. Default: 2.
        persistent_workers (bool): keep workers alive between epochs. Default: False.
    """

    __repr__ = object_repr  # <torch.utils.data...> as printed and quoted in errors

    # what decides the batches is fixed once the loader is built (torch refuses to set these
    # afterwards: the iterator state would no longer match them)
    _FROZEN = frozenset(("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                         "persistent_workers"))
    __initialized = False

    def __setattr__(self, attr, val):
        if attr in DataLoader._FROZEN and self.__initialized:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        if attr == "multiprocessing_context" and val is not None:  # torch's checked property
            val = _check_context(val, self.num_workers)
        super().__setattr__(attr, val)

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context  # (checked by __setattr__)
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self._iterator = None
        self.__initialized = True
        self.check_worker_number_rationality()

    def check_worker_number_rationality(self):
        """Warn, as torch does on construction and whenever workers start, when
        ``num_workers`` exceeds the CPUs this process may run on (its affinity set)."""
        if not self.num_workers:
            return
        affinity = hasattr(os, "sched_getaffinity")
        cpus = len(os.sched_getaffinity(0)) if affinity else os.cpu_count()
        if cpus is not None and self.num_workers <= cpus:
            return
        if cpus is None:
            advice = ("DataLoader is not able to compute a suggested max number of worker in "
                      "current system.")
        else:
            advice = (f"Our suggested max number of worker in current system is {cpus}"
                      f"{'' if affinity else ' (`cpuset` is not taken into account)'}, which is "
                      "smaller than what this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. "
                      f"{advice} Please be aware that excessive worker creation might get "
                      "DataLoader running slow or even freeze, lower the worker number to avoid "
                      "potential slowness/freeze if necessary.", stacklevel=2)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        batches = self._batches()
        if self.pin_memory:
            from ... import backend

            if backend.cupy_or_none() is not None:  # (without one, torch pins nothing)
                return _PinnedIter(batches)
        return batches

    def _batches(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        from ._multiprocess_iter import MultiProcessIter

        if self.persistent_workers:
            if self._iterator is None or not self._iterator.alive:
                self.check_worker_number_rationality()
                self._iterator = MultiProcessIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        self.check_worker_number_rationality()
        return MultiProcessIter(self)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)


def fetch(dataset, indices, auto_collation, collate_fn, iterator=None, drop_last=False):
    """Load one batch: the samples at ``indices`` (map-style) or the next ones (iterable)."""
    if iterator is not None:
        if auto_collation:
            # next() per sample, as torch: islice would call iter() on the dataset iterator
            # again, and an IterableDataset whose __iter__ returns self restarts there
            data = []
            for _ in range(len(indices)):
                try:
                    data.append(next(iterator))
                except StopIteration:
                    break
            if not data or (drop_last and len(data) < len(indices)):
                raise StopIteration
            return collate_fn(data)
        return collate_fn(next(iterator))
    if auto_collation:
        if collate_fn is default_collate:  # TensorDataset: one gather per tensor, same result
            cols = tensor_columns(dataset, indices)
            if cols is not None:
                return cols
        many = getattr(dataset, "__getitems__", None)
        data = many(indices) if many is not None else [dataset[i] for i in indices]
        return collate_fn(data)
    return collate_fn(dataset[indices])


def draw_base_seed(loader):
    """The per-iterator seed workers derive theirs from; drawn (as torch does) before the
    sampler's own draw in every iterator, so 0 and N workers see the same sample order."""
    from ..._random import rng_for

    if loader.generator is not None:
        from ..._generator_args import check

        check(loader.generator, "Tensor.random_", ())
    return int(rng_for(loader.generator).integers(0, 2 ** 63))  # torch: int64 random_()


class IterBase:
    """What every loader iterator does first: torch's warnings about pinned memory, reported
    (as torch's are) at the subclass's ``super().__init__(loader)`` line."""

    def __init__(self, loader):
        if not loader.pin_memory:
            return
        if loader.pin_memory_device:
            warnings.warn(f"pin_memory_device is deprecated, the current accelerator will be used "
                          f"as the device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                          stacklevel=2)
        from ... import backend

        if backend.cupy_or_none() is None:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)


class _PinnedIter:
    """The batches of another iterator, each copied into pinned memory (torch pins in a
    thread; here it is done as each batch is handed out)."""

    def __init__(self, batches):
        self.batches = batches

    def __iter__(self):
        return self

    def __next__(self):
        batch = next(self.batches)
        from ._utils.pin_memory import pin_memory

        return pin_memory(batch)

    def __len__(self):
        return len(self.batches)


class _SingleProcessIter(IterBase):
    """Load batches in the main process."""

    def __init__(self, loader):
        super().__init__(loader)
        self.loader = loader
        self.base_seed = draw_base_seed(loader)
        self.sampler_iter = iter(loader._index_sampler)
        self.data_iter = iter(loader.dataset) if loader._iterable else None
        self.drop_last = loader.drop_last
        if loader.timeout != 0:  # torch's refusal: the timeout is for waiting on workers
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")

    def __iter__(self):
        return self

    def __next__(self):
        loader = self.loader
        indices = next(self.sampler_iter)
        return fetch(loader.dataset, indices, loader._auto_collation, loader.collate_fn,
                     self.data_iter, self.drop_last)

    def __len__(self):
        return len(self.loader)


# torch's names for the iterator classes (code checks ``isinstance(it, _BaseDataLoaderIter)``,
# and type(it) prints them)
_BaseDataLoaderIter = IterBase
_SingleProcessDataLoaderIter = _SingleProcessIter
for _cls, _name in ((IterBase, "_BaseDataLoaderIter"),
                    (_SingleProcessIter, "_SingleProcessDataLoaderIter")):
    _cls.__name__ = _cls.__qualname__ = _name


def __getattr__(name):
    if name == "_MultiProcessingDataLoaderIter":  # (its module imports this one)
        from ._multiprocess_iter import MultiProcessIter
        return MultiProcessIter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
