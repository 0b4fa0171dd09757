"""Session 51 (Distributed area): a world of one process (file:// rendezvous), compared with
real torch's gloo group in the same test process.

Found: ``dist.get_global_rank(group.WORLD, r)`` / ``get_group_rank(group.WORLD, r)`` raised
for a rank outside the world where torch returns ``r`` (the world group's ranks are the global
ones); ``dist.gather``/``dist.scatter`` to a root outside the default group with a list given
on a non-root rank raised the backend's "invalid root rank" where torch first refuses the list
("must NOT be specified on non-destination ranks"); ``DistributedDataParallel(cpu_module,
output_device=0)`` (or ``device_ids=[]``) raised where torch accepts them (torch refuses only
truthy ``device_ids``/``output_device`` for a CPU module).
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


@pytest.mark.parametrize("case", list(_cases(torch)))
def test_world_of_one_matches_torch(worlds, case):
    assert _outcome(_cases(numtorch)[case]) == _outcome(_cases(torch)[case])
