"""A rank program for the launcher early-exit test (session 49), run by torch's launcher and
by numtorch's. Rank 1 ends before init_process_group while rank 0 sits in it:

- ``exit0``: rank 1 exits 0; rank 0 (timeout 2 s) records what init_process_group raised
  to ``<out>/<tag>_exit0.json``;
- ``fail``: rank 1 exits with status 3; rank 0 waits in init (timeout 120 s) until the
  launcher stops it;
- ``restart``: as ``fail`` on the first start; after a restart both ranks record the start
  (under numtorch after an all_reduce; torch's gloo rendezvous after a restart is slow on a
  busy machine) to ``<out>/<tag>_restart_rank<rank>.json``.
"""

import datetime
import json
import os
import sys

import torch
import torch.distributed as dist

out, tag, mode = sys.argv[1], sys.argv[2], sys.argv[3]
rank = int(os.environ["RANK"])
restart = int(os.environ["TORCHELASTIC_RESTART_COUNT"])

if mode == "restart" and restart > 0:
    rec = {"restart": restart, "world": os.environ["WORLD_SIZE"]}
    if tag == "numtorch":
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
        t = torch.tensor([rank + 1.0])
        dist.all_reduce(t)
        rec["sum"] = t.item()
        dist.destroy_process_group()
    with open(os.path.join(out, f"{tag}_restart_rank{rank}.json"), "w") as f:
        json.dump(rec, f)
    sys.exit(0)

if rank == 1:
    os._exit(0 if mode == "exit0" else 3)

seconds = 2 if mode == "exit0" else 120
try:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=seconds))
    got = {"raised": None}
except Exception as e:  # noqa: BLE001  (what it raised is the result)
    got = {"raised": type(e).__name__, "message": str(e)}
with open(os.path.join(out, f"{tag}_{mode}.json"), "w") as f:
    json.dump(got, f)
