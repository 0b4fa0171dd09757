"""Run fsdp_torch_case.run_case under real torch (gloo, 2 processes); numbers to OUT.

python fsdp_torch.py OUT PORT
"""

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(rank, out, port, world):
    import torch
    import torch.distributed as dist
    from fsdp_torch_case import run_case
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    got = run_case(torch, FSDP, rank, world)
    with open(os.path.join(out, f"torch_numbers{rank}.json"), "w") as f:
        json.dump(got, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    import torch.multiprocessing as mp

    mp.spawn(main, args=(sys.argv[1], int(sys.argv[2]), 2), nprocs=2)
