"""Session 49 oracle rank program: DistributedDataParallel's flags on a model with a branch
some forwards skip (static_graph with unused parameters, find_unused_parameters with
rank-dependent use, no_sync accumulation with an unfinished reduction, two forwards before
one backward, tiny buckets as views, static_graph under activation checkpointing). Run by torch's launcher and by numtorch's
(``numtorch.run``); writes ``{case: gradient and parameter sums, or the exception}`` to
``<out>/<tag>_rank<r>.json``."""

import json
import os
import re
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint

out_dir, tag = sys.argv[1], sys.argv[2]
dist.init_process_group("gloo")
R = dist.get_rank()
results = {}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 4)
        self.b = nn.Linear(4, 2)
        self.c = nn.Linear(4, 2)  # used only when the forward asks for it
        self.frozen = nn.Linear(2, 2)
        self.frozen.requires_grad_(False)

    def forward(self, x, use_c=False, branch_rank=None):
        h = torch.relu(self.a(x))
        out = self.b(h)
        if use_c or (branch_rank is not None and R == branch_rank):
            out = out + self.c(h)
        return self.frozen(out)


def data(step):
    return torch.randn(5, 3, generator=torch.Generator().manual_seed(step * 10 + R))


def sums(m):
    return [None if p.grad is None else round(p.grad.sum().item(), 4) for p in m.parameters()]


def train(fwd_kw=None, accumulate=0, two_fwd=False, graph_across_no_sync=False, **kw):
    torch.manual_seed(0)
    m = DDP(Net(), **kw)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    out = {}
    try:
        for s in range(3):
            opt.zero_grad(set_to_none=False)
            fk = fwd_kw(s) if fwd_kw else {}
            if accumulate:
                with m.no_sync():
                    for k in range(accumulate):
                        m(data(s * 7 + k + 100), **fk).sum().backward()
            if graph_across_no_sync:  # one backward over a no_sync forward and a synced one
                with m.no_sync():
                    first = m(data(s + 70), **fk).sum()
                loss = first + m(data(s), **fk).sum()
            elif two_fwd:
                loss = m(data(s), **fk).sum() + m(data(s + 50), **fk).sum()
            else:
                loss = m(data(s), **fk).sum()
            loss.backward()
            out[f"grads{s}"] = sums(m)
            opt.step()
        out["params"] = [round(p.sum().item(), 4) for p in m.parameters()]
    except Exception as e:  # noqa: BLE001 - class and message are compared
        out["error"] = [type(e).__name__, re.sub(r"\s+", " ", str(e))]
    return out


CASES = {
    "plain_unused_fails": {},
    "find_unused": {"find_unused_parameters": True},
    "find_unused_sometimes": {"find_unused_parameters": True,
                              "fwd_kw": lambda s: {"use_c": s == 1}},
    "find_unused_rank_dependent": {"find_unused_parameters": True,
                                   "fwd_kw": lambda s: {"branch_rank": 1}},
    "static_graph_unused": {"static_graph": True},
    "static_graph_rank_dependent": {"static_graph": True,
                                    "fwd_kw": lambda s: {"branch_rank": 1}},
    "static_graph_bucket_view": {"static_graph": True, "gradient_as_bucket_view": True},
    "find_unused_view_no_sync": {"find_unused_parameters": True,
                                 "gradient_as_bucket_view": True, "accumulate": 2},
    "no_sync_unfinished_fails": {"accumulate": 2},
    "no_sync_all_used": {"accumulate": 2, "fwd_kw": lambda s: {"use_c": True}},
    "two_forwards_fail": {"two_fwd": True},
    "two_forwards_all_used": {"two_fwd": True, "fwd_kw": lambda s: {"use_c": True}},
    "two_forwards_static": {"two_fwd": True, "static_graph": True},
    "two_forwards_find_unused": {"two_fwd": True, "find_unused_parameters": True},
    "graph_across_no_sync": {"graph_across_no_sync": True,
                             "fwd_kw": lambda s: {"use_c": True}},
    "tiny_buckets_as_views": {"bucket_cap_mb": 0.00001, "gradient_as_bucket_view": True,
                              "find_unused_parameters": True,
                              "fwd_kw": lambda s: {"use_c": s != 1}},
}
class Checkpointed(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = nn.Linear(3, 1)

    def forward(self, x, reentrant, twice):
        x = checkpoint(self.a, x, use_reentrant=reentrant)
        if twice:  # the same layer again: its gradient arrives twice in one backward
            x = checkpoint(self.a, x, use_reentrant=reentrant)
        return self.b(x)


def checkpointed(reentrant, twice, **kw):
    torch.manual_seed(0)
    m = DDP(Checkpointed(), **kw)
    out = {}
    try:
        for s in range(3):
            m.zero_grad()
            x = data(s).requires_grad_()
            m(x, reentrant, twice).sum().backward()
            out[f"grads{s}"] = sums(m)
    except Exception as e:  # noqa: BLE001 - class and message are compared
        out["error"] = [type(e).__name__, re.sub(r"\s+", " ", str(e))]
    return out


for name, args in {"checkpoint_reentrant": (True, False, False),
                   "checkpoint_reentrant_static": (True, False, True),
                   "checkpoint_reentrant_twice_static": (True, True, True),
                   "checkpoint_twice_static": (False, True, True),
                   "checkpoint_twice": (False, True, False)}.items():
    results[name] = checkpointed(args[0], args[1], static_graph=args[2])
    dist.barrier()
for name, kw in CASES.items():
    results[name] = train(**kw)
    dist.barrier()  # a failed case leaves no collective behind for the next one

with open(os.path.join(out_dir, f"{tag}_rank{R}.json"), "w") as f:
    json.dump(results, f)
dist.destroy_process_group()
