"""Rank script: DistributedDataParallel and SyncBatchNorm against single-process training.

Every rank also trains a single-process reference on the whole batch, so "2 ranks with half
a batch each == 1 process with the whole batch" is checked on each rank.
Run on 2 ranks: mpiexec -n 2 python ddp.py OUT_DIR
"""

import copy
import datetime
import os
import sys

import numpy as np

import numtorch as torch
import numtorch.distributed as dist
import numtorch.nn as nn
import numtorch.nn.functional as F
from numtorch.nn.parallel import DistributedDataParallel as DDP
from _common import Recorder

OUT = sys.argv[1]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
R, N = dist.get_rank(), dist.get_world_size()
rec = Recorder(OUT, R)
TOL = 1e-6
BATCH = 8


class WithUnused(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 8)
        self.unused = nn.Linear(6, 3)
        self.b = nn.Linear(8, 3)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 4, 3)
        self.c2 = nn.Conv2d(4, 6, 3)
        self.fc = nn.Linear(6 * 2 * 2, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


def mlp():
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                         nn.Linear(16, 3))


def bn_model():
    # no bias before the batch norm: its exact gradient is zero and Adam would amplify noise
    return nn.Sequential(nn.Linear(6, 8, bias=False), nn.BatchNorm1d(8), nn.ReLU(),
                         nn.Linear(8, 3))


def batch(step, image=False):
    rng = np.random.default_rng(step)
    shape = (BATCH, 1, 14, 14) if image else (BATCH, 6)
    return (torch.tensor(rng.standard_normal(shape).astype(np.float32)),
            torch.tensor(rng.integers(0, 3, BATCH)))


def optimizer(kind, params):
    if kind == "sgd":
        return torch.optim.SGD(params, lr=0.1, momentum=0.9)
    return torch.optim.Adam(params, lr=0.01)


def max_diff(a, b):
    return max(float((x - y).abs().max()) for x, y in zip(a.values(), b.values())
               if x.dtype.is_floating_point)


def equivalence(make, kind, image=False, sync_bn=False, steps=10, **ddp_kw):
    torch.manual_seed(3)
    ref = make()
    local = copy.deepcopy(ref)
    if R == 1:  # a different start on rank 1: DDP must broadcast rank 0's parameters
        with torch.no_grad():
            for p in local.parameters():
                p.add_(1.0)
    if sync_bn:
        local = nn.SyncBatchNorm.convert_sync_batchnorm(local)
    model = DDP(local, **ddp_kw)
    o_ref, o_ddp = optimizer(kind, ref.parameters()), optimizer(kind, model.parameters())
    per_rank = BATCH // N
    mine = slice(R * per_rank, (R + 1) * per_rank)
    for step in range(steps):
        x, y = batch(step, image)
        o_ref.zero_grad()
        F.cross_entropy(ref(x), y).backward()
        o_ref.step()
        o_ddp.zero_grad()
        F.cross_entropy(model(x[mine]), y[mine]).backward()
        o_ddp.step()
    d = max_diff(ref.state_dict(), model.module.state_dict())
    return None if d <= TOL else f"max difference {d:.3g}"


CASES = {
    "mlp": (mlp, {}),
    "mlp_small_buckets": (mlp, {"bucket_cap_mb": 0.0004}),
    "mlp_grad_as_bucket_view": (mlp, {"gradient_as_bucket_view": True}),
    "unused_param": (WithUnused, {"find_unused_parameters": True}),
    "lenet": (LeNet, {"bucket_cap_mb": 0.001}),
    "batchnorm": (bn_model, {}),
}
for name, (make, kw) in CASES.items():
    for kind in ("sgd", "adam"):
        rec.check(f"ddp_equivalence/{name}/{kind}",
                  lambda: equivalence(make, kind, image=name == "lenet",
                                      sync_bn=name == "batchnorm", **kw))


def unused_without_detection():
    model = DDP(WithUnused())
    x, y = batch(0)
    F.cross_entropy(model(x), y).backward()
    try:
        model(x)
    except RuntimeError as e:
        want = ("Expected to have finished reduction in the prior iteration before starting a "
                "new one.")
        return None if str(e).startswith(want) and "did not receive grad for rank" in str(e) \
            else f"message {e}"
    return "no error for a parameter that got no gradient"


rec.check("ddp/unused_without_find_unused_parameters", unused_without_detection)


def no_sync_accumulation():
    torch.manual_seed(4)
    ref = mlp()
    model = DDP(copy.deepcopy(ref))
    per_rank = BATCH // N
    mine = slice(R * per_rank, (R + 1) * per_rank)
    (x1, y1), (x2, y2) = batch(10), batch(11)
    (F.cross_entropy(ref(x1), y1) + F.cross_entropy(ref(x2), y2)).backward()
    with model.no_sync():
        F.cross_entropy(model(x1[mine]), y1[mine]).backward()
    local = [p.grad.clone() for p in model.parameters()]
    every = [None] * N
    dist.all_gather_object(every, [g.numpy() for g in local])
    if all(np.array_equal(a, b) for a, b in zip(every[0], every[1])):
        return "no_sync gradients were synchronised"
    F.cross_entropy(model(x2[mine]), y2[mine]).backward()
    d = max(float((p.grad - q.grad).abs().max())
            for p, q in zip(ref.parameters(), model.parameters()))
    return None if d <= TOL else f"accumulated gradients differ by {d:.3g}"


rec.check("ddp/no_sync", no_sync_accumulation)


def checkpoint():
    torch.manual_seed(5)
    model = DDP(mlp())
    keys = list(model.state_dict())
    if not all(k.startswith("module.") for k in keys):
        return f"state_dict keys {keys}"
    o = optimizer("sgd", model.parameters())
    x, y = batch(20)
    F.cross_entropy(model(x[R::N]), y[R::N]).backward()
    o.step()
    path = os.path.join(OUT, "ddp.pt")
    if R == 0:
        torch.save(model.state_dict(), path)
        torch.save(model.module.state_dict(), path + ".bare")
    dist.barrier()
    fresh = DDP(mlp())
    fresh.load_state_dict(torch.load(path))
    bare = mlp()
    bare.load_state_dict(torch.load(path + ".bare"))
    for other in (fresh.module.state_dict(), bare.state_dict()):
        d = max_diff(model.module.state_dict(), other)
        if d != 0:
            return f"loaded parameters differ by {d}"
    return None


rec.check("ddp/checkpoint_rank0_load_all", checkpoint)


def buffers(broadcast):
    torch.manual_seed(6)
    net = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4))
    with torch.no_grad():
        net[1].running_mean.fill_(float(R))
    seen = []
    net[1].register_forward_pre_hook(lambda m, i: seen.append(m.running_mean.clone()))
    model = DDP(net, broadcast_buffers=broadcast, init_sync=False)
    model(batch(30)[0])
    every = [None] * N
    dist.all_gather_object(every, seen[0].numpy())
    equal = np.array_equal(every[0], every[1])
    return None if equal == broadcast else f"buffers equal across ranks: {equal}"


def grads_are_bucket_views():
    model = DDP(mlp(), gradient_as_bucket_view=True, static_graph=True)
    opt = optimizer("sgd", model.parameters())
    for step in range(2):  # the second step accumulates into the views in place
        opt.zero_grad(set_to_none=step == 0)
        x, y = batch(70 + step)
        F.cross_entropy(model(x[R::N]), y[R::N]).backward()
        opt.step()
    flats = [b.flat for b in model.reducer.buckets]
    for p in model.parameters():
        if not any(np.shares_memory(p.grad.numpy(), f) for f in flats):
            return "a .grad is not a view into its bucket"
    every = [None] * N
    dist.all_gather_object(every, [p.grad.numpy() for p in model.parameters()])
    same = all(np.array_equal(a, b) for a, b in zip(every[0], every[1]))
    return None if same else "averaged gradients differ across ranks"


rec.check("ddp/gradient_as_bucket_view", grads_are_bucket_views)
rec.check("ddp/broadcast_buffers", lambda: buffers(True))
rec.check("ddp/no_broadcast_buffers", lambda: buffers(False))


def overlap():
    """The first bucket's all-reduce starts before backward reaches the first layer."""
    torch.manual_seed(7)
    model = DDP(mlp(), bucket_cap_mb=0.0001)
    events = []
    launch = model.reducer._launch_ready

    def traced():
        events.append(("launch", model.reducer.next_bucket))
        launch()

    model.reducer._launch_ready = traced
    x, y = batch(40)
    x.requires_grad_(True)
    x.register_hook(lambda g: events.append(("input grad", None)))
    F.cross_entropy(model(x), y).backward()
    first_input = events.index(("input grad", None))
    launched_before = sum(1 for e in events[:first_input] if e[0] == "launch")
    if len(model.reducer.buckets) < 3:
        return f"expected several buckets, got {len(model.reducer.buckets)}"
    return None if launched_before >= 1 else f"events {events}"


rec.check("ddp/overlaps_backward", overlap)


def join_uneven():
    torch.manual_seed(8)
    ref = mlp()
    model = DDP(copy.deepcopy(ref))
    o_ddp = torch.optim.SGD(model.parameters(), lr=0.1)
    o_ref = torch.optim.SGD(ref.parameters(), lr=0.1)
    steps = [3, 5]  # rank 0 runs out of data first
    for step in range(max(steps)):
        x, y = batch(50 + step)
        o_ref.zero_grad()
        total = 0
        for r in range(N):
            if step < steps[r]:
                total = total + F.cross_entropy(ref(x[r::N]), y[r::N])
        (total / N).backward()  # joined ranks add zeros, the average is over all ranks
        o_ref.step()
    with model.join():
        for step in range(steps[R]):
            x, y = batch(50 + step)
            o_ddp.zero_grad()
            F.cross_entropy(model(x[R::N]), y[R::N]).backward()
            o_ddp.step()
    d = max_diff(ref.state_dict(), model.module.state_dict())
    return None if d <= TOL else f"max difference {d:.3g}"


rec.check("ddp/join_uneven_inputs", join_uneven)


def mismatched_models():
    try:
        DDP(nn.Linear(3, 2 + R))
    except RuntimeError as e:
        return None if "DDP expects same model across all ranks" in str(e) else str(e)
    return "no error for different models"


rec.check("ddp/mismatched_models", mismatched_models)

def sampler():
    from numtorch.utils.data import DistributedSampler

    s = DistributedSampler(range(11))  # world size and rank from the process group
    if (s.num_replicas, s.rank, len(s)) != (N, R, 6):
        return f"{s.num_replicas} {s.rank} {len(s)}"
    shards = []
    for epoch in (0, 1):
        s.set_epoch(epoch)
        every = [None] * N
        dist.all_gather_object(every, list(s))
        shards.append(every)
        if set(sum(every, [])) != set(range(11)) or len(sum(every, [])) != 12:
            return f"epoch {epoch}: shards {every} do not cover the data (padded to 12)"
    return None if shards[0] != shards[1] else "set_epoch did not change the shuffle"


rec.check("ddp/distributed_sampler", sampler)

# -- SyncBatchNorm against BatchNorm on the concatenated batch ----------------------------


def sync_bn(cls, shape, affine=True, momentum=0.1, steps=2):
    torch.manual_seed(9)
    c = shape[1]
    ref = cls(c, affine=affine, momentum=momentum)
    if affine:
        with torch.no_grad():
            ref.weight.uniform_(0.5, 1.5)
            ref.bias.uniform_(-0.5, 0.5)
    sbn = nn.SyncBatchNorm.convert_sync_batchnorm(copy.deepcopy(ref))
    if type(sbn) is not nn.SyncBatchNorm:
        return f"converted to {type(sbn).__name__}"
    per = shape[0] // N
    for step in range(steps):
        rng = np.random.default_rng(60 + step)
        full = torch.tensor(rng.standard_normal(shape).astype(np.float32) * 3 + 1)
        cot = torch.tensor(rng.standard_normal(shape).astype(np.float32))
        x_ref = full.clone().requires_grad_(True)
        out_ref = ref(x_ref)
        (out_ref * cot).sum().backward()
        x = full[R * per:(R + 1) * per].clone().requires_grad_(True)
        out = sbn(x)
        (out * cot[R * per:(R + 1) * per]).sum().backward()
        checks = {"output": (out, out_ref[R * per:(R + 1) * per]),
                  "input grad": (x.grad, x_ref.grad[R * per:(R + 1) * per])}
        for what, (a, b) in checks.items():
            d = float((a - b).abs().max())
            if d > 1e-5:
                return f"step {step}: {what} differs by {d:.3g}"
    if affine:  # weight/bias gradients are per rank; their sum is the whole batch's
        for p, q in ((sbn.weight, ref.weight), (sbn.bias, ref.bias)):
            g = p.grad.clone()
            dist.all_reduce(g)
            d = float((g - q.grad).abs().max())
            if d > 1e-4:
                return f"parameter gradient differs by {d:.3g}"
    for buf in ("running_mean", "running_var", "num_batches_tracked"):
        d = float((getattr(sbn, buf).double() - getattr(ref, buf).double()).abs().max())
        if d > 1e-5:
            return f"{buf} differs by {d:.3g}"
    sbn.eval()
    ref.eval()
    x = torch.randn(shape)
    d = float((sbn(x) - ref(x)).abs().max())
    return None if d <= 1e-5 else f"eval output differs by {d:.3g}"


rec.check("syncbn/bn1d_2d", lambda: sync_bn(nn.BatchNorm1d, (8, 5)))
rec.check("syncbn/bn1d_3d", lambda: sync_bn(nn.BatchNorm1d, (6, 3, 7)))
rec.check("syncbn/bn2d", lambda: sync_bn(nn.BatchNorm2d, (4, 3, 5, 5)))
rec.check("syncbn/bn3d_no_affine", lambda: sync_bn(nn.BatchNorm3d, (4, 2, 3, 3, 2),
                                                   affine=False))
rec.check("syncbn/cumulative_momentum", lambda: sync_bn(nn.BatchNorm1d, (8, 4), momentum=None,
                                                        steps=3))
rec.check("syncbn/one_sample_per_rank", lambda: sync_bn(nn.BatchNorm1d, (2, 4)))
dist.destroy_process_group()
rec.save()
