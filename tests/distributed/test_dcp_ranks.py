"""torch.distributed.checkpoint with sharded state on 2 MPI ranks (ranks/dcp_case.py).

FSDP2 (fully_shard) training saves its model and AdamW state with ``dcp.save`` (each rank
its blocks, rank 0 the metadata); fresh processes load it and go on training with the
losses of the uninterrupted run; one process without a process group loads it into a plain
model (resharding to world size 1); DTensors saved Shard(0)/Shard(1)/Replicate load under
other placements. Against torch 2.13: torch (1 process) reads numtorch's 2-rank checkpoint,
and numtorch's 2 ranks read the one torch's FSDP2 wrote on 2 gloo ranks, continuing with
torch's losses.
"""

import json
import os
import socket
import subprocess
import sys

import pytest

from . import _launch

sys.path.insert(0, _launch.RANKS)
import dcp_state as S

pytest.importorskip("mpi4py")
if not os.path.exists(_launch.MPIEXEC):
    pytest.skip("mpiexec not installed", allow_module_level=True)


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ok(proc):
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("dcp_ranks")
    # numtorch's training run and torch's (gloo) at the same time
    first = _launch.run_all([
        _launch.mpiexec_cmd("dcp_case.py", d, "train"),
        [sys.executable, os.path.join(_launch.RANKS, "dcp_torch_ranks.py"), str(d),
         str(_port())]], timeout=400)
    for p in first:
        _ok(p)
    second = _launch.run_all([
        _launch.mpiexec_cmd("dcp_case.py", d, "resume"),
        [sys.executable, os.path.join(_launch.RANKS, "dcp_case.py"), str(d), "single"],
        [sys.executable, os.path.join(_launch.RANKS, "dcp_torch.py"), "full", str(d / "ckpt"),
         str(d / "torch_full.json")]], timeout=400)
    for p in second:
        _ok(p)
    third = _launch.run_all([_launch.mpiexec_cmd("dcp_case.py", d, "load_torch"),
                             _launch.mpiexec_cmd("dcp_case.py", d, "reshard")], timeout=400)
    for p in third:
        _ok(p)
    _ok(_launch.mpiexec("dcp_case.py", d, "hf", timeout=300))
    _ok(subprocess.run([sys.executable, os.path.join(_launch.RANKS, "dcp_torch.py"), "hf_read",
                        str(d / "hf"), str(d / "torch_hf.json")], capture_output=True, check=False,
                       text=True, timeout=300, env=_launch.env()))
    return d


def _read(d, name):
    with open(os.path.join(d, name)) as f:
        return json.load(f)


def test_files_each_rank_writes(out):
    names = sorted(os.listdir(out / "ckpt"))
    assert names == [".metadata", "__0_0.distcp", "__1_0.distcp"]
    assert sorted(os.listdir(out / "torch_ckpt")) == names
    t0 = _read(out, "train0.json")
    t1 = _read(out, "train1.json")
    assert t0["local_shapes"] == {"0.weight": [3, 6], "0.bias": [3], "2.weight": [2, 5],
                                  "2.bias": [2]}
    assert t1["local_shapes"] == {"0.weight": [2, 6], "0.bias": [2], "2.weight": [1, 5],
                                  "2.bias": [1]}


def test_resume_continues_the_uninterrupted_run(out):
    for r in (0, 1):
        t, rs = _read(out, f"train{r}.json"), _read(out, f"resume{r}.json")
        assert rs["after"] == t["after"], r  # bit-identical losses after the restart
        assert rs["params"] == t["params"] and rs["step"] == 3
        assert rs["broadcast"] == t["params"]  # broadcast_from_rank0 into a fresh model
        assert rs["broadcast_local"] == t["local_shapes"]
        assert rs["from_meta"] == t["params"]  # a meta-device model is materialised first


def test_one_process_loads_the_two_rank_checkpoint(out):
    t0, t1, s = (_read(out, n) for n in ("train0.json", "train1.json", "single0.json"))
    assert s["params"] == t0["params"] and s["exp_avg"] == t0["exp_avg"] and s["step"] == 3
    # the whole batch in one process: the mean of the ranks' half-batch losses
    S.close(s["losses"], [(a + b) / 2 for a, b in zip(t0["after"], t1["after"])], 1e-5)


def test_torch_reads_numtorchs_sharded_checkpoint(out):
    got = _read(out, "torch_full.json")
    t0 = _read(out, "train0.json")
    for k, v in t0["params"].items():
        assert got[f"model.{k}"]["values"] == v, k
    for k, v in t0["exp_avg"].items():
        assert got[f"optim.state.{k}.exp_avg"]["values"] == v, k
    assert got["step"] == 3


def test_numtorch_training_equals_torchs(out):
    for r in (0, 1):
        ours, theirs = _read(out, f"train{r}.json"), _read(out, f"torch{r}.json")
        S.close(ours["losses"], theirs["losses"], 1e-5)
        S.close(ours["after"], theirs["after"], 1e-5)


def test_numtorch_ranks_load_torchs_sharded_checkpoint(out):
    for r in (0, 1):
        got, theirs = _read(out, f"load_torch{r}.json"), _read(out, f"torch{r}.json")
        assert got["step"] == 3
        assert got["params"] == theirs["params"]  # torch's bytes, bit for bit
        S.close(got["after"], theirs["after"], 1e-5)  # then numtorch's arithmetic


def test_reshard_to_other_placements(out):
    base = [[float(5 * i + j) for j in range(5)] for i in range(7)]
    scaled = {k: [[x * f for x in row] for row in base]
              for k, f in (("s0", 1), ("s1", 2), ("r", 3), ("plain", 4))}
    for r in (0, 1):
        got = _read(out, f"reshard{r}.json")
        for k, want in scaled.items():
            assert got[k] == want, (r, k)
        assert got["placements"] == {"s0": "(Shard(dim=1),)", "s1": "(Replicate(),)",
                                     "r": "(Shard(dim=0),)", "plain": "(Shard(dim=0),)"}
        assert got["local"]["s0"] == [row[:3] if r == 0 else row[3:] for row in base]
        assert got["local"]["r"] == scaled["r"][:4] if r == 0 else scaled["r"][4:]
        assert got["meta"] == {"rank_independent": [1, 2]}
        assert got["partial"] == [[x * 3 for x in row] for row in base]  # 1x + 2x
        assert got["one_rank_missing"] == ["CheckpointException ranks:dict_keys([1])",
                                           ("RuntimeError: Missing key in checkpoint "
                                            "state_dict: extra.")]
        assert got["async"] == "Metadata" and got["async_back"] == base
        assert got["mismatch"] == [
            "CheckpointException ranks:dict_keys([0, 1])",
            {str(k): "ValueError('Size mismatch between saved torch.Size([7, 5]) and current: "
                     "torch.Size([7, 4]) for s0')" for k in (0, 1)}]


def test_hugging_face_files_from_two_ranks(out):
    base = [[float(3 * i + j) for j in range(3)] for i in range(5)]
    want = {k: [[x * f for x in row] for row in base] for k, f in (("s", 1), ("r", 2), ("p", 3))}
    for r in (0, 1):
        got = _read(out, f"hf{r}.json")
        assert {k: got[k] for k in want} == want
        assert got["local_s"] == [row[:2] if r == 0 else row[2:] for row in base]
        assert got["files"] == ["model-00001-of-00002.safetensors",
                                "model-00002-of-00002.safetensors",
                                "model.safetensors.index.json", "sharded"]
        # rank 0 holds s's first block and the replicated entries, rank 1 s's second block
        assert got["sharded"] == ["shard-00001-model-00001-of-00002.safetensors",
                                  "shard-00001-model-00002-of-00002.safetensors",
                                  "shard-00002-model-00001-of-00002.safetensors"]
    # torch reads the consolidated files
    theirs = _read(out, "torch_hf.json")
    assert {k: v["values"] for k, v in theirs.items()} == want
