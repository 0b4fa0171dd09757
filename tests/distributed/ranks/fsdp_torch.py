"""Run fsdp_torch_case.run_case in 2 processes started by mp.spawn (gloo); numbers to OUT.

python fsdp_torch.py OUT PORT [torch|numtorch]

With torch (the default) it writes the reference numbers (torch_numbers<r>.json; the
committed fsdp_torch_numbers.json holds them); with numtorch the same program runs on
numtorch's socket transport (numbers<r>.json), which the test compares with them.
"""

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(rank, out, port, world, lib):
    if lib == "torch":
        import torch
        import torch.distributed as dist
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

        torch.set_num_threads(1)
        name = f"torch_numbers{rank}.json"
    else:
        import numtorch as torch
        import numtorch.distributed as dist
        from numtorch.distributed.fsdp import FullyShardedDataParallel as FSDP

        name = f"numbers{rank}.json"
    from fsdp_torch_case import run_case

    warnings.simplefilter("ignore")
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    got = run_case(torch, FSDP, rank, world)
    with open(os.path.join(out, name), "w") as f:
        json.dump(got, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    lib = sys.argv[3] if len(sys.argv) > 3 else "torch"
    if lib == "torch":
        import torch.multiprocessing as mp
    else:
        import numtorch.multiprocessing as mp
    mp.spawn(main, args=(sys.argv[1], int(sys.argv[2]), 2, lib), nprocs=2)
