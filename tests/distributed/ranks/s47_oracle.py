"""Rank script (2 ranks) run unchanged by real torch's launcher (gloo) and by numtorch's
(``numtorch.run -m torch.distributed.run``): each rank writes what it saw, case by case, to
``OUT/<tag>_rank<r>.json`` (values, or the exception class and message); the test compares.

At the end rank 0 destroys its group and ends while rank 1 still waits for it.

python -m torch.distributed.run --standalone --nproc-per-node=2 s47_oracle.py OUT TAG
"""

import datetime
import json
import os
import sys

import torch
import torch.distributed as dist

OUT, TAG = sys.argv[1], sys.argv[2]
res = {}


def case(name, fn):
    try:
        res[name] = fn()
    except Exception as e:  # noqa: BLE001  (the comparison is the verdict)
        res[name] = [type(e).__name__, str(e)]


def before_init():
    for name, fn in [("get_rank", dist.get_rank), ("get_world_size", dist.get_world_size),
                     ("barrier", dist.barrier),
                     ("all_reduce", lambda: dist.all_reduce(torch.ones(1))),
                     ("default_group", lambda: dist.distributed_c10d._get_default_group()),
                     ("destroy", dist.destroy_process_group)]:
        case("pre_" + name, fn)


before_init()
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
R = dist.get_rank()


def reduced(op):
    t = torch.tensor([1.0, 2.0]) * (R + 1)
    dist.all_reduce(t, op=op)
    return t.tolist()


def premul_scatter():
    out = torch.zeros(1)
    dist.reduce_scatter_tensor(out, torch.ones(2), op=dist._make_nccl_premul_sum(2.0))
    return out.tolist()


case("premul_factor", lambda: reduced(dist._make_nccl_premul_sum(2.0)))
case("premul_tensor_factor", lambda: reduced(dist._make_nccl_premul_sum(torch.tensor([3.0]))))
case("premul_reduce_scatter", premul_scatter)
case("premul_type", lambda: type(dist._make_nccl_premul_sum(2.0)).__name__)
case("sum_after_premul", lambda: reduced(dist.ReduceOp.SUM))
case("default_group_is_world",
     lambda: dist.distributed_c10d._get_default_group() is dist.group.WORLD)
case("default_group_size", lambda: dist.distributed_c10d._get_default_group().size())
case("new_group_out_of_range", lambda: dist.new_group([0, 5]))
case("new_group_negative", lambda: dist.new_group([-1]))
case("new_group_too_big", lambda: dist.new_group([0, 1, 2]))
case("new_group_dups_sorted", lambda: dist.new_group([1, 0, 1]))
case("new_group_dups_global_sync",
     lambda: dist.new_group([1, 0, 1], use_local_synchronization=False))
only0 = dist.new_group([0])
case("not_in_group", lambda: [dist.distributed_c10d._rank_not_in_group(only0),
                              dist.distributed_c10d._rank_not_in_group(None),
                              dist.distributed_c10d._rank_not_in_group(dist.group.WORLD)])
f32, f64, i64 = torch.ones(2), torch.ones(2, dtype=torch.float64), torch.ones(2, dtype=torch.int64)
c64, c128 = torch.ones(2, dtype=torch.complex64), torch.ones(2, dtype=torch.complex128)
case("dtypes_all_gather", lambda: dist.all_gather([f64, f64], f32))
case("dtypes_all_gather_list", lambda: dist.all_gather([f32, f64], f32))
case("dtypes_reduce_scatter", lambda: dist.reduce_scatter(f32, [f64, i64]))
case("dtypes_coalesced", lambda: dist.all_reduce_coalesced([i64, f32, f64]))
case("dtypes_all_to_all", lambda: dist.all_to_all([f32, f32], [f64, f64]))
case("dtypes_all_to_all_out", lambda: dist.all_to_all([f32, i64], [f32, f32]))
case("dtypes_all_to_all_single",
     lambda: dist.all_to_all_single(torch.zeros(4, dtype=torch.float64), torch.arange(4.0)))
case("a2a_in_split_sum",
     lambda: dist.all_to_all_single(torch.zeros(4), torch.arange(4.0), [2, 2], [1, 1]))
case("a2a_out_split_sum",
     lambda: dist.all_to_all_single(torch.zeros(4), torch.arange(4.0), [1, 1], [2, 2]))
case("a2a_out_split_len",
     lambda: dist.all_to_all_single(torch.zeros(4), torch.arange(4.0), [4], [2, 2]))
case("a2a_in_split_len",
     lambda: dist.all_to_all_single(torch.zeros(4), torch.arange(4.0), [2, 2], [1, 1, 2]))
case("dtypes_complex64_first", lambda: dist.all_reduce_coalesced([c64, f64]))
case("dtypes_complex128_first", lambda: dist.all_reduce_coalesced([c128, f32]))
case("world_after", lambda: reduced(dist.ReduceOp.MAX))


def through(fn):
    """Values of ``fn(x)`` and the gradient reaching ``x`` (a rank-weighted loss)."""
    import warnings

    import torch.distributed.nn.functional as F  # noqa: F401  (the module must import)

    x = (torch.tensor([1.0, 2.0]) * (R + 1)).requires_grad_(True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(x)
    if isinstance(out, (list, tuple)):
        loss = sum((o * (i + 1 + R)).sum() for i, o in enumerate(out))
        vals = [o.tolist() for o in out]
    else:
        loss, vals = (out * (R + 1)).sum(), out.tolist()
    loss.backward()
    return [vals, x.grad.tolist(), sorted({w.category.__name__ for w in caught})]


def dnn():
    import torch.distributed.nn as dnn_

    return dnn_


case("nn_all_reduce", lambda: through(lambda x: dnn().functional.all_reduce(x)))
case("nn_all_reduce_max",
     lambda: through(lambda x: dnn().functional.all_reduce(x, op=dist.ReduceOp.MAX)))
case("nn_all_gather", lambda: through(lambda x: dnn().all_gather(x)))
case("nn_broadcast", lambda: through(lambda x: dnn().functional.broadcast(x, src=1)))
case("nn_reduce", lambda: through(lambda x: dnn().functional.reduce(x, dst=0)))
case("nn_all_to_all_single",
     lambda: through(lambda x: dnn().functional.all_to_all_single(torch.zeros(2), x)))
case("nn_all_to_all", lambda: through(lambda x: dnn().functional.all_to_all(
    [torch.zeros(1), torch.zeros(1)], list(x.split(1)))))
case("nn_scatter", lambda: through(lambda x: dnn().functional.scatter(
    [x * 1, x * 2] if R == 0 else [x * 0, x * 0], src=0)))
case("nn_gather", lambda: through(lambda x: dnn().functional.gather(x, dst=0)))
def fc():
    import torch.distributed._functional_collectives as fc_

    return fc_


W = dist.group.WORLD
case("fc_all_reduce", lambda: through(lambda x: fc().all_reduce(x, "sum", W)))
case("fc_all_reduce_avg", lambda: through(lambda x: fc().all_reduce(x, "avg", W)))
case("fc_all_gather_tensor", lambda: through(lambda x: fc().all_gather_tensor(x, 0, W)))
case("fc_all_gather_single", lambda: through(lambda x: fc().all_gather_single(x, 0, W)))
case("fc_reduce_scatter_tensor",
     lambda: through(lambda x: fc().reduce_scatter_tensor(x, "sum", 0, W)))
case("fc_reduce_scatter_single",
     lambda: through(lambda x: fc().reduce_scatter_single(x, "sum", 0, W)))
case("fc_all_to_all_single",
     lambda: through(lambda x: fc().all_to_all_single(x, None, None, W)))
case("fc_broadcast", lambda: through(lambda x: fc().broadcast(x, 1, W)))


def gathered_single(old):
    import warnings

    out = torch.zeros(4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn = dist.all_gather_into_tensor if old else dist.all_gather_single
        fn(out, torch.ones(2) * R)
    return [out.tolist(), [(w.category.__name__, str(w.message)) for w in caught]]


def scattered_single(old):
    import warnings

    out = torch.zeros(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn = dist.reduce_scatter_tensor if old else dist.reduce_scatter_single
        fn(out, torch.arange(2.0) + R)
    return [out.tolist(), [(w.category.__name__, str(w.message)) for w in caught]]


case("all_gather_single", lambda: gathered_single(False))
case("all_gather_into_tensor_warns", lambda: gathered_single(True))
case("reduce_scatter_single", lambda: scattered_single(False))
case("reduce_scatter_tensor_warns", lambda: scattered_single(True))
case("nn_reduce_scatter", lambda: through(
    lambda x: dnn().functional.reduce_scatter(torch.zeros(1), list(x.split(1)))))



def waits_for_departed_peer():
    """Rank 0 destroyed its group and ends while rank 1 waits for it in an all_reduce:
    torch's gloo fails the wait at once (it must neither hang nor succeed)."""
    import time

    start = time.monotonic()
    try:
        dist.all_reduce(torch.ones(1))
        raised = None
    except RuntimeError as e:
        raised = "RuntimeError"
        del e
    return [raised, time.monotonic() - start < 60]


dist.barrier()
if R == 0:
    dist.destroy_process_group()
else:
    case("peer_left", waits_for_departed_peer)
    dist.destroy_process_group()
case("post_default_group", lambda: dist.distributed_c10d._get_default_group())
with open(os.path.join(OUT, f"{TAG}_rank{R}.json"), "w") as f:
    json.dump(res, f)
