"""Rank script: FullyShardedDataParallel against single-process training on the whole batch.

Every rank also trains a plain reference model on the whole batch; FSDP's ranks each see
half of it. Run on 2 ranks: python -m numtorch.distributed.run --nproc-per-node 2 fsdp.py OUT
"""

import datetime
import functools
import json
import os
import sys
import warnings

import numpy as np
from _common import Recorder

import numtorch as torch
import numtorch.distributed as dist
import numtorch.nn.functional as F
from numtorch import nn
from numtorch.distributed.fsdp import (
    BackwardPrefetch,
    CPUOffload,
    FullStateDictConfig,
    MixedPrecision,
    ShardingStrategy,
    StateDictType,
)
from numtorch.distributed.fsdp import FullyShardedDataParallel as FSDP
from numtorch.distributed.fsdp.wrap import (
    ModuleWrapPolicy,
    size_based_auto_wrap_policy,
    transformer_auto_wrap_policy,
)

OUT = sys.argv[1]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
R, N = dist.get_rank(), dist.get_world_size()
rec = Recorder(OUT, R)
warnings.simplefilter("ignore")
BATCH = 8
STEPS = 3
TOL = 2e-6


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 15), nn.Tanh(),
                         nn.Linear(15, 3))


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.emb = nn.Embedding(11, 16)
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(16, 11)

    def forward(self, x):
        return self.head(self.enc(self.emb(x)))


def batch(step, kind):
    rng = np.random.default_rng(step)
    if kind == "transformer":
        x = rng.integers(0, 11, (BATCH, 5))
        return torch.tensor(x), torch.tensor(rng.integers(0, 11, (BATCH, 5)))
    return (torch.tensor(rng.standard_normal((BATCH, 6)).astype(np.float32)),
            torch.tensor(rng.integers(0, 3, BATCH)))


def loss_of(model, x, y, kind):
    out = model(x)
    if kind == "transformer":
        return F.cross_entropy(out.reshape(-1, 11), y.reshape(-1))
    return F.cross_entropy(out, y)


def half(t):
    n = t.shape[0] // N
    return t[R * n:(R + 1) * n]


def optimizer(kind, params):
    if kind == "sgd":
        return torch.optim.SGD(params, lr=0.1, momentum=0.9)
    return torch.optim.AdamW(params, lr=0.01)


def full_params(model):
    with FSDP.summon_full_params(model, writeback=False):
        return {n: p.detach().clone() for n, p in model.named_parameters()}


def max_diff(a, b):
    assert list(a) == list(b), (list(a), list(b))
    return max(float((a[k].float() - b[k].float()).abs().max()) for k in a)


def train_case(kind, strategy, opt_kind, wrap, use_orig=False, clip=None, mp=None, tol=TOL):
    build = TinyTransformer if kind == "transformer" else mlp
    ref = build()
    policy = None
    if wrap == "module":
        policy = ModuleWrapPolicy({nn.Linear})
    elif wrap == "transformer":
        policy = functools.partial(transformer_auto_wrap_policy,
                                   transformer_layer_cls={nn.TransformerEncoderLayer})
    elif wrap == "size":
        policy = functools.partial(size_based_auto_wrap_policy, min_num_params=100)
    model = FSDP(build(), sharding_strategy=strategy, auto_wrap_policy=policy,
                 use_orig_params=use_orig, mixed_precision=mp,
                 backward_prefetch=BackwardPrefetch.BACKWARD_POST, cpu_offload=CPUOffload())
    opt_ref = optimizer(opt_kind, ref.parameters())
    opt = optimizer(opt_kind, model.parameters())
    for step in range(STEPS):
        x, y = batch(step, kind)
        opt_ref.zero_grad()
        lr_ = loss_of(ref, x, y, kind)
        lr_.backward()
        opt.zero_grad()
        lf = loss_of(model, half(x), half(y), kind)
        lf.backward()
        if clip is not None:
            n_ref = torch.nn.utils.clip_grad_norm_(ref.parameters(), clip)
            n_fsdp = model.clip_grad_norm_(clip)
            if abs(float(n_ref) - float(n_fsdp)) > 1e-5:
                return f"step {step}: total norm {float(n_fsdp)} vs {float(n_ref)}"
        opt_ref.step()
        opt.step()
        mean = lf.detach().clone()
        dist.all_reduce(mean)
        mean = float(mean) / N
        if abs(mean - float(lr_)) > 1e-5:
            return f"step {step}: loss {mean} vs {float(lr_)}"
    d = max_diff(full_params(model), dict(ref.named_parameters()))
    return None if d < tol else f"final parameters differ by {d}"


for kind, wrap in (("mlp", None), ("mlp", "module"), ("transformer", "transformer")):
    for strategy in (ShardingStrategy.FULL_SHARD, ShardingStrategy.SHARD_GRAD_OP,
                     ShardingStrategy.NO_SHARD):
        for opt_kind in ("sgd", "adamw"):
            if kind == "transformer" and opt_kind == "adamw":
                # Adam turns the float noise of gradients that are exactly zero in theory
                # (the key bias under softmax) into whole steps: compare with SGD
                continue
            rec.check(f"train_{kind}_{wrap}_{strategy.name}_{opt_kind}",
                      lambda k=kind, s=strategy, o=opt_kind, w=wrap: train_case(k, s, o, w))
rec.check("train_mlp_size_policy", lambda: train_case("mlp", ShardingStrategy.FULL_SHARD,
                                                      "sgd", "size"))
rec.check("train_mlp_orig_params", lambda: train_case("mlp", ShardingStrategy.FULL_SHARD,
                                                      "adamw", "module", use_orig=True))
rec.check("train_transformer_orig_params", lambda: train_case(
    "transformer", ShardingStrategy.FULL_SHARD, "sgd", "transformer", use_orig=True))
rec.check("train_mlp_clip", lambda: train_case("mlp", ShardingStrategy.FULL_SHARD, "sgd",
                                               "module", clip=0.05))
rec.check("train_mlp_clip_orig", lambda: train_case("mlp", ShardingStrategy.FULL_SHARD,
                                                    "sgd", "module", use_orig=True,
                                                    clip=0.05))
rec.check("train_mlp_mixed_precision_reduce", lambda: train_case(
    "mlp", ShardingStrategy.FULL_SHARD, "sgd", "module",
    mp=MixedPrecision(reduce_dtype=torch.float64)))


def wrapped_mlp(**kw):
    return FSDP(mlp(), auto_wrap_policy=ModuleWrapPolicy({nn.Linear}), **kw)


def case_no_sync():
    ref, model = mlp(), wrapped_mlp()
    x, y = batch(0, "mlp")
    loss_of(ref, x, y, "mlp").backward()
    q = BATCH // N // 2
    xs, ys = half(x), half(y)
    with model.no_sync():
        (loss_of(model, xs[:q], ys[:q], "mlp") / 2).backward()
    for n, p in model.named_parameters():
        if p.grad is not None:
            return f"{n} has a gradient inside no_sync"
    (loss_of(model, xs[q:], ys[q:], "mlp") / 2).backward()
    with FSDP.summon_full_params(model, with_grads=True):
        got = {n: p.grad.clone() for n, p in model.named_parameters()}
    want = {n: p.grad for n, p in ref.named_parameters()}
    d = max_diff(got, want)
    return None if d < 1e-6 else f"gradients differ by {d}"


def case_full_state_dict():
    model = wrapped_mlp()
    x, y = batch(3, "mlp")
    loss_of(model, half(x), half(y), "mlp").backward()
    torch.optim.SGD(model.parameters(), lr=0.5).step()
    sd = model.state_dict()
    plain = mlp()
    plain.load_state_dict(sd)
    want = full_params(model)
    if list(sd) != list(plain.state_dict()):
        return f"keys {list(sd)}"
    d = max_diff(dict(plain.named_parameters()), want)
    if d:
        return f"loaded values differ by {d}"
    out_model = model(x)
    out_plain = plain(x)
    d = float((out_model - out_plain).abs().max())
    if d > 1e-6:
        return f"outputs differ by {d}"
    # and back: a plain state dict loads into a fresh FSDP model
    fresh = FSDP(nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 15), nn.Tanh(),
                               nn.Linear(15, 3)),
                 auto_wrap_policy=ModuleWrapPolicy({nn.Linear}))
    fresh.load_state_dict(plain.state_dict())
    d = max_diff(full_params(fresh), want)
    if d:
        return f"reloaded values differ by {d}"
    cfg = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, cfg):
        sd0 = model.state_dict()
    if R == 0 and list(sd0) != list(sd):
        return f"rank0_only keys {list(sd0)}"
    if R != 0 and sd0:
        return f"rank0_only gave rank {R} {list(sd0)}"


def case_sharded_state_dict():
    model = wrapped_mlp()
    x, y = batch(4, "mlp")
    loss_of(model, half(x), half(y), "mlp").backward()
    torch.optim.SGD(model.parameters(), lr=0.5).step()
    want = full_params(model)
    with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT):
        sd = model.state_dict()
    w = sd["0.weight"]
    if tuple(w.size()) != (16, 6) or tuple(w.local_tensor().shape) != (8, 6):
        return f"0.weight: {w}"
    if w.metadata().shards_metadata[1].shard_offsets != [8, 0]:
        return f"offsets {w.metadata()}"
    path = os.path.join(OUT, f"sharded{R}.pt")
    torch.save(sd, path)
    torch.manual_seed(123)
    fresh = FSDP(nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 15), nn.Tanh(),
                               nn.Linear(15, 3)),
                 auto_wrap_policy=ModuleWrapPolicy({nn.Linear}))
    with FSDP.state_dict_type(fresh, StateDictType.SHARDED_STATE_DICT):
        fresh.load_state_dict(torch.load(path, weights_only=False))
    d = max_diff(full_params(fresh), want)
    return None if d == 0 else f"after the round trip parameters differ by {d}"


def case_local_state_dict():
    model = wrapped_mlp()
    want = full_params(model)
    with FSDP.state_dict_type(model, StateDictType.LOCAL_STATE_DICT):
        sd = model.state_dict()
    if list(sd) != ["0._flat_param", "2._flat_param", "4._flat_param"]:
        return f"keys {list(sd)}"
    sizes = [m.shard_sizes for m in sd["2._flat_param"].metadata().shards_metadata]
    if sizes != [[128], [127]]:  # 16 * 15 + 15 = 255 unpadded
        return f"shard sizes {sizes}"
    torch.manual_seed(7)
    fresh = wrapped_mlp()
    for p in fresh.parameters():
        p.data.zero_()
    with FSDP.state_dict_type(fresh, StateDictType.LOCAL_STATE_DICT):
        fresh.load_state_dict(sd)
    d = max_diff(full_params(fresh), want)
    return None if d == 0 else f"parameters differ by {d}"


def case_names_and_shapes():
    model = wrapped_mlp()
    names = [(n, tuple(p.shape)) for n, p in model.named_parameters()]
    want = [("_fsdp_wrapped_module.0._fsdp_wrapped_module._flat_param", (56,)),
            ("_fsdp_wrapped_module.2._fsdp_wrapped_module._flat_param", (128,)),
            ("_fsdp_wrapped_module.4._fsdp_wrapped_module._flat_param", (24,))]
    if names != want:
        return f"{names}"
    if not isinstance(model.module, nn.Sequential) or model.module is not model._fsdp_wrapped_module:
        return "module attribute"
    if not isinstance(model.module[0], FSDP) or model.sharding_strategy != \
            ShardingStrategy.FULL_SHARD:
        return "nested unit"
    text = repr(model)
    if "(_fsdp_wrapped_module): Sequential(" not in text or \
            "(0): FullyShardedDataParallel(" not in text:
        return text
    orig = FSDP(mlp(), use_orig_params=True)
    got = [(n, tuple(p.shape)) for n, p in orig.named_parameters()]
    # with use_orig_params every parameter starts 16-byte aligned: 0.weight at 0, 0.bias
    # at 96, 2.weight at 112, 2.bias at 352, 4.weight at 368, 4.bias at 416 -> 420 padded
    want0 = [("_fsdp_wrapped_module.0.weight", (96,)), ("_fsdp_wrapped_module.0.bias", (16,)),
             ("_fsdp_wrapped_module.2.weight", (98,)), ("_fsdp_wrapped_module.2.bias", (0,)),
             ("_fsdp_wrapped_module.4.weight", (0,)), ("_fsdp_wrapped_module.4.bias", (0,))]
    want1 = [("_fsdp_wrapped_module.0.weight", (0,)), ("_fsdp_wrapped_module.0.bias", (0,)),
             ("_fsdp_wrapped_module.2.weight", (142,)), ("_fsdp_wrapped_module.2.bias", (15,)),
             ("_fsdp_wrapped_module.4.weight", (45,)), ("_fsdp_wrapped_module.4.bias", (3,))]
    if got != (want0 if R == 0 else want1):
        return f"use_orig_params names {got}"
    with FSDP.summon_full_params(orig):
        got = [(n, tuple(p.shape)) for n, p in orig.named_parameters()]
    if got != [(n, tuple(p.shape)) for n, p in mlp().named_parameters()]:
        return f"summoned names {got}"


def case_summon_writeback():
    model = wrapped_mlp()
    with FSDP.summon_full_params(model):
        for p in model.parameters():
            p.data.fill_(0.5)
    x, _ = batch(0, "mlp")
    plain = mlp()
    for p in plain.parameters():
        p.data.fill_(0.5)
    d = float((model(x) - plain(x)).abs().max())
    return None if d < 1e-6 else f"outputs differ by {d}"


def case_eval_no_grad():
    model = wrapped_mlp()
    ref = mlp()
    x, _ = batch(1, "mlp")
    with torch.no_grad():
        a, b = model(x), ref(x)
    d = float((a - b).abs().max())
    return None if d < 1e-6 else f"outputs differ by {d}"


def case_sync_module_states():
    torch.manual_seed(R)  # different on each rank
    m = nn.Linear(4, 3)
    model = FSDP(m, sync_module_states=True)
    got = full_params(model)
    every = [None] * N
    dist.all_gather_object(every, {k: v.tolist() for k, v in got.items()})
    return None if every[0] == every[-1] else "ranks differ after sync_module_states"


def case_frees_after_forward():
    """FULL_SHARD: an inner unit's gathered parameters are released after its forward
    (nothing keeps them: autograd saved tokens) and gathered again for backward."""
    import weakref

    model, ref = wrapped_mlp(), mlp()
    seen = []
    for unit in (model.module[0], model.module[2], model.module[4]):
        unit.module.register_forward_hook(
            lambda mod, i, o, u=unit: seen.append(weakref.ref(u._handle.full_arr)))
    calls = []
    real = dist.all_gather_single
    dist.all_gather_single = lambda *a, **k: (calls.append(1), real(*a, **k))[1]
    try:
        x, y = batch(2, "mlp")
        loss = loss_of(model, half(x), half(y), "mlp")
        alive = [w() is not None for w in seen]
        n_fwd = len(calls)
        loss.backward()
        n_bwd = len(calls) - n_fwd
    finally:
        dist.all_gather_single = real
    if any(alive) or n_fwd != 3 or n_bwd != 3:
        return f"alive after forward {alive}, gathers forward {n_fwd}, backward {n_bwd}"
    loss_of(ref, x, y, "mlp").backward()
    with FSDP.summon_full_params(model, with_grads=True):
        got = {n: p.grad.clone() for n, p in model.named_parameters()}
    d = max_diff(got, {n: p.grad for n, p in ref.named_parameters()})
    return None if d < 1e-6 else f"gradients differ by {d}"


def case_mixed_precision_param_dtype():
    ref = mlp()
    mp = MixedPrecision(param_dtype=torch.float64, reduce_dtype=torch.float64)
    model = wrapped_mlp(mixed_precision=mp)
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (ref, model)]
    for step in range(STEPS):
        x, y = batch(30 + step, "mlp")
        for m, o, xs, ys in ((ref, opts[0], x, y), (model, opts[1], half(x), half(y))):
            o.zero_grad()
            out = m(xs)
            F.cross_entropy(out, ys).backward()
            o.step()
        if out.dtype != torch.float64:
            return f"output dtype {out.dtype}"
    for n, p in model.named_parameters():
        if p.dtype != torch.float32 or p.grad.dtype != torch.float32:
            return f"{n}: {p.dtype}, grad {p.grad.dtype}"
    d = max_diff(full_params(model), dict(ref.named_parameters()))
    return None if d < 1e-5 else f"parameters differ by {d}"


def case_attribute_forwarding():
    model = FSDP(nn.Linear(4, 3))
    if model.in_features != 4 or model.out_features != 3:
        return "wrapped module attributes"
    with FSDP.summon_full_params(model):
        if tuple(model.weight.shape) != (3, 4):
            return f"weight {tuple(model.weight.shape)}"


def case_wrap_forms():
    from numtorch.distributed.fsdp.wrap import (
        CustomPolicy,
        enable_wrap,
        lambda_auto_wrap_policy,
        wrap,
    )

    with enable_wrap(wrapper_cls=FSDP, sharding_strategy=ShardingStrategy.SHARD_GRAD_OP):
        torch.manual_seed(0)
        inner = nn.Sequential(wrap(nn.Linear(6, 16)), nn.ReLU(), wrap(nn.Linear(16, 15)),
                              nn.Tanh(), nn.Linear(15, 3))
    model = FSDP(inner)
    kinds = [type(m).__name__ for m in model.module]
    if kinds != ["FullyShardedDataParallel", "ReLU", "FullyShardedDataParallel", "Tanh",
                 "Linear"] or model.module[0].sharding_strategy != \
            ShardingStrategy.SHARD_GRAD_OP:
        return f"enable_wrap: {kinds}"
    if wrap(nn.Linear(2, 2)).__class__ is not nn.Linear:
        return "wrap outside enable_wrap must return the module"
    lam = FSDP(mlp(), auto_wrap_policy=functools.partial(
        lambda_auto_wrap_policy, lambda_fn=lambda m: isinstance(m, nn.Linear) and
        m.out_features == 15))
    if [type(m).__name__ for m in lam.module][2] != "FullyShardedDataParallel" or \
            isinstance(lam.module[0], FSDP):
        return "lambda policy"
    custom = FSDP(mlp(), auto_wrap_policy=CustomPolicy(
        lambda m: {"sharding_strategy": ShardingStrategy.NO_SHARD}
        if isinstance(m, nn.Linear) and m.out_features == 3 else False))
    if custom.module[4].sharding_strategy != ShardingStrategy.NO_SHARD or \
            custom.sharding_strategy != ShardingStrategy.FULL_SHARD:
        return "custom policy kwargs"
    # all three train like the plain model
    ref = mlp()
    x, y = batch(40, "mlp")
    loss_of(ref, x, y, "mlp").backward()
    for m in (model, lam, custom):
        loss_of(m, half(x), half(y), "mlp").backward()
        with FSDP.summon_full_params(m, with_grads=True):
            got = {n: p.grad.clone() for n, p in m.named_parameters()}
        d = max_diff(got, {n: p.grad for n, p in ref.named_parameters()})
        if d > 1e-6:
            return f"gradients differ by {d}"


def case_ignored_modules():
    m = mlp()
    model = FSDP(m, ignored_modules=[m[4]])
    names = [(n, tuple(p.shape)) for n, p in model.named_parameters()]
    # 96 + 16 + 240 + 15 = 367 flattened -> 184 per rank; the ignored layer stays whole
    want = [("_fsdp_wrapped_module.4.weight", (3, 15)), ("_fsdp_wrapped_module.4.bias", (3,)),
            ("_fsdp_wrapped_module._flat_param", (184,))]
    if sorted(names) != sorted(want):
        return f"{names}"
    x, _ = batch(41, "mlp")
    d = float((model(half(x)) - mlp()(half(x))).abs().max())
    return None if d < 1e-6 else f"outputs differ by {d}"


def case_grad_accumulation():
    """Two backwards without zero_grad sum into the shard gradient."""
    ref, model = mlp(), wrapped_mlp()
    for step in (50, 51):
        x, y = batch(step, "mlp")
        loss_of(ref, x, y, "mlp").backward()
        loss_of(model, half(x), half(y), "mlp").backward()
    with FSDP.summon_full_params(model, with_grads=True):
        got = {n: p.grad.clone() for n, p in model.named_parameters()}
    d = max_diff(got, {n: p.grad for n, p in ref.named_parameters()})
    return None if d < 1e-6 else f"gradients differ by {d}"


def case_two_forwards_one_backward():
    """model(a) and model(b) in one graph, one backward: like the plain model."""
    ref, model = mlp(), wrapped_mlp()
    x, y = batch(60, "mlp")
    h, q = BATCH // 2, BATCH // 2 // N
    (loss_of(ref, x[:h], y[:h], "mlp") + loss_of(ref, x[h:], y[h:], "mlp")).backward()
    # the plain model saw [0:4] and [4:8]; rank r sees its quarter of each
    a, b = slice(R * q, (R + 1) * q), slice(h + R * q, h + (R + 1) * q)
    (loss_of(model, x[a], y[a], "mlp") + loss_of(model, x[b], y[b], "mlp")).backward()
    with FSDP.summon_full_params(model, with_grads=True):
        got = {n: p.grad.clone() for n, p in model.named_parameters()}
    d = max_diff(got, {n: p.grad for n, p in ref.named_parameters()})
    return None if d < 1e-6 else f"gradients differ by {d}"


class Checkpointed(nn.Module):
    """Blocks run through activation checkpointing, as transformers' models do."""

    def __init__(self, reentrant):
        super().__init__()
        torch.manual_seed(0)
        self.reentrant = reentrant
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(6, 6), nn.Tanh())
                                    for _ in range(3))
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        from numtorch.utils.checkpoint import checkpoint

        for b in self.blocks:
            x = checkpoint(b, x, use_reentrant=self.reentrant) if self.training else b(x)
        return self.head(x)


def checkpoint_case(reentrant):
    ref = Checkpointed(reentrant)
    model = FSDP(Checkpointed(reentrant), auto_wrap_policy=ModuleWrapPolicy({nn.Sequential}))
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (ref, model)]
    for step in range(STEPS):
        x, y = batch(70 + step, "mlp")
        for m, o, xs, ys in ((ref, opts[0], x, y), (model, opts[1], half(x), half(y))):
            o.zero_grad()
            F.cross_entropy(m(xs), ys).backward()
            o.step()
    d = max_diff(full_params(model), dict(ref.named_parameters()))
    return None if d < 1e-6 else f"parameters differ by {d}"


rec.check("checkpoint_reentrant", lambda: checkpoint_case(True))
rec.check("checkpoint_non_reentrant", lambda: checkpoint_case(False))


class Tied(nn.Module):
    """Embedding and output layer share one weight (GPT's weight tying)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.emb = nn.Embedding(11, 8)
        self.block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.head = nn.Linear(8, 11, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, x):
        return self.head(self.block(self.emb(x)))


def case_tied_weights():
    ref = Tied()
    model = FSDP(Tied(), auto_wrap_policy=ModuleWrapPolicy({nn.Sequential}))
    opts = [torch.optim.SGD(m.parameters(), lr=0.5) for m in (ref, model)]
    for step in range(STEPS):
        x, y = batch(80 + step, "transformer")
        for m, o, xs, ys in ((ref, opts[0], x, y), (model, opts[1], half(x), half(y))):
            o.zero_grad()
            F.cross_entropy(m(xs).reshape(-1, 11), ys.reshape(-1)).backward()
            o.step()
    sd, want = model.state_dict(), ref.state_dict()
    if list(sd) != list(want):
        return f"keys {list(sd)} vs {list(want)}"
    d = max(float((sd[k] - want[k]).abs().max()) for k in want)
    return None if d < 1e-6 else f"state differs by {d}"


def case_zero_grad_discards_inflight():
    """The reduce-scatter runs in the background; zero_grad before anything read the
    gradient must still drop it, and the next backward's gradient stands alone."""
    ref, model = mlp(), wrapped_mlp()
    x, y = batch(90, "mlp")
    loss_of(model, half(x), half(y), "mlp").backward()
    inflight = sum(len(u._handle.inflight) for u in FSDP.fsdp_modules(model) if u._handle)
    torch.optim.SGD(model.parameters(), lr=0.1).zero_grad()
    if inflight != 3 or any(p.grad is not None for p in model.parameters()):
        return f"{inflight} reductions in flight; grads after zero_grad: " \
               f"{[p.grad is not None for p in model.parameters()]}"
    x, y = batch(91, "mlp")
    loss_of(ref, x, y, "mlp").backward()
    loss_of(model, half(x), half(y), "mlp").backward()
    with FSDP.summon_full_params(model, with_grads=True):
        got = {n: p.grad.clone() for n, p in model.named_parameters()}
    d = max_diff(got, {n: p.grad for n, p in ref.named_parameters()})
    return None if d < 1e-6 else f"gradients differ by {d}"


def optim_case(use_orig, kind=StateDictType.FULL_STATE_DICT):
    ref, model = mlp(), wrapped_mlp(use_orig_params=use_orig)
    opt_ref = torch.optim.Adam(ref.parameters(), lr=0.01)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for step in range(2):
        x, y = batch(10 + step, "mlp")
        for m, o, xs, ys in ((ref, opt_ref, x, y), (model, opt, half(x), half(y))):
            o.zero_grad()
            loss_of(m, xs, ys, "mlp").backward()
            o.step()
    with FSDP.state_dict_type(model, kind):
        osd = FSDP.optim_state_dict(model, opt)
    names = [n for n, _ in ref.named_parameters()]
    want = opt_ref.state_dict()
    if [g["params"] for g in osd["param_groups"]] != [names]:
        return f"param_groups {osd['param_groups']}"
    from numtorch.distributed.fsdp._shard import gather_chunks

    for i, n in enumerate(names):
        for key, v in want["state"][i].items():
            got = osd["state"][n][key]
            if kind == StateDictType.SHARDED_STATE_DICT and key != "step":
                got = gather_chunks(got, dist.group.WORLD)
            d = float((got.float() - v.float()).abs().max())
            if d > 1e-6:
                return f"{n} {key} differs by {d}"
    # into a fresh model and optimizer, then one more step on both
    fresh = wrapped_mlp(use_orig_params=use_orig)
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT):
        sd = model.state_dict()
    fresh.load_state_dict(sd)
    opt2 = torch.optim.Adam(fresh.parameters(), lr=0.5)
    with FSDP.state_dict_type(fresh, kind):
        opt2.load_state_dict(FSDP.optim_state_dict_to_load(fresh, opt2, osd))
    if opt2.param_groups[0]["lr"] != 0.01:
        return f"lr {opt2.param_groups[0]['lr']}"
    x, y = batch(20, "mlp")
    for m, o, xs, ys in ((ref, opt_ref, x, y), (fresh, opt2, half(x), half(y))):
        o.zero_grad()
        loss_of(m, xs, ys, "mlp").backward()
        o.step()
    d = max_diff(full_params(fresh), dict(ref.named_parameters()))
    return None if d < 1e-6 else f"after reloading, parameters differ by {d}"


rec.check("optim_state_dict_flat", lambda: optim_case(False))
rec.check("optim_state_dict_orig", lambda: optim_case(True))
rec.check("optim_state_dict_sharded", lambda: optim_case(False,
                                                         StateDictType.SHARDED_STATE_DICT))


for name, fn in sorted((k, v) for k, v in dict(globals()).items() if k.startswith("case_")):
    rec.check(name[5:], fn)


def inner_no_sync():
    m = wrapped_mlp()
    m(batch(0, "mlp")[0])
    with m.module[0].no_sync():
        pass


def inner_clip():
    m = wrapped_mlp()
    x, y = batch(0, "mlp")
    loss_of(m, half(x), half(y), "mlp").backward()
    m.module[0].clip_grad_norm_(1.0)


rec.raises("error_inner_no_sync", inner_no_sync, RuntimeError,
           ["`no_sync()` on inner FSDP instances is not supported"])
rec.raises("error_inner_clip", inner_clip, RuntimeError,
           ["`clip_grad_norm_()` should only be called on the root FSDP instance"])
rec.raises("error_writeback_rank0_only",
           lambda: FSDP.summon_full_params(wrapped_mlp(), writeback=True,
                                           rank0_only=True).__enter__(),
           NotImplementedError, ["writeback=True and rank0_only=True is not supported"])
rec.raises("error_mixed_dtypes", lambda: FSDP(nn.Sequential(nn.Linear(2, 2),
                                                           nn.Linear(2, 2).double())),
           ValueError, ["Must flatten tensors with uniform dtype"])


def mixed_requires_grad():
    m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    m[0].weight.requires_grad_(False)
    FSDP(m)


rec.raises("error_mixed_requires_grad", mixed_requires_grad, ValueError,
           ["Must flatten tensors with uniform `requires_grad` when `use_orig_params=False`"])

# numbers for the comparison with torch's FSDP (tests/distributed/test_fsdp.py runs torch)
if len(sys.argv) > 2:
    from fsdp_torch_case import run_case

    with open(os.path.join(OUT, f"numbers{R}.json"), "w") as f:
        json.dump(run_case(torch, FSDP, R, N), f)

dist.barrier()
dist.destroy_process_group()
