"""mp.spawn with init_process_group and then init_rpc on the same MASTER_PORT (the pattern
of pytorch/examples' rpc/batch), run with torch or numtorch; rank 0 writes JSON.

Usage: python spawn_rpc.py torch|numtorch PORT OUT_DIR
"""

import json
import os
import sys

if sys.argv[1] == "torch":
    import torch
else:
    import numtorch as torch


def _scaled(t, k):
    return t * k


def run(rank, world_size, port, out):
    dist, rpc = torch.distributed, torch.distributed.rpc
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "localhost", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    opts = rpc.TensorPipeRpcBackendOptions(num_worker_threads=4, rpc_timeout=60)
    rpc.init_rpc(f"w{rank}", rank=rank, world_size=world_size, rpc_backend_options=opts)
    res = {}
    if rank == 0:
        res["rpc_sync"] = [rpc.rpc_sync(f"w{r}", _scaled, args=(torch.ones(2), r + 1)).tolist()
                           for r in range(1, world_size)]
        fut = rpc.rpc_async("w1", torch.add, args=(torch.ones(2), 3))
        res["rpc_async"] = fut.wait().tolist()
        res["remote"] = rpc.remote("w2", _scaled, args=(torch.arange(3.0), 2)).to_here().tolist()
    t = torch.ones(1) * rank
    dist.all_reduce(t)
    res["all_reduce"] = t.tolist()
    rpc.shutdown()
    dist.destroy_process_group()
    if rank == 0:
        with open(os.path.join(out, "rank0.json"), "w") as f:
            json.dump(res, f)


if __name__ == "__main__":
    torch.multiprocessing.spawn(run, args=(3, int(sys.argv[2]), sys.argv[3]), nprocs=3)
