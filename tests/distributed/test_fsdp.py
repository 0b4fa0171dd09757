"""FullyShardedDataParallel on 2 real ranks against single-process training and torch.

The rank program (ranks/fsdp.py) trains an MLP and a 2-layer transformer with every sharding
strategy and checks losses, gradient norms and final parameters against a plain model
trained on the whole batch; state-dict round trips, names and errors are checked there too.
The numbers of one shared run (ranks/fsdp_torch_case.py) are compared with those torch
2.13's FSDP (gloo, 2 processes) gave: ranks/fsdp_torch_numbers.json, written by
``python tests/distributed/ranks/fsdp_torch.py OUT PORT``.
"""

import json
import os
import subprocess
import sys

import pytest

from . import _launch

pytest.importorskip("mpi4py")
if not os.path.exists(_launch.MPIEXEC):
    pytest.skip("mpiexec not installed", allow_module_level=True)

TORCH_NUMBERS = os.path.join(_launch.RANKS, "fsdp_torch_numbers.json")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The rank program under the launcher (MPI), and the torch comparison case started by
    mp.spawn (numtorch's socket transport), at the same time."""
    import socket

    mpi_out = tmp_path_factory.mktemp("fsdp")
    spawn_out = tmp_path_factory.mktemp("fsdp_spawn")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmds = [_launch.launcher_cmd("fsdp.py", mpi_out, "numbers"),
            [sys.executable, os.path.join(_launch.RANKS, "fsdp_torch.py"), str(spawn_out),
             str(port), "numtorch"]]
    procs = _launch.run_all(cmds, timeout=300)
    for p in procs:
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return {"mpi": mpi_out, "sockets": spawn_out}


@pytest.fixture(scope="module")
def fsdp_run(runs):
    return runs["mpi"], _launch.results(runs["mpi"])


@pytest.mark.parametrize("prefix", ["train_", "no_sync", "full_state_dict",
                                    "sharded_state_dict", "local_state_dict", "frees_after_forward",
                                    "optim_state_dict",
                                    "names_and_shapes", "summon_writeback", "eval_no_grad",
                                    "sync_module_states", "mixed_precision_param_dtype",
                                    "attribute_forwarding", "wrap_forms", "ignored_modules",
                                    "grad_accumulation", "two_forwards_one_backward", "checkpoint", "tied_weights",
                                    "zero_grad_discards_inflight",
                                    "error_"])
def test_fsdp_against_single_process(fsdp_run, prefix):
    _, per_rank = fsdp_run
    assert any(k.startswith(prefix) for k in per_rank[0]), sorted(per_rank[0])
    bad = _launch.failures(per_rank, prefix)
    assert not bad, "\n".join(bad)


def _close(a, b, tol):
    return all(abs(x - y) <= tol * (1 + abs(y)) for x, y in zip(a, b)) and len(a) == len(b)


@pytest.mark.parametrize("transport", ["mpi", "sockets"])
@pytest.mark.parametrize("tag", ["flat", "orig"])
def test_fsdp_numbers_match_torch(runs, transport, tag):
    out = runs[transport]
    with open(TORCH_NUMBERS) as f:
        want = json.load(f)
    for r in (0, 1):
        with open(os.path.join(out, f"numbers{r}.json")) as f:
            got = json.load(f)
        ref = want[str(r)]
        assert _close(got[tag + "_losses"], ref[tag + "_losses"], 1e-5), (r, got, ref)
        assert _close(got[tag + "_norms"], ref[tag + "_norms"], 1e-5)
        assert got[tag + "_names"] == ref[tag + "_names"]
        assert got[tag + "_grad_shapes"] == ref[tag + "_grad_shapes"]
        assert got[tag + "_sharded"] == ref[tag + "_sharded"]
        assert list(got[tag + "_state"]) == list(ref[tag + "_state"])
        for k, v in ref[tag + "_state"].items():
            assert _close(got[tag + "_state"][k], v, 1e-5), k
        if tag == "flat":
            assert got["local_keys"] == ref["local_keys"]
            assert got["local_sizes"] == ref["local_sizes"]


ONE_RANK = r"""
import warnings
import numtorch as torch, numtorch.distributed as dist, numtorch.nn as nn
from numtorch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
from numtorch.distributed.fsdp import StateDictType
dist.init_process_group("gloo")
torch.manual_seed(0)
ref = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
torch.manual_seed(0)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    model = FSDP(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)))
assert model.sharding_strategy == ShardingStrategy.NO_SHARD
assert "FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since " \
    "the world size is 1." in str(w[0].message), [str(x.message) for x in w]
assert [(n, tuple(p.shape)) for n, p in model.named_parameters()] == \
    [("_fsdp_wrapped_module._flat_param", (58,))]
opts = [torch.optim.Adam(m.parameters(), lr=0.01) for m in (ref, model)]
for step in range(3):
    x = torch.randn(5, 4)
    for m, o in zip((ref, model), opts):
        o.zero_grad()
        m(x).pow(2).mean().backward()
        o.step()
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT):
        sd = model.state_dict()  # NO_SHARD: the full state dict, as torch gives
assert [x.category for x in w][0] is FutureWarning, w
assert "When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict will be returned." \
    in [str(x.message) for x in w], [str(x.message) for x in w]
for k, v in ref.state_dict().items():
    assert float((sd[k] - v).abs().max()) < 1e-6, k
try:
    FSDP(nn.Linear(2, 2), device_id=0)
    raise AssertionError("a CUDA device_id must be refused")
except NotImplementedError as e:
    assert "CPU tensors only" in str(e)
dist.destroy_process_group()
print("ONE RANK OK")
"""


def test_world_size_one_without_mpiexec(tmp_path):
    env = _launch.env()
    env.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT="0")
    script = tmp_path / "one.py"
    script.write_text(ONE_RANK)
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       env=env, timeout=120, check=False)
    assert "ONE RANK OK" in p.stdout, p.stdout[-2000:] + p.stderr[-3000:]


def test_import_path_used_by_transformers():
    import numtorch as torch
    import numtorch.distributed.fsdp

    fsdp = torch.distributed.fsdp
    assert fsdp.FullyShardedDataParallel.__name__ == "FullyShardedDataParallel"
    assert not isinstance(torch.nn.Linear(2, 2), fsdp.FullyShardedDataParallel)
    assert [s.value for s in fsdp.ShardingStrategy] == [1, 2, 3, 4, 5]
    assert repr(fsdp.MixedPrecision()).startswith(
        "MixedPrecision(param_dtype=None, reduce_dtype=None, buffer_dtype=None, "
        "keep_low_precision_grads=False, cast_forward_inputs=False, "
        "cast_root_forward_inputs=True")
    assert repr(fsdp.FullStateDictConfig()) == \
        "FullStateDictConfig(offload_to_cpu=False, rank0_only=False)"
    assert repr(fsdp.FullOptimStateDictConfig()) == \
        "FullOptimStateDictConfig(offload_to_cpu=True, rank0_only=False)"
    from numtorch import nn
    from numtorch.distributed.fsdp.wrap import size_based_auto_wrap_policy

    assert size_based_auto_wrap_policy.FORCE_LEAF_MODULES == {nn.MultiheadAttention}
    assert size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES == {nn.ModuleList, nn.ModuleDict}
