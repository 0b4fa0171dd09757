"""float16/bfloat16 results on the CUDA path have the CPU path's (torch's) dtypes.

CuPy computes a ufunc without a loop for the inputs' type in the first type its loops offer
and returns that type (tests/cuda/standin/_types.py): ``where``/``clip``/``round``/``sign`` of
bfloat16 come back float32 on a GPU, ``cupyx.scipy.special`` functions of float16 float64.
nanoGPT's attention under bfloat16 autocast then failed in a matmul (``expected scalar type
Float but found BFloat16``). Every row of the op tables, and the functional ops a half-precision
model runs, is compared here: the result's and the gradients' dtypes on the stand-in against the
CPU path's, and values within half-precision tolerance.
"""

import contextlib
import traceback

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F
from tests.cuda import standin
from tests.ops.op_table import ELEMENTWISE, SPECIAL, make_args

HALF = ("bfloat16", "float16")


def _run(fn, arrays, dtype, device):
    """``fn`` on tensors made from ``arrays`` in ``dtype`` on ``device``: the outputs' dtypes
    and float64 values, and the gradients' dtypes of a float sum of the floating outputs."""
    xs = [numtorch.from_numpy(a).to(getattr(numtorch, dtype)).to(device).requires_grad_()
          for a in arrays]
    try:
        out = fn(*xs)
    except Exception as e:  # noqa: BLE001 - the two paths must raise alike
        return ("raises", type(e).__name__), None, None
    outs = out if isinstance(out, (tuple, list)) else (out,)
    outs = [o for o in outs if isinstance(o, numtorch.Tensor)]
    dtypes = tuple(str(o.dtype) for o in outs)
    values = [o.detach().to("cpu").double().numpy() if o.dtype.is_floating_point or
              o.dtype == numtorch.bool else None for o in outs]
    floats = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
    grads = None
    if floats:
        try:
            sum(o.float().sum() for o in floats).backward()
        except RuntimeError as e:  # no derivative (floor_divide...): the same on both paths
            return dtypes, ("raises", str(e)), values
        grads = tuple(None if x.grad is None else str(x.grad.dtype) for x in xs)
    return dtypes, grads, values


def _cuda():
    """numtorch's "cuda": a real GPU where CuPy has one, else the stand-in."""
    from numtorch.backend import cupy_or_none

    return contextlib.nullcontext() if cupy_or_none() is not None else standin.active()


def _compare(fn, arrays, dtype, rtol=2e-2):
    cpu = _run(fn, arrays, dtype, "cpu")
    with _cuda():
        numtorch.set_default_device("cuda")  # (factories inside ``fn``, as the suite's fixture)
        try:
            dev = _run(fn, arrays, dtype, "cuda")
        finally:
            numtorch.set_default_device("cpu")
    assert dev[0] == cpu[0], f"result dtypes on cuda {dev[0]}, on the CPU {cpu[0]}"
    assert dev[1] == cpu[1], f"gradient dtypes on cuda {dev[1]}, on the CPU {cpu[1]}"
    if cpu[2] is not None:
        for a, b in zip(dev[2], cpu[2]):
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True)


_ROWS = [e for e in ELEMENTWISE + SPECIAL]


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("entry", _ROWS, ids=[e.name for e in _ROWS])
def test_op_table_rows_keep_the_cpu_dtypes_on_cuda(entry, dtype):
    shapes = ((3, 4),) * entry.arity if entry.shapes is None else entry.shapes[-1]
    if entry.shapes is not None:
        shapes = next((s for s in entry.shapes if all(len(x) for x in s)), entry.shapes[0])
    arrays = make_args(entry.domains(), shapes, "float32")
    _compare(lambda *xs: entry.fn(numtorch, *xs), arrays, dtype, rtol=0.1)


def _causal(x):
    mask = numtorch.ones(x.shape[-2], x.shape[-1], dtype=numtorch.bool, device=x.device)
    return x.masked_fill(mask.triu(1), float("-inf")).softmax(-1)


_FUNCTIONAL = {
    "masked_fill_inf": _causal,
    "masked_fill_scalar": lambda x: x.masked_fill(x > 0, 0.5),
    "where_scalar": lambda x: numtorch.where(x > 0, x, 0.0),
    "where_tensors": lambda x: numtorch.where(x > 0, x, x * 2),
    "clamp": lambda x: x.clamp(-0.5, 0.5),
    "clamp_min": lambda x: x.clamp(min=0.0),
    "clamp_max": lambda x: x.clamp(max=0.25),
    "clamp_tensors": lambda x: numtorch.clamp(x, x * 0 - 0.5, x * 0 + 0.5),
    "clamp_inplace": lambda x: (x * 1).clamp_(min=-0.25),
    "round": lambda x: x.round(),
    "round_decimals": lambda x: x.round(decimals=1),
    "sign": lambda x: x.sign(),
    "sgn": lambda x: x.sgn(),
    "xlogy": lambda x: numtorch.xlogy(x, x.abs() + 0.5),
    "normalize": lambda x: F.normalize(x),
    "cosine_similarity": lambda x: F.cosine_similarity(x, x.flip(0)),
    "pairwise_distance": lambda x: F.pairwise_distance(x, x.flip(0)),
    "hardtanh": F.hardtanh,
    "relu6": F.relu6,
    "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "softmax": lambda x: F.softmax(x, -1),
    "log_softmax": lambda x: F.log_softmax(x, -1),
    "layer_norm": lambda x: F.layer_norm(x, (x.shape[-1],)),
    "rms_norm": lambda x: F.rms_norm(x, (x.shape[-1],)),
    "dropout": lambda x: F.dropout(x, 0.0),
    "sdpa_causal": lambda x: F.scaled_dot_product_attention(x[None], x[None], x[None],
                                                             is_causal=True),
    "sdpa_mask": lambda x: F.scaled_dot_product_attention(
        x[None], x[None], x[None], attn_mask=numtorch.ones(4, 4, dtype=numtorch.bool,
                                                           device=x.device).tril()),
    "smooth_l1": lambda x: F.smooth_l1_loss(x, x.flip(0)),
    "huber": lambda x: F.huber_loss(x, x.flip(0)),
    "l1": lambda x: F.l1_loss(x, x.flip(0)),
    "mse": lambda x: F.mse_loss(x, x.flip(0)),
    "bce_logits": lambda x: F.binary_cross_entropy_with_logits(x, (x > 0).to(x.dtype)),
    "softplus": F.softplus,
    "elu": F.elu,
    "celu": F.celu,
    "selu": F.selu,
    "leaky_relu": F.leaky_relu,
    "threshold": lambda x: F.threshold(x, 0.1, 2.0),
    "softshrink": F.softshrink,
    "hardshrink": F.hardshrink,
    "tanhshrink": F.tanhshrink,
    "mish": F.mish,
    "silu": F.silu,
    "logsigmoid": F.logsigmoid,
    "nan_to_num": lambda x: numtorch.nan_to_num(x / (x * 0)),
    "heaviside": lambda x: numtorch.heaviside(x, x * 0 + 0.5),
    "lerp": lambda x: numtorch.lerp(x, x.flip(0), 0.25),
    "addcdiv": lambda x: numtorch.addcdiv(x, x, x.abs() + 1, value=0.5),
    "fmod": lambda x: numtorch.fmod(x, 0.3),
    "remainder": lambda x: numtorch.remainder(x, 0.3),
    "logit_eps": lambda x: numtorch.logit(x.sigmoid(), eps=1e-3),
    "clip_grad_value": lambda x: x * 1,
    "cumsum": lambda x: x.cumsum(-1),
    "cummax": lambda x: x.cummax(-1).values,
    "logcumsumexp": lambda x: x.logcumsumexp(-1),
    "var": lambda x: x.var(-1),
    "norm": lambda x: x.norm(dim=-1),
    "renorm": lambda x: x.renorm(2, 0, 1.0),
    "topk": lambda x: x.topk(2, -1).values,
    "sort": lambda x: x.sort(-1).values,
    "amax": lambda x: x.amax(-1),
    "max_pool": lambda x: F.max_pool1d(x[None], 2),
    "avg_pool": lambda x: F.avg_pool1d(x[None], 2),
    "interpolate": lambda x: F.interpolate(x[None], scale_factor=2.0, mode="linear"),
    "pad_reflect": lambda x: F.pad(x[None], (1, 1), mode="reflect"),
    "embedding_renorm": lambda x: F.embedding(numtorch.tensor([0, 2], device=x.device), x,
                                              max_norm=1.0),
    "cross_entropy": lambda x: F.cross_entropy(x, numtorch.tensor([0, 1, 2, 3],
                                                                  device=x.device)),
    "cross_entropy_smooth": lambda x: F.cross_entropy(
        x, numtorch.tensor([0, 1, 2, 3], device=x.device), label_smoothing=0.1),
    "masked_fill_inplace": lambda x: (x * 1).masked_fill_(x > 0, -1.5),
    "index_fill": lambda x: x.index_fill(0, numtorch.tensor([1, 3], device=x.device), -2.5),
    "scatter_value": lambda x: x.scatter(1, numtorch.tensor([[0], [1], [2], [3]],
                                                            device=x.device), 0.75),
    "fill_": lambda x: (x * 1).fill_(2.5),
    "full_like": lambda x: numtorch.full_like(x, 0.3) + x,
    "where_two_scalars": lambda x: numtorch.where(x > 0, 1.5, -0.5).to(x.dtype) * x,
    "nan_to_num_bounds": lambda x: numtorch.nan_to_num(x / (x * 0), nan=0.5, posinf=2.0,
                                                       neginf=-2.0),
    "lerp_inplace": lambda x: (x * 1).lerp_(x.flip(0), 0.5),
    "addcmul_inplace": lambda x: (x * 1).addcmul_(x, x, value=0.25),
    "pow_scalar_base": lambda x: numtorch.pow(2.0, x),
    "rsub_scalar": lambda x: 1.5 - x,
    "isclose": lambda x: numtorch.isclose(x, x * 1.01),
    "tril_mask_softmax": lambda x: x.masked_fill(~numtorch.ones(4, 4, dtype=numtorch.bool,
                                                                device=x.device).tril(),
                                                 float("-inf")).softmax(-1),
    "clamp_inplace_both": lambda x: (x * 1).clamp_(-0.5, 0.5),
    "clip_grad_norm": lambda x: x * numtorch.nn.utils.clip_grad_norm_([x], 1.0).to(x.dtype),
    "nll": lambda x: F.nll_loss(x.log_softmax(-1), numtorch.tensor([0, 1, 2, 3],
                                                                   device=x.device)),
}


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("name", sorted(_FUNCTIONAL))
def test_functional_ops_keep_the_cpu_dtypes_on_cuda(name, dtype):
    x = np.random.default_rng(0).uniform(-2, 2, (4, 4)).astype(np.float32)
    _compare(_FUNCTIONAL[name], [x], dtype, rtol=0.1)


@pytest.mark.parametrize("dtype", HALF)
def test_autocast_attention_block_keeps_dtypes_on_cuda(dtype):
    """nanoGPT's attention under autocast: linear in half, causal scores, softmax, matmul."""

    def block(x, w):
        with numtorch.autocast("cuda" if x.is_cuda else "cpu", dtype=getattr(numtorch, dtype)):
            q = F.linear(x, w).view(1, 2, 4, 2).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, q, q, is_causal=True)
            return F.gelu(y.transpose(1, 2).reshape(2, 8) @ w.to(y.dtype)).float()

    rng = np.random.default_rng(1)
    x, w = (rng.standard_normal(s).astype(np.float32) for s in ((2, 8), (8, 8)))

    def run(device):
        xs = [numtorch.from_numpy(a).to(device).requires_grad_() for a in (x, w)]
        y = block(*xs)
        y.sum().backward()
        return str(y.dtype), [str(t.grad.dtype) for t in xs], y.detach().cpu().numpy()

    cpu = run("cpu")
    with _cuda():
        dev = run("cuda")
    assert dev[:2] == cpu[:2]
    np.testing.assert_allclose(dev[2], cpu[2], rtol=5e-2, atol=5e-2)


_EXACT_BF16 = {
    "masked_fill": lambda x: x.masked_fill(x > 0, float("-inf")),
    "where": lambda x: numtorch.where(x > 0, x, x.flip(0)),
    "sign": lambda x: x.sign(),
    "copysign": lambda x: numtorch.copysign(x, x.flip(0)),
    "logcumsumexp": lambda x: x.logcumsumexp(-1),
    "lerp": lambda x: numtorch.lerp(x, x.flip(0), x.abs()),
    "xlogy": lambda x: numtorch.xlogy(x, x.abs() + 0.5),
    "logit_eps": lambda x: numtorch.logit(x.sigmoid(), eps=1e-3),
    "heaviside": lambda x: numtorch.heaviside(x, x.flip(0)),
}


@pytest.mark.parametrize("name", sorted(_EXACT_BF16))
def test_bfloat16_selections_take_no_float32_detour(name, monkeypatch):
    """The forward and backward of these run no CuPy call that turns bfloat16 into float32
    (CuPy's where has no bfloat16 loop; a float32 intermediate saved for backward made a
    float32 gradient of copysign)."""
    from tests.cuda.standin import _types

    detours, resolve = [], _types.cast_inputs

    def spy(key, ins, dtype=None):
        got = resolve(key, ins, dtype)
        kinds = [getattr(v, "dtype", None) for v in ins]
        if dtype is None and got[1][0] == np.float32 and numtorch._dtype._BF16_NP in kinds and \
                not any(k in (np.float32, np.float64) for k in kinds):
            detours.append((key, kinds, [f"{f.filename}:{f.lineno}" for f in
                                         traceback.extract_stack()[-4:-1]]))
        return got

    monkeypatch.setattr(_types, "cast_inputs", spy)
    x = np.random.default_rng(2).uniform(-2, 2, (4, 4)).astype(np.float32)
    with standin.active():
        t = numtorch.from_numpy(x).to(numtorch.bfloat16).to("cuda").requires_grad_()
        y = _EXACT_BF16[name](t)
        assert y.dtype == numtorch.bfloat16
        if name != "heaviside":  # (torch defines no derivative)
            y.float().sum().backward()
            assert t.grad.dtype == numtorch.bfloat16
    assert not detours, detours
