"""torch 2.13's side of tests/distributed/test_dcp_ranks.py: the FSDP2 run of dcp_case.py's
``train`` phase on 2 gloo ranks (mp.spawn), saving with torch's dcp into OUT/torch_ckpt.

    python dcp_torch_ranks.py OUT PORT     # writes OUT/torch<rank>.json
"""

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dcp_state as S
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.multiprocessing as mp
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_state_dict,
)
from torch.distributed.device_mesh import init_device_mesh

STEPS = 3


def run(rank, out, port):
    warnings.simplefilter("ignore")
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    mesh = init_device_mesh("cpu", (2,))
    m = S.fsdp_shard(torch, S.fsdp_model(torch), mesh)
    opt = S.fsdp_optimizer(torch, m)
    res = {"losses": S.fsdp_train(torch, m, opt, STEPS, 0, rank, 2)}
    msd, osd = get_state_dict(m, opt)
    dcp.save({"model": msd, "optim": osd, "step": STEPS},
             checkpoint_id=os.path.join(out, "torch_ckpt"))
    full = get_state_dict(m, opt, options=StateDictOptions(full_state_dict=True))
    res["params"] = {k: v.tolist() for k, v in full[0].items()}
    res["exp_avg"] = {k: s["exp_avg"].tolist() for k, s in full[1]["state"].items()}
    res["after"] = S.fsdp_train(torch, m, opt, STEPS, STEPS, rank, 2)
    with open(os.path.join(out, f"torch{rank}.json"), "w") as f:
        json.dump(res, f)
    dist.barrier()  # (gloo aborts a rank that tears down while its peer still talks)
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(run, args=(sys.argv[1], int(sys.argv[2])), nprocs=2)
