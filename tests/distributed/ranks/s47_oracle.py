"""Rank script (2 ranks) run unchanged by real torch's launcher (gloo) and by numtorch's
(``numtorch.run -m torch.distributed.run``): each rank writes what it saw, case by case, to
``OUT/<tag>_rank<r>.json`` (values, or the exception class and message); the test compares.

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
case("new_group_dups_global_sync", lambda: dist.new_group([1, 0, 1], use_local_synchronization=False))
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
case("dtypes_complex64_first", lambda: dist.all_reduce_coalesced([c64, f64]))
case("dtypes_complex128_first", lambda: dist.all_reduce_coalesced([c128, f32]))
case("world_after", lambda: reduced(dist.ReduceOp.MAX))
dist.destroy_process_group()
case("post_default_group", lambda: dist.distributed_c10d._get_default_group())
with open(os.path.join(OUT, f"{TAG}_rank{R}.json"), "w") as f:
    json.dump(res, f)
