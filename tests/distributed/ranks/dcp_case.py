"""Rank script for tests/distributed/test_dcp_ranks.py: sharded checkpoints on 2 MPI ranks.

    mpiexec -n 2 python dcp_case.py OUT train   # FSDP2 training, dcp.save after step 3,
                                                # 3 more steps (the uninterrupted run)
    mpiexec -n 2 python dcp_case.py OUT resume  # fresh processes: dcp.load, 3 steps
    mpiexec -n 2 python dcp_case.py OUT reshard # DTensors saved Shard(0)/Shard(1)/Replicate,
                                                # loaded under other placements
    mpiexec -n 2 python dcp_case.py OUT load_torch  # fresh processes load the checkpoint
                                                # torch wrote on 2 ranks (dcp_torch_ranks.py)
    mpiexec -n 2 python dcp_case.py OUT hf      # Hugging Face files: each rank its shards,
                                                # consolidated; loaded as Shard(1)
    python dcp_case.py OUT single               # one process, no process group: loads the
                                                # 2-rank checkpoint into a plain model
Each run writes OUT/<phase><rank>.json: losses and the values it compares.
"""

import json
import os
import sys
import warnings

import dcp_state as S

import numtorch as torch
import numtorch.distributed as dist
import numtorch.distributed.checkpoint as dcp
from numtorch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_state_dict,
    set_state_dict,
)

warnings.simplefilter("ignore")
OUT, PHASE = sys.argv[1], sys.argv[2]
CKPT = os.path.join(OUT, "ckpt")
STEPS = 3


def _mesh():
    from numtorch.distributed.tensor import init_device_mesh

    return init_device_mesh("cpu", (dist.get_world_size(),))


def sharded():
    mesh = _mesh()
    m = S.fsdp_shard(torch, S.fsdp_model(torch), mesh)
    return m, S.fsdp_optimizer(torch, m), mesh


def train(m, opt, steps, start, rank=None, world=2):
    return S.fsdp_train(torch, m, opt, steps, start, rank, world)


def full(value):
    return value.full_tensor() if hasattr(value, "full_tensor") else value


def record(rank, res):
    with open(os.path.join(OUT, f"{PHASE}{rank}.json"), "w") as f:
        json.dump(res, f)


def main():
    if PHASE == "single":
        m = S.fsdp_model(torch)
        opt = S.fsdp_optimizer(torch, m)
        msd, osd = get_state_dict(m, opt)
        state = {"model": msd, "optim": osd, "step": -1}
        dcp.load(state, checkpoint_id=CKPT)
        set_state_dict(m, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
        res = {"step": state["step"],
               "params": {k: v.tolist() for k, v in m.state_dict().items()},
               "exp_avg": {k: s["exp_avg"].tolist() for k, s in state["optim"]["state"].items()},
               "losses": train(m, opt, STEPS, STEPS)}
        record(0, res)
        return
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    if PHASE == "train":
        m, opt, _ = sharded()
        res = {"losses": train(m, opt, STEPS, 0, rank, world)}
        msd, osd = get_state_dict(m, opt)
        dcp.save({"model": msd, "optim": osd, "step": STEPS}, checkpoint_id=CKPT)
        full_sd = get_state_dict(m, opt, options=StateDictOptions(full_state_dict=True))
        res["params"] = {k: v.tolist() for k, v in full_sd[0].items()}
        res["exp_avg"] = {k: s["exp_avg"].tolist() for k, s in full_sd[1]["state"].items()}
        res["local_shapes"] = {k: list(v.to_local().shape) for k, v in msd.items()}
        res["after"] = train(m, opt, STEPS, STEPS, rank, world)
    elif PHASE in ("resume", "load_torch"):
        m, opt, _ = sharded()
        msd, osd = get_state_dict(m, opt)
        state = {"model": msd, "optim": osd, "step": 0}
        dcp.load(state, checkpoint_id=CKPT if PHASE == "resume"
                 else os.path.join(OUT, "torch_ckpt"))
        set_state_dict(m, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
        res = {"step": state["step"],
               "params": {k: full(v).tolist() for k, v in m.state_dict().items()}}
        # rank 0's whole state dict, sent to every rank and split into a fresh sharded model
        whole = get_state_dict(m, opt, options=StateDictOptions(full_state_dict=True))[0]
        m2, opt2, _ = sharded()
        set_state_dict(m2, opt2, model_state_dict=whole if rank == 0 else {},
                       optim_state_dict={"state": {}, "param_groups": [
                           dict(g, params=[n for n, _ in m2.named_parameters()])
                           for g in opt2.state_dict()["param_groups"]]},
                       options=StateDictOptions(full_state_dict=True,
                                                broadcast_from_rank0=True))
        res["broadcast"] = {k: full(v).tolist() for k, v in m2.state_dict().items()}
        res["broadcast_local"] = {k: list(v.to_local().shape) for k, v in m2.state_dict().items()}
        # a model built on the meta device (as pytorch/examples' FSDP2 checkpoint.py does)
        from numtorch.distributed.checkpoint.state_dict import set_model_state_dict

        with torch.device("meta"):
            m3 = S.fsdp_model(torch)
        m3 = S.fsdp_shard(torch, m3, _mesh())
        set_model_state_dict(m3, whole, options=StateDictOptions(full_state_dict=True))
        res["from_meta"] = {k: full(v).tolist() for k, v in m3.state_dict().items()}
        res["after"] = train(m, opt, STEPS, STEPS, rank, world)
    elif PHASE == "reshard":
        from numtorch.distributed.tensor import (
            Replicate,
            Shard,
            distribute_tensor,
            init_device_mesh,
        )

        mesh = init_device_mesh("cpu", (world,))
        base = torch.arange(35, dtype=torch.float32).reshape(7, 5)
        saved = {"s0": distribute_tensor(base, mesh, [Shard(0)]),
                 "s1": distribute_tensor(base * 2, mesh, [Shard(1)]),
                 "r": distribute_tensor(base * 3, mesh, [Replicate()]),
                 "plain": base * 4, "meta": {"rank_independent": [1, 2]}}
        from numtorch.distributed.tensor import DTensor, Partial

        # each rank holds a term of a sum: the checkpoint holds the sum
        saved["partial"] = DTensor.from_local(base * (rank + 1), mesh, [Partial()])
        dcp.save(saved, checkpoint_id=os.path.join(OUT, "reshard"))
        zeros = torch.zeros(7, 5)
        target = {"s0": distribute_tensor(zeros, mesh, [Shard(1)]),
                  "s1": distribute_tensor(zeros, mesh, [Replicate()]),
                  "r": distribute_tensor(zeros, mesh, [Shard(0)]),
                  "plain": distribute_tensor(zeros, mesh, [Shard(0)]),
                  "meta": {"rank_independent": None},
                  "partial": torch.zeros(7, 5)}
        dcp.load(target, checkpoint_id=os.path.join(OUT, "reshard"))
        res = {k: full(v).tolist() for k, v in target.items() if k != "meta"}
        res["local"] = {k: v.to_local().tolist() for k, v in target.items()
                        if k not in ("meta", "partial")}
        res["meta"] = target["meta"]
        res["placements"] = {k: str(v.placements) for k, v in target.items()
                             if k not in ("meta", "partial")}
        try:
            dcp.load({"s0": distribute_tensor(torch.zeros(7, 4), mesh, [Shard(0)])},
                     checkpoint_id=os.path.join(OUT, "reshard"))
        except dcp.CheckpointException as e:
            res["mismatch"] = [str(e).splitlines()[0],
                               {str(r): repr(x[0]) for r, x in e.failures.items()}]
        # only rank 1 asks for an entry the checkpoint lacks: every rank raises, naming it
        ask = {"plain": distribute_tensor(zeros, mesh, [Shard(0)])}
        if rank == 1:
            ask["extra"] = torch.zeros(1)
        try:
            dcp.load(ask, checkpoint_id=os.path.join(OUT, "reshard"))
        except dcp.CheckpointException as e:
            res["one_rank_missing"] = [str(e).splitlines()[0], str(e).splitlines()[-1]]
        fut = dcp.async_save({"x": distribute_tensor(base, mesh, [Shard(0)])},
                             checkpoint_id=os.path.join(OUT, "async"))
        res["async"] = type(fut.result()).__name__
        back = {"x": distribute_tensor(zeros, mesh, [Replicate()])}
        dcp.load(back, checkpoint_id=os.path.join(OUT, "async"))
        res["async_back"] = back["x"].to_local().tolist()
    elif PHASE == "hf":
        from numtorch.distributed.tensor import (
            Replicate,
            Shard,
            distribute_tensor,
            init_device_mesh,
        )

        mesh = init_device_mesh("cpu", (world,))
        base = torch.arange(15, dtype=torch.float32).reshape(5, 3)
        sd = {"s": distribute_tensor(base, mesh, [Shard(0)]),
              "r": distribute_tensor(base * 2, mesh, [Replicate()]), "p": base * 3}
        where = os.path.join(OUT, "hf")
        dcp.save(sd, storage_writer=dcp.HuggingFaceStorageWriter(
            where, save_distributed=True, enable_consolidation=True,
            fqn_to_index_mapping={"s": 1, "r": 2, "p": 2}))
        back = {"s": distribute_tensor(torch.zeros(5, 3), mesh, [Shard(1)]),
                "r": torch.zeros(5, 3), "p": distribute_tensor(torch.zeros(5, 3), mesh,
                                                               [Shard(0)])}
        dcp.load(back, storage_reader=dcp.HuggingFaceStorageReader(where))
        res = {k: full(v).tolist() for k, v in back.items()}
        res["local_s"] = back["s"].to_local().tolist()
        res["files"] = sorted(os.listdir(where))
        res["sharded"] = sorted(os.listdir(os.path.join(where, "sharded")))
    record(rank, res)
    dist.destroy_process_group()


main()
