"""Rank script: print this rank's torchrun environment and arguments as one JSON line.

With --init it also joins the process group through env:// and checks the ranks agree.
"""

import json
import os
import sys

KEYS = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
        "GROUP_RANK", "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_NAME", "ROLE_WORLD_SIZE",
        "OMP_NUM_THREADS")
env = {k: v for k, v in os.environ.items()
       if k in KEYS or k.startswith("TORCHELASTIC") or k.startswith("TORCH_")}
report = {"env": env, "argv": sys.argv[1:]}
if "--init" in sys.argv:
    import numtorch as torch
    import numtorch.distributed as dist

    dist.init_process_group(init_method="env://")
    t = torch.tensor([float(dist.get_rank())])
    dist.all_reduce(t)
    report["dist"] = [dist.get_rank(), dist.get_world_size(), t.item(),
                      dist.is_torchelastic_launched()]
    dist.destroy_process_group()
print("REPORT " + json.dumps(report), flush=True)
