"""Rank script (2 ranks): rank 0 destroys its group and ends while rank 1 waits for it in an
all_reduce. Under torch's gloo rank 1's wait fails at once (connection reset); the job must
not hang. Rank 1 writes what it caught to ``OUT/<tag>_peer_left.json``.

python -m torch.distributed.run --standalone --nproc-per-node=2 s47_peer_left.py OUT TAG
"""

import datetime
import json
import os
import sys
import time

import torch
import torch.distributed as dist

OUT, TAG = sys.argv[1], sys.argv[2]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=300))
rank = dist.get_rank()
if rank == 1:
    start = time.monotonic()
    try:
        dist.all_reduce(torch.ones(1))
        got = {"raised": None}
    except Exception as e:  # noqa: BLE001  (what torch raises is compared)
        got = {"raised": type(e).__name__, "is_runtime_error": isinstance(e, RuntimeError),
               "is_dist_error": isinstance(e, dist.DistError)}
    got["seconds"] = time.monotonic() - start
    with open(os.path.join(OUT, f"{TAG}_peer_left.json"), "w") as f:
        json.dump(got, f)
dist.destroy_process_group()
