"""legacy.nn containers and the Module protocol: parameters, accumulation with scale,
updateParameters, modes, types, clone/share, flattenParameters, Lua positions."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import numtorch
from numtorch.legacy import nn

from ._compare import check_module, close, nt

R = np.random.default_rng(2)


def rand(*shape):
    return nt(R.standard_normal(shape))


def test_sequential_matches_torch():
    m = nn.Sequential().add(nn.Linear(4, 3)).add(nn.Tanh()).add(nn.Linear(3, 2))
    check_module(m, rand(5, 4), lambda x, w1, b1, w2, b2:
                 TF.linear(torch.tanh(TF.linear(x, w1, b1)), w2, b2))


def test_concat_matches_torch():
    m = nn.Concat(2).add(nn.Linear(4, 3)).add(nn.Linear(4, 2))
    check_module(m, rand(5, 4), lambda x, w1, b1, w2, b2:
                 torch.cat([TF.linear(x, w1, b1), TF.linear(x, w2, b2)], 1))


def test_concat_table_and_parallel_table():
    ct = nn.ConcatTable().add(nn.Linear(4, 3)).add(nn.Identity()).add(nn.Tanh())
    out, _ = check_module(ct, rand(2, 4), lambda x, w, b: [TF.linear(x, w, b), x * 1,
                                                           torch.tanh(x)])
    assert isinstance(out, list) and len(out) == 3
    pt = nn.ParallelTable().add(nn.Linear(3, 2)).add(nn.Sigmoid())
    check_module(pt, [rand(2, 3), rand(4)], lambda x, w, b: [TF.linear(x[0], w, b),
                                                             torch.sigmoid(x[1])])


def test_parallel_splits_and_joins():
    m = nn.Parallel(1, 1).add(nn.Linear(4, 3)).add(nn.Linear(4, 2))
    check_module(m, rand(2, 4), lambda x, w1, b1, w2, b2:
                 torch.cat([TF.linear(x[0], w1, b1), TF.linear(x[1], w2, b2)]))
    m2 = nn.Parallel(2, 2).add(nn.Tanh()).add(nn.Sigmoid())
    check_module(m2, rand(3, 2, 4), lambda x: torch.cat([torch.tanh(x[:, 0]),
                                                         torch.sigmoid(x[:, 1])], 1))


def test_nested_table_modules():
    # {x, y} -> {Linear(x), y} -> JoinTable -> SelectTable-free path through a ConcatTable
    net = nn.Sequential()
    net.add(nn.ParallelTable().add(nn.Linear(3, 2)).add(nn.Identity()))
    net.add(nn.JoinTable(2))
    check_module(net, [rand(4, 3), rand(4, 5)], lambda x, w, b: torch.cat(
        [TF.linear(x[0], w, b), x[1]], 1))


def test_parameters_and_update():
    lin = nn.Linear(3, 2).double()
    assert nn.Tanh().parameters() is None
    w, g = lin.parameters()
    assert w[0] is lin.weight and w[1] is lin.bias and g[0] is lin.gradWeight
    x, go = rand(4, 3), rand(4, 2)
    lin.zeroGradParameters()
    lin.forward(x)
    lin.backward(x, go)
    first = lin.gradWeight.clone()
    lin.backward(x, go, 3.0)  # accumulates: 1 + 3 times the gradient
    close(lin.gradWeight, first * 4)
    before = lin.weight.clone()
    lin.updateParameters(0.1)
    close(lin.weight, before - 0.1 * lin.gradWeight)
    lin.zeroGradParameters()
    assert float(lin.gradWeight.abs().sum()) == 0.0


def test_separate_calls_equal_backward():
    a = nn.Linear(3, 2).double()
    b = a.clone()
    x, go = rand(4, 3), rand(4, 2)
    a.forward(x)
    gi_a = a.backward(x, go, 0.5)
    b.forward(x)
    gi_b = b.updateGradInput(x, go)
    b.accGradParameters(x, go, 0.5)
    close(gi_a, gi_b)
    close(a.gradWeight, b.gradWeight)
    close(a.gradBias, b.gradBias)


def test_backward_on_another_input_or_changed_weights():
    m = nn.Linear(3, 2).double()
    x1, x2, go = rand(4, 3), rand(4, 3), rand(4, 2)
    m.forward(x1)
    m.zeroGradParameters()
    m.accGradParameters(x2, go)  # not the forward's input: gradient at x2
    close(m.gradWeight, go.t() @ x2)
    m.forward(x1)
    m.weight.mul_(2)  # an in-place change after forward is seen by backward, as in Lua
    close(m.updateGradInput(x1, go), go @ m.weight)


def test_acc_update_grad_parameters():
    m = nn.Linear(3, 2).double()
    x, go = rand(4, 3), rand(4, 2)
    w0 = m.weight.clone()
    m.forward(x)
    m.accUpdateGradParameters(x, go, 0.1)
    close(m.weight, w0 - 0.1 * (go.t() @ x))
    seq = nn.Sequential().add(nn.Linear(3, 2)).double()
    w0 = seq.get(1).weight.clone()
    seq.forward(x)
    seq.zeroGradParameters()
    seq.accUpdateGradParameters(x, go, 0.1)
    close(seq.get(1).weight, w0 - 0.1 * (go.t() @ x))
    assert float(seq.get(1).gradWeight.abs().sum()) == 0.0


def test_training_evaluate_propagate():
    net = nn.Sequential().add(nn.Dropout(0.5)).add(nn.Sequential().add(nn.Dropout(0.2)))
    net.evaluate()
    assert not net.train and all(not m.train for m in net.listModules())
    net.training()
    assert all(m.train for m in net.listModules())
    x = rand(3, 3)
    close(net.evaluate().forward(x), x)


def test_type_conversion():
    net = nn.Sequential().add(nn.Linear(3, 2)).add(nn.LookupTable(3, 2))
    assert net.type() == "torch.FloatTensor" and net.get(1).weight.dtype == numtorch.float32
    net.double()
    assert net.type() == "torch.DoubleTensor"
    assert net.get(1).weight.dtype == numtorch.float64
    assert net.get(1).gradBias.dtype == numtorch.float64
    assert net.get(2).weight.dtype == numtorch.float64
    out = net.get(1).forward(rand(2, 3))
    assert out.dtype == numtorch.float64
    net.type("torch.FloatTensor")
    assert net.get(1).weight.dtype == numtorch.float32


def test_clone_and_share():
    lin = nn.Linear(3, 2)
    deep = lin.clone()
    deep.weight.fill_(1)
    assert float(lin.weight.sum()) != 6.0
    shared = lin.clone("weight", "bias")
    shared.weight.fill_(2)
    assert float(lin.weight.sum()) == 12.0
    # the shared clone's gradients are its own
    x = numtorch.randn(4, 3)
    shared.zeroGradParameters()
    lin.zeroGradParameters()
    shared.forward(x)
    shared.backward(x, numtorch.ones(4, 2))
    assert float(lin.gradWeight.abs().sum()) == 0.0


def test_flatten_parameters():
    net = nn.Sequential().add(nn.Linear(3, 2)).add(nn.Tanh()).add(nn.Linear(2, 2)).double()
    net.add(net.get(3).clone("weight", "bias", "gradWeight", "gradBias"))
    values = [p.clone() for p in net.parameters()[0]]
    flat, gflat = net.flattenParameters()
    assert flat.numel() == 3 * 2 + 2 + 2 * 2 + 2  # the shared module is stored once
    assert gflat.numel() == flat.numel()
    for p, v in zip(net.parameters()[0], values):
        close(p, v)
    flat.fill_(0.5)
    assert float(net.get(1).weight.sum()) == 3.0 and float(net.get(4).bias.sum()) == 1.0
    x = rand(2, 3)
    net.forward(x)
    net.zeroGradParameters()
    net.backward(x, rand(2, 2))
    assert float(gflat.abs().sum()) > 0
    close(gflat[:6], net.get(1).gradWeight.reshape(-1))


def test_lua_positions_in_containers():
    a, b, c = nn.Tanh(), nn.Sigmoid(), nn.ReLU()
    seq = nn.Sequential().add(a).add(c)
    seq.insert(b, 2)
    assert seq.get(1) is a and seq.get(2) is b and seq.get(3) is c and seq.get(-1) is c
    seq.remove(1)
    assert seq.modules == [b, c]
    seq.remove()
    assert seq.modules == [b] and seq.size() == 1
    with pytest.raises(IndexError):
        seq.get(2)
    assert seq.findModules("nn.Sigmoid") == [b]
    assert [type(m).__name__ for m in seq.listModules()] == ["Sequential", "Sigmoid"]


def test_training_loop_matches_numtorch_nn_and_sgd():
    numtorch.manual_seed(3)
    legacy = nn.Sequential().add(nn.Linear(4, 8)).add(nn.ReLU()).add(nn.Linear(8, 3))
    legacy.add(nn.LogSoftMax())
    crit = nn.ClassNLLCriterion()
    modern = numtorch.nn.Sequential(numtorch.nn.Linear(4, 8), numtorch.nn.ReLU(),
                                    numtorch.nn.Linear(8, 3))
    with numtorch.no_grad():
        for p, q in zip(legacy.parameters()[0], modern.parameters()):
            q.copy_(p)
    opt = numtorch.optim.SGD(modern.parameters(), lr=0.1)
    x = numtorch.randn(16, 4)
    y = numtorch.randint(0, 3, (16,))
    for _ in range(5):
        loss_legacy = crit.forward(legacy.forward(x), y + 1)
        legacy.zeroGradParameters()
        legacy.backward(x, crit.backward(legacy.output, y + 1))
        legacy.updateParameters(0.1)
        opt.zero_grad()
        loss = numtorch.nn.functional.cross_entropy(modern(x), y)
        loss.backward()
        opt.step()
        assert abs(loss_legacy - loss.item()) < 1e-6
    for p, q in zip(legacy.parameters()[0], modern.parameters()):
        np.testing.assert_allclose(p.numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_repr():
    net = nn.Sequential().add(nn.Linear(3, 2)).add(nn.Tanh())
    text = repr(net)
    assert "[input -> (1) -> (2) -> output]" in text and "nn.Linear(3 -> 2)" in text


def test_reachable_from_numtorch():
    import numtorch.legacy.optim

    assert numtorch.legacy.nn is nn and numtorch.legacy.optim.sgd is not None
    assert numtorch.utils.serialization.load_lua is not None
    assert numtorch.utils.ffi.create_extension is not None
