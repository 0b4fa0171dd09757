"""Defects found by session 37's user-style programs, checked against torch.

The programs ``tests/parity_users/programs/s37_*.py`` print values, dtypes, gradients and error
texts; each is run under real torch and under numtorch and the outputs must be the same. The
tests below it check the fixed defects directly, one library beside the other.
"""

import os
import warnings

import pytest
import torch

import numtorch
from tests.parity_users.compare import diff

PROGRAMS = os.path.join(os.path.dirname(__file__), "parity_users", "programs")
S37 = sorted(n[:-3] for n in os.listdir(PROGRAMS) if n.startswith("s37_") and n.endswith(".py"))


def test_s37_programs_print_what_torch_prints():
    # every program in one child process per library: two interpreter starts in all
    # (one pair per program made these wrappers minutes of CI time)
    count, bad = diff(S37)
    assert count >= 2 * len(S37)
    report = "".join(f"==== {k}\n--- torch\n{w}--- numtorch\n{g}" for k, w, g in bad[:5])
    assert not bad, f"{len(bad)} of {count} cells differ:\n{report}"


def _outcome(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = f()
        except Exception as e:  # noqa: BLE001 - the error is what gets compared
            return type(e).__name__, str(e).split("\n")[0]
    if hasattr(out, "tolist") and getattr(out, "layout", None) in (None, torch.strided,
                                                                     numtorch.strided):
        if out.is_floating_point():  # a few ulps apart is the same answer
            out = out.double().round(decimals=3)
        return "ok", str(out.dtype), out.tolist()
    return "ok", str(getattr(out, "layout", out))


def _same(make):
    assert _outcome(make(numtorch)) == _outcome(make(torch))


# -- n-d real-input transforms refuse complex input with torch's n-d wording -------------------
@pytest.mark.parametrize("fn", ["rfft", "rfft2", "rfftn", "ihfft", "ihfft2", "ihfftn"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32"])
def test_real_input_fft_refuses_complex(fn, dtype):
    _same(lambda L: lambda: getattr(L.fft, fn)(L.ones(2, 4, dtype=getattr(L, dtype))))


# -- torch's dispatcher refusal carries the mobile sentence on every backend -------------------
@pytest.mark.parametrize("call", [
    lambda L: L.eye(2).to_sparse().round(decimals=1),
    lambda L: L.eye(2).to_sparse().exp(),
    lambda L: L.eye(2).to_sparse().cumsum(0),
    lambda L: L.eye(2).to_sparse().view(4),
    lambda L: L.eye(2).to_sparse().mean(0),
])
def test_no_kernel_text_first_line(call):
    got, want = _outcome(lambda: call(numtorch)), _outcome(lambda: call(torch))
    # torch goes on with the list of its dispatch keys; numtorch stops after the sentences
    assert got[0] == want[0] == "NotImplementedError"
    assert got[1].endswith("for possible resolutions.") and want[1].startswith(got[1])


# -- compressed layouts: round keeps the pattern, round(decimals=) is refused ------------------
@pytest.mark.parametrize("kw", [{}, {"decimals": 1}, {"decimals": 0}, {"decimals": -1}])
@pytest.mark.parametrize("layout", ["to_sparse_csr", "to_sparse_csc"])
def test_compressed_round(layout, kw):
    def run(L):
        c = getattr(L.tensor([[0, 1.5], [2.25, 0]]), layout)()
        out = _outcome(lambda: c.round(**kw))
        return out, (c.round().to_dense().tolist() if not kw else None)
    assert run(numtorch) == run(torch)


# -- optimizer.load_state_dict keeps the state tensors it can use as they are -----------------
@pytest.mark.parametrize("name,kw", [("Adam", {}), ("SGD", {"momentum": 0.9}), ("RMSprop", {}),
                                     ("Adagrad", {})])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_optimizer_load_state_dict_shares_state(name, kw, dtype):
    def run(L):
        p = L.nn.Parameter(L.ones(2))
        q = L.nn.Parameter(L.ones(2, dtype=getattr(L, dtype)))
        o = getattr(L.optim, name)([p], lr=0.1, **kw)
        p.grad = L.tensor([1., -2.])
        o.step()
        o2 = getattr(L.optim, name)([q], lr=0.1, **kw)
        sd = o.state_dict()
        o2.load_state_dict(sd)
        shared = {k: v is o2.state[q][k] for k, v in o.state[p].items()}
        sd["param_groups"][0]["lr"] = 7.0
        q.grad = L.tensor([0.5, 0.5], dtype=q.dtype)
        o2.step()
        return shared, o2.param_groups[0]["lr"], {k: v.double().round(decimals=6).tolist()
                                                  for k, v in o.state[p].items()}
    assert run(numtorch) == run(torch)


# -- float32 lerp: torch's fused multiply-add from the nearer end, bit for bit -----------------
@pytest.mark.parametrize("weight", [0.1, 0.3, 0.5, 0.7, 0.999, 1.0, 0.0, -0.3, 1.3, "tensor",
                                    "0d"])
def test_float32_lerp_bits(weight):
    import numpy as np
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(4000, generator=g), torch.randn(4000, generator=g) * 3
    a[:6] = torch.tensor([float("inf"), -float("inf"), float("nan"), 1., 0., -0.])
    b[:6] = torch.tensor([1., float("inf"), 2., float("inf"), -0., 0.])
    w = {"tensor": torch.rand(4000, generator=g) * 1.4 - 0.2, "0d": torch.tensor(0.3)}.get(
        weight, weight)
    want = torch.lerp(a, b, w).numpy()
    nw = numtorch.from_numpy(w.numpy().copy()) if isinstance(w, torch.Tensor) else w
    got = numtorch.lerp(numtorch.from_numpy(a.numpy().copy()),
                        numtorch.from_numpy(b.numpy().copy()), nw).numpy()
    assert got.dtype == np.float32
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


# -- addcmul is one fused multiply-add, addcdiv scales the numerator first (float32 bits) ------
@pytest.mark.parametrize("fn", ["addcmul", "addcdiv", "addcmul_", "addcdiv_"])
@pytest.mark.parametrize("value", [1, 0.3, -0.01, 2.5])
@pytest.mark.parametrize("shapes", [((3000,), (3000,), (3000,)), ((40, 1), (75,), (40, 1))])
def test_float32_addcmul_addcdiv_bits(fn, value, shapes):
    import numpy as np
    g = torch.Generator().manual_seed(5)
    a, b, c = (torch.randn(s, generator=g) for s in shapes)
    c = c.abs() + 0.1
    if fn.endswith("_"):
        a = a.expand(torch.broadcast_shapes(*shapes)).contiguous()

    def run(L, *xs):
        a, b, c = (L.from_numpy(x.numpy().copy()) for x in xs)
        return getattr(a if fn.endswith("_") else L, fn)(*(() if fn.endswith("_") else (a,)),
                                                         b, c, value=value).numpy()
    assert np.array_equal(run(numtorch, a, b, c), run(torch, a, b, c))


def test_addcmul_addcdiv_gradients():
    def run(L):
        g = L.Generator().manual_seed(0)
        a, b, c = (L.randn(3, 4, generator=g).requires_grad_() for _ in range(3))
        ct = L.randn(3, 4, generator=g)
        y1, y2 = L.addcmul(a, b, c, value=0.7), L.addcdiv(a, b, c.abs() + 1, value=-2)
        gs = L.autograd.grad((y1 * ct).sum() + (y2 * ct).sum(), (a, b, c))
        return y1.grad_fn.name(), y2.grad_fn.name(), [x.double().round(decimals=5).tolist()
                                                      for x in gs]
    assert run(numtorch) == run(torch)


def test_float64_lerp_rounds_once():
    import numpy as np
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(20000, generator=g, dtype=torch.float64), torch.randn(
        20000, generator=g, dtype=torch.float64)
    for w in (0.3, 0.7, 1.0):
        want = torch.lerp(a, b, w).numpy()
        got = numtorch.lerp(numtorch.from_numpy(a.numpy()), numtorch.from_numpy(b.numpy()),
                            w).numpy()
        # long double holds 64 of the product's 106 bits: a few ties round apart
        assert (got != want).sum() <= (40 if np.finfo(np.longdouble).nmant > 52 else 20000)


# -- storage reprs name torch.storage's generic classes with dtype and device -----------------
@pytest.mark.parametrize("make", [
    lambda L: L.UntypedStorage(0),
    lambda L: L.tensor([], dtype=L.float64).storage(),
    lambda L: L.tensor([1, 2], dtype=L.int8).storage(),
    lambda L: L.tensor([True]).untyped_storage(),
    lambda L: L.tensor([1.5, -2.]).storage(),
    lambda L: L.tensor([1.5]).untyped_storage(),
    lambda L: L.empty(2, device="meta").untyped_storage(),
])
def test_storage_repr(make):
    def run(L):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = make(L)
            return repr(s), str(s)
    assert run(numtorch) == run(torch)


# -- autograd.grad/backward take any iterable of inputs (model.parameters()) ------------------
@pytest.mark.parametrize("form", ["generator", "set", "list", "tensor"])
def test_autograd_grad_iterable_inputs(form):
    def run(L):
        m = L.nn.Linear(2, 3)
        with L.no_grad():
            m.weight.copy_(L.arange(6.).reshape(3, 2))
            m.bias.fill_(0.5)
        x = L.tensor([1., -2.])
        ins = {"generator": lambda: m.parameters(), "set": lambda: {m.bias},
               "list": lambda: [m.weight], "tensor": lambda: m.bias}[form]()
        gs = L.autograd.grad((m(x) ** 2).sum(), ins)
        m.zero_grad()
        (m(x) ** 2).sum().backward(inputs=(p for p in [m.bias]))
        return [g.tolist() for g in gs], m.bias.grad.tolist(), m.weight.grad
    assert run(numtorch) == run(torch)


# -- torch.func transforms over activations: batched gradients meet unbatched inputs ----------
ACTIVATIONS = {
    "softplus": lambda F: F.softplus, "softplus_beta": lambda F: lambda v: F.softplus(v, 2., 1.),
    "logsigmoid": lambda F: F.logsigmoid, "silu": lambda F: F.silu, "mish": lambda F: F.mish,
    "gelu": lambda F: F.gelu, "gelu_tanh": lambda F: lambda v: F.gelu(v, approximate="tanh"),
    "elu": lambda F: F.elu, "selu": lambda F: F.selu, "celu": lambda F: F.celu,
    "hardswish": lambda F: F.hardswish, "sigmoid": lambda F: F.sigmoid,
    "softsign": lambda F: F.softsign, "tanh": lambda F: F.tanh,
    "normalize": lambda F: lambda v: v / v.sum(),
    "rows": lambda F: lambda v: v / (1 + v.abs()).sum(-1, keepdim=True),
}


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd", "jacrev2", "vmap_grad", "hessian"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_func_transforms_over_activations(name, transform):
    def run(L):
        f = ACTIVATIONS[name](L.nn.functional)
        x = L.tensor([[-1.5, 0.3, 2.0], [0.7, -0.2, 1.1]])
        F = L.func
        t = {"jacrev": lambda: F.jacrev(f)(x), "jacfwd": lambda: F.jacfwd(f)(x),
             "jacrev2": lambda: F.jacrev(F.jacrev(f))(x[0]),
             "vmap_grad": lambda: F.vmap(F.grad(lambda v: f(v).sum()))(x),
             "hessian": lambda: F.hessian(lambda v: f(v).sum())(x[1])}[transform]
        return _outcome(t)
    assert run(numtorch) == run(torch)


# -- fft/ifft of a real signal: the one-sided transform mirrored, torch's signed zeros ---------
@pytest.mark.parametrize("signal", [[1., 2., 3., 4.], [1., 0., -1., 0.], [1., 1., 1., 1.],
                                    [0., 1., 0., -1.], [1., 2., 3.], [2., -1., 0., -1.],
                                    [[1., 2., 0.], [0., -1., 3.]]])
@pytest.mark.parametrize("fn", ["fft", "ifft"])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_real_signal_fft_signed_zeros(signal, fn, norm):
    def run(L):
        y = getattr(L.fft, fn)(L.tensor(signal), norm=norm).resolve_conj()
        return str(y), L.view_as_real(y).signbit().tolist()
    assert run(numtorch) == run(torch)


# -- autograd.functional: torch's texts for non-tensor outputs/inputs and non-scalar functions -
@pytest.mark.parametrize("call", [
    lambda L, F: F.jacobian(lambda v: 3, L.ones(2)),
    lambda L, F: F.jacobian(lambda v: (v, 3), L.ones(2)),
    lambda L, F: F.jacobian(lambda v: [v, v], L.ones(2)),
    lambda L, F: F.jacobian(lambda v: v, 3),
    lambda L, F: F.jacobian(lambda a, b: a * b, [L.ones(2), L.ones(2)]),
    lambda L, F: F.hessian(lambda v: v, L.ones(2)),
    lambda L, F: F.hessian(lambda v: (v.sum(), v.sum()), L.ones(2)),
    lambda L, F: F.vhp(lambda v: v, L.ones(2), L.ones(2)),
    lambda L, F: F.hvp(lambda v: v, L.ones(2), L.ones(2)),
    lambda L, F: F.hvp(lambda v: (v.sum(), v.sum()), L.ones(2), L.ones(2)),
    lambda L, F: F.vjp(lambda v: 3, L.ones(2)),
    lambda L, F: F.hessian(lambda v: v.pow(3).sum(), L.tensor([1., 2.])),
])
def test_autograd_functional_argument_texts(call):
    _same(lambda L: lambda: call(L, L.autograd.functional))


# -- per-sample gradients of elementwise losses: batched rules, torch's values, no warning -----
LOSSES = {
    "mse": lambda F, w, pw: lambda a, b: F.mse_loss(a, b),
    "mse_none": lambda F, w, pw: lambda a, b: F.mse_loss(a, b, reduction="none").mean(),
    "l1": lambda F, w, pw: lambda a, b: F.l1_loss(a, b, reduction="sum"),
    "huber": lambda F, w, pw: lambda a, b: F.huber_loss(a, b, delta=0.3),
    "smooth_l1": lambda F, w, pw: lambda a, b: F.smooth_l1_loss(a, b, beta=0.5),
    "bce": lambda F, w, pw: lambda a, b: F.binary_cross_entropy(a.sigmoid(), b, weight=w),
    "bce_logits": lambda F, w, pw: lambda a, b: F.binary_cross_entropy_with_logits(
        a, b, weight=w, pos_weight=pw),
}


@pytest.mark.parametrize("transform", ["vmap_grad", "vmap_grad_target", "hessian", "jacfwd"])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_elementwise_loss_transforms(name, transform):
    def run(L):
        g = L.Generator().manual_seed(0)
        x, t = L.randn(3, 4, generator=g), L.rand(3, 4, generator=g)
        w, pw = L.rand(4, generator=g), L.rand(4, generator=g) + 0.5
        f = LOSSES[name](L.nn.functional, w, pw)
        F = L.func
        make = {"vmap_grad": lambda: F.vmap(F.grad(f))(x, t),
                "vmap_grad_target": lambda: F.vmap(F.grad(f, argnums=1))(x, t),
                "hessian": lambda: F.hessian(f)(x[0], t[0]),
                "jacfwd": lambda: F.jacfwd(lambda a: f(a, t[2]))(x[2])}[transform]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = make()
        return out.double().round(decimals=4).tolist(), [
            str(c.message)[:60] for c in caught if "jit" not in str(c.message)]
    assert run(numtorch) == run(torch)
