"""An unchanged PyTorch DDP program (it says ``import torch``), run on numtorch through
``numtorch-run -m torch.distributed.run``; prints one REPORT line per rank."""

import json

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group(backend="gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = DDP(nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(3, 4) * (rank + 1)
model(x).sum().backward()
opt.step()
w = model.module.weight.detach().clone()
every = [None] * world
dist.all_gather_object(every, w.tolist())
print("REPORT " + json.dumps({"torch": torch.__spec__.name, "rank": rank, "world": world,
                              "same_weights": all(e == every[0] for e in every)}), flush=True)
dist.destroy_process_group()
