"""A torch program in the mp.spawn style, run with torch (gloo) or numtorch; writes JSON.

Usage: python spawn_program.py torch|numtorch env|tcp|file PORT OUT_DIR

``mp.spawn`` starts two ranks that call ``init_process_group("gloo", rank=, world_size=)``
(the rendezvous given by the mode), run collectives, point-to-point, object collectives, a
subgroup, DDP training and misuse cases, then ``destroy_process_group``. Each rank writes
``OUT_DIR/rank<r>.json``; the test compares numtorch's files with torch's.
"""

import datetime
import json
import os
import sys

import numpy as np

if sys.argv[1] == "torch":
    import torch
else:
    import numtorch as torch


def _err(fn):
    try:
        fn()
        return "ok"
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"


def _init(dist, rank, world_size, mode, port, out):
    timeout = datetime.timedelta(seconds=30)
    if mode == "env":
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
        dist.init_process_group("gloo", rank=rank, world_size=world_size, timeout=timeout)
    elif mode == "tcp":
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                world_size=world_size, timeout=timeout)
    else:
        dist.init_process_group("gloo", init_method=f"file://{out}/rendezvous",
                                rank=rank, world_size=world_size, timeout=timeout)


def _train(nn, model, xs, ys, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(xs) - ys) ** 2).mean()
        loss.backward()
        opt.step()


def _net(nn):
    rs = np.random.RandomState(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 3))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rs.randn(*p.shape).astype(np.float32) * 0.3))
    return model


def run(rank, world_size, mode, port, out):
    dist, nn = torch.distributed, torch.nn
    _init(dist, rank, world_size, mode, port, out)
    res = {"rank": dist.get_rank(), "size": dist.get_world_size(),
           "backend": str(dist.get_backend()), "initialized": dist.is_initialized()}
    t = torch.arange(6, dtype=torch.float32) * (rank + 1)
    dist.all_reduce(t)
    res["all_reduce"] = t.tolist()
    big = torch.arange(200003, dtype=torch.float64) * (rank + 1)  # the ring path
    dist.all_reduce(big)
    res["all_reduce_big_ok"] = bool((big == torch.arange(200003, dtype=torch.float64) * 3)
                                    .all())
    m = torch.tensor([rank, -rank, 7], dtype=torch.int64)
    dist.all_reduce(m, op=dist.ReduceOp.MAX)
    res["all_reduce_max"] = m.tolist()
    b = torch.full((3,), float(rank))
    dist.broadcast(b, src=1)
    res["broadcast"] = b.tolist()
    outs = [torch.zeros(2, dtype=torch.int32) for _ in range(world_size)]
    dist.all_gather(outs, torch.tensor([rank, rank * 10], dtype=torch.int32))
    res["all_gather"] = [o.tolist() for o in outs]
    rs_out = torch.zeros(2)
    dist.reduce_scatter_tensor(rs_out, torch.arange(4.0) + rank)
    res["reduce_scatter_tensor"] = rs_out.tolist()
    if rank == 0:
        dist.send(torch.tensor([1.5, 2.5]), dst=1, tag=3)
        got = torch.zeros(3, dtype=torch.int64)
        res["recv_src"] = dist.recv(got, src=1)
        res["recv"] = got.tolist()
    else:
        got = torch.zeros(2)
        dist.recv(got, src=0, tag=3)
        res["recv"] = got.tolist()
        dist.isend(torch.tensor([4, 5, 6]), dst=0).wait()
    objs = [None] * world_size
    dist.all_gather_object(objs, {"rank": rank, "text": "x" * rank})
    res["all_gather_object"] = objs
    lst = [{"a": 1}, [2, 3]] if rank == 0 else [None, None]
    dist.broadcast_object_list(lst, src=0)
    res["broadcast_object_list"] = lst
    work = dist.all_reduce(torch.ones(4), async_op=True)
    res["async_wait"] = work.wait()
    sub = dist.new_group([1])
    s = torch.ones(2) * (rank + 5)
    dist.all_reduce(s, group=sub)
    res["subgroup"] = [s.tolist(), dist.get_rank(sub), dist.get_world_size(sub)]
    dist.barrier()
    res["send_to_self"] = _err(lambda: dist.send(torch.ones(1), dst=rank))
    res["broadcast_bad_src"] = _err(lambda: dist.broadcast(torch.ones(1), src=5))
    res["all_gather_bad_len"] = _err(lambda: dist.all_gather([torch.zeros(1)], torch.ones(1)))

    # DDP on half the batch each == one process on the whole batch
    rs = np.random.RandomState(1)
    xs = torch.tensor(rs.randn(8, 5).astype(np.float32))
    ys = torch.tensor(rs.randn(8, 3).astype(np.float32))
    ddp = nn.parallel.DistributedDataParallel(_net(nn))
    _train(nn, ddp, xs[rank * 4:(rank + 1) * 4], ys[rank * 4:(rank + 1) * 4], 4)
    single = _net(nn)
    _train(nn, single, xs, ys, 4)
    res["ddp_vs_single"] = max(float((p - q).abs().max()) for p, q in
                               zip(ddp.module.parameters(), single.parameters())) < 1e-5
    res["ddp_weights"] = [p.detach().reshape(-1).tolist() for p in ddp.module.parameters()]
    dist.destroy_process_group()
    res["initialized_after_destroy"] = dist.is_initialized()
    with open(os.path.join(out, f"rank{rank}.json"), "w") as f:
        json.dump(res, f)


if __name__ == "__main__":
    _, _, mode_, port_, out_ = sys.argv
    torch.multiprocessing.spawn(run, args=(2, mode_, int(port_), out_), nprocs=2)
