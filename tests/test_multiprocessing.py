"""numtorch.multiprocessing: tensors travel between processes as shared memory, and spawn.

Where torch's behaviour is observable (what a child receives, what the parent sees after the
child writes, exception types and fields) the same scenario runs with torch and with numtorch
and the results are compared. Child functions live in tests/_mp_targets.py so that 'spawn'
children can import them. Most tests fork (fast); a few use 'spawn' to cover pickled process
arguments and descriptor passing to a fresh interpreter.
"""

import gc
import io
import multiprocessing
import os
import pickle
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest
import torch
import torch.multiprocessing as thmp

from tests import _mp_targets as targets
import numtorch
import numtorch.multiprocessing as ntmp

LIBS = {"numtorch": (numtorch, ntmp), "torch": (torch, thmp)}
STRATEGIES = ["file_descriptor", "file_system"]
TIMEOUT = 60


def _ours(pid):
    """Whether ``pid`` is this test process or one of its (possibly finished) children:
    a test run beside this one must not count as a leak of ours."""
    if pid == os.getpid():
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1]) == os.getpid()
    except (OSError, ValueError, IndexError):
        return pid > os.getpid()  # gone: a child of ours is newer than us (pids wrap rarely)


def _shm_files():
    if not os.path.isdir("/dev/shm"):
        return set()
    names = set()
    for f in os.listdir("/dev/shm"):
        parts = f.split("_")
        if f.startswith("numtorch_") and len(parts) > 1 and parts[1].isdigit():
            if _ours(int(parts[1])):
                names.add(f)
    return names


@pytest.fixture(autouse=True)
def _no_leaks():
    """Restore the sharing strategies and check no shared-memory file is left behind."""
    before = _shm_files()
    strategies = ntmp.get_sharing_strategy(), thmp.get_sharing_strategy()
    yield
    ntmp.set_sharing_strategy(strategies[0])
    thmp.set_sharing_strategy(strategies[1])
    gc.collect()
    assert _shm_files() <= before


def _exchange(mp, target, items, method="fork"):
    """Send ``items`` one by one to a child running ``target``; return its reports."""
    ctx = mp.get_context(method)
    q_in, q_out = ctx.Queue(), ctx.Queue()
    proc = ctx.Process(target=target, args=(q_in, q_out))
    proc.start()
    reports = []
    try:
        for item in items:
            q_in.put(item)
            reports.append(q_out.get(timeout=TIMEOUT))
            assert q_out.get(timeout=TIMEOUT) == "done"
        q_in.put(None)
    finally:
        proc.join(TIMEOUT)
    assert proc.exitcode == 0
    return reports


def _items(lib):
    """Tensors to send: contiguous, views of an unshared and of a shared base, a Parameter with
    a gradient, an integer tensor and an empty one. Returns (items, tensors to read back)."""
    plain = lib.arange(6.0).reshape(2, 3)
    base = lib.zeros(4, 5)
    view = base[1:, 2:]
    shared = lib.arange(12.0).reshape(3, 4).share_memory_()
    transposed = shared.t()[1:]
    param = lib.nn.Parameter(lib.ones(3))
    param.grad = lib.full((3,), 5.0)
    ints = lib.arange(4)
    empty = lib.zeros(0, 2)
    items = [plain, view, transposed, param, ints, empty]
    return items, items + [shared]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_queue_shares_memory_like_torch(strategy):
    got = {}
    for name, (lib, mp) in LIBS.items():
        mp.set_sharing_strategy(strategy)
        items, watch = _items(lib)
        reports = _exchange(mp, targets.add_one_and_report, items)
        # the child added 1 in place: the parent sees it through the shared memory
        got[name] = (reports, [t.detach().tolist() for t in watch],
                     [t.is_shared() for t in watch], type(items[3]).__name__,
                     items[3].grad.tolist())
    assert got["numtorch"] == got["torch"]


def test_queue_shares_memory_with_spawned_child():
    ntmp.set_sharing_strategy("file_system")
    t = numtorch.arange(4.0)
    view = numtorch.zeros(3, 3).share_memory_()[:, 1]
    reports = _exchange(ntmp, targets.add_one_and_report, [t, view], method="spawn")
    assert reports[0][-1] == [0.0, 1.0, 2.0, 3.0]
    assert reports[1][2:4] == ((3,), 1)
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert view.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_storages_through_queue(strategy):
    got = {}
    for name, (lib, mp) in LIBS.items():
        mp.set_sharing_strategy(strategy)
        ctx = mp.get_context("fork")
        q_in, q_out = ctx.Queue(), ctx.Queue()
        # shared first: numtorch cannot move the memory of tensors already built on a storage
        t, u = lib.zeros(3).share_memory_(), lib.zeros(2, dtype=lib.int32).share_memory_()
        fresh = lib.FloatStorage(2)
        for storage in (t.untyped_storage(), u.untyped_storage(), fresh):
            proc = ctx.Process(target=targets.storage_fill, args=(q_in, q_out))
            proc.start()
            q_in.put(storage)
            q_out.get(timeout=TIMEOUT)
            proc.join(TIMEOUT)
        got[name] = (t.tolist(), u.tolist(), fresh.tolist(), fresh.is_shared())
    assert got["numtorch"] == got["torch"]


def test_typed_storage_keeps_its_class():
    s = numtorch.FloatStorage(3)
    s.fill_(0)
    ctx = ntmp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    proc = ctx.Process(target=targets.storage_fill, args=(q_in, q_out))
    proc.start()
    q_in.put(s)
    assert q_out.get(timeout=TIMEOUT) == ("FloatStorage", 3)
    proc.join(TIMEOUT)
    assert s.tolist() == [7.0, 7.0, 7.0] and s.is_shared()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_round_trip_lands_on_the_same_memory(strategy):
    got = {}
    for name, (lib, mp) in LIBS.items():
        mp.set_sharing_strategy(strategy)
        ctx = mp.get_context("fork")
        q_in, q_out = ctx.Queue(), ctx.Queue()
        proc = ctx.Process(target=targets.echo, args=(q_in, q_out))
        proc.start()
        t = lib.arange(6.0)[2:]
        q_in.put(t)
        back = q_out.get(timeout=TIMEOUT)
        got[name] = (back.data_ptr() == t.data_ptr(), back.storage_offset(), back.tolist())
        q_in.put(None)
        proc.join(TIMEOUT)
    assert got["numtorch"] == got["torch"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_memory_outlives_the_sender_reference(strategy):
    """A tensor dropped by the sender right after ``put`` still arrives, and the round trips
    leave no descriptor open."""
    ntmp.set_sharing_strategy(strategy)
    ctx = ntmp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    proc = ctx.Process(target=targets.echo_many, args=(q_in, q_out))
    proc.start()
    q_in.put(numtorch.zeros(1))  # starts the descriptor-passing thread before counting
    q_out.get(timeout=TIMEOUT)
    gc.collect()
    fds = len(os.listdir("/proc/self/fd"))
    for i in range(40):
        q_in.put(numtorch.full((50,), float(i)))
        back = q_out.get(timeout=TIMEOUT)
        assert back.tolist() == [float(i)] * 50 and back.is_shared()
        del back
    q_in.put(None)
    proc.join(TIMEOUT)
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) <= fds + 2


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_producer_exiting_before_receive_like_torch(strategy):
    # with descriptors the sender must still be alive to hand them over; names outlive it.
    # Which OSError a dead sender gives (refused connection or missing socket file) depends
    # on multiprocessing's resource sharer timing, in torch as here: compare the family.
    got = {}
    for name, (lib, mp) in LIBS.items():
        mp.set_sharing_strategy(strategy)
        ctx = mp.get_context("fork")
        q_out = ctx.Queue()
        proc = ctx.Process(target=targets.put_ones_and_exit, args=(q_out, name))
        proc.start()
        proc.join(TIMEOUT)
        try:
            got[name] = q_out.get(timeout=TIMEOUT).tolist()
        except OSError:
            got[name] = OSError
    assert got["numtorch"] == got["torch"]
    assert got["numtorch"] == (OSError if strategy == "file_descriptor" else [1.0] * 3)


def test_pipe():
    got = {}
    for name, (lib, mp) in LIBS.items():
        ctx = mp.get_context("fork")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=targets.pipe_double, args=(child,))
        proc.start()
        t = lib.arange(3.0)
        parent.send(t)
        answer = parent.recv()
        parent.send(None)
        proc.join(TIMEOUT)
        got[name] = (t.tolist(), answer.tolist(), answer.is_shared())
    assert got["numtorch"] == got["torch"]


def test_pool_map():
    got = {}
    for name, (lib, mp) in LIBS.items():
        tensors = [lib.full((3,), float(i)) for i in range(4)]
        with mp.get_context("fork").Pool(2) as pool:
            sums = pool.map(targets.scale_and_sum, tensors)
        got[name] = ([s.item() for s in sums], [t.tolist() for t in tensors])
    assert got["numtorch"] == got["torch"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_forking_pickler_shares_plain_pickle_copies(strategy):
    got = {}
    for name, (lib, mp) in LIBS.items():
        mp.set_sharing_strategy(strategy)
        t = lib.arange(3.0)
        copy = pickle.loads(pickle.dumps(t))
        copy.add_(10)
        buf = io.BytesIO()
        lib.save(t, buf)
        buf.seek(0)
        loaded = lib.load(buf)
        loaded.add_(100)
        before = t.is_shared()
        same = pickle.loads(ForkingPickler.dumps(t))  # received by this very process
        same.add_(1)
        got[name] = (before, t.is_shared(), same.is_shared(), t.tolist(), copy.tolist())
    assert got["numtorch"] == got["torch"]
    assert got["numtorch"][0] is False


def test_non_leaf_requiring_grad_is_refused():
    kinds = {}
    for name, (lib, _) in LIBS.items():
        x = lib.ones(2, requires_grad=True)
        ForkingPickler.dumps(x.detach())
        try:
            ForkingPickler.dumps(x * 2)
        except Exception as e:  # noqa: BLE001 - compared with torch below
            kinds[name] = type(e)
    assert kinds["numtorch"] is kinds["torch"] is RuntimeError


def test_hogwild_spawn_trains_shared_model():
    gen = np.random.default_rng(0)
    data = numtorch.tensor(gen.standard_normal((64, 4)), dtype=numtorch.float32)
    target = data @ numtorch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    model = numtorch.nn.Linear(4, 1)
    model.share_memory()
    assert all(p.is_shared() for p in model.parameters())
    loss_before = numtorch.nn.functional.mse_loss(model(data), target).item()
    ctx = ntmp.spawn(targets.hogwild_train, args=("numtorch", model, data, target, 40),
                     nprocs=2, join=False)
    assert isinstance(ctx, ntmp.ProcessContext)
    assert len(ctx.processes) == 2 and ctx.pids() == [p.pid for p in ctx.processes]
    while not ctx.join(TIMEOUT):
        pass
    assert ctx.join() is True
    loss_after = numtorch.nn.functional.mse_loss(model(data), target).item()
    assert loss_after < 0.1 * loss_before


def test_spawn_child_raises():
    with pytest.raises(ntmp.ProcessRaisedException) as info:
        ntmp.spawn(targets.raise_on_one, args=("boom in the child",), nprocs=2)
    err = info.value
    assert "ValueError: boom in the child" in str(err)
    assert "Process 1 terminated with the following error" in str(err)
    assert "Traceback" in str(err)
    assert err.error_index == 1 and isinstance(err.error_pid, int)


@pytest.mark.parametrize("target", ["kill_rank_zero", "exit_code_three"])
def test_child_exits_badly(target):
    got = {}
    for name, (_, mp) in LIBS.items():
        with pytest.raises(mp.ProcessExitedException) as info:
            mp.start_processes(getattr(targets, target), nprocs=2 if "kill" in target else 1,
                               start_method="fork")
        e = info.value
        got[name] = (str(e), e.error_index, e.exit_code, e.signal_name,
                     isinstance(e.error_pid, int))
    assert got["numtorch"] == got["torch"]


@pytest.mark.parametrize("grace_period", [None, 10.0])
def test_join_grace_period_like_torch(grace_period):
    got = {}
    for name, (_, mp) in LIBS.items():
        ctx = mp.start_processes(targets.raise_or_nap, nprocs=2, join=False,
                                 start_method="fork")
        with pytest.raises(mp.ProcessRaisedException) as info:
            while not ctx.join(TIMEOUT, grace_period=grace_period):
                pass
        # without a grace period the napping process is terminated, with one it finishes
        got[name] = (info.value.error_index, ctx.processes[0].exitcode)
    assert got["numtorch"] == got["torch"]


def test_start_processes_join_false_and_no_processes():
    for _, mp in LIBS.values():
        ctx = mp.start_processes(targets.exit_code_three, nprocs=0, join=False,
                                 start_method="fork")
        assert ctx.join() is True
    with pytest.warns(FutureWarning):
        assert ntmp.spawn(targets.exit_code_three, nprocs=0, start_method="fork") is None


def test_sharing_strategies_like_torch():
    assert ntmp.get_all_sharing_strategies() == thmp.get_all_sharing_strategies()
    assert ntmp.get_sharing_strategy() == thmp.get_sharing_strategy()
    kinds = []
    for mp in (ntmp, thmp):
        mp.set_sharing_strategy("file_system")
        assert mp.get_sharing_strategy() == "file_system"
        with pytest.raises(Exception) as info:  # noqa: PT011 - type compared with torch
            mp.set_sharing_strategy("shm_please")
        kinds.append(type(info.value))
        assert "shm_please" in str(info.value)
        assert mp.get_sharing_strategy() == "file_system"
    assert kinds[0] is kinds[1]


def test_names_like_torch():
    assert set(thmp.__all__) <= set(dir(ntmp))
    assert set(ntmp.__all__) == set(thmp.__all__)
    for name in ("spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
                 "ProcessExitedException", "SpawnContext"):
        assert hasattr(ntmp, name)
    assert ntmp.Queue == multiprocessing.Queue and ntmp.Process is multiprocessing.Process
    assert numtorch.multiprocessing is ntmp


@pytest.mark.parametrize("cls, args", [
    ("ProcessRaisedException", ("boom", 1, 123)),
    ("ProcessExitedException", ("died", 0, 77, -9, "SIGKILL")),
    ("ProcessExitedException", ("exited", 2, 78, 3)),
])
def test_exception_classes_like_torch(cls, args):
    got = []
    for mp in (ntmp, thmp):
        klass = getattr(mp, cls)
        e = klass(*args)
        again = pickle.loads(pickle.dumps(e))
        got.append(([b.__name__ for b in klass.__mro__], str(e), e.error_index, e.error_pid,
                     getattr(e, "exit_code", None), getattr(e, "signal_name", None),
                     str(again), again.error_pid))
    assert got[0] == got[1]
