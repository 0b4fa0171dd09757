"""Failure cases of an mp.spawn job on numtorch's socket transport; rank 0 writes JSON.

Usage: python spawn_failures.py CASE PORT OUT_DIR, CASE one of
  dies    rank 1 exits abruptly; rank 0's all_reduce (timeout 60 s) must fail at once,
          naming rank 1 (multiprocessing.Process ranks)
  hangs   rank 1 never joins the all_reduce; rank 0's must time out (1.5 s) naming rank 1;
          rank 1 waits for rank 0's verdict file, so nothing depends on sleeps
  reinit  init, all_reduce, destroy (the store's port must be free again), then the same
          again on the same port, rank 1 reaching rank 0's old store before it closes; no
          transport thread may outlive the job
Rank 0 writes OUT_DIR/result.json: {"class", "message", "seconds"} or the reinit checks.
"""

import datetime
import json
import os
import socket
import sys
import time

import numtorch as torch

dist = torch.distributed


def _write(out, res):
    tmp = os.path.join(out, "result.tmp")
    with open(tmp, "w") as f:
        json.dump(res, f)
    os.replace(tmp, os.path.join(out, "result.json"))


def _init(rank, port, seconds):
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=seconds))


def _fail_case(rank, case, port, out):
    _init(rank, port, 60 if case == "dies" else 1.5)
    dist.barrier()
    if rank == 1:
        if case == "dies":
            os._exit(3)
        end = time.monotonic() + 60  # "hangs": stay away until rank 0 has its verdict
        while not os.path.exists(os.path.join(out, "result.json")):
            if time.monotonic() > end:
                break
            time.sleep(0.01)
        return
    start = time.monotonic()
    try:
        dist.all_reduce(torch.ones(3))
        res = {"class": None, "message": "no error", "seconds": time.monotonic() - start}
    except Exception as e:  # noqa: BLE001
        res = {"class": type(e).__name__, "message": str(e),
               "seconds": time.monotonic() - start}
    _write(out, res)


def _port_free(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def _reinit(rank, port, out):
    res = {}
    for round_ in range(2):
        _init(rank, port, 30)
        t = torch.ones(2) * (rank + 1 + round_)
        dist.all_reduce(t)
        res[f"sum{round_}"] = t.tolist()
        ddp = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 1))
        ddp(torch.ones(1, 2)).sum().backward()  # its communicator is never freed
        dist.barrier()
        if rank == 0 and round_ == 0:
            # the race: rank 1 re-initialises and reaches this (old) store before rank 0
            # closes it; its rendezvous must move on to rank 0's next store
            store = dist.distributed_c10d._world._store
            end = time.monotonic() + 30
            while int(store.get("numtorch/round/1")) < 2 and time.monotonic() < end:
                time.sleep(0.005)
        dist.destroy_process_group()
        if rank == 0:
            res[f"port_free{round_}"] = _port_free(port)
    if rank == 0:
        res["threads_left"] = _transport_threads()
        _write(out, res)


def _transport_threads():
    """The socket transport's threads still running a while after destroy (none expected:
    readers end with their sockets, workers with the mesh, the store server when closed)."""
    import threading

    def ours():
        return [t.name for t in threading.enumerate()
                if t.name.startswith(("numtorch-dist", "TCPStore"))]

    end = time.monotonic() + 10
    while ours() and time.monotonic() < end:
        time.sleep(0.02)
    return ours()


def run(rank, case, port, out):
    if case == "reinit":
        _reinit(rank, port, out)
    else:
        _fail_case(rank, case, port, out)


if __name__ == "__main__":
    _, case_, port_, out_ = sys.argv
    if case_ == "dies":  # plain processes: mp.spawn would stop rank 0 once rank 1 died
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        procs = [ctx.Process(target=run, args=(r, case_, int(port_), out_)) for r in (0, 1)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)
        sys.exit(0)
    try:
        torch.multiprocessing.spawn(run, args=(case_, int(port_), out_), nprocs=2)
    except Exception as e:  # noqa: BLE001  (rank 1's abrupt exit is the point of "dies")
        print(f"spawn: {type(e).__name__}: {e}")
