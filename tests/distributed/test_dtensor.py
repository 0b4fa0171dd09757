"""DTensor in one process (a one-rank mesh, no process group needed): placements against
torch 2.13, and DTensor computations (values, gradients through redistributions, AdamW)
against the same computation on plain torch tensors. The multi-rank comparison with torch's
own DTensor is tests/distributed/test_dtensor_ranks.py."""

import pytest
import torch
import torch.distributed.tensor
import torch.distributed.tensor.placement_types

import numtorch
from numtorch.distributed.device_mesh import DeviceMesh
from numtorch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor
from numtorch.distributed.tensor._utils import compute_local_shape_and_global_offset
from tests.oracle import check_op, same


def pt(t):
    return t.distributed.tensor.placement_types


def test_placements_match_torch():
    def fn(t):
        P = pt(t)
        s0, s1, r, p, avg = P.Shard(0), P.Shard(1), P.Replicate(), P.Partial(), \
            P.Partial("avg")
        strided = P._StridedShard(0, split_factor=2)
        return ([repr(x) for x in (s0, r, p, avg, strided)], [str(x) for x in (s0, r, p)],
                s0 == P.Shard(0), s0 == s1, r == P.Replicate(), p == avg,
                hash(s0) == hash(P.Shard(0)), s0.is_shard(), s0.is_shard(0), s0.is_shard(1),
                r.is_replicate(), p.is_partial(), r.is_shard(), p.reduce_op, s1.dim,
                isinstance(s0, P.Placement), strided == P._StridedShard(0, split_factor=2))

    same(fn)


@pytest.fixture
def mesh():
    return DeviceMesh("cpu", [0])


def test_one_rank_mesh(mesh):
    assert repr(mesh) == "DeviceMesh((1,), 'cpu', stride=((),))"
    assert (mesh.get_coordinate(), mesh.get_local_rank(), mesh.size(), mesh.ndim) == \
        ((0,), 0, 1, 1)
    assert compute_local_shape_and_global_offset((5, 7), mesh, [Shard(0)]) == ((5, 7), (0, 0))


def _dt(t, x, placements, mesh):
    """``x`` as a DTensor under numtorch (differentiably: distribute_tensor would make a new
    leaf, as torch's does), unchanged under torch."""
    if t is not numtorch:
        return x
    return DTensor.from_local(x, mesh, [Replicate()]).redistribute(mesh, placements)


def _full(t, y):
    return y.full_tensor() if t is numtorch else y


@pytest.mark.parametrize("px,pw", [(Shard(0), Replicate()), (Replicate(), Shard(1)),
                                   (Shard(1), Shard(0)), (Replicate(), Replicate())])
def test_dtensor_mlp_values_and_gradients_match_torch(mesh, px, pw):
    def fn(t, x, w, b):
        x, w, b = _dt(t, x, [px], mesh), _dt(t, w, [pw], mesh), _dt(t, b, [Replicate()], mesh)
        h = (x @ w + b).tanh()
        return _full(t, t.softmax(h, -1) * 2 - h.sum())

    check_op(fn, [(4, 3), (3, 5), (5,)], second_order=False)


def test_dtensor_redistribute_and_local_paths_are_differentiable(mesh):
    def fn(t, x):
        if t is numtorch:
            d = _dt(t, x, [Shard(0)], mesh)
            p = DTensor.from_local(d.to_local() * 3, mesh, [Partial()])
            return p.redistribute(mesh, [Replicate()]).full_tensor().exp(), d.sum().full_tensor()
        return (x * 3).exp(), x.sum()

    check_op(fn, [(3, 2)], second_order=False)


def test_dtensor_leaf_gradient_and_adamw_match_torch(mesh):
    x = torch.linspace(-2, 2, 24).reshape(8, 3)
    y = torch.linspace(0, 1, 16).reshape(8, 2)
    w_t = torch.linspace(-1, 1, 6).reshape(3, 2).requires_grad_()
    w_n = distribute_tensor(numtorch.tensor(w_t.detach().numpy()), mesh,
                            [Replicate()]).requires_grad_()
    xd = distribute_tensor(numtorch.tensor(x.numpy()), mesh, [Shard(0)])
    yd = distribute_tensor(numtorch.tensor(y.numpy()), mesh, [Shard(0)])
    opt_t = torch.optim.AdamW([w_t], lr=0.1)
    opt_n = numtorch.optim.AdamW([w_n], lr=0.1)
    for _ in range(4):
        opt_t.zero_grad()
        opt_n.zero_grad()
        ((x @ w_t - y) ** 2).mean().backward()
        ((xd @ w_n - yd) ** 2).mean().backward()
        assert isinstance(w_n.grad, DTensor)
        assert w_n.grad.placements == (Replicate(),)
        torch.testing.assert_close(torch.from_numpy(w_n.grad.full_tensor().numpy()), w_t.grad)
        opt_t.step()
        opt_n.step()
    torch.testing.assert_close(torch.from_numpy(w_n.full_tensor().detach().numpy()),
                               w_t.detach())


def test_dtensor_inplace_and_views_keep_layout(mesh):
    d = distribute_tensor(numtorch.arange(12.).reshape(4, 3), mesh, [Shard(0)])
    d.mul_(2)
    assert d.placements == (Shard(0),) and d.full_tensor()[1, 0].item() == 6.0
    assert d.view(4, 3, 1).placements == (Shard(0),)
    assert d.t().placements == (Shard(1),)
    assert d.transpose(0, 1).shape == (3, 4)
    assert numtorch.softmax(d, 0).placements == (Replicate(),)
    assert d.sum(1).placements == (Shard(0),) and d.sum(0).placements == (Partial(),)
    with pytest.raises(RuntimeError, match="got mixed torch.Tensor and DTensor"):
        d + numtorch.ones(4, 3)
    with pytest.raises(RuntimeError, match="redistributing to Partial is for internal use"):
        d.redistribute(mesh, [Partial()])


def test_dtensor_factories_and_distribute_module(mesh):
    from numtorch.distributed import tensor as dt

    z = dt.zeros(4, 3, device_mesh=mesh, placements=[Shard(0)])
    o = dt.ones((2, 5), device_mesh=mesh, requires_grad=True)
    f = dt.full((2, 2), 7.0, device_mesh=mesh, placements=[Replicate()])
    assert (z.shape, z.placements, o.requires_grad, f.full_tensor().sum().item()) == \
        ((4, 3), (Shard(0),), True, 28.0)
    lin = numtorch.nn.Linear(3, 2)
    dt.distribute_module(lin, mesh)
    assert isinstance(lin.weight, DTensor) and lin.weight.placements == (Replicate(),)
    out = lin(distribute_tensor(numtorch.ones(4, 3), mesh, [Shard(0)]))
    assert out.placements == (Shard(0),) and out.shape == (4, 2)


def test_shard_size_and_offset_matches_torch():
    def fn(t):
        S = pt(t).Shard
        return [S.local_shard_size_and_offset(n, k, r) for n in (0, 1, 4, 5, 7, 8)
                for k in (1, 2, 3, 4) for r in range(k)] + \
            [S(0)._local_shard_size_and_offset(5, 3, 2)]

    same(fn)


def test_parameter_of_a_dtensor_is_the_dtensor(mesh):
    d = distribute_tensor(numtorch.arange(6.).reshape(3, 2), mesh, [Shard(0)])
    p = numtorch.nn.Parameter(d)
    assert isinstance(p, DTensor) and isinstance(p, numtorch.nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.placements == (Shard(0),)
    assert not isinstance(d, numtorch.nn.Parameter)
    assert not isinstance(numtorch.zeros(2), numtorch.nn.Parameter)
    lin = numtorch.nn.Linear(2, 3)
    lin.weight = numtorch.nn.Parameter(distribute_tensor(numtorch.ones(3, 2), mesh,
                                                         [Replicate()]))
    assert isinstance(lin.weight, DTensor) and "weight" in dict(lin.named_parameters())
    with pytest.raises(TypeError, match="cannot assign"):
        lin.weight = d
