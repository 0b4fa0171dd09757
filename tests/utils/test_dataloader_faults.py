"""DataLoader workers under faults, against torch: an abandoned epoch of persistent workers,
the main process killed, a worker killed or raising, timeouts, descriptors after ``del``."""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import torch.utils.data as tdata

import numtorch
import numtorch.utils.data as ndata

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads /proc and /dev/shm")


# -- item 7: persistent workers after an epoch left with break --------------------------------
def test_epoch_after_an_abandoned_one_is_an_exact_permutation():
    for seed in range(3):
        numtorch.manual_seed(seed)
        dl = ndata.DataLoader(list(range(40)), batch_size=4, shuffle=True, num_workers=2,
                              persistent_workers=True)
        for stop in (1, 3, 0):
            for k, _ in enumerate(dl):
                if k == stop:
                    break
            batches = [b.tolist() for b in dl]
            assert len(batches) == 10
            assert sorted(v for b in batches for v in b) == list(range(40))


def _stream_epochs(data, stop_after):
    class Stream(data.IterableDataset):
        def __iter__(self):
            info = data.get_worker_info()
            return iter(range(info.id, 10, info.num_workers))

    dl = data.DataLoader(Stream(), batch_size=2, num_workers=2, persistent_workers=True)
    out = []
    for stop in stop_after:
        got = []
        for k, b in enumerate(dl):
            got.append(b.tolist())
            if k == stop:
                break
        out.append(got)
    return out


def test_persistent_iterable_dataset_starts_each_epoch_afresh_like_torch():
    plan = (99, 0, 99, 2, 99)  # full epochs, and epochs left after the first or third batch
    assert _stream_epochs(ndata, plan) == _stream_epochs(tdata, plan)


# -- item 8: the main process dies --------------------------------------------------------------
_ORPHAN_CHILD = textwrap.dedent("""
    import os, signal, sys, threading, time
    import numtorch
    import numtorch.utils.data as data

    class Big(data.Dataset):
        def __len__(self):
            return 64

        def __getitem__(self, i):
            return numtorch.full((128, 256), float(i))

    def run():
        it = iter(data.DataLoader(Big(), batch_size=4, num_workers=2, prefetch_factor=4))
        next(it)
        time.sleep(0.3)  # the prefetched batches are now waiting in shared memory
        print(" ".join(str(w.pid) for w in it.workers), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

    if sys.argv[1] == "thread":  # not the main thread: the parent-polling fallback must act
        t = threading.Thread(target=run)
        t.start()
        t.join()
    else:
        run()
""")


def _gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has exited
    except FileNotFoundError:
        return True


def _shm_names_of(pids):
    return {n for n in os.listdir("/dev/shm") if any(str(p) in n for p in pids)}


@linux_only
@pytest.mark.parametrize("where", ["main", "thread"])
def test_workers_and_their_memory_end_with_a_killed_main_process(where, tmp_path):
    before = set(os.listdir("/dev/shm"))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = tmp_path / "out"
    with open(out, "w") as f:  # not a pipe: orphaned workers would hold it open
        proc = subprocess.Popen([sys.executable, "-c", _ORPHAN_CHILD, where], stdout=f,
                                stderr=subprocess.STDOUT, cwd=root)
        assert proc.wait(timeout=120) == -signal.SIGKILL, out.read_text()
    pids = [int(p) for p in out.read_text().split()]
    assert len(pids) == 2
    t0 = time.monotonic()
    while not all(_gone(p) for p in pids) and time.monotonic() - t0 < 10:
        time.sleep(0.05)
    alive = [p for p in pids if not _gone(p)]
    for p in alive:  # don't leave them behind if the test fails
        os.kill(p, signal.SIGKILL)
    leftovers = _shm_names_of(pids) - before
    for name in leftovers:
        os.unlink(os.path.join("/dev/shm", name))
    assert alive == []
    assert time.monotonic() - t0 < 3.0  # the fallback polls once a second
    assert leftovers == set()


# -- item 9: shutdown, errors, timeout, descriptors ---------------------------------------------
def _collect_young_garbage(worker_id):
    sys.unraisablehook = sys.__unraisablehook__  # print, as outside pytest, what __del__ raises
    gc.collect(0)  # in this forked worker: the unreachable loaders copied from the main process


def test_recreating_persistent_loaders_prints_no_shutdown_errors(capfd):
    gc.disable()  # keep each unreachable loader young and uncollected until the next fork
    try:
        for _ in range(3):
            dl = ndata.DataLoader(list(range(8)), batch_size=2, num_workers=2,
                                  persistent_workers=True, worker_init_fn=_collect_young_garbage)
            it = iter(dl)
            next(it)
            dl.cycle = dl  # unreachable once deleted, yet alive until a collection
            del dl, it
    finally:
        gc.enable()
    gc.collect()
    err = capfd.readouterr().err
    assert "Exception ignored" not in err and "can only" not in err, err


class _Raiser:
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 2:
            raise self.exc
        return i


class TwoArgError(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


def _reraised(data, exc):
    it = iter(data.DataLoader(_Raiser(exc), num_workers=2, timeout=10))
    got = [next(it).item() for _ in range(2)]
    with pytest.raises(Exception) as info:
        next(it)
    rest = [b.item() for b in it]  # torch's iterator goes on after a worker's exception
    out = got + rest, type(info.value), str(info.value)
    del info, it  # the traceback's frames would keep the workers until a gc
    return out


@pytest.mark.parametrize("exc", [KeyError("missing"), ValueError("bad value"),
                                 TwoArgError(1, 2), FileNotFoundError(2, "no such file")])
def test_worker_exception_is_reraised_like_torch(exc):
    n_items, n_cls, n_msg = _reraised(ndata, exc)
    t_items, t_cls, t_msg = _reraised(tdata, exc)
    assert (n_items, n_cls) == (t_items, t_cls)
    n_lines, t_lines = n_msg.splitlines(), t_msg.splitlines()
    assert n_lines[:2] == t_lines[:2]  # "Caught X in DataLoader worker process 0." / Original
    assert n_lines[-1] == t_lines[-1]  # the original exception's own last line
    assert n_msg.startswith("Caught ")  # readable: KeyError's text is not quoted with \n


class _Sleepy:
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i >= 2:
            time.sleep(0.8)
        return i


def _time_out(data, timeout):  # the third item takes 0.8 s
    it = iter(data.DataLoader(_Sleepy(), num_workers=1, timeout=timeout))
    next(it), next(it)
    t0 = time.monotonic()
    with pytest.raises(Exception) as info:
        next(it)
    elapsed = time.monotonic() - t0
    out = type(info.value), str(info.value), elapsed
    del info, it  # the traceback's frames would keep the workers until a gc
    return out


def test_timeout_raises_on_time_like_torch():
    n_cls, n_msg, elapsed = _time_out(ndata, 0.5)
    t_cls, t_msg, _ = _time_out(tdata, 0.5)
    assert (n_cls, n_msg) == (t_cls, t_msg)
    assert 0.5 <= elapsed < 0.75


def _open_fds():
    return len(os.listdir(f"/proc/{os.getpid()}/fd"))


@linux_only
def test_deleting_a_persistent_loader_closes_every_descriptor():
    ds = ndata.TensorDataset(numtorch.arange(40.0))
    list(ndata.DataLoader(ds, batch_size=4, num_workers=2))  # lazy imports happen here
    before = _open_fds()
    dl = ndata.DataLoader(ds, batch_size=4, num_workers=2, persistent_workers=True)
    for _ in range(2):
        list(dl)
    for b in dl:
        break
    del dl, b
    t0 = time.monotonic()
    while _open_fds() > before and time.monotonic() - t0 < 2:
        time.sleep(0.01)  # the index queues' feeder threads close their pipes
    assert _open_fds() <= before  # (another test's leftovers may close meanwhile)


class _Worker0Dies:
    """Worker 0 kills itself (SIGKILL) ``delay`` seconds into its first item."""

    def __init__(self, data, delay):
        self.data, self.delay = data, delay

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if self.data.get_worker_info().id == 0:
            time.sleep(self.delay)
            os.kill(os.getpid(), signal.SIGKILL)
        return i


def _kill_a_worker(data, wait_for_death=False):
    """Worker 0 dies while the main process waits for its batch (or, with ``wait_for_death``,
    just before it asks); the error, with the pid replaced, and the seconds ``next`` took."""
    it = iter(data.DataLoader(_Worker0Dies(data, 0.0 if wait_for_death else 0.3),
                              num_workers=2))
    victim = (it.workers if data is ndata else it._workers)[0].pid
    while wait_for_death and not _gone(victim):
        time.sleep(0.005)
    t0 = time.monotonic()
    with pytest.raises(Exception) as info:
        next(it)
    elapsed = time.monotonic() - t0
    err, cause = info.value, info.value.__cause__
    got = (type(err), str(err).replace(str(victim), "PID"), type(cause),
           str(cause).replace(str(victim), "PID"))
    del err, cause, info, it  # the traceback's frames would keep the workers until a gc
    return got, elapsed


@linux_only
def test_killed_worker_is_reported_at_once_like_torch():
    want = _kill_a_worker(tdata)[0]
    assert _kill_a_worker(ndata)[0] == want
    got, elapsed = _kill_a_worker(ndata, wait_for_death=True)
    assert got == want
    assert elapsed < 0.1  # the sentinel is watched (polling every 0.2 s took 0.31 s)
