"""A rank program for the launcher-restart test (session 49), run by torch's launcher and by
numtorch's: each start records its environment and an all_reduce result to
``<out>/<tag>_r<restart>_rank<rank>.json``; rank 1 exits with status 5 while the restart
count is below ``fail_below``. Under numtorch the restarted group also runs an all_reduce
(torch's own gloo rendezvous after a restart is slow and flaky on a busy two-core machine, so
torch's run records only its environment); the sum is checked against the ranks' values."""

import datetime
import json
import os
import sys

import torch
import torch.distributed as dist

out, tag, fail_below = sys.argv[1], sys.argv[2], int(sys.argv[3])
KEYS = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "ROLE_RANK",
        "ROLE_WORLD_SIZE", "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS",
        "GROUP_WORLD_SIZE", "ROLE_NAME"]
restart = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
rank = int(os.environ["RANK"])
rec = {"env": {k: os.environ.get(k) for k in KEYS}}
if tag == "numtorch":
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    t = torch.tensor([float(rank + 1 + 10 * restart)])
    dist.all_reduce(t)
    world = int(os.environ["WORLD_SIZE"])
    rec["sum_ok"] = t.item() == sum(r + 1 + 10 * restart for r in range(world))
    dist.destroy_process_group()
with open(os.path.join(out, f"{tag}_r{restart}_rank{rank}.json"), "w") as f:
    json.dump(rec, f)
if rank == 1 and restart < fail_below:
    sys.exit(5)
