"""Session 49 oracle rank program: ``Work.wait(timeout=...)`` on an all_reduce whose peer
arrives late. torch raises RuntimeError("Operation timed out!") and leaves the operation
pending: a later ``wait()`` completes it and the group stays usable. Run by torch's launcher
and by numtorch's; writes the events of each rank to ``<out>/<tag>_rank<r>.json``."""

import datetime
import json
import os
import sys
import time

import torch
import torch.distributed as dist

out_dir, tag = sys.argv[1], sys.argv[2]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
R = dist.get_rank()
events = []
t = torch.ones(3) * (R + 1)
if R == 1:
    time.sleep(2.5)
    dist.all_reduce(t)
    events.append(["done", t.tolist()])
else:
    work = dist.all_reduce(t, async_op=True)
    for _ in range(2):
        try:
            work.wait(timeout=datetime.timedelta(seconds=0.5))
            events.append(["waited"])
        except Exception as e:  # noqa: BLE001 - class and message are compared
            events.append([type(e).__name__, str(e)])
    events.append(["final", work.wait(), t.tolist(), work.is_completed()])
nxt = torch.ones(2) * (R + 1)
dist.all_reduce(nxt)
events.append(["next", nxt.tolist()])
with open(os.path.join(out_dir, f"{tag}_rank{R}.json"), "w") as f:
    json.dump(events, f)
dist.destroy_process_group()
