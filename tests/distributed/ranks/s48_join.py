"""Session 48 oracle rank program: DDP on uneven inputs through ``Join([ddp], ...)`` and
``ddp.join()`` (values after training, buffers, no_sync inside, throw on early termination,
the Joinable surface), and a few collectives. Run by torch's launcher and by numtorch's
(``numtorch.run``); writes ``{case: result}`` to ``<out>/<tag>_rank<r>.json``."""

import json
import os
import re
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.join import Join
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP

out_dir, tag = sys.argv[1], sys.argv[2]
dist.init_process_group("gloo")
R = dist.get_rank()
results = {}


def case(name, fn):
    try:
        results[name] = ["ok", fn()]
    except Exception as e:  # noqa: BLE001 - class and message are compared
        results[name] = [type(e).__name__, re.sub(r"0x[0-9a-f]+", "0x", str(e))]


def rnd(t):
    return [round(v, 4) for v in t.detach().flatten().tolist()]


def train(steps, ctx, bn=False, nosync_every=0, seed=0):
    torch.manual_seed(seed)
    layers = [nn.Linear(3, 4)] + ([nn.BatchNorm1d(4)] if bn else []) + [nn.Tanh(),
                                                                       nn.Linear(4, 1)]
    m = nn.Sequential(*layers)
    d = DDP(m)
    opt = torch.optim.SGD(d.parameters(), lr=0.1)
    with ctx(d):
        for i in range(steps):
            x = torch.arange(6.).reshape(2, 3) * (R + 1) / (i + 3)
            opt.zero_grad()
            if nosync_every and i % nosync_every == 0:
                with d.no_sync():
                    d(x).pow(2).sum().backward()
            else:
                d(x).pow(2).sum().backward()
            opt.step()
    res = [rnd(p) for p in m.parameters()]
    if bn:
        res += [rnd(m[1].running_mean), rnd(m[1].running_var), m[1].num_batches_tracked.item()]
    return res


def after():
    t = torch.ones(1) * (R + 1)
    dist.all_reduce(t)
    return t.tolist()


few = 2 if R == 0 else 4  # rank 0 runs out first
many = 4 if R == 0 else 2  # rank 1 runs out first
case("ddp_join", lambda: train(few, lambda d: d.join()))
case("ddp_join_rank1_first", lambda: train(many, lambda d: d.join(), seed=1))
case("ddp_join_no_initial_divide",
     lambda: train(few, lambda d: d.join(divide_by_initial_world_size=False)))
case("join_manager", lambda: train(few, lambda d: Join([d])))
case("join_manager_no_initial_divide",
     lambda: train(few, lambda d: Join([d], divide_by_initial_world_size=False)))
case("join_batchnorm", lambda: train(few, lambda d: d.join(), bn=True, seed=2))
case("join_batchnorm_rank1_first", lambda: train(many, lambda d: d.join(), bn=True, seed=3))
case("join_no_sync", lambda: train(few, lambda d: d.join(), nosync_every=2, seed=4))
case("join_even", lambda: train(3, lambda d: d.join(), seed=5))
case("join_disabled_even", lambda: train(3, lambda d: d.join(enable=False), seed=5))
case("join_throw", lambda: train(few, lambda d: d.join(throw_on_early_termination=True)))
case("after_throw", after)


def joinable_surface():
    d = DDP(nn.Linear(1, 1))
    return [type(d.join()).__name__, str(d.join_device), d.join_process_group is dist.group.WORLD]


case("joinable_surface", joinable_surface)


def zero_join(steps, bucket_view=False, grad_as_view=False):
    """DDP + ZeroRedundancyOptimizer in one Join: the joined rank's ZeRO hook steps with the
    gradients of its last own iteration (DDP's shadow backward leaves them)."""
    torch.manual_seed(6)
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    d = DDP(m, gradient_as_bucket_view=grad_as_view)
    opt = ZeroRedundancyOptimizer(d.parameters(), optimizer_class=torch.optim.Adam, lr=0.05,
                                  parameters_as_bucket_view=bucket_view)
    with Join([d, opt]):
        for i in range(steps):
            x = torch.arange(6.).reshape(2, 3) * (R + 1) / (i + 3)
            opt.zero_grad()
            d(x).pow(2).sum().backward()
            opt.step()
    return [rnd(p) for p in m.parameters()] + [rnd(p.grad) for p in m.parameters()]


case("zero_join", lambda: zero_join(few))
case("zero_join_rank1_first", lambda: zero_join(many))
case("zero_join_bucket_view", lambda: zero_join(few, bucket_view=True))
case("zero_join_grad_as_bucket_view", lambda: zero_join(few, grad_as_view=True))


def zero_unconsolidated():
    opt = ZeroRedundancyOptimizer(nn.Linear(2, 2).parameters(), optimizer_class=torch.optim.SGD,
                                  lr=0.1)
    opt.consolidate_state_dict(to=0)
    return sorted(opt.state_dict()) if R == 0 else opt.state_dict()


case("zero_unconsolidated", zero_unconsolidated)


def warned(fn):
    import warnings

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = fn()
    return [res, [(x.category.__name__, str(x.message)) for x in w]]


def all_gather_base():
    out = torch.zeros(4)
    dist._all_gather_base(out, torch.ones(2) * (R + 1))
    return rnd(out)


def reduce_scatter_base():
    out = torch.zeros(2)
    dist._reduce_scatter_base(out, torch.arange(4.) * (R + 1))
    return rnd(out)


def c10d_imports():
    from torch.distributed import distributed_c10d as c10d
    from torch.distributed.distributed_c10d import Work, all_reduce  # noqa: F401

    t = torch.ones(2) * (R + 1)
    c10d.all_reduce(t)
    g = dist.new_group([1, 0])
    return [rnd(t), c10d._get_global_rank(g, 1), c10d._get_group_size(None),
            c10d._get_group_size(g), c10d.Work is dist.Work, c10d.P2POp is dist.P2POp,
            c10d.all_gather_object is dist.all_gather_object]


def object_tensor_roundtrip():
    from torch.distributed import distributed_c10d as c10d

    data, size = c10d._object_to_tensor({"rank": R, "x": [1, 2.5]}, "cpu", None)
    back = c10d._tensor_to_object(data, size, None)
    return [data.dtype == torch.uint8, size.dtype == torch.int64, size.tolist()
            == [data.numel()], back]


case("all_gather_base", lambda: warned(all_gather_base))
case("reduce_scatter_base", lambda: warned(reduce_scatter_base))
case("c10d_imports", c10d_imports)
case("object_tensor_roundtrip", object_tensor_roundtrip)


class _OneUnused(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(2, 2), nn.Linear(2, 2)

    def forward(self, x):
        return self.a(x)


def unused_keeps_failing():
    """Without find_unused_parameters, the unfinished reduction fails every later forward."""
    torch.manual_seed(0)
    d = DDP(_OneUnused())
    out = []
    for _ in range(4):
        try:
            d(torch.ones(1, 2)).sum().backward()
            out.append(rnd(d.module.a.weight.grad))
        except RuntimeError as e:
            out.append(str(e).split(".")[0])
    return out


case("unused_keeps_failing", unused_keeps_failing)


def subgroups(size):
    mine, every = dist.new_subgroups(group_size=size)
    t = torch.ones(1) * (R + 1)
    dist.all_reduce(t, group=mine)
    return [dist.get_rank(mine), dist.get_world_size(mine), len(every), t.tolist()]


case("subgroups_of_one", lambda: subgroups(1))
case("subgroups_of_two", lambda: subgroups(2))
case("subgroups_too_big", lambda: subgroups(3))
case("subgroups_zero", lambda: subgroups(0))
case("recv_object_list_without_src", lambda: dist.recv_object_list([None]))
case("after_all", after)
dist.destroy_process_group()
with open(os.path.join(out_dir, f"{tag}_rank{R}.json"), "w") as f:
    json.dump(results, f)
