"""Session 51 (Distributed area): a world of one process (file:// rendezvous), compared with
real torch's gloo group in the same test process.

Found: ``dist.get_global_rank(group.WORLD, r)`` / ``get_group_rank(group.WORLD, r)`` raised
for a rank outside the world where torch returns ``r`` (the world group's ranks are the global
ones); ``dist.gather``/``dist.scatter`` to a root outside the default group with a list given
on a non-root rank raised the backend's "invalid root rank" where torch first refuses the list
("must NOT be specified on non-destination ranks"); ``DistributedDataParallel(cpu_module,
output_device=0)`` (or ``device_ids=[]``) raised where torch accepts them (torch refuses only
truthy ``device_ids``/``output_device`` for a CPU module); ``distribute_tensor``,
``DTensor.from_local`` and ``redistribute`` took any ``Shard(dim)`` (past the last dim, or
negative beyond ``-ndim``) and built a DTensor whose placements name no dim of it; torch
refuses them (each API with its own error); ``get_backend(5)`` said "Invalid process group
specified" (torch: "Process group 5 is not initialized in the world group map...") and
``get_backend(0)`` raised (torch: any false value is the default group); a timeout that is
not a timedelta was named by its type, torch quotes the value.
"""

import warnings

import pytest
import torch
import torch.distributed as tdist

import numtorch
import numtorch.distributed as ndist


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    d = tmp_path_factory.mktemp("s51_single")
    tdist.init_process_group("gloo", init_method=f"file://{d}/torch", rank=0, world_size=1)
    ndist.init_process_group("gloo", init_method=f"file://{d}/numtorch", rank=0, world_size=1)
    yield
    tdist.destroy_process_group()
    ndist.destroy_process_group()


def _cases(lib):
    dist = lib.distributed
    t = lib.arange(4.)
    return {
        "global_rank_outside_world": lambda: dist.get_global_rank(dist.group.WORLD, 3),
        "group_rank_outside_world": lambda: dist.get_group_rank(dist.group.WORLD, 5),
        "global_rank_inside": lambda: dist.get_global_rank(dist.group.WORLD, 0),
        "gather_list_to_outside_root": lambda: dist.gather(t, [lib.zeros(4)], dst=2),
        "scatter_list_from_outside_root": lambda: dist.scatter(lib.zeros(4), [lib.ones(4)],
                                                               src=2),
        "gather_no_list_on_root": lambda: dist.gather(t, None, dst=0),
        "scatter_no_list_on_root": lambda: dist.scatter(lib.zeros(4), None, src=0),
        "backend_of_int": lambda: dist.get_backend(5),
        "backend_of_str": lambda: dist.get_backend("x"),
        "backend_of_zero": lambda: dist.get_backend(0),
        "backend_of_empty_list": lambda: dist.get_backend([]),
        "backend_of_non_member": lambda: dist.get_backend(dist.GroupMember.NON_GROUP_MEMBER),
        "new_group_int_timeout": lambda: dist.new_group([0], timeout=5),
        "new_group_float_timeout": lambda: dist.new_group([0], timeout=1.5),
        "ddp_output_device_0": lambda: _ddp(lib, output_device=0),
        "ddp_device_ids_empty": lambda: _ddp(lib, device_ids=[]),
        "ddp_device_ids_0": lambda: _ddp(lib, device_ids=[0]),
        "ddp_output_device_1": lambda: _ddp(lib, output_device=1),
        "ddp_output_device_cpu": lambda: _ddp(lib, output_device="cpu"),
    }


def _ddp(lib, **kw):
    lib.manual_seed(0)
    model = lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(3, 2), **kw)
    model(lib.ones(2, 3)).sum().backward()
    return model.module.weight.grad


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ("ok", repr(fn()))
        except Exception as e:  # noqa: BLE001 - class and message are compared
            return type(e).__name__, str(e)


def _shard(lib, api, dims, ndim=2):
    from importlib import import_module

    dt = import_module(lib.__name__ + ".distributed.tensor")
    mesh = import_module(lib.__name__ + ".distributed.device_mesh").init_device_mesh(
        "cpu", (1,) * len(dims))
    x = lib.arange(6.).reshape((2, 3)[:ndim]) if ndim else lib.tensor(1.)
    placements = [dt.Shard(d) for d in dims]
    if api == "distribute":
        out = dt.distribute_tensor(x, mesh, placements)
    elif api == "from_local":
        out = dt.DTensor.from_local(x, mesh, placements)
    else:
        out = dt.distribute_tensor(x, mesh).redistribute(mesh, placements)
    return out.placements, out.to_local().tolist()


SHARDS = [("distribute", (d,)) for d in (0, 1, 2, 3, -1, -2, -3, -4, -5)] + \
    [("from_local", (d,)) for d in (1, 2, 3, -1, -3, -5)] + \
    [("redistribute", (d,)) for d in (1, -2, -3, -4)] + \
    [("distribute", (0, -3)), ("distribute", (-4, -1)), ("redistribute", (-3, 0))]


@pytest.mark.parametrize("api,dims", SHARDS, ids=[f"{a}{d}" for a, d in SHARDS])
def test_dtensor_shard_dims_checked_as_in_torch(worlds, api, dims):
    assert _outcome(lambda: _shard(numtorch, api, dims)) == \
        _outcome(lambda: _shard(torch, api, dims))


@pytest.mark.parametrize("api", ["distribute", "from_local"])
def test_dtensor_shard_of_a_scalar_as_in_torch(worlds, api):
    assert _outcome(lambda: _shard(numtorch, api, (0,), ndim=0)) == \
        _outcome(lambda: _shard(torch, api, (0,), ndim=0))


@pytest.mark.parametrize("case", list(_cases(torch)))
def test_world_of_one_matches_torch(worlds, case):
    assert _outcome(_cases(numtorch)[case]) == _outcome(_cases(torch)[case])
