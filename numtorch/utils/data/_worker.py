"""Worker processes for ``DataLoader(num_workers > 0)``.

The main process draws the index batches (so the order is the same as with no workers) and
hands them out round-robin, keeping ``prefetch_factor`` batches per worker in flight. Workers
load and collate, then send each batch back with its arrays placed in shared memory (files
under /dev/shm that the receiver maps and unlinks), so only the small handles go through the
pipe. Batches are yielded in order. A worker that raises sends its traceback, and the main
process re-raises it; a worker that dies or stalls past ``timeout`` makes the main process
raise instead of hanging.
"""

import glob
import itertools
import multiprocessing as mp
import os
import queue
import random
import sys
import tempfile
import traceback
from collections import namedtuple

import numpy as np

from ...storage import _SHM_DIR

__all__ = ["WorkerInfo", "MultiProcessIter", "current_info"]

WorkerInfo = namedtuple("WorkerInfo", ["id", "num_workers", "seed", "dataset"])
_info = [None]
_POLL = 0.2  # seconds between liveness checks while waiting for a batch


def current_info():
    """The WorkerInfo of this process (None in the main process)."""
    return _info[0]


class _IterableEnd:
    """Sent by a worker whose IterableDataset copy is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _Failure:
    """An exception raised in a worker, carried to the main process as text."""

    def __init__(self, worker_id, exc):
        self.worker_id = worker_id
        self.exc_type = type(exc)
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def reraise(self):
        msg = (f"Caught {self.exc_type.__name__} in DataLoader worker process "
               f"{self.worker_id}.\nOriginal {self.text}")
        try:
            err = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - exception types with unusual constructors
            err = RuntimeError(msg)
        raise err


# -- shared-memory transport -----------------------------------------------------------------
class _Shared:
    """A handle to an array placed in a shared-memory file by a worker."""

    def __init__(self, arr):
        self.shape, self.dtype = arr.shape, arr.dtype.str
        fd, self.path = tempfile.mkstemp(prefix=f"numtorch_{os.getpid()}_", dir=_SHM_DIR)
        with os.fdopen(fd, "wb") as f:
            f.write(np.ascontiguousarray(arr).tobytes())

    def open(self):
        import mmap

        with open(self.path, "r+b") as f:
            size = os.fstat(f.fileno()).st_size
            mm = mmap.mmap(f.fileno(), size) if size else None
        os.unlink(self.path)  # the mapping lives on as long as the array does
        if mm is None:
            return np.empty(self.shape, dtype=self.dtype)
        return np.frombuffer(mm, dtype=self.dtype).reshape(self.shape)


def _pack(obj):
    from ..._tensor import Tensor

    if isinstance(obj, Tensor) and type(obj._array) is np.ndarray and obj._array.nbytes:
        return ("__tensor__", _Shared(obj._array))
    if isinstance(obj, dict):
        return type(obj)((k, _pack(v)) for k, v in obj.items())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_pack(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_pack(v) for v in obj)
    return obj


def _unpack(obj):
    from ..._tensor import _make

    if isinstance(obj, tuple) and len(obj) == 2 and obj[0] == "__tensor__":
        return _make(obj[1].open())
    if isinstance(obj, dict):
        return type(obj)((k, _unpack(v)) for k, v in obj.items())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_unpack(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_unpack(v) for v in obj)
    return obj


# -- the worker process ----------------------------------------------------------------------
def _worker_loop(worker_id, num_workers, seed, dataset, auto_collation, collate_fn,
                 drop_last, init_fn, index_queue, result_queue):
    from ... import _random
    from .dataloader import fetch
    from .dataset import IterableDataset

    _info[0] = WorkerInfo(worker_id, num_workers, seed, dataset)
    _random.manual_seed(seed)
    random.seed(seed)
    try:
        if init_fn is not None:
            init_fn(worker_id)
        data_iter = iter(dataset) if isinstance(dataset, IterableDataset) else None
    except Exception as e:  # noqa: BLE001 - reported to the main process
        result_queue.put((None, _Failure(worker_id, e)))
        return
    while True:
        task = index_queue.get()
        if task is None:
            return
        key, indices = task
        try:
            batch = fetch(dataset, indices, auto_collation, collate_fn, data_iter, drop_last)
            result_queue.put((key, _pack(batch)))
        except StopIteration:
            result_queue.put((key, _IterableEnd(worker_id)))
        except Exception as e:  # noqa: BLE001 - reported to the main process
            result_queue.put((key, _Failure(worker_id, e)))


# -- the main-process iterator -----------------------------------------------------------------
class MultiProcessIter:
    """Iterate a DataLoader's batches, loaded by worker processes."""

    def __init__(self, loader):
        self.workers = []
        self._start(loader)

    def _start(self, loader):
        from .dataloader import draw_base_seed

        self.loader = loader
        n = loader.num_workers
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
        elif isinstance(ctx, str):
            ctx = mp.get_context(ctx)
        self.base_seed = draw_base_seed(loader)
        self.result_queue = ctx.Queue()
        self.index_queues = []
        self.workers = []
        for i in range(n):
            q = ctx.Queue()
            w = ctx.Process(target=_worker_loop, daemon=True,
                            args=(i, n, self.base_seed + i, loader.dataset,
                                  loader._auto_collation, loader.collate_fn, loader.drop_last,
                                  loader.worker_init_fn, q, self.result_queue))
            w.start()
            self.index_queues.append(q)
            self.workers.append(w)
        self._reset(loader, first=True)

    def _reset(self, loader, first=False):
        self.sampler_iter = iter(loader._index_sampler)
        self.next_key = itertools.count()
        self.send_key = 0
        self.recv_key = 0
        self.pending = {}
        self.active = set(range(len(self.workers)))
        self.worker_cycle = itertools.cycle(range(len(self.workers)))
        self.exhausted = False
        for _ in range(loader.prefetch_factor * len(self.workers)):
            self._send()

    def _send(self):
        if self.exhausted or not self.active:
            return
        try:
            indices = next(self.sampler_iter)
        except StopIteration:
            self.exhausted = True
            return
        for _ in range(len(self.workers)):
            wid = next(self.worker_cycle)
            if wid in self.active:
                break
        key = next(self.next_key)
        self.index_queues[wid].put((key, indices))
        self.send_key = key + 1

    def __iter__(self):
        return self

    def __len__(self):
        return len(self.loader)

    def __next__(self):
        while True:
            if self.recv_key >= self.send_key and (self.exhausted or not self.active):
                if not self.loader.persistent_workers:
                    self._shutdown()
                raise StopIteration
            if self.recv_key in self.pending:
                value = self.pending.pop(self.recv_key)
            else:
                key, value = self._receive()
                if key is None and isinstance(value, _Failure):
                    self._shutdown()
                    value.reraise()
                if key != self.recv_key:
                    self.pending[key] = value
                    continue
            self.recv_key += 1
            if isinstance(value, _IterableEnd):
                self.active.discard(value.worker_id)
                continue
            if isinstance(value, _Failure):
                self._shutdown()
                value.reraise()
            self._send()
            return _unpack(value)

    def _receive(self):
        timeout = self.loader.timeout
        waited = 0.0
        while True:
            try:
                return self.result_queue.get(timeout=_POLL)
            except queue.Empty:
                waited += _POLL
                dead = [w for w in self.workers if not w.is_alive()]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    codes = ", ".join(str(w.exitcode) for w in dead)
                    self._shutdown()
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly "
                                       f"(exit code(s) {codes})") from None
                if timeout and waited >= timeout:
                    self._shutdown()
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") \
                        from None

    def _shutdown(self):
        for q in self.index_queues:
            try:
                q.put(None)
            except Exception:  # noqa: BLE001 - the queue may already be broken
                pass
        for w in self.workers:
            w.join(timeout=1.0)
            if w.is_alive():
                w.terminate()
        self._drain()
        for w in self.workers:  # files a dying worker wrote but never sent
            for path in glob.glob(os.path.join(_SHM_DIR or tempfile.gettempdir(),
                                               f"numtorch_{w.pid}_*")):
                try:
                    os.unlink(path)
                except OSError:
                    pass
        self.workers = []
        self.index_queues = []

    def _drain(self):
        """Unlink the shared-memory files of batches that will never be read."""
        while True:
            try:
                _, value = self.result_queue.get_nowait()
            except Exception:  # noqa: BLE001 - empty or closed
                break
            _discard(value)
        for value in self.pending.values():
            _discard(value)
        self.pending = {}

    def __del__(self):
        if self.workers:
            self._shutdown()


def _discard(obj):
    if isinstance(obj, tuple) and len(obj) == 2 and obj[0] == "__tensor__":
        try:
            os.unlink(obj[1].path)
        except OSError:
            pass
    elif isinstance(obj, dict):
        for v in obj.values():
            _discard(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _discard(v)
