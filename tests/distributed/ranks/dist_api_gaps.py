"""Rank script (2 ranks): subgroups from new_subgroups_by_enumeration and split_group run
collectives; ProcessGroup methods with option records

mpiexec -n 2 python dist_api_gaps.py OUT_DIR
"""

import datetime
import sys

from _common import Recorder

import numtorch as torch
import numtorch.distributed as dist

OUT = sys.argv[1]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20),
                        device_id=torch.device("cpu"))
R, N = dist.get_rank(), dist.get_world_size()
rec = Recorder(OUT, R)


def summed(g, value):
    t = torch.tensor([float(value)])
    dist.all_reduce(t, group=g)
    return t.item()


def enum_singletons():
    mine, every = dist.new_subgroups_by_enumeration([[0], [1]])
    assert len(every) == 2 and every[R] is mine, every
    assert mine.size() == 1 and mine.rank() == 0
    assert dist.get_process_group_ranks(mine) == [R]
    assert summed(mine, R + 5) == R + 5  # a one-rank group sums only itself


def enum_pair_unsorted():
    mine, every = dist.new_subgroups_by_enumeration([[1, 0]], group_desc="pair")
    assert every == [mine] and mine.group_desc == "pair"
    assert dist.get_process_group_ranks(mine) == [0, 1]
    assert summed(mine, R + 1) == 3.0
    t = torch.tensor([10.0 * (R + 1)])
    dist.broadcast(t, group_src=1, group=mine)
    assert t.item() == 20.0


def enum_errors():
    for bad, msg in (([], "cannot be empty"), ([[0], [0, 1]], "Rank 0 has appeared in both"),
                     ([[2]], "Rank 2 is out of range. Valid ranks are 0 to 1 (world_size=2)")):
        try:
            dist.new_subgroups_by_enumeration(bad)
        except ValueError as e:
            assert msg in str(e), str(e)
        else:
            raise AssertionError(f"{bad} accepted")


def split_each():
    g = dist.split_group(split_ranks=[[0], [1]], group_desc="solo")
    assert g.size() == 1 and g.group_desc == "solo" and g.bound_device_id.type == "cpu"
    assert dist.get_process_group_ranks(g) == [R]
    assert summed(g, 7 + R) == 7 + R


def split_all_and_one():
    g = dist.split_group(split_ranks=[[1, 0]])
    assert dist.get_process_group_ranks(g) == [0, 1] and g.rank() == R
    out = [torch.zeros(2) for _ in range(2)]
    dist.all_gather(out, torch.full((2,), float(R)), group=g)
    assert [o.tolist() for o in out] == [[0.0, 0.0], [1.0, 1.0]]
    only1 = dist.split_group(split_ranks=[[1]])
    if R == 0:
        assert only1 is None
    else:
        assert only1.size() == 1 and summed(only1, 4) == 4
    # a split of a split: the child of g holding rank 0 only
    sub = dist.split_group(parent_pg=g, split_ranks=[[0]])
    assert (sub is None) == (R == 1)
    assert dist.get_world_size() == 2 and summed(None, 1) == 2.0


def pg_methods():
    pg = dist.group.WORLD
    o = dist.AllreduceOptions()
    o.reduceOp = dist.ReduceOp.MAX
    t = torch.tensor([float(R), 5.0 - R])
    pg.allreduce([t], o).wait()
    assert t.tolist() == [1.0, 5.0], t
    b = dist.BroadcastOptions()
    b.rootRank = 1
    t = torch.tensor([float(R)])
    pg.broadcast([t], b).wait()
    assert t.item() == 1.0
    r = dist.ReduceOptions()
    r.rootRank, r.reduceOp = 0, dist.ReduceOp.SUM
    t = torch.tensor([R + 2.0])
    pg.reduce([t], r).wait()
    assert R != 0 or t.item() == 5.0
    pg.barrier(dist.BarrierOptions()).wait()
    a = [torch.tensor([R + 1.0]), torch.tensor([2.0, R])]
    c = dist.AllreduceCoalescedOptions()
    c.reduceOp = dist.ReduceOp.PRODUCT
    pg.allreduce_coalesced(a, c).wait()
    assert a[0].tolist() == [2.0] and a[1].tolist() == [4.0, 0.0], a
    out = [[torch.zeros(1), torch.zeros(1)]]
    pg.allgather(out, [torch.tensor([R + 7.0])]).wait()
    assert [t.item() for t in out[0]] == [7.0, 8.0]
    go = dist.GatherOptions()
    go.rootRank = 1
    out = [[torch.zeros(1), torch.zeros(1)]] if R == 1 else []
    pg.gather(out, [torch.tensor([R * 10.0])], go).wait()
    assert R == 0 or [t.item() for t in out[0]] == [0.0, 10.0]
    so = dist.ScatterOptions()
    got = [torch.zeros(1)]
    pg.scatter(got, [[torch.tensor([5.0]), torch.tensor([6.0])]] if R == 0 else [], so).wait()
    assert got[0].item() == 5.0 + R
    ro = dist.ReduceScatterOptions()
    ro.reduceOp = dist.ReduceOp.MAX
    got = [torch.zeros(1)]
    pg.reduce_scatter(got, [[torch.tensor([R + 0.0]), torch.tensor([3.0 - R])]], ro).wait()
    assert got[0].item() == [1.0, 3.0][R]
    got = [torch.zeros(1), torch.zeros(1)]
    pg.alltoall(got, [torch.tensor([10.0 * R]), torch.tensor([10.0 * R + 1])],
                dist.AllToAllOptions()).wait()
    assert [t.item() for t in got] == [float(R), 10.0 + R]
    assert dist.get_backend_config() == "cpu:gloo,cuda:gloo"


def sync_module_states():
    from numtorch.distributed.utils import _sync_module_states

    torch.manual_seed(R)  # different weights on each rank
    m = torch.nn.BatchNorm1d(3)
    with torch.no_grad():
        m.weight.fill_(R + 1.0)
        m.running_mean.fill_(R + 2.0)
        m.bias.fill_(R + 3.0)
    _sync_module_states(m, dist.group.WORLD, 250 * 1024 * 1024, 1, {"bias"})
    assert m.weight.tolist() == [2.0] * 3 and m.running_mean.tolist() == [3.0] * 3
    assert m.bias.tolist() == [R + 3.0] * 3  # ignored


for name, fn in [("sync_module_states", sync_module_states),
                 ("enum_singletons", enum_singletons), ("enum_pair_unsorted", enum_pair_unsorted),
                 ("enum_errors", enum_errors), ("split_each", split_each),
                 ("split_all_and_one", split_all_and_one), ("pg_methods", pg_methods)]:
    rec.check(name, fn)
dist.destroy_process_group()
