"""What the PyTorch tutorials print, against torch: each case comes from a tutorial that printed
something else under numtorch (bench/programs' tutorial clients)."""
import pytest

torch = pytest.importorskip("torch")
import numtorch


def _chain(fn, depth=0):
    """A grad_fn's graph as nested names, as a tutorial walking next_functions sees it."""
    if fn is None:
        return None
    name = type(fn).__name__
    if name == "AccumulateGrad" or depth > 4:
        return name
    return (name, tuple((_chain(f, depth + 1), i) for f, i in fn.next_functions))


@pytest.mark.parametrize("shape", [(2, 4), (4,), (5, 2, 4), (3, 1, 2, 4)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("grads", ["all", "no_input", "no_weight"])
def test_linear_next_functions_chain(shape, bias, grads):
    # blitz/neural_networks_tutorial prints loss.grad_fn.next_functions[0][0].next_functions[0][0]
    # (torch: the bias's AccumulateGrad, addmm's first edge)
    chains = []
    for lib in (torch, numtorch):
        lin = lib.nn.Linear(4, 3, bias=bias)
        if grads == "no_weight":
            lin.weight.requires_grad_(False)
        x = lib.ones(shape, requires_grad=grads != "no_input")
        y = lib.nn.functional.linear(lib.relu(x) if grads != "no_input" else x, lin.weight,
                                     lin.bias)
        chains.append(_chain(y.grad_fn))
    assert chains[0] == chains[1]


def test_linear_chain_under_mse_loss():
    # the tutorial's exact walk: MSELoss -> Linear -> (next edge)
    names = []
    for lib in (torch, numtorch):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(6, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2))
        loss = lib.nn.MSELoss()(net(lib.ones(1, 6)), lib.zeros(1, 2))
        f = loss.grad_fn
        names.append([type(f).__name__, type(f.next_functions[0][0]).__name__,
                      type(f.next_functions[0][0].next_functions[0][0]).__name__,
                      type(f.next_functions[0][0].next_functions[1][0]).__name__,
                      type(f.next_functions[0][0].next_functions[2][0]).__name__])
    assert names[0] == names[1]


def test_linear_backward_unchanged_by_the_shown_chain():
    # walking the shown nodes changes nothing about the gradients
    lin = numtorch.nn.Linear(4, 3)
    x = numtorch.ones(2, 4, requires_grad=True)
    y = lin(x)
    _chain(y.grad_fn)
    y.sum().backward()
    tl = torch.nn.Linear(4, 3)
    with torch.no_grad():
        tl.weight.copy_(torch.from_numpy(lin.weight.detach().numpy()))
        tl.bias.copy_(torch.from_numpy(lin.bias.detach().numpy()))
    tx = torch.ones(2, 4, requires_grad=True)
    tl(tx).sum().backward()
    assert (x.grad.numpy() == tx.grad.numpy()).all()
    assert (lin.weight.grad.numpy() == tl.weight.grad.numpy()).all()


def test_benchmark_measurement_repr_names_torchs_class():
    # jacobians_hessians/ensembling/per_sample_grads print Timer.timeit's Measurement
    import torch.utils.benchmark

    import numtorch.utils.benchmark

    heads = []
    for lib in (torch, numtorch):
        m = lib.utils.benchmark.Timer(stmt="x + 1", globals={"x": 1}).timeit(3)
        head = repr(m).splitlines()[0]
        heads.append(head.rsplit(" at 0x", 1)[0])
        assert repr(m).splitlines()[1] == "x + 1"
    assert heads[0] == heads[1]
