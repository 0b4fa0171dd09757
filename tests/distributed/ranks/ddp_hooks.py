"""Rank script: DDP communication hooks (register_comm_hook, the stock default_hooks,
GradBucket) against single-process training on the whole batch.
Run on 2 ranks: mpiexec -n 2 python ddp_hooks.py OUT_DIR
"""

import copy
import datetime
import sys

import numtorch as torch
import numtorch.distributed as dist
import numtorch.nn as nn
import numtorch.nn.functional as F
from numtorch.distributed.algorithms.ddp_comm_hooks import (DDPCommHookType, default_hooks,
                                                            register_ddp_comm_hook)
from numtorch.nn.parallel import DistributedDataParallel as DDP
from _common import Recorder

OUT = sys.argv[1]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
R, N = dist.get_rank(), dist.get_world_size()
rec = Recorder(OUT, R)
BATCH = 8


def mlp():
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                         nn.Linear(16, 3))


def batch(step):
    g = torch.Generator().manual_seed(100 + step)
    return torch.randn(BATCH, 6, generator=g), torch.randint(0, 3, (BATCH,), generator=g)


def train(register, tol, steps=5, **ddp_kw):
    torch.manual_seed(3)
    ref = mlp()
    model = DDP(copy.deepcopy(ref), **ddp_kw)
    register(model)
    o_ref = torch.optim.SGD(ref.parameters(), lr=0.1)
    o_ddp = torch.optim.SGD(model.parameters(), lr=0.1)
    per = BATCH // N
    for step in range(steps):
        x, y = batch(step)
        o_ref.zero_grad()
        F.cross_entropy(ref(x), y).backward()
        o_ref.step()
        o_ddp.zero_grad()
        F.cross_entropy(model(x[R * per:(R + 1) * per]), y[R * per:(R + 1) * per]).backward()
        o_ddp.step()
    d = max(float((a - b).abs().max()) for a, b in zip(ref.parameters(), model.parameters()))
    return None if d <= tol else f"max difference {d:.3g}"


for name, reg, tol in [
    ("allreduce_hook", lambda m: m.register_comm_hook(None, default_hooks.allreduce_hook), 1e-6),
    ("allreduce_hook_small_buckets",
     lambda m: m.register_comm_hook(None, default_hooks.allreduce_hook), 1e-6),
    ("fp16_compress", lambda m: m.register_comm_hook(None, default_hooks.fp16_compress_hook),
     2e-3),
    ("bf16_compress", lambda m: m.register_comm_hook(None, default_hooks.bf16_compress_hook),
     2e-2),
    ("fp16_wrapper_of_allreduce", lambda m: m.register_comm_hook(
        None, default_hooks.fp16_compress_wrapper(default_hooks.allreduce_hook)), 2e-3),
    ("builtin_type", lambda m: register_ddp_comm_hook(DDPCommHookType.ALLREDUCE, m), 1e-6),
    ("private_builtin", lambda m: m._register_builtin_comm_hook(
        dist.BuiltinCommHookType.FP16_COMPRESS), 2e-3),
]:
    kw = {"bucket_cap_mb": 0.0004} if "small" in name else {}
    rec.check(f"hooks/{name}", lambda reg=reg, tol=tol, kw=kw: train(reg, tol, **kw))
rec.check("hooks/grad_as_bucket_view", lambda: train(
    lambda m: m.register_comm_hook(None, default_hooks.allreduce_hook), 1e-6,
    gradient_as_bucket_view=True))


def bucket_facts():
    seen = []

    def hook(state, bucket):
        seen.append((state, bucket.index(), bucket.is_last(), len(bucket.parameters()),
                     sum(g.numel() for g in bucket.gradients()), bucket.buffer().numel()))
        fut = torch.futures.Future()
        fut.set_result(bucket.buffer())  # no communication: each rank keeps its own grads
        return fut

    torch.manual_seed(3)
    model = DDP(mlp(), bucket_cap_mb=0.0004)
    model.register_comm_hook("my state", hook)
    x, y = batch(0)
    F.cross_entropy(model(x[R::N]), y[R::N]).backward()
    if not seen or seen[0][0] != "my state":
        return f"hook not called with the state: {seen}"
    if [s[1] for s in seen] != list(range(len(seen))) or not seen[-1][2] or any(
            s[2] for s in seen[:-1]):
        return f"bucket order / is_last wrong: {seen}"
    if any(s[4] != s[5] for s in seen) or sum(s[3] for s in seen) != 6:
        return f"bucket contents wrong: {seen}"
    # the hook did not communicate: this rank's gradient is its own half batch's
    ref = copy.deepcopy(model.module)
    for p in ref.parameters():
        p.grad = None
    F.cross_entropy(ref(x[R::N]), y[R::N]).backward()
    d = max(float((a.grad - b.grad).abs().max())
            for a, b in zip(model.module.parameters(), ref.parameters()))
    return None if d <= 1e-6 else f"gradients changed by {d:.3g}"


rec.check("hooks/bucket_facts", bucket_facts)


def twice():
    model = DDP(mlp())
    model.register_comm_hook(None, default_hooks.allreduce_hook)
    model.register_comm_hook(None, default_hooks.allreduce_hook)


rec.raises("hooks/register_twice", twice, RuntimeError,
           ("register_comm_hook or register_builtin_comm_hook can only be called once.",))
rec.raises("hooks/not_callable", lambda: DDP(mlp()).register_comm_hook(None, 3), TypeError,
           ("Communication hook must be callable",))
dist.destroy_process_group()
rec.save()
