"""torch.distributed without an MPI launcher: mp.spawn, multiprocessing.Process and separate
processes meeting through a store (env://, tcp://, file://, store=), on the socket transport.

Programs run under real torch (gloo on CPU) and numtorch and their results are compared:
collective values, DDP weights after training, store behaviour, error classes and messages.
Every launch has a timeout and the failure cases wait on files, not on sleeps.
"""

import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from . import _launch

PROGRAM = os.path.join(_launch.RANKS, "spawn_program.py")


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(args, timeout=120):
    proc = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=_launch.env())
    return proc


def _report(proc):
    for line in proc.stdout.splitlines():
        if line.startswith("REPORT "):
            return json.loads(line[7:])
    pytest.fail(f"no report:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")


def _ranks(out, proc):
    try:
        return _launch.results(str(out))
    except FileNotFoundError:
        pytest.fail(f"no results:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")


@pytest.fixture(scope="module")
def torch_spawn(tmp_path_factory):
    out = tmp_path_factory.mktemp("torch_spawn")
    proc = _run([PROGRAM, "torch", "env", _free_port(), out])
    return _ranks(out, proc)


@pytest.mark.parametrize("mode", ["env", "tcp", "file"])
def test_spawn_program_matches_torch(torch_spawn, tmp_path, mode):
    """mp.spawn + init_process_group(rank=, world_size=): collectives, p2p, objects, a
    subgroup, DDP (== one process on the whole batch) and misuse errors agree with torch."""
    proc = _run([PROGRAM, "numtorch", mode, _free_port(), tmp_path])
    got = _ranks(tmp_path, proc)
    for want, have in zip(torch_spawn, got):
        assert want.keys() == have.keys()
        for k in want:
            if k == "ddp_weights":
                for a, b in zip(want[k], have[k]):
                    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
            else:
                assert have[k] == want[k], k
        assert have["ddp_vs_single"] and have["all_reduce_big_ok"]
    if mode == "file":
        assert not os.path.exists(tmp_path / "rendezvous")  # the last store removed it


def _separate(tmp_path, script, n=2):
    """``n`` separately started processes (no launcher), env:// rendezvous."""
    port = _free_port()
    cmds = [[sys.executable, "-u", os.path.join(_launch.RANKS, script), str(tmp_path)]
            for _ in range(n)]
    procs = []
    for r, c in enumerate(cmds):
        env = dict(_launch.env(), RANK=str(r), WORLD_SIZE=str(n), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port))
        env.pop("NUMTORCH_DIST_TRANSPORT", None)
        procs.append(subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, env=env))
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=120))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    try:
        return _launch.results(str(tmp_path), n)
    except FileNotFoundError:
        pytest.fail(f"no results:\n{outs[0][0][-2000:]}\n{outs[0][1][-3000:]}")


@pytest.mark.parametrize("script,least", [("collectives.py", 600), ("ddp.py", 20)])
def test_mpi_scenarios_on_sockets(tmp_path, script, least):
    """The MPI suite's rank scripts (every collective, dtype, layout, mismatch and DDP case
    against NumPy and single-process training) pass on the socket transport too."""
    per_rank = _separate(tmp_path, script)
    assert len(per_rank[0]) >= least
    assert _launch.failures(per_rank) == []


def test_ring_all_reduce_on_three_ranks(tmp_path):
    """The segmented ring (sizes past 1 MB, not divisible by 3) on 3 ranks, every reduction
    and several dtypes, against NumPy."""
    per_rank = _separate(tmp_path, "ring3.py", n=3)
    assert len(per_rank[0]) == 30
    assert _launch.failures(per_rank) == []


def test_store_api_matches_torch(tmp_path):
    """HashStore, TCPStore, FileStore and PrefixStore: values, counters, compare_set,
    num_keys, deletion, blocking get, timeouts and their errors as torch's."""
    got = {}
    for lib in ("torch", "numtorch"):
        d = tmp_path / lib
        d.mkdir()
        got[lib] = _report(_run([os.path.join(_launch.RANKS, "store_ops.py"), lib, d]))
    assert got["torch"] == got["numtorch"]


def test_rendezvous_misuse_matches_torch(tmp_path):
    """URL without rank or world size, unknown scheme, store= misuse, and rank 0 timing out
    waiting for a missing rank: torch's exception classes and messages."""
    got = {}
    for lib in ("torch", "numtorch"):
        d = tmp_path / lib
        d.mkdir()
        got[lib] = _report(_run([os.path.join(_launch.RANKS, "init_misuse.py"), lib,
                                 _free_port(), d]))
    assert got["torch"] == got["numtorch"]


def _failure(tmp_path, case):
    start = time.monotonic()
    proc = _run([os.path.join(_launch.RANKS, "spawn_failures.py"), case, _free_port(),
                 tmp_path], timeout=90)
    try:
        with open(tmp_path / "result.json") as f:
            return json.load(f), time.monotonic() - start
    except FileNotFoundError:
        pytest.fail(f"no result:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")


def test_dead_rank_fails_the_collective_at_once(tmp_path):
    res, _ = _failure(tmp_path, "dies")
    assert res["class"] == "DistBackendError", res
    assert "all_reduce" in res["message"] and "rank 1" in res["message"], res
    assert res["seconds"] < 10, res  # the timeout is 60 s: the closed connection ended it


def test_missing_rank_times_out_naming_it(tmp_path):
    res, _ = _failure(tmp_path, "hangs")
    assert res["class"] == "DistBackendError"
    assert "timed out after 1.5 s" in res["message"] and "rank 1" in res["message"]
    assert 1.4 < res["seconds"] < 20


def test_destroy_frees_the_port_and_init_works_again(tmp_path):
    res, _ = _failure(tmp_path, "reinit")
    assert res == {"sum0": [3.0, 3.0], "port_free0": True, "sum1": [5.0, 5.0],
                   "port_free1": True, "threads_left": []}


def test_without_mpi4py_sockets_still_work():
    """mpi4py is optional now: a job of one initialises and reduces without it."""
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import numtorch, numtorch.distributed as d\n"
            "assert d.is_available() and d.is_gloo_available() and not d.is_mpi_available()\n"
            f"d.init_process_group('gloo', 'tcp://127.0.0.1:{_free_port()}', rank=0, "
            "world_size=1)\n"
            "t = numtorch.ones(3); d.all_reduce(t); d.barrier()\n"
            "print('OK', t.tolist()); d.destroy_process_group()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env=_launch.env())
    assert "OK [1.0, 1.0, 1.0]" in proc.stdout, proc.stderr


def test_rpc_after_init_process_group_on_the_same_port_matches_torch(tmp_path):
    """rpc/batch's pattern: mp.spawn, init_process_group, then init_rpc on the same
    MASTER_PORT (worker 0's rendezvous goes through the group's store, as torch shares it)."""
    got = {}
    for lib in ("torch", "numtorch"):
        d = tmp_path / lib
        d.mkdir()
        proc = _run([os.path.join(_launch.RANKS, "spawn_rpc.py"), lib, _free_port(), d])
        try:
            with open(d / "rank0.json") as f:
                got[lib] = json.load(f)
        except FileNotFoundError:
            pytest.fail(f"{lib}: no result:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    assert got["numtorch"] == got["torch"]
