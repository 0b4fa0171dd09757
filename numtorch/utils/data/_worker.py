"""The worker process of ``DataLoader(num_workers > 0)``.

A worker takes tasks ``(epoch, key, indices)`` from its socket (see ``_shm_channel``), loads
and collates the batch, and sends it back tagged with the same epoch and key; a None task, or
the main process closing its end, stops it. The epoch lets a persistent worker serve a new
epoch after the previous one was abandoned: tasks of an older epoch are skipped once a newer
one has arrived, and an iterable dataset is iterated afresh. A worker never outlives the
process that started it: on Linux the kernel kills it when that process dies
(``PR_SET_PDEATHSIG``), and everywhere it checks its parent whenever it has waited
``_WATCH_INTERVAL`` seconds for work.
"""

import collections
import ctypes
import os
import random
import signal
import sys
import traceback
from dataclasses import dataclass

__all__ = ["Failure", "IterableEnd", "WorkerInfo", "current_info", "worker_loop"]



@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns in a worker: a frozen record, as torch's (its
    fields, repr and refusal of assignment)."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


_info = [None]
_WATCH_INTERVAL = 1.0  # seconds an idle worker waits before checking that its parent lives
_PR_SET_PDEATHSIG = 1


def current_info():
    """The WorkerInfo of this process (None in the main process)."""
    return _info[0]


class IterableEnd:
    """Sent by a worker whose IterableDataset copy is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ReadableKeyErrorText(str):
    """A message for KeyError: ``str(KeyError(m))`` is ``repr(m)``, which would print the
    traceback on one quoted line with literal ``\\n``; this text is its own repr."""

    def __repr__(self):
        return str(self)


class Failure:
    """An exception raised in a worker, carried to the main process as its class and text."""

    def __init__(self, worker_id, exc):
        self.worker_id = worker_id
        self.exc_type = type(exc)
        self.type_name = type(exc).__name__
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def __reduce__(self):
        # a class pickle cannot name (defined in a function, say) becomes RuntimeError
        try:
            import pickle

            pickle.dumps(self.exc_type)
            exc_type = self.exc_type
        except Exception:  # noqa: BLE001 - any pickling failure
            exc_type = None
        return (_rebuild_failure, (self.worker_id, exc_type, self.type_name, self.text))

    def reraise(self):
        """Raise the worker's exception again here: same class, message naming the worker
        and holding the original traceback (RuntimeError if the class cannot be rebuilt)."""
        msg = (f"Caught {self.type_name} in DataLoader worker process {self.worker_id}.\n"
               f"Original {self.text}")
        err = None
        if self.exc_type is KeyError:
            msg = _ReadableKeyErrorText(msg)
        try:
            if self.exc_type is None:
                err = None
            elif self.exc_type is not KeyError and getattr(self.exc_type, "message", None):
                err = self.exc_type(message=msg)  # classes whose first argument is not text
            else:
                err = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - exception classes with other constructors
            err = None
        if err is None:
            err = RuntimeError(msg)
        raise err


def _rebuild_failure(worker_id, exc_type, type_name, text):
    f = Failure.__new__(Failure)
    f.worker_id, f.exc_type, f.type_name, f.text = worker_id, exc_type, type_name, text
    return f


# -- staying tied to the parent ----------------------------------------------------------------
def _die_with_parent(parent_pid, pdeathsig):
    """Ask Linux to kill this process when its parent dies. ``pdeathsig`` is False where the
    parent is not the main process's main thread (PR_SET_PDEATHSIG fires when the *thread*
    that forked exits, which for another thread is not the process ending)."""
    if not (pdeathsig and sys.platform.startswith("linux")):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(0)


def _parent_alive(main_pid, first_ppid):
    if os.getppid() != first_ppid:  # re-parented: the process that started us is gone
        return False
    if main_pid != first_ppid:  # started through a fork server: ask about the main process
        try:
            os.kill(main_pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
    return True


# -- the worker process ----------------------------------------------------------------------
def worker_loop(worker_id, num_workers, seed, dataset, auto_collation, collate_fn, drop_last,
                init_fn, channel, main_pid, pdeathsig, inherited):
    """Run one worker until told to stop (a None task) or until the main process is gone."""
    first_ppid = os.getppid()
    _die_with_parent(main_pid, pdeathsig and first_ppid == main_pid)
    for end in inherited:  # fork copies the main process's ends; keep none of them open
        end.close()
    try:
        _serve(worker_id, num_workers, seed, dataset, auto_collation, collate_fn, drop_last,
               init_fn, channel, main_pid, first_ppid)
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches the whole process group; the main process reports it
    except (BrokenPipeError, ConnectionResetError):
        pass  # the main process closed its end: nobody is left to send to


def _serve(worker_id, num_workers, seed, dataset, auto_collation, collate_fn, drop_last,
           init_fn, channel, main_pid, first_ppid):
    from ... import _random
    from ._shm_channel import NO_TASK
    from .dataloader import fetch
    from .dataset import IterableDataset

    _info[0] = WorkerInfo(worker_id, num_workers, seed, dataset)
    _random.manual_seed(seed)
    random.seed(seed)
    iterable = isinstance(dataset, IterableDataset)
    init_failure = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except Exception as e:  # noqa: BLE001 - reported with every task, like torch
        init_failure = Failure(worker_id, e)
    tasks = collections.deque()
    newest = epoch = None
    data_iter = None
    while True:
        if not tasks:
            task = channel.next_task(_WATCH_INTERVAL)
            if task is NO_TASK:
                if not _parent_alive(main_pid, first_ppid):
                    return
                continue
            tasks.append(task)
        while tasks[-1] is not None and channel.has_task():
            tasks.append(channel.next_task(0))  # all that is queued: stale tasks show as such
        for t in tasks:
            if t is not None and (newest is None or t[0] > newest):
                newest = t[0]
        task = tasks.popleft()
        if task is None:
            return
        task_epoch, key, indices = task
        if task_epoch < newest:
            continue  # an abandoned epoch's task: the main process no longer wants it
        if init_failure is not None:
            channel.send(task_epoch, key, init_failure)
            continue
        try:
            if task_epoch != epoch:  # a new epoch: a fresh pass over an iterable dataset
                data_iter = iter(dataset) if iterable else None
                epoch = task_epoch
            result = fetch(dataset, indices, auto_collation, collate_fn, data_iter, drop_last)
        except StopIteration as e:
            # the end of an iterable dataset's stream; from a map-style dataset's __getitem__
            # it is an error like any other, and re-raised in the main process it ends the
            # loop there (torch's behaviour), instead of the batch being skipped silently
            result = IterableEnd(worker_id) if iterable else Failure(worker_id, e)
        except Exception as e:  # noqa: BLE001 - reported to the main process
            result = Failure(worker_id, e)
        try:
            channel.send(task_epoch, key, result)
        except (BrokenPipeError, ConnectionResetError):
            raise
        except Exception as e:  # noqa: BLE001 - the batch could not be pickled
            channel.send(task_epoch, key, Failure(worker_id, e))
