"""Run as `-m userpkg.cli METHOD`: children started with METHOD re-import this module by name."""
import multiprocessing
import sys

import torch
import torch.nn.functional as F


def child(rank, queue):
    queue.put((rank, __name__, float(F.relu(torch.tensor([-1.0, rank + 0.5])).sum())))


if __name__ == "__main__":
    print("main:", __name__, __spec__.name, __package__, sys.argv[1:],
          sys.argv[0].endswith("cli.py"))
    multiprocessing.set_start_method(sys.argv[1])
    queue = multiprocessing.SimpleQueue()
    procs = [multiprocessing.Process(target=child, args=(i, queue)) for i in range(1)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    print("children:", sorted(queue.get() for _ in procs))
    sys.exit(3)
