"""nn.init against torch: exact results where deterministic (gains, fans, eye_, dirac_,
constant_), distribution statistics where random, in-place identity, seeding, errors and the
deprecated 0.x aliases."""

import math
import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.nn._compare import same, same_warnings

NONLINEARITIES = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh", "relu",
                  "leaky_relu", "selu"]


@pytest.mark.parametrize("name", NONLINEARITIES)
def test_calculate_gain_matches_torch(name):
    a = numtorch.nn.init.calculate_gain(name)
    b = torch.nn.init.calculate_gain(name)
    assert a == b and type(a) is type(b)


@pytest.mark.parametrize("args", [
    ("leaky_relu", 0.2), ("leaky_relu", 1), ("leaky_relu", 0), ("leaky_relu", None),
    ("leaky_relu", -0.5), ("relu", 3.0), ("foo",), ("leaky_relu", "x"), ("leaky_relu", True),
])
def test_calculate_gain_params_and_errors(args):
    same(lambda t: t.nn.init.calculate_gain(*args))


@pytest.mark.parametrize("shape", [(3, 5), (4, 6, 3, 3), (2, 3, 4), (5, 0), (0, 3),
                                   (2, 3, 1, 1, 2), (3,), ()])
def test_fans_match_torch(shape):
    same(lambda t: t.nn.init._calculate_fan_in_and_fan_out(t.empty(shape)))


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "Fan_In", "bad"])
def test_correct_fan_matches_torch(mode):
    same(lambda t: t.nn.init._calculate_correct_fan(t.empty(4, 6, 3), mode))


# -- deterministic initialisers ------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda t, I: I.constant_(t.empty(2, 3), 0.5),
    lambda t, I: I.constant_(t.empty(3, dtype=t.int64), 2.5),
    lambda t, I: I.ones_(t.empty(2, dtype=t.int64)),
    lambda t, I: I.zeros_(t.empty(2, 2)),
    lambda t, I: I.eye_(t.empty(2, 3)),
    lambda t, I: I.eye_(t.empty(3, 2)),
    lambda t, I: I.eye_(t.empty(2, 2, dtype=t.int64)),
    lambda t, I: I.eye_(t.empty(3)),
    lambda t, I: I.eye_(t.empty(3, 4, 5)),
    lambda t, I: I.dirac_(t.empty(4, 2, 3)),
    lambda t, I: I.dirac_(t.empty(2, 4, 3)),
    lambda t, I: I.dirac_(t.empty(4, 2, 3), groups=2),
    lambda t, I: I.dirac_(t.empty(6, 2, 3, 3), groups=3),
    lambda t, I: I.dirac_(t.empty(2, 2, 2, 3, 4)),
    lambda t, I: I.dirac_(t.empty(3, 3)),
    lambda t, I: I.dirac_(t.empty(5, 3, 3), groups=2),
    lambda t, I: I.sparse_(t.empty(3, 3, 3), 0.1),
    lambda t, I: I.orthogonal_(t.empty(3)),
    lambda t, I: I.orthogonal_(t.empty(0, 3)),
    lambda t, I: I.kaiming_uniform_(t.empty(3, 3), mode="foo"),
    lambda t, I: I.kaiming_uniform_(t.empty(3, 3), nonlinearity="foo"),
    lambda t, I: I.kaiming_uniform_(t.empty(0, 3)),
    lambda t, I: I.kaiming_normal_(t.empty(0, 3)),
    lambda t, I: I.kaiming_uniform_(t.empty(3)),
    lambda t, I: I.kaiming_uniform_(t.empty(0)),
    lambda t, I: I.xavier_uniform_(t.empty(3)),
    lambda t, I: I.xavier_normal_(t.empty(3)),
    lambda t, I: I.uniform_(t.empty(3), 2, 1),
    lambda t, I: I.normal_(t.empty(3), 0, -1),
    lambda t, I: I.normal_(t.empty(3, dtype=t.int64)),
    lambda t, I: I.uniform_(t.empty(3, dtype=t.int64)),
    lambda t, I: I.trunc_normal_(t.empty(3), a=2, b=1),
    lambda t, I: I.constant_(t.empty(2), t.tensor(3.0)),
])
def test_deterministic_results_and_errors_match_torch(call):
    same(lambda t: call(t, t.nn.init))


@pytest.mark.parametrize("call", [
    lambda t, I: I.kaiming_uniform_(t.empty(0, 3)),
    lambda t, I: I.kaiming_normal_(t.empty(4, 0)),
    lambda t, I: I.trunc_normal_(t.empty(5), mean=5, std=1, a=-1, b=1),
    lambda t, I: I.trunc_normal_(t.empty(5), mean=0, std=1, a=-1, b=1),
])
def test_warnings_match_torch(call):
    same_warnings(lambda t: call(t, t.nn.init))


INPLACE = [
    lambda I, w: I.uniform_(w, -1, 1),
    lambda I, w: I.normal_(w, 0, 2),
    lambda I, w: I.trunc_normal_(w),
    lambda I, w: I.constant_(w, 3),
    lambda I, w: I.ones_(w),
    lambda I, w: I.zeros_(w),
    lambda I, w: I.xavier_uniform_(w),
    lambda I, w: I.xavier_normal_(w),
    lambda I, w: I.kaiming_uniform_(w),
    lambda I, w: I.kaiming_normal_(w),
    lambda I, w: I.orthogonal_(w),
    lambda I, w: I.sparse_(w.view(6, -1), 0.3),
    lambda I, w: I.dirac_(w),
]


@pytest.mark.parametrize("call", INPLACE)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_in_place_on_parameter_keeps_identity_dtype_and_graph(call, dtype):
    I = numtorch.nn.init
    p = numtorch.nn.Parameter(numtorch.empty(6, 4, 3, dtype=getattr(numtorch, dtype)))
    out = call(I, p) if call is not INPLACE[11] else (call(I, p), p)[1]
    assert out is p
    assert p.requires_grad and p.grad_fn is None and p.is_leaf
    assert str(p.dtype) == f"torch.{dtype}" and tuple(p.shape) == (6, 4, 3)
    assert np.isfinite(p.detach().numpy()).all()


def _stats(fn, shape, seed=0):
    numtorch.manual_seed(seed)
    w = fn(numtorch.empty(shape)).numpy().astype(np.float64)
    return w


@pytest.mark.parametrize("shape", [(256, 512), (64, 32, 3, 3)])
@pytest.mark.parametrize("a,mode,nl", [
    (0, "fan_in", "leaky_relu"), (math.sqrt(5), "fan_in", "leaky_relu"),
    (0, "fan_out", "relu"), (0.2, "fan_in", "leaky_relu"), (0, "fan_in", "tanh"),
    (0, "fan_out", "linear"), (0, "fan_in", "selu"),
])
def test_kaiming_distributions(shape, a, mode, nl):
    I = numtorch.nn.init
    fan_in, fan_out = I._calculate_fan_in_and_fan_out(numtorch.empty(shape))
    fan = fan_in if mode == "fan_in" else fan_out
    std = I.calculate_gain(nl, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    w = _stats(lambda x: I.kaiming_uniform_(x, a=a, mode=mode, nonlinearity=nl), shape)
    assert np.abs(w).max() <= bound * (1 + 1e-6)
    assert np.abs(w).max() > 0.99 * bound
    assert abs(w.std() - std) < 0.02 * std and abs(w.mean()) < 0.02 * std
    w = _stats(lambda x: I.kaiming_normal_(x, a=a, mode=mode, nonlinearity=nl), shape)
    assert abs(w.std() - std) < 0.02 * std and abs(w.mean()) < 0.02 * std


@pytest.mark.parametrize("gain", [1.0, 2.5])
def test_xavier_distributions(gain):
    I = numtorch.nn.init
    shape = (128, 64, 3)
    std = gain * math.sqrt(2.0 / (64 * 3 + 128 * 3))
    w = _stats(lambda x: I.xavier_uniform_(x, gain=gain), shape)
    assert np.abs(w).max() <= math.sqrt(3) * std * (1 + 1e-6)
    assert abs(w.std() - std) < 0.02 * std
    w = _stats(lambda x: I.xavier_normal_(x, gain=gain), shape)
    assert abs(w.std() - std) < 0.02 * std and abs(w.mean()) < 0.02 * std


def test_uniform_and_normal_distributions():
    I = numtorch.nn.init
    w = _stats(lambda x: I.uniform_(x, -2.0, 3.0), (200, 500))
    assert w.min() >= -2.0 and w.max() < 3.0
    assert abs(w.mean() - 0.5) < 0.02 and abs(w.std() - 5 / math.sqrt(12)) < 0.02
    w = _stats(lambda x: I.normal_(x, 1.5, 0.5), (200, 500))
    assert abs(w.mean() - 1.5) < 0.01 and abs(w.std() - 0.5) < 0.01


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (0.0, 0.02, -0.04, 0.04),
                                          (1.0, 2.0, 0.0, 5.0), (0.0, 1.0, 0.5, 3.0)])
def test_trunc_normal_matches_torch_statistics(mean, std, a, b):
    w = _stats(lambda x: numtorch.nn.init.trunc_normal_(x, mean, std, a, b), (400, 500))
    torch.manual_seed(0)
    r = torch.nn.init.trunc_normal_(torch.empty(400, 500), mean, std, a, b).double().numpy()
    assert w.min() >= a and w.max() <= b
    assert abs(w.mean() - r.mean()) < 0.01 * (b - a)
    assert abs(w.std() - r.std()) < 0.01 * (b - a)


@pytest.mark.parametrize("shape,gain", [((3, 5), 1), ((5, 3), 2.0), ((4, 2, 3), 1),
                                        ((6, 6), 0.5), ((1, 4), 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_orthogonal_is_orthogonal(shape, gain, dtype):
    w = numtorch.nn.init.orthogonal_(numtorch.empty(shape, dtype=getattr(numtorch, dtype)),
                                     gain=gain)
    q = w.numpy().reshape(shape[0], -1).astype(np.float64)
    rows, cols = q.shape
    small = q @ q.T if rows <= cols else q.T @ q
    np.testing.assert_allclose(small, gain ** 2 * np.eye(min(rows, cols)), atol=1e-5)
    assert str(w.dtype) == f"torch.{dtype}"


def test_orthogonal_is_haar_distributed():
    # with R's diagonal signs fixed, the first entry of a random orthogonal 2x2 matrix is
    # cos(theta) for uniform theta: mean 0
    vals = [numtorch.nn.init.orthogonal_(numtorch.empty(2, 2))[0, 0].item() for _ in range(400)]
    assert abs(np.mean(vals)) < 0.1


@pytest.mark.parametrize("sparsity", [0.1, 0.3, 0.5, 0.0])
def test_sparse_zeroes_exact_count_per_column(sparsity):
    rows, cols = 20, 30
    w = numtorch.nn.init.sparse_(numtorch.empty(rows, cols), sparsity, std=0.05).numpy()
    zeros = (w == 0).sum(axis=0)
    assert (zeros == math.ceil(sparsity * rows)).all()
    nz = w[w != 0]
    assert abs(nz.std() - 0.05) < 0.01
    assert not np.signbit(w[w == 0]).any()  # real zeros, not -0.0


def test_sparse_positions_differ_between_columns():
    w = numtorch.nn.init.sparse_(numtorch.empty(50, 40), 0.5).numpy()
    patterns = {tuple(np.flatnonzero(w[:, j] == 0)) for j in range(40)}
    assert len(patterns) > 30


@pytest.mark.parametrize("fn", [
    lambda I, w, g: I.uniform_(w, generator=g),
    lambda I, w, g: I.normal_(w, generator=g),
    lambda I, w, g: I.trunc_normal_(w, generator=g),
    lambda I, w, g: I.xavier_uniform_(w, generator=g),
    lambda I, w, g: I.xavier_normal_(w, generator=g),
    lambda I, w, g: I.kaiming_uniform_(w, generator=g),
    lambda I, w, g: I.kaiming_normal_(w, generator=g),
    lambda I, w, g: I.orthogonal_(w, generator=g),
    # (not sparse_: its row permutations come from the global stream even with a generator,
    # as torch's do; tests/test_parity_s44_nn.py compares it with torch)
])
def test_seeding_and_generator_determinism(fn):
    I = numtorch.nn.init
    results = []
    for _ in range(2):
        numtorch.manual_seed(7)
        results.append(fn(I, numtorch.empty(8, 6), None).numpy().copy())
    np.testing.assert_array_equal(results[0], results[1])
    g1 = numtorch.Generator().manual_seed(11)
    g2 = numtorch.Generator().manual_seed(11)
    a = fn(I, numtorch.empty(8, 6), g1).numpy()
    numtorch.manual_seed(0)  # the global stream does not affect an explicit generator
    b = fn(I, numtorch.empty(8, 6), g2).numpy()
    np.testing.assert_array_equal(a, b)
    c = fn(I, numtorch.empty(8, 6), g1).numpy()
    assert not np.array_equal(a, c)


DEPRECATED = [("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("xavier_uniform", ()),
              ("xavier_normal", ()), ("kaiming_uniform", ()), ("kaiming_normal", ()),
              ("orthogonal", ()), ("sparse", (0.1,)), ("eye", ()), ("dirac", ())]


@pytest.mark.parametrize("name,args", DEPRECATED)
def test_deprecated_aliases_warn_like_torch(name, args):
    shape = (3, 4, 3) if name == "dirac" else (3, 4)

    def fn(t):
        w = t.empty(shape)
        assert getattr(t.nn.init, name)(w, *args) is w

    out = same_warnings(fn)
    assert out and out[0][0] == "FutureWarning"


def test_deprecated_alias_gives_same_result_as_new_name():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = numtorch.nn.init.eye(numtorch.empty(3, 4))
    assert numtorch.equal(a, numtorch.nn.init.eye_(numtorch.empty(3, 4)))


def test_no_grad_private_helpers_exist_like_torch():
    for name in ["_no_grad_uniform_", "_no_grad_normal_", "_no_grad_trunc_normal_",
                 "_no_grad_fill_", "_no_grad_zero_"]:
        assert hasattr(torch.nn.init, name) and hasattr(numtorch.nn.init, name)
    w = numtorch.nn.Parameter(numtorch.empty(3))
    assert numtorch.nn.init._no_grad_fill_(w, 2.0) is w and w.tolist() == [2.0, 2.0, 2.0]


# -- the Tensor samplers nn.init relies on --------------------------------------------------------
@pytest.mark.parametrize("method,args,check", [
    ("uniform_", (-1.0, 2.0), lambda w: w.min() >= -1 and w.max() < 2 and
     abs(w.mean() - 0.5) < 0.03),
    ("normal_", (2.0, 3.0), lambda w: abs(w.mean() - 2) < 0.05 and abs(w.std() - 3) < 0.05),
    ("bernoulli_", (0.3,), lambda w: set(np.unique(w)) <= {0.0, 1.0} and
     abs(w.mean() - 0.3) < 0.02),
    ("exponential_", (2.0,), lambda w: w.min() >= 0 and abs(w.mean() - 0.5) < 0.02),
    ("random_", (0, 5), lambda w: set(np.unique(w)) == {0.0, 1.0, 2.0, 3.0, 4.0}),
])
def test_tensor_in_place_samplers(method, args, check):
    numtorch.manual_seed(0)
    t = numtorch.empty(100, 100)
    out = getattr(t, method)(*args)
    assert out is t and t.dtype == numtorch.float32
    assert check(t.numpy().astype(np.float64))
