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


def _fwad(lib):
    import importlib
    return importlib.import_module(lib.__name__ + ".autograd.forward_ad")


@pytest.mark.parametrize("case", ["same", "transposed", "requires_grad", "dtype", "primal_t"])
def test_make_dual_keeps_a_tangent_laid_out_as_the_primal(case):
    # forward_ad_usage asserts unpack_dual(make_dual(p, t)).tangent is t
    seen = []
    for lib in (torch, numtorch):
        fw = _fwad(lib)
        p = lib.ones(3, 4, dtype=lib.float64 if case == "dtype" else lib.float32)
        t = lib.arange(12.0).reshape(3, 4)
        if case == "transposed":
            t = lib.arange(12.0).reshape(4, 3).T
        elif case == "requires_grad":
            t = t.requires_grad_()
        elif case == "primal_t":
            p = p.T
            t = lib.arange(12.0).reshape(4, 3)
        with fw.dual_level():
            u = fw.unpack_dual(fw.make_dual(p, t)).tangent
            seen.append((u is t, u.stride(), str(u.dtype), u.tolist()))
    assert seen[0] == seen[1]


def test_functorch_deprecated_api():
    import warnings

    import functorch as real_ft

    from numtorch import _functorch_api as nt_ft

    out = []
    for lib, ft in ((torch, real_ft), (numtorch, nt_ft)):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Tanh()).eval()
        x = lib.arange(6.0).reshape(2, 3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fmodel, params, buffers = ft.make_functional_with_buffers(model)
            y = fmodel(params, buffers, x)
            def run(ps, f=fmodel, b=buffers, x=x):
                return f(ps, b, x)
            _, jvp_out = ft.jvp(run, (params,), (tuple(lib.ones_like(p) for p in params),))
            g = ft.grad(lambda ps, run=run: run(ps).sum())(params)
            _, p2, _ = ft.combine_state_for_ensemble([model, model])
            with pytest.raises(RuntimeError) as e:
                ft.make_functional(model)
        out.append((y.tolist(), jvp_out.tolist(), [t.tolist() for t in g],
                    [p.requires_grad for p in params], len(buffers),
                    [tuple(p.shape) for p in p2], [p.requires_grad for p in p2],
                    str(e.value), [(c.category.__name__, str(c.message)) for c in w]))
    import numpy as np
    for k in (0, 1):
        np.testing.assert_allclose(out[1][k], out[0][k], rtol=1e-6, atol=1e-7)
    assert out[0][3:] == out[1][3:]


def test_runner_compares_whole_outputs_and_cut_prefixes():
    # bench/programs/run.py: tutorials that train nothing are compared line for line; programs
    # cut at a time limit on their common prefix
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "programs"))
    import run

    assert run.compare(["a", "b"], ["a", "b"], 0, whole=True)[0]
    ok, text = run.compare(["a", "b"], ["a", "c"], 0, whole=True)
    assert not ok and "line 1" in text
    assert run.compare([], [], 0, whole=True)[0]
    assert not run.compare([], [], 0)[0]
    assert not run.compare([1.0, 2.0], [1.0], 1e-3)[0]
    assert run.compare([1.0, 2.0], [1.0], 1e-3, prefix=True)[0]
    assert not run.compare([1.0, 2.0], [1.0, 2.1], 1e-3, prefix=True)[0]


def test_fabricated_names_are_deterministic(tmp_path):
    import sys
    from pathlib import Path

    import numpy as np
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "programs"))
    import fabricate

    for d in ("a", "b"):
        fabricate.names(str(tmp_path / d), np.random.default_rng(1234))
    files = sorted(p.name for p in (tmp_path / "a" / "names").iterdir())
    assert len(files) == 18 and "Italian.txt" in files
    for f in files:
        assert (tmp_path / "a" / "names" / f).read_bytes() == (tmp_path / "b" / "names" / f).read_bytes()


def test_functorch_import_under_numtorch_run(tmp_path):
    # forward_ad_usage does "import functorch as ft": torch's own functorch package would import
    # torch._functorch, which numtorch does not have
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "prog.py"
    script.write_text("import warnings\nwarnings.simplefilter('ignore')\nimport torch\n"
                      "import functorch as ft\n"
                      "out, t = ft.jvp(lambda x: x ** 2, (torch.ones(2),), (torch.ones(2),))\n"
                      "print(type(ft.make_functional(torch.nn.Linear(2, 2))[0]).__name__,"
                      " t.tolist())\n")
    outs = []
    for args in ([], ["-m", "numtorch.run"]):
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
        done = subprocess.run([sys.executable, *args, str(script)], capture_output=True,
                              text=True, env=env, timeout=120, check=False)
        assert done.returncode == 0, done.stderr[-1000:]
        outs.append(done.stdout)
    assert outs[0] == outs[1] == "FunctionalModule [2.0, 2.0]\n"
