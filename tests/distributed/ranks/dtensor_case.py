"""The DTensor program that tests/distributed/test_dtensor_ranks.py runs under torch 2.13
(gloo) and under numtorch (socket transport), each rank writing what it saw.

python dtensor_case.py OUT PORT torch|numtorch WORLD
"""

import json
import os
import sys
import warnings


def describe(torch, x):
    """A JSON-able, library-independent picture of a result."""
    if isinstance(x, torch.Tensor):
        return {"shape": list(x.shape), "dtype": str(x.dtype).replace("numtorch", "torch"),
                "values": [round(v, 4) for v in x.detach().double().flatten().tolist()]}
    if isinstance(x, (list, tuple)):
        return [describe(torch, v) for v in x]
    if isinstance(x, BaseException):
        return {"raise": type(x).__name__, "message": str(x).replace("numtorch", "torch")}
    return str(x).replace("numtorch", "torch")


def run_case(torch, rank, world):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset as clsgo

    got = {}

    def record(name, fn):
        try:
            got[name] = describe(torch, fn())
        except Exception as e:  # noqa: BLE001 - the exception is the result compared
            got[name] = describe(torch, e)

    def layout(d):
        return [str(d.placements), list(d.shape), d.to_local(), d.full_tensor()]

    mesh = init_device_mesh("cpu", (world,))
    record("mesh", lambda: [repr(mesh), mesh.get_coordinate(), mesh.get_local_rank(),
                            mesh.size(), mesh.ndim, mesh.mesh.tolist()])
    for n in (1, 2, 3, 4, 5, 7, 8):
        record(f"offsets_{n}", lambda n=n: [clsgo((n, 3), mesh, [Shard(0)]),
                                        clsgo((3, n), mesh, [Shard(1)]),
                                        clsgo((n,), mesh, [Replicate()])])
    if world == 4:
        m2 = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
        record("mesh2", lambda: [repr(m2), m2.get_coordinate(), repr(m2["tp"]),
                                 repr(m2["dp"]), m2["dp"].get_coordinate(),
                                 m2.get_local_rank("tp")])
        for n in (1, 3, 5, 7, 8):
            record(f"offsets2_{n}", lambda n=n: [clsgo((n, 6), m2, [Shard(0), Shard(0)]),
                                             clsgo((n, 6), m2, [Shard(0), Shard(1)]),
                                             clsgo((n, 6), m2, [Replicate(), Shard(0)])])
        x = torch.arange(35.).reshape(7, 5)
        d = distribute_tensor(x, m2, [Shard(0), Shard(1)])
        record("2d_layout", lambda: layout(d))
        record("2d_to_R_S0", lambda: layout(d.redistribute(m2, [Replicate(), Shard(0)])))
        record("2d_to_S1_R", lambda: layout(d.redistribute(m2, [Shard(1), Replicate()])))
        record("2d_add", lambda: layout(d + d))
        record("2d_sum", lambda: layout(d.sum()))
        return got

    x = torch.arange(15.).reshape(5, 3) / 10
    d = distribute_tensor(x, mesh, [Shard(0)])
    r = distribute_tensor(x, mesh, [Replicate()])
    record("layout_S0", lambda: layout(d) + [d.stride(), d.to_local().stride()])
    record("layout_S1", lambda: layout(distribute_tensor(x, mesh, [Shard(1)])))
    record("S0_to_R", lambda: layout(d.redistribute(mesh, [Replicate()])))
    record("S0_to_S1", lambda: layout(d.redistribute(mesh, [Shard(1)])))
    record("R_to_S0", lambda: layout(r.redistribute(mesh, [Shard(0)])))
    record("R_to_P", lambda: r.redistribute(mesh, [Partial()]))
    record("distribute_P", lambda: layout(distribute_tensor(x, mesh, [Partial()])))
    record("distribute_P_max", lambda: layout(distribute_tensor(x, mesh, [Partial("max")])))
    p = DTensor.from_local(torch.full((2, 3), float(rank + 1)), mesh, [Partial()])
    record("P_full", lambda: layout(p))
    record("P_to_S0", lambda: layout(p.redistribute(mesh, [Shard(0)])))
    record("P_avg", lambda: DTensor.from_local(torch.full((2,), float(rank + 1)), mesh,
                                               [Partial("avg")]).full_tensor())
    def from_local_shape():
        z = DTensor.from_local(torch.ones(rank + 1, 2), mesh, [Shard(0)], shape=(6, 2),
                               stride=(2, 1))
        return [list(z.shape), z.stride()]

    record("from_local_shape", from_local_shape)
    record("from_local_R", lambda: layout(DTensor.from_local(torch.full((2,), float(rank)),
                                                             mesh, [Replicate()])))
    record("from_local_run_check", lambda: DTensor.from_local(
        torch.full((2,), float(rank)), mesh, [Replicate()], run_check=True).to_local())
    record("add_scalar", lambda: layout(d + 1))
    record("add_self", lambda: layout(d + d))
    record("S_plus_R", lambda: layout(d + r))
    record("mul_scalar", lambda: layout(d * 2))
    record("mixed", lambda: d + torch.ones(5, 3))
    record("sum", lambda: layout(d.sum()))
    record("sum0", lambda: layout(d.sum(0)))
    record("sum1", lambda: layout(d.sum(1)))
    record("mean", lambda: layout(d.mean()))
    record("exp", lambda: layout(d.exp()))
    record("P_exp", lambda: layout(p.exp()))
    record("P_plus_P", lambda: layout(p + p))
    record("P_times_2", lambda: layout(p * 2))
    record("P_plus_1", lambda: layout(p + 1))
    w = distribute_tensor(torch.arange(6.).reshape(3, 2) / 10, mesh, [Replicate()])
    ws = distribute_tensor(torch.arange(6.).reshape(3, 2) / 10, mesh, [Shard(0)])
    record("S0_mm_R", lambda: layout(d @ w))
    record("S1_mm_S0", lambda: layout(r.redistribute(mesh, [Shard(1)]) @ ws))
    record("softmax_last", lambda: layout(torch.softmax(d, -1)))
    record("softmax_0", lambda: torch.softmax(d, 0).full_tensor())
    record("t", lambda: layout(d.t()))
    record("getitem", lambda: d[1:3].full_tensor())

    # gradients: a sharded leaf and a replicated one, through a matmul and a pointwise op
    a = distribute_tensor(x.clone(), mesh, [Shard(0)]).requires_grad_()
    wl = distribute_tensor(torch.arange(6.).reshape(3, 2) / 10, mesh,
                           [Replicate()]).requires_grad_()
    bias = distribute_tensor(torch.tensor([0.1, -0.2]), mesh, [Replicate()]).requires_grad_()
    loss = ((a @ wl + bias).tanh() ** 2).sum()
    record("loss", lambda: [str(loss.placements), loss.full_tensor()])
    loss.backward()
    record("grad_sharded", lambda: [str(a.grad.placements), a.grad.to_local(),
                                    a.grad.full_tensor()])
    record("grad_replicated", lambda: [wl.grad.full_tensor(), bias.grad.full_tensor()])
    a3 = distribute_tensor(x.clone(), mesh, [Shard(0)]).requires_grad_()
    a3.full_tensor().pow(2).sum().backward()
    record("grad_full_tensor", lambda: [str(a3.grad.placements), a3.grad.to_local()])
    leaf = (torch.arange(6.).reshape(2, 3) + rank).requires_grad_()
    DTensor.from_local(leaf, mesh, [Shard(0)]).full_tensor().pow(2).sum().backward()
    record("grad_from_local", lambda: leaf.grad)
    a5 = distribute_tensor(x.clone(), mesh, [Shard(0)]).requires_grad_()
    (a5.to_local() * 3).sum().backward()
    record("grad_to_local", lambda: [str(a5.grad.placements), a5.grad.to_local()])

    # a few AdamW steps of a small model with row-sharded data and replicated parameters
    torch.manual_seed(0)
    w1 = distribute_tensor(torch.linspace(-1, 1, 12).reshape(3, 4), mesh,
                           [Replicate()]).requires_grad_()
    w2 = distribute_tensor(torch.linspace(1, -1, 8).reshape(4, 2), mesh,
                           [Replicate()]).requires_grad_()
    data = distribute_tensor(torch.linspace(-2, 2, 30).reshape(10, 3), mesh, [Shard(0)])
    target = distribute_tensor(torch.linspace(0, 1, 20).reshape(10, 2), mesh, [Shard(0)])
    opt = torch.optim.AdamW([w1, w2], lr=0.05)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        out = torch.relu(data @ w1) @ w2
        step_loss = ((out - target) ** 2).mean()
        step_loss.backward()
        opt.step()
        losses.append(step_loss.full_tensor())
    record("adamw_losses", lambda: losses)
    record("adamw_params", lambda: [w1.full_tensor(), w2.full_tensor(), w1.to_local()])
    fsdp2(torch, rank, record)
    functional(torch, rank, world, mesh, record)
    return got


def functional(torch, rank, world, mesh, record):
    """Functional collectives (new tensors; the *_autograd ones differentiable) and the
    full/sharded model state dict of a fully_shard model."""
    import torch.distributed._functional_collectives as fc
    from torch.distributed.checkpoint.state_dict import (
        StateDictOptions,
        get_model_state_dict,
        set_model_state_dict,
    )
    from torch.distributed.fsdp import fully_shard

    x = (torch.arange(6.).reshape(3, 2) + 10 * rank).requires_grad_()
    record("fc_all_reduce", lambda: fc.wait_tensor(fc.all_reduce(x, "sum", mesh)))
    record("fc_all_reduce_avg", lambda: fc.all_reduce(x, "avg", mesh))
    record("fc_all_gather", lambda: fc.all_gather_tensor(x, 0, mesh))
    record("fc_all_gather_dim1", lambda: fc.all_gather_tensor(x, 1, (mesh, 0)))
    y = torch.arange(3. * world * 2).reshape(3 * world, 2) * (rank + 1)
    record("fc_reduce_scatter", lambda: fc.reduce_scatter_tensor(y, "sum", 0, mesh))
    record("fc_all_to_all", lambda: fc.all_to_all_single(y, None, None, mesh))

    def gathered_grad():
        out = fc.all_gather_tensor_autograd(x, 0, mesh)
        (out * torch.arange(out.numel()).reshape(out.shape)).sum().backward()
        return x.grad

    record("fc_all_gather_grad", gathered_grad)
    z = (torch.arange(2. * world) + rank).requires_grad_()

    def all_to_all_grad():
        out = fc.all_to_all_single_autograd(z, [2] * world, [2] * world, mesh)
        (out * (torch.arange(out.numel()) + 1)).sum().backward()
        return [out, z.grad]

    record("fc_all_to_all_grad", all_to_all_grad)
    model = torch.nn.Linear(3, 4)
    with torch.no_grad():
        model.weight.copy_(torch.linspace(-1, 1, 12).reshape(4, 3))
        model.bias.copy_(torch.linspace(0, 1, 4))
    fully_shard(model)
    full = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))
    record("sd_full", lambda: [sorted(full), full["weight"], full["bias"]])
    record("sd_sharded", lambda: [str(v.placements) for v in get_model_state_dict(model).values()])
    new = {"weight": torch.ones(4, 3) * 2, "bias": torch.arange(4.)}
    record("sd_set_pieces_mismatch", lambda: set_model_state_dict(model, new))
    record("sd_set", lambda: [set_model_state_dict(
        model, new, options=StateDictOptions(full_state_dict=True)), model.weight.full_tensor(),
        model.bias.to_local()])


def fsdp2(torch, rank, record):
    """FSDP2: a 3-layer MLP with fully_shard on each Linear and the root, each rank training
    on its own data with AdamW."""
    from torch.distributed.fsdp import FSDPModule, fully_shard
    from torch.distributed.tensor import DTensor

    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 5), nn.ReLU(),
                          nn.Linear(5, 2))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) * (0.5 + 0.1 * i))
    for layer in (model[0], model[2], model[4]):
        fully_shard(layer)
    fully_shard(model)
    record("fsdp2_kind", lambda: [isinstance(model, FSDPModule), type(model).__name__,
                                  type(model[0]).__name__,
                                  [str(p.placements) for p in model.parameters()],
                                  [isinstance(p, DTensor) for p in model.parameters()],
                                  [list(p.shape) for p in model.parameters()],
                                  [list(p.to_local().shape) for p in model.parameters()]])
    x = torch.linspace(-1, 1, 12).reshape(4, 3) * (rank + 1)
    y = torch.linspace(0, 1, 8).reshape(4, 2) - rank
    opt = torch.optim.AdamW(model.parameters(), lr=0.05)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    record("fsdp2_losses", lambda: losses)
    record("fsdp2_grads", lambda: [[str(p.grad.placements), p.grad.full_tensor()]
                                   for p in model.parameters()])
    record("fsdp2_params", lambda: [p.full_tensor() for p in model.parameters()])
    record("fsdp2_output", lambda: model(x))


def main(rank, out, port, world, lib):
    if lib == "torch":
        import torch
        import torch.distributed as dist

        torch.set_num_threads(1)
    else:
        import numtorch as torch
        import numtorch.distributed as dist
    warnings.simplefilter("ignore")
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    if lib != "torch":
        # the rank program's `import torch...` lines name numtorch through the import hook
        from numtorch import _import_hook

        _import_hook.install()
    got = run_case(torch, rank, world)
    with open(os.path.join(out, f"{lib}{rank}.json"), "w") as f:
        json.dump(got, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    out_dir, port, lib, world = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    if lib == "torch":
        import torch.multiprocessing as mp
    else:
        import numtorch.multiprocessing as mp
    mp.spawn(main, args=(out_dir, port, world, lib), nprocs=world)
