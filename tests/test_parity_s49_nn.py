"""Session 49 NN parity tests: oracle comparisons with real torch at test time."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numtorch
import numtorch.nn.functional as NF


def _nt(t, grad=False):
    """A numtorch copy of torch tensor ``t`` (same dtype and values, row-major)."""
    a = t.detach()
    if a.dtype == torch.bfloat16:
        out = numtorch.tensor(a.float().numpy()).to(numtorch.bfloat16)
    else:
        out = numtorch.tensor(a.numpy())
    return out.requires_grad_() if grad else out


def _outcome(fn, lib):
    """(dtype name, values) of ``fn(lib)``, or (exception class name, message)."""
    try:
        out = fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return type(e).__name__, str(e)
    return str(out.dtype).split(".")[-1], out.detach().float().numpy().tolist()


# -- cross entropy: torch's signed zeros in the rows of weight-0 or ignored targets ----------
CE_CASES = [
    ("weight", {"weight": [0.0, 1.0, 1.0, 1.0]}),
    ("ignore", {"ignore_index": 0}),
    ("weight-ignore", {"weight": [0.0, 1.0, 2.0, 1.0], "ignore_index": 1}),
    ("all-zero-weight", {"weight": [0.0, 0.0, 0.0, 0.0]}),
]


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", CE_CASES, ids=[c[0] for c in CE_CASES])
def test_cross_entropy_zero_weight_grad_signs(case, reduction, sign):
    kw = dict(case[1])
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(5, 4, generator=gen, requires_grad=True)
    t = torch.tensor([0, 1, 2, 0, 3])
    tkw = {k: (torch.tensor(v) if k == "weight" else v) for k, v in kw.items()}
    (sign * torch.nn.functional.cross_entropy(x, t, reduction=reduction, **tkw)).sum().backward()
    xs = _nt(x, True)
    nkw = {k: (numtorch.tensor(v) if k == "weight" else v) for k, v in kw.items()}
    (sign * NF.cross_entropy(xs, numtorch.tensor([0, 1, 2, 0, 3]), reduction=reduction,
                             **nkw)).sum().backward()
    ref, got = x.grad.numpy(), xs.grad.numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7, equal_nan=True)
    zeros = ref == 0
    assert (np.signbit(got[zeros]) == np.signbit(ref[zeros])).all()


# -- pooling / local response norm / pdist dtype support on the CPU ---------------------------
def _cl(lib, t):
    return t.to(memory_format=lib.channels_last)


POOL_FNS = {
    "avg1": lambda lib, x: lib.nn.functional.avg_pool1d(x.reshape(1, 2, -1), 3),
    "avg2": lambda lib, x: lib.nn.functional.avg_pool2d(x.reshape(1, 2, 4, -1), 2, stride=1,
                                                        padding=1),
    "avg2-div": lambda lib, x: lib.nn.functional.avg_pool2d(x.reshape(1, 2, 4, -1), 2,
                                                            divisor_override=3),
    "avg2-cl": lambda lib, x: lib.nn.functional.avg_pool2d(_cl(lib, x.reshape(1, 2, 4, -1)), 2),
    "avg3": lambda lib, x: lib.nn.functional.avg_pool3d(x.reshape(1, 2, 2, 2, -1), 2),
    "aavg1": lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x.reshape(1, 2, -1), 3),
    "aavg1-global": lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x.reshape(1, 2, -1), 1),
    "aavg2-cl": lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(
        _cl(lib, x.reshape(1, 2, 4, -1)), 3),
    "aavg2-global": lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(
        x.reshape(1, 2, 4, -1), 1),
    "aavg3": lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x.reshape(1, 2, 2, 2, -1), 2),
    "amax1": lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x.reshape(1, 2, -1), 3),
    "amax3": lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x.reshape(1, 2, 2, 2, -1), 2),
    "max2-cl": lambda lib, x: lib.nn.functional.max_pool2d(_cl(lib, x.reshape(1, 2, 4, -1)), 2),
    "lp1": lambda lib, x: lib.nn.functional.lp_pool1d(x.reshape(1, 2, -1), 2, 3),
    "lp3": lambda lib, x: lib.nn.functional.lp_pool3d(x.reshape(1, 2, 2, 2, -1), 1, 2),
    "lrn3": lambda lib, x: lib.nn.functional.local_response_norm(x.reshape(1, 4, -1), 3,
                                                                 alpha=1.0, beta=1.0),
    "lrn4": lambda lib, x: lib.nn.functional.local_response_norm(x.reshape(1, 4, 2, -1), 2,
                                                                 alpha=0.5, beta=0.75, k=2.0),
    "lrn5": lambda lib, x: lib.nn.functional.local_response_norm(x.reshape(1, 4, 2, 2, -1), 3),
    "pdist": lambda lib, x: lib.nn.functional.pdist(x.reshape(4, -1)),
    "pdist-one-row": lambda lib, x: lib.nn.functional.pdist(x.reshape(1, -1)),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("name", sorted(POOL_FNS))
def test_pooling_dtype_support(name, dtype):
    fn = POOL_FNS[name]
    base = torch.arange(-3, 13).float()
    if dtype in ("uint8", "bool"):
        base = base.abs()
    x = base.to(getattr(torch, dtype))
    ref = _outcome(lambda lib: fn(lib, x), torch)
    got = _outcome(lambda lib: fn(lib, _nt(x)), numtorch)
    assert got[0] == ref[0]
    if isinstance(ref[1], str):
        assert got[1] == ref[1]
    else:
        np.testing.assert_allclose(np.asarray(got[1], dtype=np.float64),
                                   np.asarray(ref[1], dtype=np.float64), rtol=2e-6)


# -- embedding_bag offsets --------------------------------------------------------------------
BAG_OFFSETS = [
    ([0, 9], False), ([0, 8], True), ([0, 9], True), ([2, 4], False), ([], True), ([], False),
    ([0], True), ([0, 4, 4, 8], True),
]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", BAG_OFFSETS, ids=lambda c: f"{c[0]}-{c[1]}")
def test_embedding_bag_offsets_checks(case, mode):
    offsets, last = case
    if mode == "max" and len(offsets) == (1 if last else 0):
        pytest.skip("torch 2.13 crashes (segfault) on no bags in 'max' mode")
    gen = torch.Generator().manual_seed(0)
    w = torch.randn(10, 3, generator=gen)
    inp = [1, 2, 4, 5, 4, 3, 2, 9]

    def run(lib):
        return lib.nn.functional.embedding_bag(
            lib.tensor(inp), w if lib is torch else _nt(w), lib.tensor(offsets, dtype=lib.long),
            mode=mode, include_last_offset=last)

    ref, got = _outcome(run, torch), _outcome(run, numtorch)
    assert got[0] == ref[0]
    if isinstance(ref[1], str):
        assert got[1] == ref[1]
    else:
        np.testing.assert_allclose(got[1], ref[1], rtol=1e-6)


# -- float16/bfloat16 parameters times a number: float32 arithmetic, as a plain tensor's -----
HALF_PARAM_OPS = {
    "mul": lambda p: p * 0.999,
    "rmul": lambda p: 1.001 * p,
    "div": lambda p: p / 1.001,
    "mul-int": lambda p: p * 3,
    "mul_": lambda p: p.mul_(0.999),
    "div_": lambda p: p.div_(0.999),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(HALF_PARAM_OPS))
def test_half_parameter_scalar_products(name, dtype):
    fn = HALF_PARAM_OPS[name]
    base = torch.linspace(-3, 3, 2001).to(getattr(torch, dtype))
    inplace = name.endswith("_")

    def run(lib, x):
        p = lib.nn.Parameter(x.clone(), requires_grad=not inplace)
        if inplace:
            with lib.no_grad():
                fn(p)
            return p.detach(), None
        y = fn(p)
        y.backward(lib.ones_like(y) * 0.37)
        return y.detach(), p.grad

    ref, ref_g = run(torch, base)
    got, got_g = run(numtorch, _nt(base))
    assert str(got.dtype) == str(ref.dtype)
    np.testing.assert_array_equal(got.float().numpy(), ref.float().numpy())
    if ref_g is not None:
        np.testing.assert_array_equal(got_g.float().numpy(), ref_g.float().numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("opt", ["AdamW", "SGD-wd"])
def test_half_parameter_optimizer_decay(opt, dtype):
    def run(lib, x):
        p = lib.nn.Parameter(x.clone())
        o = (lib.optim.AdamW([p], lr=0.1) if opt == "AdamW" else
             lib.optim.SGD([p], lr=0.1, weight_decay=0.3, momentum=0.9))
        for _ in range(4):
            o.zero_grad()
            (p.float() ** 2).sum().backward()
            o.step()
        return p.detach().float().numpy()

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(64, generator=gen).to(getattr(torch, dtype))
    np.testing.assert_array_equal(run(numtorch, _nt(x)), run(torch, x))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", [
    ("Adam", {}), ("Adam", {"weight_decay": 0.3}), ("Adam", {"amsgrad": True}),
    ("Adam", {"maximize": True}), ("AdamW", {"weight_decay": 0.5}),
    ("AdamW", {"amsgrad": True}),
], ids=lambda c: c[0] + "-" + "-".join(f"{k}={v}" for k, v in c[1].items()))
def test_half_fused_adam_bitwise(case, dtype):
    """torch's fused Adam/AdamW on 16-bit parameters computes each step in float32 and rounds
    the parameter and moments once."""
    name, kw = case

    def run(lib, x, y):
        p, q = lib.nn.Parameter(x.clone()), lib.nn.Parameter(y.clone())
        o = getattr(lib.optim, name)([p, q], lr=0.1, fused=True, **kw)
        for i in range(4):
            o.zero_grad()
            ((p.float() ** 2).sum() * (i + 1) + q.float().sin().sum()).backward()
            o.step()
        st = o.state[p]
        return [t.detach().float().numpy() for t in (p, q, st["exp_avg"], st["exp_avg_sq"])]

    gen = torch.Generator().manual_seed(0)
    dt = getattr(torch, dtype)
    x, y = torch.randn(37, generator=gen).to(dt), torch.randn(3, 5, generator=gen).to(dt)
    for got, ref in zip(run(numtorch, _nt(x), _nt(y)), run(torch, x, y)):
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("shape", [(3, 3), (0, 3), (2, 5)])
def test_orthogonal_init_dtypes(shape, dtype):
    def run(lib):
        w = lib.empty(*shape, dtype=getattr(lib, dtype))
        lib.nn.init.orthogonal_(w)
        return w

    ref, got = _outcome(run, torch), _outcome(run, numtorch)
    assert got[0] == ref[0]
    if isinstance(ref[1], str):
        assert got[1] == ref[1]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("kw", [{}, {"weight_decay": 0.1}, {"maximize": True, "rho": 0.8}],
                         ids=["plain", "weight_decay", "maximize-rho"])
def test_half_adadelta_bitwise(kw, dtype):
    """Adadelta on a 16-bit parameter: torch's ops each compute in float32 and round once."""
    def run(lib, x):
        p = lib.nn.Parameter(x.clone())
        o = lib.optim.Adadelta([p], lr=1.0, **kw)
        for i in range(4):
            o.zero_grad()
            ((p.float() ** 2).sum() * (i + 1)).backward()
            o.step()
        st = o.state[p]
        return [t.detach().float().numpy() for t in (p, st["square_avg"], st["acc_delta"])]

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(64, generator=gen).to(getattr(torch, dtype))
    for got, ref in zip(run(numtorch, _nt(x)), run(torch, x)):
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("kw", [{}, {"weight_decay": 0.1, "maximize": True},
                                {"beta2_decay": -0.5, "d": 2.0, "eps": (1e-3, 1e-3)}],
                         ids=["plain", "decay-maximize", "options"])
def test_half_adafactor_bitwise(kw, dtype):
    """Adafactor on 16-bit vector and matrix parameters follows torch's op sequence."""
    def run(lib, x, y):
        p, q = lib.nn.Parameter(x.clone()), lib.nn.Parameter(y.clone())
        o = lib.optim.Adafactor([p, q], lr=0.01, **kw)
        for i in range(4):
            o.zero_grad()
            ((p.float() ** 2).sum() * (i + 1) + q.float().sin().sum()).backward()
            o.step()
        return [t.detach().float().numpy() for t in (p, q, o.state[q]["row_var"],
                                                     o.state[q]["col_var"],
                                                     o.state[p]["variance"])]

    gen = torch.Generator().manual_seed(0)
    dt = getattr(torch, dtype)
    x, y = torch.randn(64, generator=gen).to(dt), torch.randn(3, 5, generator=gen).to(dt)
    for got, ref in zip(run(numtorch, _nt(x), _nt(y)), run(torch, x, y)):
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("form", ["inplace-number", "inplace-list", "out-of-place"])
def test_foreach_mul_number_on_half(form, dtype):
    """torch's in-place ``_foreach_mul_`` rounds a number to a 16-bit tensor's dtype first
    (EMA updates of half weights); its out-of-place form does not."""
    def run(lib, x):
        xs = [x.clone(), (x * 0.5).clone()]
        if form == "inplace-number":
            lib._foreach_mul_(xs, 0.9)
        elif form == "inplace-list":
            lib._foreach_mul_(xs, [0.9, 0.999])
        else:
            xs = lib._foreach_mul(xs, 0.9)
        return [t.float().numpy() for t in xs]

    gen = torch.Generator().manual_seed(0)
    x = (torch.rand(500, generator=gen) * 100).to(getattr(torch, dtype))
    for got, ref in zip(run(numtorch, _nt(x)), run(torch, x)):
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", [("Adam", {}), ("Adam", {"amsgrad": True, "weight_decay": 0.1}),
                                  ("AdamW", {"weight_decay": 0.5}), ("Adam", {"maximize": True})],
                         ids=["adam", "adam-amsgrad-l2", "adamw", "adam-maximize"])
def test_half_foreach_adam_bitwise(case, dtype):
    """foreach=True on 16-bit parameters: torch's multi-tensor step scales the second moment
    (and decays the weights) with ``_foreach_mul_``, which rounds the factor to 16 bits."""
    name, kw = case

    def run(lib, x):
        p = lib.nn.Parameter(x.clone())
        o = getattr(lib.optim, name)([p], lr=0.05, foreach=True, **kw)
        for i in range(4):
            o.zero_grad()
            ((p.float() ** 2).sum() * (i + 1)).backward()
            o.step()
        return p.detach().float().numpy(), o.state[p]["exp_avg_sq"].float().numpy()

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(64, generator=gen).to(getattr(torch, dtype))
    for got, ref in zip(run(numtorch, _nt(x)), run(torch, x)):
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("shape", [(40, 7), (50, 6), (5, 3)], ids=str)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("case", [("huber", 0.7), ("huber", 1.0), ("smooth_l1", 0.5),
                                  ("smooth_l1", 1.0)], ids=lambda c: f"{c[0]}-{c[1]}")
def test_half_huber_smooth_l1_grads(case, reduction, dtype, shape):
    """16-bit huber / smooth L1 gradients bit for bit (huber: torch's vectorised blocks and
    the values past them round differently)."""
    kind, p = case
    gen = torch.Generator().manual_seed(4)
    dt = getattr(torch, dtype)
    x = (torch.randn(*shape, generator=gen) * 2).to(dt)
    y = torch.randn(*shape, generator=gen).to(dt)
    up = torch.randn(*shape, generator=gen).to(dt)

    def run(lib, x, y, up):
        xs = x.clone().requires_grad_()
        f = lib.nn.functional
        loss = f.huber_loss(xs, y, delta=p, reduction=reduction) if kind == "huber" else \
            f.smooth_l1_loss(xs, y, beta=p, reduction=reduction)
        loss.backward(up if reduction == "none" else None)
        return loss.detach().float().numpy(), xs.grad.float().numpy()

    ref = run(torch, x, y, up)
    got = run(numtorch, _nt(x), _nt(y), _nt(up))
    np.testing.assert_array_equal(got[1], ref[1])
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-2)


@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "weight"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_binary_cross_entropy_grad_order(reduction, dtype, weighted):
    """torch's CPU backward: g (x - t) / max((1 - x) x, eps), then the weight, then the
    count of a 'mean', each rounded in the input's dtype."""
    gen = torch.Generator().manual_seed(0)
    dt = getattr(torch, dtype)
    x = torch.rand(300, generator=gen).clamp(0.01, 0.99).to(dt)
    y = torch.rand(300, generator=gen).to(dt)
    w = torch.rand(300, generator=gen).to(dt)
    up = torch.randn(300, generator=gen).to(dt)

    def run(lib, x, y, w, up):
        xs = x.clone().requires_grad_()
        loss = lib.nn.functional.binary_cross_entropy(xs, y, weight=w if weighted else None,
                                                      reduction=reduction)
        loss.backward(up if reduction == "none" else None)
        return xs.grad.double().numpy()

    ref = run(torch, x, y, w, up)
    got = run(numtorch, _nt(x), _nt(y), _nt(w), _nt(up))
    np.testing.assert_array_equal(got, ref)
