"""bfloat16 (backed by the optional ml_dtypes package) against torch: dtype rules, creation,
printing, arithmetic, checkpoints and safetensors in both directions, and the fallback when
ml_dtypes is missing."""

import io
import json
import pickle
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import numtorch
from numtorch import _dtype, serialization
from tests.nn.test_activation import FUNCS as ACTIVATIONS
from tests.ops.op_table import ELEMENTWISE, SPECIAL, make_args
from tests.ops.test_shape import CASES as SHAPE_CASES

HAVE_BF16 = _dtype._BF16_AVAILABLE
needs_bf16 = pytest.mark.skipif(not HAVE_BF16, reason="bfloat16 needs ml_dtypes")
BF_EPS = 2.0 ** -7  # bfloat16 keeps 8 significand bits
NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64", "complex64", "complex128"]


def _bits(t):
    """The raw bfloat16 bit patterns of a numtorch or torch tensor, as uint16."""
    if isinstance(t, torch.Tensor):
        return t.contiguous().view(torch.int16).numpy().view(np.uint16)
    return np.ascontiguousarray(t.detach()._array).view(np.uint16)


def _th_bf16(values):
    return torch.tensor(np.asarray(values, dtype=np.float32)).to(torch.bfloat16)


def _nt_bf16(values):
    return numtorch.tensor(np.asarray(values, dtype=np.float32)).to(numtorch.bfloat16)


def _same_bf16(nt_t, th_t):
    assert str(nt_t.dtype) == str(th_t.dtype) == "torch.bfloat16"
    assert tuple(nt_t.shape) == tuple(th_t.shape)
    np.testing.assert_array_equal(_bits(nt_t), _bits(th_t))


# -- the dtype object --------------------------------------------------------------------------
def test_dtype_object_matches_torch():
    nd, td = numtorch.bfloat16, torch.bfloat16
    assert isinstance(nd, numtorch.dtype) and repr(nd) == repr(td) == str(nd)
    assert nd.is_floating_point and not nd.is_complex and nd.is_signed == td.is_signed
    assert nd.itemsize == td.itemsize == 2 and nd.abbr == td.abbr
    assert nd.to_real() is nd and str(nd.to_complex()) == str(td.to_complex())
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(nd, protocol)) is nd
    assert "bfloat16" in numtorch._dtype.__all__


@pytest.mark.parametrize("other", NAMES)
def test_promote_types_matches_torch(other):
    for a, b in (("bfloat16", other), (other, "bfloat16")):
        got = numtorch.promote_types(getattr(numtorch, a), getattr(numtorch, b))
        assert str(got) == str(torch.promote_types(getattr(torch, a), getattr(torch, b)))
        assert numtorch.can_cast(getattr(numtorch, a), getattr(numtorch, b)) == \
            torch.can_cast(getattr(torch, a), getattr(torch, b))


@needs_bf16
@pytest.mark.parametrize("other", NAMES)
@pytest.mark.parametrize("shapes", [((2,), (2,)), ((2,), ()), ((), (2,))],
                         ids=["dim-dim", "dim-0d", "0d-dim"])
def test_result_type_of_tensors_matches_torch(other, shapes):
    s0, s1 = shapes
    for a, b in (("bfloat16", other), (other, "bfloat16")):
        def fn(t, a=a, b=b):
            x, y = t.ones(s0, dtype=getattr(t, a)), t.ones(s1, dtype=getattr(t, b))
            return [t.result_type(x, y), (x + y).dtype, (x * y).dtype, t.where(x == x, x, y).dtype]

        assert [str(d) for d in fn(numtorch)] == [str(d) for d in fn(torch)]


@needs_bf16
@pytest.mark.parametrize("scalar", [True, 3, -2, 2.5, 1e30, 1 + 2j, np.float64(0.5), np.int8(3)],
                         ids=str)
def test_scalar_promotion_matches_torch(scalar):
    def fn(t):
        x, z = t.ones(3, dtype=t.bfloat16), t.ones((), dtype=t.bfloat16)
        out = [t.result_type(x, scalar), (x * scalar).dtype, (x + scalar).dtype,
               t.result_type(z, scalar), (t.ones(2, dtype=t.int32) + z).dtype]
        if not isinstance(scalar, (bool, complex, np.generic)):
            out.append((scalar - x).dtype)
        return out

    assert [str(d) for d in fn(numtorch)] == [str(d) for d in fn(torch)]


@pytest.mark.parametrize("name", ["bfloat16", "float16", "float32", "float64", "complex64",
                                  "complex128", None])
def test_finfo_matches_torch(name):
    a = numtorch.finfo(getattr(numtorch, name)) if name else numtorch.finfo()
    b = torch.finfo(getattr(torch, name)) if name else torch.finfo()
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(a, attr) == getattr(b, attr), attr
    assert repr(a) == repr(b)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    a, b = numtorch.iinfo(getattr(numtorch, name)), torch.iinfo(getattr(torch, name))
    assert (a.bits, a.min, a.max, a.dtype) == (b.bits, b.min, b.max, b.dtype)
    assert repr(a) == repr(b)


@pytest.mark.parametrize("fn", [lambda t: t.finfo(t.int32), lambda t: t.iinfo(t.float32),
                                lambda t: t.iinfo(t.bfloat16), lambda t: t.finfo(3),
                                lambda t: t.iinfo(t.bool)],
                         ids=["finfo_int", "iinfo_float", "iinfo_bf16", "finfo_int_arg",
                              "iinfo_bool"])
def test_info_errors_match_torch(fn):
    with pytest.raises(TypeError) as th:
        fn(torch)
    with pytest.raises(TypeError) as nt:
        fn(numtorch)
    assert str(nt.value) == str(th.value)


# -- creation, conversion, tensor properties ---------------------------------------------------
@needs_bf16
@pytest.mark.parametrize("make", [
    lambda t: t.tensor([1.0, -2.5, 3.14159, 1e-3, 65504.0, 1e30], dtype=t.bfloat16),
    lambda t: t.tensor([[1, 2], [3, 4]], dtype=t.bfloat16),
    lambda t: t.tensor(2.7, dtype=t.bfloat16),
    lambda t: t.zeros(2, 3, dtype=t.bfloat16),
    lambda t: t.ones(4, dtype=t.bfloat16),
    lambda t: t.full((2,), 1.2345, dtype=t.bfloat16),
    lambda t: t.arange(0, 3, 0.5, dtype=t.bfloat16),
    lambda t: t.linspace(-1, 1, 7, dtype=t.bfloat16),
    lambda t: t.eye(3, dtype=t.bfloat16),
    lambda t: t.tensor([0.1, 0.2, 1e5, -7.7]).bfloat16(),
    lambda t: t.tensor([0.1, 0.2, 1e5, -7.7]).to(t.bfloat16),
    lambda t: t.tensor([0.1, 0.2, 1e5, -7.7], dtype=t.float64).to(dtype=t.bfloat16),
    lambda t: t.tensor([1, -3, 300]).to(t.bfloat16),
    lambda t: t.tensor([True, False]).to(t.bfloat16),
    lambda t: t.tensor([1.5, 2.5], dtype=t.float16).bfloat16(),
    lambda t: t.zeros_like(t.ones(2, dtype=t.bfloat16)),
    lambda t: t.ones(3).type(t.bfloat16),
    lambda t: t.ones(3).type("torch.BFloat16Tensor"),
    lambda t: t.BFloat16Tensor([1.5, 2.0]),
], ids=lambda f: "")
def test_creation_matches_torch_bit_for_bit(make):
    _same_bf16(make(numtorch), make(torch))


@needs_bf16
@pytest.mark.parametrize("target", ["float32", "float64", "float16", "int64", "int32", "uint8",
                                    "bool", "complex64"])
def test_conversion_out_of_bfloat16_matches_torch(target):
    vals = [0.0, 1.5, -2.75, 100.0, 3.3e38, float("inf"), float("nan")]
    if target in ("int64", "int32", "uint8", "bool"):
        vals = [0.0, 1.5, 2.75, 100.0, 17.0]

    def fn(t):
        return t.tensor(vals).to(t.bfloat16).to(getattr(t, target))

    a, b = fn(numtorch), fn(torch)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@needs_bf16
def test_tensor_properties_match_torch():
    def fn(t):
        x = t.ones(2, 3, dtype=t.bfloat16)
        return [x.is_floating_point(), x.is_complex(), x.element_size(), x.itemsize, x.nbytes,
                x.type(), str(x.dtype), x.dtype.is_signed, x[0, 1].item(), x.tolist(),
                t.is_floating_point(x), x.is_signed()]

    assert fn(numtorch) == fn(torch)
    st = numtorch.ones(2, dtype=numtorch.bfloat16).storage()
    assert type(st) is numtorch.BFloat16Storage and st.dtype is numtorch.bfloat16
    assert hasattr(torch, "BFloat16Storage")  # the legacy class name torch pickles


@needs_bf16
@pytest.mark.parametrize("make", [
    lambda t: t.randn(50, dtype=t.bfloat16), lambda t: t.rand(50, dtype=t.bfloat16),
    lambda t: t.empty(2, 5, dtype=t.bfloat16), lambda t: t.randn_like(t.ones(3, dtype=t.bfloat16)),
    lambda t: t.rand(2, 3).bfloat16(), lambda t: t.randint(0, 9, (4,), dtype=t.bfloat16),
], ids=["randn", "rand", "empty", "randn_like", "rand_cast", "randint"])
def test_random_creation_has_bfloat16_dtype(make):
    a, b = make(numtorch), make(torch)
    assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)


@needs_bf16
def test_rand_stays_below_one():
    numtorch.manual_seed(0)
    x = numtorch.rand(200000, dtype=numtorch.bfloat16).float()
    assert float(x.max()) < 1.0 and float(x.min()) >= 0.0
    assert abs(float(x.mean()) - 0.5) < 0.01


@needs_bf16
@pytest.mark.parametrize("expr", [
    "t.tensor([1., 2.], dtype=t.bfloat16)",
    "t.tensor([1.123456, 2e-3, 300.7], dtype=t.bfloat16)",
    "t.tensor([1e10, 1e-10], dtype=t.bfloat16)",
    "t.tensor(3.14159, dtype=t.bfloat16)",
    "t.tensor([], dtype=t.bfloat16)",
    "t.tensor([float('nan'), float('inf'), -1.], dtype=t.bfloat16)",
    "t.arange(2000.).to(t.bfloat16)",
    "t.tensor([[0.1, 0.2], [3., 4.]], dtype=t.bfloat16)",
    "t.nn.Parameter(t.ones(2, dtype=t.bfloat16))",
])
def test_repr_matches_torch(expr):
    assert repr(eval(expr, {"t": numtorch})) == repr(eval(expr, {"t": torch}))


# -- arithmetic ---------------------------------------------------------------------------------
_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((48, 40)).astype(np.float32)
_Y = _RNG.standard_normal((40, 24)).astype(np.float32)
_P = np.abs(_RNG.standard_normal((48, 40))).astype(np.float32) + 0.1
_BIG = (np.arange(1000) * 0.01).astype(np.float32)  # a naive bfloat16 running sum stalls here

OPS = {
    "add": lambda t, x, y, p: x + p, "add_scalar": lambda t, x, y, p: x + 3,
    "sub": lambda t, x, y, p: x - p, "mul": lambda t, x, y, p: x * p,
    "div": lambda t, x, y, p: x / p, "neg": lambda t, x, y, p: -x,
    "pow": lambda t, x, y, p: p ** 1.5, "exp": lambda t, x, y, p: x.exp(),
    "log": lambda t, x, y, p: p.log(), "sqrt": lambda t, x, y, p: p.sqrt(),
    "tanh": lambda t, x, y, p: x.tanh(), "sin": lambda t, x, y, p: x.sin(),
    "abs": lambda t, x, y, p: x.abs(), "relu": lambda t, x, y, p: x.relu(),
    "reciprocal": lambda t, x, y, p: p.reciprocal(), "clamp": lambda t, x, y, p: x.clamp(-.5, .5),
    "maximum": lambda t, x, y, p: t.maximum(x, p),
    "where": lambda t, x, y, p: t.where(x > 0, x, p),
    "floor": lambda t, x, y, p: (x * 8).floor(), "ceil": lambda t, x, y, p: (x * 8).ceil(),
    "trunc": lambda t, x, y, p: (x * 8).trunc(), "round": lambda t, x, y, p: (x * 8).round(),
    "frac": lambda t, x, y, p: (x * 8).frac(), "sigmoid": lambda t, x, y, p: x.sigmoid(),
    "softmax": lambda t, x, y, p: x.softmax(1), "log_softmax": lambda t, x, y, p: x.log_softmax(1),
    "sum": lambda t, x, y, p: x.sum(), "sum_dim": lambda t, x, y, p: x.sum(0),
    "sum_keepdim": lambda t, x, y, p: p.sum(1, keepdim=True), "mean": lambda t, x, y, p: x.mean(),
    "mean_dim": lambda t, x, y, p: p.mean(1), "cumsum": lambda t, x, y, p: p.cumsum(0),
    "var": lambda t, x, y, p: x.var(1), "std": lambda t, x, y, p: x.std(),
    "norm": lambda t, x, y, p: x.norm(), "norm_dim": lambda t, x, y, p: x.norm(dim=1),
    "amax": lambda t, x, y, p: x.amax(1), "max": lambda t, x, y, p: x.max(0).values,
    "argmax": lambda t, x, y, p: x.argmax(1), "sort": lambda t, x, y, p: x.sort(1).values,
    "prod": lambda t, x, y, p: p[:3, :8].prod(1), "cat": lambda t, x, y, p: t.cat([x, p]),
    "gt": lambda t, x, y, p: x > p, "matmul": lambda t, x, y, p: x @ y,
    "mm": lambda t, x, y, p: t.mm(x, y), "mv": lambda t, x, y, p: t.mv(x, y[:, 0]),
    "dot": lambda t, x, y, p: t.dot(x[0], p[0]),
    "bmm": lambda t, x, y, p: t.bmm(x.reshape(4, 12, 40), y.expand(4, 40, 24)),
    "linear": lambda t, x, y, p: t.nn.functional.linear(x, y.t()),
    "einsum": lambda t, x, y, p: t.einsum("ij,jk->ik", x, y),
    "mse_loss": lambda t, x, y, p: t.nn.functional.mse_loss(x, p),
    "cross_entropy": lambda t, x, y, p: t.nn.functional.cross_entropy(x, t.arange(48) % 40),
}


def _close_to_torch(a, b):
    """Results agree in dtype and shape, and values within a few bfloat16 rounding steps."""
    assert str(a.dtype) == str(b.dtype), (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    if not b.is_floating_point():
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        return
    av, bv = a.float().numpy(), b.float().numpy()
    scale = float(np.abs(bv).max()) if bv.size else 1.0
    # composed ops round intermediates that torch keeps in float32: allow a few steps
    np.testing.assert_allclose(av, bv, rtol=4 * BF_EPS, atol=4 * BF_EPS * scale)


@needs_bf16
@pytest.mark.parametrize("name", sorted(OPS))
def test_ops_match_torch(name):
    fn = OPS[name]
    a = fn(numtorch, *[numtorch.from_numpy(v).to(numtorch.bfloat16) for v in (_X, _Y, _P)])
    b = fn(torch, *[torch.from_numpy(v).to(torch.bfloat16) for v in (_X, _Y, _P)])
    _close_to_torch(a, b)


@needs_bf16
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "exp", "log", "sqrt", "tanh",
                                  "abs", "neg", "maximum", "floor", "round", "sum", "sum_dim",
                                  "mean", "matmul", "mm", "bmm", "einsum"])
def test_single_rounding_ops_match_torch_exactly(name):
    # one rounding of a float32 result, as torch: these agree bit for bit
    fn = OPS[name]
    a = fn(numtorch, *[numtorch.from_numpy(v).to(numtorch.bfloat16) for v in (_X, _Y, _P)])
    b = fn(torch, *[torch.from_numpy(v).to(torch.bfloat16) for v in (_X, _Y, _P)])
    if name in ("sum", "sum_dim", "mean", "matmul", "mm", "bmm", "einsum"):
        # float32 accumulation order differs between BLAS/NumPy and torch: one bf16 step at most
        np.testing.assert_allclose(a.float().numpy(), b.float().numpy(), rtol=BF_EPS, atol=0)
    else:
        _same_bf16(a, b)


@needs_bf16
@pytest.mark.parametrize("fn", [lambda t, x: x.sum(), lambda t, x: x.mean(),
                                lambda t, x: x.cumsum(0)[-1],
                                lambda t, x: x.reshape(10, 100).sum(1),
                                lambda t, x: x @ t.ones(1000, dtype=t.bfloat16)],
                         ids=["sum", "mean", "cumsum", "sum_dim", "dot"])
def test_reductions_accumulate_in_float32_like_torch(fn):
    a, b = fn(numtorch, _nt_bf16(_BIG)), fn(torch, _th_bf16(_BIG))
    assert a.dtype is numtorch.bfloat16
    np.testing.assert_allclose(a.float().numpy(), b.float().numpy(), rtol=BF_EPS, atol=0)


@needs_bf16
def test_naive_bfloat16_accumulation_would_differ():
    # the check above has teeth: a running bfloat16 sum stalls far below torch's total
    naive = np.add.reduce(_nt_bf16(_BIG)._array, dtype=_dtype.bfloat16.np)
    assert abs(float(naive) - float(torch.sum(_th_bf16(_BIG)))) > 100


@needs_bf16
def test_inplace_and_mixed_dtype_ops_match_torch():
    def fn(t):
        x = t.tensor([1.0, 2.5, -3.0], dtype=t.bfloat16)
        x.add_(t.tensor([0.1, 0.2, 0.3]))  # float32 result cast back into bfloat16
        x.mul_(2)
        y = x + t.tensor([1.0, 2.0, 3.0], dtype=t.float16)  # -> float32
        z = x * 1e-3
        return [x, y, z]

    for a, b in zip(fn(numtorch), fn(torch)):
        _close_to_torch(a, b)


@needs_bf16
def test_module_to_bfloat16_matches_torch():
    torch.manual_seed(0)
    th = torch.nn.Linear(5, 3)
    nt = numtorch.nn.Linear(5, 3)
    nt.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                        for k, v in th.state_dict().items()})
    th, nt = th.to(torch.bfloat16), nt.to(numtorch.bfloat16)
    assert nt.weight.dtype is numtorch.bfloat16
    x = np.linspace(-1, 1, 10, dtype=np.float32).reshape(2, 5)
    with torch.no_grad(), numtorch.no_grad():
        _close_to_torch(nt(numtorch.from_numpy(x).bfloat16()), th(torch.from_numpy(x).bfloat16()))


# -- every op of the shared op tables, forward on bfloat16 ----------------------------------------
# ops whose NumPy code multiplies by a Python float, which promotes ml_dtypes' bfloat16 to
# float32 (NumPy's rule for a Python float with a non-NumPy float type); owned elsewhere
_SWEEP = ([(e.name, e.fn, e.domains(), ((3, 4),) * e.arity) for e in ELEMENTWISE + SPECIAL]
          + [(f"shape-{name}", fn, ((-2.0, 2.0),) * len(shapes), shapes)
             for name, fn, shapes, *_ in SHAPE_CASES]
          + [(f"activation-{name}", fn, ((-2.0, 2.0),), ((3, 4),))
             for name, (fn, *_) in ACTIVATIONS.items()])


def _sweep_param(name, fn, domains, shapes):
    return pytest.param(fn, domains, shapes, id=name)


def _compare_outcomes(fn):
    outs = []
    for lib in (numtorch, torch):
        try:
            outs.append(("ok", fn(lib)))
        except Exception as e:  # noqa: BLE001 - the exception class is compared
            outs.append(("raises", e))
    (ka, a), (kb, b) = outs
    if kb == "raises":
        assert ka == "raises", f"torch raised {b!r}, numtorch returned"
        return
    assert ka == "ok", f"numtorch raised {a!r}"
    if isinstance(b, (tuple, list)):
        a, b = a[0], b[0]
    if isinstance(b, torch.Tensor):
        _close_to_torch(a, b)
    else:
        assert a == b


@needs_bf16
@pytest.mark.parametrize("fn,domains,shapes", [_sweep_param(*c) for c in _SWEEP])
def test_op_tables_forward_on_bfloat16_match_torch(fn, domains, shapes):
    arrays = make_args(domains, shapes, "float32")
    _compare_outcomes(lambda t: fn(t, *[t.from_numpy(a.copy()).to(t.bfloat16) for a in arrays]))


_X4 = _RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
_W4 = _RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
_X3 = _RNG.standard_normal((2, 3, 10)).astype(np.float32)


def _b(t, a):
    return t.from_numpy(np.ascontiguousarray(a)).to(t.bfloat16)


NN_CASES = [
    ("max_pool2d", lambda t, F: F.max_pool2d(_b(t, _X4), 2)),
    ("max_pool2d_indices", lambda t, F: F.max_pool2d(_b(t, _X4), 3, 2, 1,
                                                     return_indices=True)[1]),
    ("avg_pool2d", lambda t, F: F.avg_pool2d(_b(t, _X4), 2)),
    ("avg_pool1d", lambda t, F: F.avg_pool1d(_b(t, _X3), 3, 2, 1)),
    ("max_pool1d", lambda t, F: F.max_pool1d(_b(t, _X3), 2)),
    ("adaptive_avg_pool2d", lambda t, F: F.adaptive_avg_pool2d(_b(t, _X4), 3)),
    ("adaptive_max_pool2d", lambda t, F: F.adaptive_max_pool2d(_b(t, _X4), 3)),
    ("conv2d", lambda t, F: F.conv2d(_b(t, _X4), _b(t, _W4), padding=1)),
    ("conv1d", lambda t, F: F.conv1d(_b(t, _X3), _b(t, _W4[:, :, 0]))),
    ("conv_transpose2d", lambda t, F: F.conv_transpose2d(_b(t, _X4), _b(t, _W4.transpose(
        1, 0, 2, 3)))),
    ("embedding", lambda t, F: F.embedding(t.tensor([[0, 2], [1, 1]]), _b(t, _X3[0]))),
    ("dropout_eval", lambda t, F: F.dropout(_b(t, _X3), 0.5, training=False)),
    ("interpolate_nearest", lambda t, F: F.interpolate(_b(t, _X4), scale_factor=2)),
    ("interpolate_bilinear", lambda t, F: F.interpolate(_b(t, _X4), scale_factor=2,
                                                        mode="bilinear")),
    ("pad", lambda t, F: F.pad(_b(t, _X3), (1, 2), value=0.5)),
    ("normalize", lambda t, F: F.normalize(_b(t, _X3), dim=1)),
    ("cosine_similarity", lambda t, F: F.cosine_similarity(_b(t, _X3), _b(t, _X3[::-1]))),
    ("nll_loss", lambda t, F: F.nll_loss(_b(t, _X3[:, :, 0]), t.tensor([0, 2]))),
    ("bce_with_logits", lambda t, F: F.binary_cross_entropy_with_logits(
        _b(t, _X3), _b(t, (_X3 > 0).astype(np.float32)))),
    ("l1_loss", lambda t, F: F.l1_loss(_b(t, _X3), _b(t, _X3[::-1]))),
    ("smooth_l1_loss", lambda t, F: F.smooth_l1_loss(_b(t, _X3), _b(t, _X3[::-1]))),
    ("kl_div", lambda t, F: F.kl_div(_b(t, _X3).log_softmax(-1), _b(t, _X3[::-1]).softmax(-1),
                                     reduction="batchmean")),
    ("sdpa", lambda t, F: F.scaled_dot_product_attention(_b(t, _X3), _b(t, _X3[::-1]),
                                                         _b(t, _X3))),
    ("unfold", lambda t, F: F.unfold(_b(t, _X4), 3)),
    ("batch_norm", lambda t, F: F.batch_norm(_b(t, _X4), None, None, training=True)),
    ("group_norm", lambda t, F: F.group_norm(_b(t, _X4), 3)),
    ("layer_norm", lambda t, F: F.layer_norm(_b(t, _X3), (10,))),
]


@needs_bf16
@pytest.mark.parametrize("fn", [pytest.param(fn, id=name)
                                for name, fn in NN_CASES])
def test_nn_functional_on_bfloat16_matches_torch(fn):
    _compare_outcomes(lambda t: fn(t, t.nn.functional))


# -- checkpoints --------------------------------------------------------------------------------
def _bytes(obj, lib, **kw):
    buf = io.BytesIO()
    lib.save(obj, buf, **kw)
    return buf.getvalue()


_VALUES = [[1.5, -2.25, 3.0e38, 1e-3], [0.0, -0.0, 7.0, 1e-40]]


@needs_bf16
@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_torch_checkpoint_loads_as_bfloat16(legacy):
    src = _th_bf16(_VALUES)
    kw = {"_use_new_zipfile_serialization": False} if legacy else {}
    out = numtorch.load(io.BytesIO(_bytes({"w": src, "v": src[:, 1:3], "d": torch.bfloat16},
                                          torch, **kw)))
    _same_bf16(out["w"], src)
    _same_bf16(out["v"], src[:, 1:3])
    assert out["d"] is numtorch.bfloat16
    out["w"][0, 1] = 9.0  # views share memory again
    assert float(out["v"][0, 0]) == 9.0


@needs_bf16
def test_numtorch_checkpoint_loads_in_torch():
    src = _nt_bf16(_VALUES)
    p = numtorch.nn.Parameter(_nt_bf16([[1.0, 2.0]]))
    out = torch.load(io.BytesIO(_bytes({"w": src, "v": src[:, 1:3], "p": p}, numtorch)),
                     weights_only=True)
    _same_bf16(src, out["w"])
    _same_bf16(src[:, 1:3], out["v"])
    assert out["v"].untyped_storage().data_ptr() == out["w"].untyped_storage().data_ptr()
    assert isinstance(out["p"], torch.nn.Parameter) and out["p"].dtype is torch.bfloat16
    back = numtorch.load(io.BytesIO(_bytes(out, torch)))
    _same_bf16(back["w"], out["w"])


@needs_bf16
def test_state_dict_round_trip_through_torch():
    torch.manual_seed(0)
    th = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3)).to(torch.bfloat16)
    nt = numtorch.nn.Sequential(numtorch.nn.Linear(4, 3), numtorch.nn.LayerNorm(3))
    nt.to(numtorch.bfloat16)  # load_state_dict copies into the existing parameters' dtype
    nt.load_state_dict(numtorch.load(io.BytesIO(_bytes(th.state_dict(), torch))))
    assert all(p.dtype is numtorch.bfloat16 for p in nt.parameters())
    again = torch.load(io.BytesIO(_bytes(nt.state_dict(), numtorch)), weights_only=True)
    for k, v in th.state_dict().items():
        assert torch.equal(again[k], v) and again[k].dtype is torch.bfloat16


def _run_python(script):
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return res.stdout


@needs_bf16
def test_checkpoint_from_a_separate_torch_process(tmp_path):
    path = tmp_path / "bf16.pt"
    _run_python(f"""
        import torch
        x = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 7
        torch.save({{"x": x.to(torch.bfloat16), "n": 3}}, {str(path)!r})
    """)
    out = numtorch.load(path)
    ref = (np.arange(12, dtype=np.float32).reshape(3, 4) / 7)
    _same_bf16(out["x"], torch.from_numpy(ref).to(torch.bfloat16))
    assert out["n"] == 3


@needs_bf16
def test_checkpoint_to_a_separate_torch_process(tmp_path):
    path = tmp_path / "bf16.pt"
    x = (numtorch.arange(12, dtype=numtorch.float32).reshape(3, 4) / 7).bfloat16()
    numtorch.save({"x": x, "t": x.t()}, path)
    printed = _run_python(f"""
        import torch
        d = torch.load({str(path)!r}, weights_only=True)
        assert d["x"].dtype is torch.bfloat16 and d["t"].dtype is torch.bfloat16
        assert torch.equal(d["t"], d["x"].t())
        print(d["x"].view(torch.int16).flatten().tolist())
    """)
    bits = np.array(json.loads(printed), dtype=np.int64).astype(np.uint16)
    np.testing.assert_array_equal(bits, _bits(x).reshape(-1))


# -- safetensors --------------------------------------------------------------------------------
def _read_safetensors_by_hand(path):
    blob = path.read_bytes()
    n = struct.unpack("<Q", blob[:8])[0]
    return json.loads(blob[8:8 + n]), blob[8 + n:]


@needs_bf16
def test_safetensors_writes_bf16_records(tmp_path):
    src = _th_bf16(_VALUES)
    path = tmp_path / "w.safetensors"
    serialization.save_safetensors({"w": _nt_bf16(_VALUES), "f": numtorch.ones(2)}, path)
    header, body = _read_safetensors_by_hand(path)
    assert header["w"]["dtype"] == "BF16" and header["w"]["shape"] == [2, 4]
    begin, end = header["w"]["data_offsets"]
    np.testing.assert_array_equal(np.frombuffer(body[begin:end], "<u2"), _bits(src).reshape(-1))
    back = serialization.load_safetensors(path)
    _same_bf16(back["w"], src)
    assert back["f"].dtype is numtorch.float32


@needs_bf16
def test_safetensors_reads_bf16_records(tmp_path):
    src = _th_bf16(_VALUES)
    raw = _bits(src).astype("<u2").tobytes()
    head = json.dumps({"w": {"dtype": "BF16", "shape": [2, 4],
                             "data_offsets": [0, len(raw)]}}).encode()
    path = tmp_path / "r.safetensors"
    path.write_bytes(struct.pack("<Q", len(head)) + head + raw)
    _same_bf16(serialization.load_safetensors(path)["w"], src)


# -- without ml_dtypes --------------------------------------------------------------------------
@pytest.fixture
def no_ml_dtypes(monkeypatch):
    monkeypatch.setattr(_dtype, "_BF16_AVAILABLE", False)


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_checkpoint_falls_back_to_float32_without_ml_dtypes(no_ml_dtypes, legacy):
    src = _th_bf16(_VALUES)
    kw = {"_use_new_zipfile_serialization": False} if legacy else {}
    data = _bytes({"w": src}, torch, **kw)
    with pytest.warns(RuntimeWarning, match="ml_dtypes"):
        out = numtorch.load(io.BytesIO(data))
    assert out["w"].dtype is numtorch.float32
    np.testing.assert_array_equal(out["w"].numpy(), src.float().numpy())


def test_safetensors_falls_back_to_float32_without_ml_dtypes(no_ml_dtypes, tmp_path):
    src = _th_bf16(_VALUES)
    raw = _bits(src).astype("<u2").tobytes()
    head = json.dumps({"w": {"dtype": "BF16", "shape": [2, 4],
                             "data_offsets": [0, len(raw)]}}).encode()
    path = tmp_path / "r.safetensors"
    path.write_bytes(struct.pack("<Q", len(head)) + head + raw)
    with pytest.warns(RuntimeWarning, match="ml_dtypes"):
        out = serialization.load_safetensors(path)
    assert out["w"].dtype is numtorch.float32
    np.testing.assert_array_equal(out["w"].numpy(), src.float().numpy())


def test_core_works_when_ml_dtypes_cannot_be_imported(tmp_path):
    path = tmp_path / "bf16.pt"
    torch.save({"w": _th_bf16(_VALUES)}, path)
    out = _run_python(f"""
        import sys, warnings
        sys.modules["ml_dtypes"] = None  # import ml_dtypes now raises ImportError
        import numtorch as torch
        assert not torch._dtype._BF16_AVAILABLE
        assert repr(torch.bfloat16) == "torch.bfloat16" and torch.bfloat16.is_floating_point
        assert torch.promote_types(torch.bfloat16, torch.float16) is torch.float32
        assert torch.finfo(torch.bfloat16).eps == {torch.finfo(torch.bfloat16).eps!r}
        for make in (lambda: torch.zeros(2, dtype=torch.bfloat16),
                     lambda: torch.tensor([1.0], dtype=torch.bfloat16),
                     lambda: torch.ones(2).to(torch.bfloat16),
                     lambda: torch.ones(2).bfloat16(),
                     lambda: torch.randn(2, dtype=torch.bfloat16)):
            try:
                make()
            except RuntimeError as e:
                assert "ml_dtypes" in str(e) and "numtorch[bfloat16]" in str(e), e
            else:
                raise AssertionError("a bfloat16 tensor was made without ml_dtypes")
        x = torch.nn.Linear(3, 2)(torch.ones(4, 3)).sum()
        x.backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            w = torch.load({str(path)!r})["w"]
        assert w.dtype is torch.float32
        assert any("ml_dtypes" in str(c.message) for c in caught)
        print(w.tolist())
    """)
    assert json.loads(out) == _th_bf16(_VALUES).float().tolist()


# -- autograd -----------------------------------------------------------------------------------
# ml_dtypes' bfloat16 is NumPy kind "V": the engine counts it as floating ("fcV").
_G = _RNG.standard_normal((8, 5)).astype(np.float32)
GRAD_CASES = {
    "mul_sum": lambda t, x, w, p: (x * p).sum(),
    "matmul": lambda t, x, w, p: ((x @ w) * t.from_numpy(_G).to(x.dtype)).sum(),
    "tanh": lambda t, x, w, p: (x.tanh() * p).sum(),
    "exp_mean": lambda t, x, w, p: x.exp().mean(),
    "linear": lambda t, x, w, p: t.nn.functional.linear(x, w.t()).pow(2).sum(),
    "softmax": lambda t, x, w, p: (x.softmax(1) * p).sum(),
    "mse_loss": lambda t, x, w, p: t.nn.functional.mse_loss(x, p),
    "cross_entropy": lambda t, x, w, p: t.nn.functional.cross_entropy(x, t.arange(8) % 6),
    "relu_div": lambda t, x, w, p: (x.relu() / p).sum(),
    "var": lambda t, x, w, p: x.var(1).sum(),
}


@needs_bf16
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_are_bfloat16_and_match_torch(name):
    arrays = (_X[:8, :6], _Y[:6, :5], _P[:8, :6])
    grads = []
    for t in (numtorch, torch):
        ins = [t.from_numpy(np.ascontiguousarray(a)).to(t.bfloat16).requires_grad_()
               for a in arrays]
        out = GRAD_CASES[name](t, *ins)
        out.backward()
        grads.append([out] + [i.grad for i in ins])
    for a, b in zip(*grads):
        assert (a is None) == (b is None)
        if b is not None:
            assert a.dtype is numtorch.bfloat16
            _close_to_torch(a.detach(), b.detach())


@needs_bf16
def test_tensor_creation_with_requires_grad():
    x = numtorch.tensor([1.0, 2.0], dtype=numtorch.bfloat16, requires_grad=True)
    (x * x).sum().backward()
    _same_bf16(x.grad, torch.tensor([2.0, 4.0], dtype=torch.bfloat16))
