"""Rank script: rank 1 fails in the middle of a job in the way argv[1] says.

raise: an uncaught exception; kill: SIGKILL; hang: never reaches the next collective;
exit: ends its program early. Rank 0 must fail within the timeout naming rank 1.
"""

import datetime
import os
import signal
import sys
import time

import numtorch as torch
import numtorch.distributed as dist

mode, timeout = sys.argv[1], float(sys.argv[2])
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout))
rank = dist.get_rank()
dist.all_reduce(torch.ones(2))
if rank == 1:
    time.sleep(0.2)
    if mode == "raise":
        raise ValueError("rank one gives up")
    if mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "hang":
        time.sleep(3 * timeout)
    if mode == "exit":
        sys.exit(0)
start = time.monotonic()
try:
    for _ in range(3):
        dist.all_reduce(torch.ones(100))
except Exception as e:
    print(f"rank {rank} failed after {time.monotonic() - start:.2f} s: {type(e).__name__}: {e}",
          flush=True)
    raise
print(f"rank {rank} finished", flush=True)
