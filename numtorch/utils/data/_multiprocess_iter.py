"""The main-process side of ``DataLoader(num_workers > 0)``.

The main process draws the index batches (so the order is the one 0 workers give) and hands
them out round-robin, ``prefetch_factor`` per worker in flight, each tagged with the epoch and
its position, over one socket per worker (``_shm_channel``). Batches come back the same way
and are yielded in order; anything tagged with an older epoch (an epoch left early with
``break``) is dropped unopened. The iterator waits on the sockets and on the workers' process
sentinels at once, so a worker's death is seen the moment it happens and ``timeout`` is exact.
"""

import itertools
import multiprocessing as mp
import os
import pickle
import selectors
import signal
import sys
import threading
import time
import warnings
import weakref

from ._shm_channel import channel_pair
from .dataloader import IterBase
from ._worker import Failure, IterableEnd, worker_loop

__all__ = ["MultiProcessIter"]

_PICKLE_HINT = ("Got pickle error when attempting to start a worker Process. This might be "
                "because the worker Process arguments are not picklable. Python 3.14+ changed "
                "the multiprocessing start method in non-Mac POSIX platforms to 'forkserver', "
                "which requires the worker Process arguments to be picklable. You can also try "
                "multiprocessing.set_start_method('fork').")
_JOIN_GRACE = 1.0  # seconds workers get to finish their task and exit at shutdown
_Selector = getattr(selectors, "PollSelector", selectors.SelectSelector)  # no descriptor of its own


class MultiProcessIter(IterBase):
    """Iterate a DataLoader's batches, loaded by worker processes."""

    __module__ = IterBase.__module__  # shown as torch's dataloader._MultiProcessingDataLoaderIter

    def __init__(self, loader):
        super().__init__(loader)
        self._owner = os.getpid()  # only this process may stop the workers (fork copies us)
        self._closed = False
        self.workers, self.channels, self.sentinels, self.pending = [], {}, {}, {}
        self.epoch = -1
        self._configure(loader)
        if not self.prefetch_factor > 0:  # torch's check (no batch would ever be asked for)
            self._closed = True
            raise AssertionError("prefetch_factor must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        try:
            self._start_workers(loader)
        except BaseException:
            self._shutdown()
            raise
        self._begin_epoch()

    def _configure(self, loader):
        """Keep what the iterator needs from ``loader``, not the loader itself: a persistent
        loader holds its iterator, and a cycle would keep both (and the workers) alive."""
        self._loader_ref = weakref.ref(loader)
        self.index_sampler = loader._index_sampler
        self.timeout = loader.timeout
        self.prefetch_factor = loader.prefetch_factor
        self.persistent = loader.persistent_workers

    def _start_workers(self, loader):
        from .dataloader import draw_base_seed

        n = loader.num_workers
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
        elif isinstance(ctx, str):
            ctx = mp.get_context(ctx)
        forking = ctx.get_start_method() == "fork"
        self.base_seed = draw_base_seed(loader)
        pairs = [channel_pair() for _ in range(n)]
        # PR_SET_PDEATHSIG follows the forking thread, which is the process only for the main one
        main_thread = threading.current_thread() is threading.main_thread()
        try:
            for i in range(n):
                inherited = ([p[0] for p in pairs] + [p[1] for j, p in enumerate(pairs)
                                                      if j != i]) if forking else []
                w = ctx.Process(target=worker_loop, daemon=True, args=(
                    i, n, self.base_seed + i, loader.dataset, loader._auto_collation,
                    loader.collate_fn, loader.drop_last, loader.worker_init_fn, pairs[i][1],
                    os.getpid(), main_thread, inherited))
                try:
                    w.start()
                except (TypeError, AttributeError, pickle.PicklingError):
                    warnings.warn(_PICKLE_HINT, stacklevel=3)
                    raise
                self.workers.append(w)
                self.channels[pairs[i][0]] = i
                self.sentinels[w.sentinel] = i
        finally:
            for main_end, worker_end in pairs:
                worker_end.close()  # the worker has its copy; EOF must mean the worker is gone
                if main_end not in self.channels:
                    main_end.close()
        self.links = list(self.channels)  # by worker id

    def _reset(self, loader):
        """Start the next epoch of a persistent loader on the same workers."""
        self._configure(loader)
        self._begin_epoch()

    def _begin_epoch(self):
        self.epoch += 1
        self._drop_pending()
        self.sampler_iter = iter(self.index_sampler)
        self.send_key = self.recv_key = 0
        self.active = set(range(len(self.workers)))
        self.worker_cycle = itertools.cycle(range(len(self.workers)))
        self.exhausted = False
        for _ in range(self.prefetch_factor * len(self.workers)):
            self._send()

    @property
    def alive(self):
        """False once the workers were stopped (an error, or the end of a non-persistent
        epoch): such an iterator cannot serve another epoch."""
        return not self._closed

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
        try:
            self.links[wid].post((self.epoch, self.send_key, indices))
        except OSError:  # its socket's other end is gone: the worker died (the sentinel says how)
            self._worker_died([self.workers[wid]])
        self.send_key += 1

    def __iter__(self):
        return self

    def __len__(self):
        loader = self._loader_ref()
        return len(loader) if loader is not None else len(self.index_sampler)

    def __next__(self):
        if self._closed:
            raise StopIteration
        while True:
            msg = self.pending.pop(self.recv_key, None)
            if msg is None:
                if self.recv_key >= self.send_key and (self.exhausted or not self.active):
                    if not self.persistent:
                        self._shutdown()
                    raise StopIteration
                self._receive()
                continue
            self.recv_key += 1
            value = msg.load()
            if isinstance(value, IterableEnd):
                self.active.discard(value.worker_id)
                continue
            self._send()
            if isinstance(value, Failure):
                value.reraise()
            return value

    def _receive(self):
        """Wait for the next message from any worker, sending queued tasks as the sockets
        take them; raise if a worker died or ``timeout`` passed first."""
        deadline = time.monotonic() + self.timeout if self.timeout else None
        while True:
            with _Selector() as sel:
                for ch in self.channels:
                    sel.register(ch, selectors.EVENT_READ | (
                        selectors.EVENT_WRITE if ch.outbox else 0))
                for s in self.sentinels:
                    sel.register(s, selectors.EVENT_READ)
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                events = sel.select(left)
            dead = [self.workers[self.sentinels[key.fileobj]] for key, _ in events
                    if key.fileobj in self.sentinels]
            if dead:
                self._worker_died(dead)
            got = False
            for key, mask in events:
                ch = key.fileobj
                if mask & selectors.EVENT_WRITE:
                    try:
                        ch.flush()
                    except OSError:  # as in _send: the worker is gone
                        self._worker_died([self.workers[self.channels[ch]]])
                if not mask & selectors.EVENT_READ:
                    continue
                try:
                    msg = ch.recv()
                except (EOFError, OSError):  # its process is ending: the sentinel tells how
                    self._worker_died([self.workers[self.channels[ch]]])
                if msg.epoch != self.epoch:
                    msg.discard()  # from an epoch that was left early
                else:
                    self.pending[msg.key] = msg
                    got = True
            if got:
                return
            if deadline is not None and time.monotonic() >= deadline:
                raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds")

    def _worker_died(self, dead):
        for w in dead:
            w.join(timeout=1.0)  # the sentinel can fire a moment before the exit status exists
        pids = ", ".join(str(w.pid) for w in dead)
        cause = _death_cause(dead[0])
        self._stop()  # the others are reaped later (__del__), so the error comes at once
        raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from cause

    def _drop_pending(self):
        for msg in self.pending.values():
            msg.discard()
        self.pending = {}

    def _stop(self):
        """Tell the workers to stop and close the links, without waiting for them."""
        if self._closed or os.getpid() != self._owner:
            return
        self._closed = True
        self._drop_pending()
        for ch in self.channels:
            try:
                ch.post(None)  # stop; closing alone is not enough if a fork holds a copy
            except OSError:
                pass
            ch.close()  # a worker blocked sending gets EPIPE, one waiting for a task EOF
        self.channels, self.sentinels, self.links = {}, {}, []

    def _shutdown(self):
        """Stop the workers, wait for them and release every descriptor (in the creating
        process only: a forked child holds a copy of this object but not its workers)."""
        if os.getpid() != self._owner:
            return
        self._stop()
        deadline = time.monotonic() + _JOIN_GRACE
        for w in self.workers:
            w.join(max(0.0, deadline - time.monotonic()))
        for w in self.workers:
            if w.exitcode is None:
                w.terminate()
                w.join(1.0)
            if w.exitcode is None:
                w.kill()
                w.join()
            w.close()
        self.workers = []

    # torch's name, which code managing persistent workers calls (Lightning's loops)
    _shutdown_workers = _shutdown

    def __del__(self):
        try:
            self._shutdown()
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown may have torn modules down
            pass


def _death_cause(w):
    """Torch's detail for a dead worker: the signal that killed it or its exit code."""
    code = w.exitcode
    if code is None or code == 0:
        return None
    if code < 0:
        try:
            name = signal.strsignal(-code) or f"signal {-code}"
        except ValueError:
            name = f"signal {-code}"
        text = f"DataLoader worker (pid {w.pid}) is killed by signal: {name}. "
        if -code == getattr(signal, "SIGBUS", None):
            text += ("It is possible that dataloader's workers are out of shared memory. "
                     "Please try to raise your shared memory limit.")
        return RuntimeError(text)
    return RuntimeError(f"DataLoader worker (pid {w.pid}) exited unexpectedly with exit code "
                        f"{code}. Details are lost due to multiprocessing. Rerunning with "
                        f"num_workers=0 may give better error trace.")


MultiProcessIter.__name__ = MultiProcessIter.__qualname__ = "_MultiProcessingDataLoaderIter"
