"""Session 51 (helper nn2) parity fixes, each checked against real torch at test time: the
float32 exact GELU's tails (erf = +-1), ..."""

import numpy as np
import pytest
import torch

import numtorch

_TAIL = [-1e30, -100.0, -20.0, -10.0, -8.0, -7.0, -6.5, -6.2, 5.6, 6.0, 10.0, 1e30]


def _bits_equal(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, what
    na, nb = np.isnan(a), np.isnan(b)
    assert (na == nb).all(), f"{what}: NaN at {np.nonzero(na != nb)}"
    assert (np.signbit(a) == np.signbit(b)).all(), f"{what}: sign {a} != {b}"
    assert (a[~na] == b[~nb]).all(), f"{what}: {a} != {b}"


def _gelu_run(lib, values, layout, grad):
    base = lib.tensor(values, dtype=lib.float32)
    x = lib.stack([base, base.flip(0), base]).contiguous()  # (3, n)
    if layout == "flat":
        x = base.clone()
    elif layout == "t":
        x = x.t()
    elif layout == "strided":
        x = x[::2]
    if grad:
        x.requires_grad_()
    y = lib.nn.functional.gelu(x)
    if not grad:
        return [y.numpy()]
    g = lib.ones_like(y) * 3
    gx, = lib.autograd.grad(y, x, g)
    return [y.detach().numpy(), gx.numpy()]


# -- 1. float32 exact GELU: zero slope once erf is -1 (x <= -6.15), GELU(+-inf) is NaN --------
# (torch runs contiguous inputs through oneDNN; the others keep GELU(inf) = inf: checked too)
@pytest.mark.parametrize("layout,grad", [("contiguous", True), ("contiguous", False),
                                         ("flat", True), ("flat", False), ("t", False),
                                         ("strided", False)])
def test_gelu_float32_tails(layout, grad):
    values = _TAIL + [float("inf"), float("-inf"), float("nan")]
    got = _gelu_run(numtorch, values, layout, grad)
    want = _gelu_run(torch, values, layout, grad)
    for i, (a, b) in enumerate(zip(got, want)):
        _bits_equal(a, b, f"gelu output {i}")


def test_gelu_float32_tail_double_backward():
    def run(lib):
        x = lib.tensor(_TAIL, dtype=lib.float32, requires_grad=True)
        g = lib.full((len(_TAIL),), 2.0, requires_grad=True)
        gx, = lib.autograd.grad(lib.nn.functional.gelu(x), x, g, create_graph=True)
        gg, = lib.autograd.grad(gx.sum(), g)
        return gx.detach().numpy(), gg.numpy()

    for i, (a, b) in enumerate(zip(run(numtorch), run(torch))):
        _bits_equal(a, b, f"double backward {i}")


# -- 2. torch._weight_norm: semantics, errors, torch's fused float32 norm order over dim 0 -----
def _wn_outputs(lib, shape, dim, gdim, dtype="float32", gdtype=None, grad=True):
    gen = np.random.default_rng(sum(shape) + 10 * dim)
    v = lib.tensor(gen.standard_normal(shape).astype(dtype), requires_grad=grad)
    gshape = [1] * len(shape)
    if gdim is not None:
        gshape[gdim] = shape[gdim]
    g = lib.tensor((gen.random(gshape) + 0.5).astype(gdtype or dtype), requires_grad=grad)
    w = lib._weight_norm(v, g, dim)
    if not grad:
        return [w.numpy()]
    gv, gg = lib.autograd.grad(w, [v, g], lib.ones_like(w))
    return [w.detach().numpy(), gv.numpy(), gg.numpy()]


@pytest.mark.parametrize("shape", [(7, 5, 3), (64, 300), (16, 40, 9), (128, 512), (3, 4),
                                   (80, 1, 3)])
def test_weight_norm_dim0_float32_bits(shape):
    got = _wn_outputs(numtorch, shape, 0, 0, grad=False)
    want = _wn_outputs(torch, shape, 0, 0, grad=False)
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("shape,dim,gdim", [((7, 5, 3), 0, 0), ((7, 5, 3), 1, 1),
                                            ((7, 5, 3), 2, 2), ((7, 5, 3), -1, None),
                                            ((6,), 0, 0)])
def test_weight_norm_values_and_grads(shape, dim, gdim):
    got = _wn_outputs(numtorch, shape, dim, gdim, dtype="float64")
    want = _wn_outputs(torch, shape, dim, gdim, dtype="float64")
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("case", ["dim3", "dim-4", "scalar", "double_g", "int"])
def test_weight_norm_errors(case):
    def run(lib):
        v, g = lib.ones(4, 3, 2), lib.ones(4, 1, 1)
        try:
            if case == "dim3":
                lib._weight_norm(v, g, 3)
            elif case == "dim-4":
                lib._weight_norm(v, g, -4)
            elif case == "scalar":
                lib._weight_norm(lib.tensor(2.0), lib.tensor(3.0), 0)
            elif case == "double_g":
                lib._weight_norm(v.double(), g, 0)
            else:
                lib._weight_norm(v.int(), g.int(), 0)
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            return type(e).__name__, str(e)
        return None

    assert run(numtorch) == run(torch)


def test_weight_norm_module_dim0_float32_bits():
    def run(lib):
        lib.manual_seed(0)
        conv = lib.nn.Conv1d(16, 32, 5)
        with lib.no_grad():
            conv.weight.copy_(lib.tensor(np.random.default_rng(5).standard_normal((32, 16, 5))
                                         .astype(np.float32)))
        m = lib.nn.utils.parametrizations.weight_norm(conv)
        old = lib.nn.utils.weight_norm(lib.nn.Linear(40, 24).requires_grad_(False))
        with lib.no_grad():
            old.weight_v.copy_(lib.tensor(np.random.default_rng(6).standard_normal((24, 40))
                                          .astype(np.float32)))
            old.weight_g.fill_(1.5)
        old(lib.ones(1, 40))  # the pre-hook recomputes the weight
        return [m.weight.detach().numpy(), old.weight.detach().numpy()]

    for a, b in zip(run(numtorch), run(torch)):
        np.testing.assert_array_equal(a, b)


# -- 3. a / b with a broadcast divisor: b's gradient summed in torch's order -------------------
def _div_broadcast(lib, dtype, shape_a, shape_b, fn):
    gen = np.random.default_rng(len(shape_a) * 7 + shape_a[-1])
    a = lib.tensor(gen.standard_normal(shape_a).astype(dtype), requires_grad=True)
    b = lib.tensor((gen.random(shape_b) + 0.5).astype(dtype), requires_grad=True)
    out = fn(lib, a, b)
    ga, gb = lib.autograd.grad(out, [a, b], lib.tensor(gen.standard_normal(out.shape)
                                                       .astype(dtype)))
    return ga.numpy(), gb.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((23, 9), (23, 1)), ((5, 40, 33), (5, 1, 33)),
                                    ((12, 300), (1, 300)), ((4, 7, 3), (3,))])
def test_div_broadcast_divisor_grad_bits(dtype, shapes):
    def div(lib, a, b):
        return a / b

    for x, y in zip(_div_broadcast(numtorch, dtype, *shapes, div),
                    _div_broadcast(torch, dtype, *shapes, div)):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cosine_similarity_grad_bits(dtype):
    def cos(lib, a, b):
        return lib.nn.functional.cosine_similarity(a, b, dim=1)

    for x, y in zip(_div_broadcast(numtorch, dtype, (23, 9), (23, 9), cos),
                    _div_broadcast(torch, dtype, (23, 9), (23, 9), cos)):
        np.testing.assert_array_equal(x, y)


# -- 4. bfloat16 exact GELU of a contiguous input (oneDNN): GELU(+-inf) is NaN of the other sign
def test_gelu_bfloat16_contiguous_inf():
    def run(lib):
        x = lib.tensor([float("inf"), float("-inf"), 1.0, -10.0, 3e38], dtype=lib.bfloat16)
        return lib.nn.functional.gelu(x).float().numpy()

    _bits_equal(run(numtorch), run(torch), "bfloat16 gelu")
