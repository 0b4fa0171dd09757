"""Convolutions against torch: F.conv1d/2d/3d, F.conv_transpose1d/2d/3d, F.unfold/F.fold
(values, input and weight gradients, second order), the Conv/ConvTranspose/Lazy/Fold/Unfold
modules (state dicts, default init, reprs, padding modes, ``output_size``) and torch's errors."""

import math
import warnings

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import conv as conv_ops
from tests.oracle import check_module, check_op, check_raises

DTYPES = ["float64", "float32"]
BIAS_DTYPES = [(True, "float64"), (False, "float64"), (True, "float32")]


@pytest.fixture
def small_blocks(monkeypatch):
    """Make the im2col blocks tiny, so that batches split into several blocks (and a tail)."""
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(conv_ops, "_MIN_BLOCK_COLUMNS", 1)
    monkeypatch.setattr(conv_ops, "_THREADED", False)


# ---------------------------------------------------------------------------------------------
# functional convolutions

CONV_CASES = [
    # (nd, input shape, weight shape, kwargs)
    (1, (2, 4, 9), (6, 4, 3), {}),
    (1, (2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
    (1, (4, 9), (6, 4, 3), dict(padding="same")),
    (1, (2, 4, 9), (3, 4, 4), dict(padding="same", dilation=3)),
    (1, (2, 4, 9), (3, 4, 4), dict(padding="valid", stride=3)),
    (2, (2, 3, 7, 6), (4, 3, 3, 3), {}),
    (2, (2, 4, 7, 8), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                         groups=2)),
    (2, (2, 4, 6, 5), (4, 1, 3, 3), dict(padding=1, groups=4)),  # depthwise
    (2, (2, 3, 6, 5), (5, 3, 1, 1), dict(stride=2)),  # 1x1
    (2, (3, 6, 5), (4, 3, 2, 2), dict(padding="same")),  # unbatched, even kernel
    (2, (1, 3, 5, 5), (2, 3, 5, 5), {}),  # kernel as large as the input
    (2, (2, 3, 8, 8), (4, 3, 3, 3), dict(stride=3, padding=[2, 0])),
    (3, (2, 2, 4, 5, 3), (3, 2, 2, 3, 2), dict(padding="same")),
    (3, (1, 4, 5, 4, 6), (2, 2, 3, 2, 3), dict(stride=(1, 2, 2), padding=1, groups=2)),
    (3, (2, 3, 4, 4), (2, 2, 2, 2, 2), dict(dilation=2)),  # unbatched
]


def _conv(t, nd):
    return getattr(t.nn.functional, f"conv{nd}d")


@pytest.mark.parametrize("bias,dtype", BIAS_DTYPES)
@pytest.mark.parametrize("nd,sx,sw,kw", CONV_CASES)
def test_conv_matches_torch(nd, sx, sw, kw, bias, dtype):
    shapes = [sx, sw] + ([(sw[0],)] if bias else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 'same' with even kernels warns in both libraries
        check_op(lambda t, x, w, *b: _conv(t, nd)(x, w, *b, **kw), shapes, dtype=dtype,
                 second_order=dtype == "float64")


TRANSPOSE_CASES = [
    (1, (2, 4, 5), (4, 3, 3), {}),
    (1, (2, 4, 5), (4, 3, 3), dict(stride=3, padding=1, output_padding=2)),
    (1, (4, 5), (4, 2, 2), dict(groups=2, dilation=2)),
    (2, (2, 4, 4, 5), (4, 3, 3, 2), dict(stride=(2, 3), padding=(1, 2), output_padding=(1, 0),
                                         dilation=(1, 2), groups=2)),
    (2, (2, 3, 3, 3), (3, 2, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    (2, (3, 4, 4), (3, 2, 1, 1), dict(stride=2)),
    (2, (1, 2, 4, 4), (2, 2, 3, 3), dict(padding=2)),
    (2, (2, 2, 3, 4), (2, 3, 2, 3), dict(dilation=2, output_padding=(1, 0))),
    (3, (2, 2, 3, 2, 3), (2, 3, 2, 2, 2), dict(stride=2, output_padding=1)),
    (3, (1, 4, 2, 3, 2), (4, 1, 3, 2, 2), dict(padding=(1, 0, 1), groups=4, dilation=(2, 1, 1))),
]


@pytest.mark.parametrize("bias,dtype", BIAS_DTYPES)
@pytest.mark.parametrize("nd,sx,sw,kw", TRANSPOSE_CASES)
def test_conv_transpose_matches_torch(nd, sx, sw, kw, bias, dtype):
    groups = kw.get("groups", 1)
    shapes = [sx, sw] + ([(sw[1] * groups,)] if bias else [])
    fn = f"conv_transpose{nd}d"
    check_op(lambda t, x, w, *b: getattr(t.nn.functional, fn)(x, w, *b, **kw), shapes,
             dtype=dtype, second_order=dtype == "float64")


@pytest.mark.parametrize("case", [0, 1, 6, 7, 13])
def test_conv_in_several_blocks_matches_torch(small_blocks, case):
    nd, sx, sw, kw = CONV_CASES[case]
    sx = (5,) + sx[1:] if len(sx) == nd + 2 else sx
    check_op(lambda t, x, w, b: _conv(t, nd)(x, w, b, **kw), [sx, sw, (sw[0],)])


@pytest.mark.parametrize("block", [1, 3000])
def test_conv_transpose_in_several_blocks_matches_torch(monkeypatch, block):
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", block)  # 1 sample, then 2 plus a tail
    monkeypatch.setattr(conv_ops, "_MIN_BLOCK_COLUMNS", 1)
    monkeypatch.setattr(conv_ops, "_THREADED", False)
    check_op(lambda t, x, w: t.nn.functional.conv_transpose2d(x, w, stride=2, padding=1,
                                                              groups=2),
             [(5, 4, 4, 3), (4, 3, 3, 3)])


@pytest.mark.parametrize("threaded", [False, True])
def test_conv_block_size_follows_blas_threads(monkeypatch, threaded):
    monkeypatch.setattr(conv_ops, "_THREADED", threaded)
    per_sample = conv_ops._BLOCK_BYTES // 8
    step = conv_ops._chunk(64, per_sample, 1024)
    assert step == (64 if threaded else 8)  # one large GEMM, or cache-sized blocks
    assert conv_ops._chunk(64, 10 * conv_ops._MAX_BLOCK_BYTES, 1024) == 1
    # small feature maps: enough samples per block for a GEMM that is not skinny
    assert conv_ops._chunk(64, 10 * conv_ops._MAX_BLOCK_BYTES, 16) == 32


def test_conv_non_contiguous_inputs_match_torch():
    check_op(lambda t, x, w: t.nn.functional.conv2d(x, w, padding=1), [(3, 4, 5, 6), (2, 4, 3, 3)],
             non_contiguous=True)
    check_op(lambda t, x, w: t.nn.functional.conv_transpose2d(x, w[:, :2], stride=2),
             [(3, 4, 5, 6), (4, 3, 3, 3)], non_contiguous=True)


def test_conv_empty_batch_matches_torch():
    check_op(lambda t, x, w: t.nn.functional.conv2d(x, w), [(0, 3, 5, 5), (4, 3, 3, 3)])
    check_op(lambda t, x, w: t.nn.functional.conv_transpose2d(x, w), [(0, 3, 5, 5),
                                                                      (3, 2, 3, 3)])


def test_conv_float32_stays_float32():
    x = numtorch.randn(2, 3, 6, 6, requires_grad=True)
    w = numtorch.randn(4, 3, 3, 3, requires_grad=True)
    y = numtorch.nn.functional.conv2d(x, w, padding=1)
    assert y.dtype is numtorch.float32 and y.is_contiguous()
    gx, gw = numtorch.autograd.grad(y.sum(), [x, w])
    assert gx.dtype is numtorch.float32 and gw.dtype is numtorch.float32


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_conv_integer_inputs_match_torch(dtype):
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 4, (2, 3, 5, 5)).astype(dtype)
    w = rng.integers(-3, 4, (4, 3, 2, 2)).astype(dtype)
    check_op(lambda t, a, b: t.nn.functional.conv2d(a, b, stride=2, padding=1), [x, w],
             grad=False)


def test_conv_output_is_contiguous_like_torch():
    x = numtorch.randn(3, 2, 5, 5)
    for y in (numtorch.nn.functional.conv2d(x, numtorch.randn(4, 2, 3, 3), padding=1),
              numtorch.nn.functional.conv_transpose2d(x, numtorch.randn(2, 4, 3, 3), padding=1)):
        assert y.is_contiguous()
        y.view(3, -1)  # flattening a conv output in place is the classic pattern


# ---------------------------------------------------------------------------------------------
# unfold / fold

UNFOLD_CASES = [
    ((2, 3, 5, 6), dict(kernel_size=2)),
    ((2, 3, 5, 6), dict(kernel_size=(2, 3), dilation=(2, 1), padding=1, stride=(2, 1))),
    ((3, 4, 4), dict(kernel_size=3, padding=1)),
    ((0, 3, 4, 4), dict(kernel_size=2)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", UNFOLD_CASES)
def test_unfold_matches_torch(shape, kw, dtype):
    check_op(lambda t, x: t.nn.functional.unfold(x, **kw), [shape], dtype=dtype)


FOLD_CASES = [
    ((2, 12, 20), dict(output_size=(5, 6), kernel_size=2)),
    ((2, 18, 18), dict(output_size=(5, 6), kernel_size=(2, 3), dilation=(2, 1), padding=1,
                       stride=(2, 1))),
    ((12, 16), dict(output_size=5, kernel_size=2)),
    ((1, 8, 4), dict(output_size=(4, 4), kernel_size=2, stride=2)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", FOLD_CASES)
def test_fold_matches_torch(shape, kw, dtype):
    check_op(lambda t, x: t.nn.functional.fold(x, **kw), [shape], dtype=dtype)


@pytest.mark.parametrize("make,shape", [
    (lambda t: t.nn.Unfold((2, 3), dilation=2, padding=1, stride=(2, 1)), (2, 3, 6, 7)),
    (lambda t: t.nn.Fold((4, 5), 2, stride=1), (2, 12, 12)),
])
def test_fold_modules_match_torch(make, shape):
    check_module(make, [shape])
    assert repr(make(numtorch)) == repr(make(torch))


# ---------------------------------------------------------------------------------------------
# modules

MODULES = [
    lambda t: t.nn.Conv1d(4, 6, 3),
    lambda t: t.nn.Conv1d(4, 6, 3, stride=2, padding=2, padding_mode="circular", bias=False),
    lambda t: t.nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                          groups=2),
    lambda t: t.nn.Conv2d(4, 4, 3, padding=1, padding_mode="reflect", groups=4),
    lambda t: t.nn.Conv2d(4, 2, 4, padding="same", padding_mode="replicate"),
    lambda t: t.nn.Conv2d(4, 2, 3, padding="same", padding_mode="circular", dilation=2),
    lambda t: t.nn.Conv3d(4, 2, 2, padding="same"),
    lambda t: t.nn.Conv3d(4, 2, (1, 2, 3), stride=2, padding=(0, 1, 1), padding_mode="reflect"),
    lambda t: t.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1),
    lambda t: t.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2, bias=False),
    lambda t: t.nn.ConvTranspose2d(4, 2, (2, 3), stride=(1, 2), dilation=(2, 1)),
    lambda t: t.nn.ConvTranspose3d(4, 2, 2, stride=2),
]


def _input_for(m):
    nd = len(m.kernel_size)
    return (2, m.in_channels) + (7, 6, 5)[:nd]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make", MODULES)
def test_conv_modules_match_torch(make, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_module(make, [_input_for(make(torch))], dtype=dtype)
        assert repr(make(numtorch)) == repr(make(torch))


@pytest.mark.parametrize("make", [MODULES[0], MODULES[3], MODULES[9]])
def test_conv_modules_accept_unbatched_input(make):
    check_module(make, [_input_for(make(torch))[1:]])


@pytest.mark.parametrize("output_size", [(8, 10), (2, 6, 7, 9), [7, 10]])
def test_conv_transpose_output_size_matches_torch(output_size):
    check_module(lambda t: t.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1), [(2, 4, 4, 5)],
                 forward=lambda m, x: m(x, output_size=output_size))


def test_conv_transpose_output_size_errors_match_torch():
    for size in [(13, 12), (10, 12), (12,)]:
        def fn(t, x, size=size):
            return t.nn.ConvTranspose2d(4, 6, 3, stride=2)(x, output_size=size)

        nt, th = check_raises(fn, [np.zeros((2, 4, 5, 5), np.float32)])
        assert str(nt) == str(th)


@pytest.mark.parametrize("make", MODULES)
def test_conv_state_dict_and_parameter_shapes_match_torch(make):
    a, b = make(numtorch), make(torch)
    assert list(a.state_dict()) == list(b.state_dict())
    for (na, pa), (nb, pb) in zip(a.named_parameters(), b.named_parameters()):
        assert na == nb and tuple(pa.shape) == tuple(pb.shape) and pa.dtype is numtorch.float32
    assert a._reversed_padding_repeated_twice == b._reversed_padding_repeated_twice or \
        list(a._reversed_padding_repeated_twice) == list(b._reversed_padding_repeated_twice)


@pytest.mark.parametrize("cls,args", [("Conv2d", (16, 32, 3)), ("Conv1d", (8, 4, 5)),
                                      ("ConvTranspose2d", (16, 8, 3)),
                                      ("Conv3d", (6, 4, 2, 1, 0, 1, 2))])
def test_conv_default_init_follows_torch_bounds(cls, args):
    m = getattr(numtorch.nn, cls)(*args)
    ref = getattr(torch.nn, cls)(*args)
    fan_in = torch.nn.init._calculate_fan_in_and_fan_out(ref.weight)[0]
    bound = 1 / math.sqrt(fan_in)
    w = m.weight.detach().numpy()
    b = m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # uniform on [-bound, bound]: the spread reaches far out and the mean stays near 0
    assert np.abs(w).max() > 0.8 * bound and abs(w.mean()) < 0.2 * bound


def test_conv_module_dtype_and_no_bias():
    m = numtorch.nn.Conv2d(2, 3, 3, bias=False, dtype=numtorch.float64)
    assert m.bias is None and m.weight.dtype is numtorch.float64
    assert list(m.state_dict()) == ["weight"]


@pytest.mark.parametrize("lazy,x,eager", [
    ("LazyConv2d", (2, 3, 8, 8), lambda t: t.nn.Conv2d(3, 4, 3)),
    ("LazyConv1d", (3, 8), lambda t: t.nn.Conv1d(3, 4, 3)),
    ("LazyConvTranspose2d", (2, 6, 5, 5), lambda t: t.nn.ConvTranspose2d(6, 4, 3, groups=2)),
    ("LazyConv3d", (1, 2, 4, 4, 4), lambda t: t.nn.Conv3d(2, 4, 3)),
])
def test_lazy_conv_materialises_like_torch(lazy, x, eager):
    kw = {"groups": 2} if "Transpose" in lazy else {}
    a = getattr(numtorch.nn, lazy)(4, 3, **kw)
    b = getattr(torch.nn, lazy)(4, 3, **kw)
    assert repr(a) == repr(b)
    ya = a(numtorch.zeros(*x))
    yb = b(torch.zeros(*x))
    assert type(a) is type(eager(numtorch)) and repr(a) == repr(b)
    assert tuple(ya.shape) == tuple(yb.shape)
    assert tuple(a.weight.shape) == tuple(b.weight.shape)


def test_lazy_conv_rejects_bad_rank_like_torch():
    nt, th = check_raises(lambda t, x: t.nn.LazyConv2d(4, 3)(x), [np.zeros((8, 8), np.float32)])
    assert str(nt) == str(th)


# ---------------------------------------------------------------------------------------------
# errors

def _z(*shape, dtype=np.float32):
    return np.zeros(shape, dtype)


CONV_ERRORS = [
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(8, 2, 32, 32), _z(4, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(2, 32, 32), _z(4, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(3, 32), _z(4, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(1, 2, 3, 3, 3), _z(4, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(1, 3, 2, 2), _z(4, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, dilation=3), [_z(1, 3, 5, 5), _z(4, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv1d(x, w), [_z(1, 3, 2), _z(4, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv3d(x, w), [_z(1, 3, 2, 5, 5), _z(4, 3, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, groups=2), [_z(1, 6, 5, 5), _z(3, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, groups=0), [_z(1, 6, 5, 5), _z(4, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, stride=0), [_z(1, 6, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, padding=-1),
     [_z(1, 6, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, dilation=0), [_z(1, 6, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, padding="same", stride=2),
     [_z(1, 6, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, padding="foo"),
     [_z(1, 6, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, padding=(1, 1, 1)),
     [_z(1, 6, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, stride=(1, 1, 1)),
     [_z(1, 6, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w, b: t.nn.functional.conv2d(x, w, b),
     [_z(1, 6, 5, 5), _z(4, 6, 3, 3), _z(3)]),
    (lambda t, x, w, b: t.nn.functional.conv2d(x, w, b),
     [_z(1, 6, 5, 5), _z(4, 6, 3, 3), _z(4, 1)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(1, 6, 5, 5, dtype=np.float64),
                                                   _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(1, 6, 5, 5),
                                                   _z(4, 6, 3, 3, dtype=np.int64)]),
    (lambda t, x, w, b: t.nn.functional.conv2d(x, w, b),
     [_z(1, 6, 5, 5), _z(4, 6, 3, 3), _z(4, dtype=np.float64)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(1, 6, 5, 5), _z(4, 6, 3)]),
    (lambda t, x, w: t.nn.functional.conv1d(x, w), [_z(1, 6, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(1, 6, 5, 5), _z(4, 6)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(2, 6, 5, 5), _z(0, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(1, 4, 8, 8), _z(4, 4, 0, 3)]),
    (lambda t, x, w: t.nn.functional.conv1d(x, w), [_z(1, 4, 8), _z(4, 4, 0)]),
    (lambda t, x, w: t.nn.functional.conv3d(x, w), [_z(1, 4, 8, 8, 8), _z(4, 4, 0, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv_transpose2d(x, w), [_z(1, 4, 8, 8), _z(4, 4, 0, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(1, 4, 8, 8), _z(4, 4, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(2, 6, 0, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [_z(1, 3, 6, 6, dtype=np.bool_),
                                                   _z(4, 3, 3, 3, dtype=np.bool_)]),
    (lambda t, x, w: t.nn.functional.conv_transpose2d(x, w), [_z(2, 6, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv_transpose2d(x, w), [_z(2, 0, 5, 5), _z(0, 4, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv_transpose2d(x, w, output_padding=1),
     [_z(2, 4, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv_transpose2d(x, w, stride=2, output_padding=2),
     [_z(2, 4, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv_transpose2d(x, w, output_padding=(0, -1)),
     [_z(2, 4, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv_transpose2d(x, w, groups=3),
     [_z(2, 4, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w, b: t.nn.functional.conv_transpose2d(x, w, b, groups=2),
     [_z(1, 4, 6, 6), _z(4, 4, 4, 4), _z(4)]),
    (lambda t, x, w: t.nn.functional.conv_transpose2d(x, w, padding="same"),
     [_z(2, 4, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv_transpose1d(x, w), [_z(1, 3, 6, 6), _z(3, 4, 4)]),
    (lambda t, x, w: t.nn.functional.conv_transpose2d(x, w, padding=4),
     [_z(2, 4, 5, 5), _z(4, 6, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, stride=1.5), [_z(1, 3, 6, 6), _z(4, 3, 3, 3)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, groups=1.0), [_z(1, 3, 6, 6), _z(4, 3, 3, 3)]),
    (lambda t, w: t.nn.functional.conv2d([1.0], w), [_z(4, 3, 3, 3)]),
]


@pytest.mark.parametrize("fn,arrays", CONV_ERRORS)
def test_conv_errors_match_torch(fn, arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nt, th = check_raises(fn, arrays)
    # torch's wording for these depends on which of its kernels the sizes select
    if isinstance(th, RuntimeError) and not any(
            k in str(th) for k in ("memory descriptor", "MKLDNN", "found Long")):
        assert str(nt) == str(th)


MODULE_ERRORS = [
    lambda t: t.nn.Conv2d(4, 6, 3, groups=4),
    lambda t: t.nn.Conv2d(4, 6, 3, groups=3),
    lambda t: t.nn.Conv2d(4, 6, 3, groups=0),
    lambda t: t.nn.Conv2d(4, 6, 3, padding="same", stride=2),
    lambda t: t.nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"),
    lambda t: t.nn.Conv2d(4, 6, 3, padding=2, padding_mode="reflect")(t.zeros(1, 4, 2, 2)),
    lambda t: t.nn.Conv2d(4, 6, 3, padding=2, padding_mode="circular")(t.zeros(4, 1, 5)),
]


@pytest.mark.parametrize("fn", MODULE_ERRORS)
def test_conv_module_errors_match_torch(fn):
    nt, th = check_raises(fn)
    assert str(nt) == str(th)


@pytest.mark.parametrize("fn,prefix", [
    # torch prints a Python set here, whose order changes from run to run
    (lambda t: t.nn.Conv2d(4, 6, 3, padding="foo"), "Invalid padding string 'foo', should be "),
    (lambda t: t.nn.Conv2d(4, 6, 3, padding_mode="foo"), "padding_mode must be one of {"),
])
def test_conv_module_string_errors_match_torch(fn, prefix):
    nt, th = check_raises(fn, match=prefix)
    assert str(th).startswith(prefix)


FOLD_ERRORS = [
    (lambda t, x: t.nn.functional.unfold(x, 2), _z(5, 6)),
    (lambda t, x: t.nn.functional.unfold(x, 2), _z(1, 2, 3, 5, 6)),
    (lambda t, x: t.nn.functional.unfold(x, 7), _z(2, 3, 5, 6)),
    (lambda t, x: t.nn.functional.unfold(x, 0), _z(2, 3, 5, 6)),
    (lambda t, x: t.nn.functional.unfold(x, 2, stride=0), _z(2, 3, 5, 6)),
    (lambda t, x: t.nn.functional.unfold(x, 2, dilation=0), _z(2, 3, 5, 6)),
    (lambda t, x: t.nn.functional.unfold(x, 2, padding=-1), _z(2, 3, 5, 6)),
    (lambda t, x: t.nn.functional.unfold(x, (2, 2, 2)), _z(2, 3, 5, 6)),
    (lambda t, x: t.nn.functional.unfold(x, 2), _z(2, 0, 5, 6)),
    (lambda t, x: t.nn.functional.unfold(x, 2), _z(2, 3, 5, 6, dtype=np.int64)),
    (lambda t, x: t.nn.functional.fold(x, (5, 6), 2), _z(2, 12, 20, 1)),
    (lambda t, x: t.nn.functional.fold(x, (5, 6), 2), _z(2, 12, 19)),
    (lambda t, x: t.nn.functional.fold(x, (5, 6), 2), _z(2, 13, 20)),
    (lambda t, x: t.nn.functional.fold(x, (5, 6, 1), 2), _z(2, 12, 20)),
    (lambda t, x: t.nn.functional.fold(x, 5, 2), _z(2, 12, 20)),
    (lambda t, x: t.nn.functional.fold(x, (5, 6), 2, stride=0), _z(2, 12, 20)),
    (lambda t, x: t.nn.functional.fold(x, (1, 1), 2), _z(2, 12, 20)),
    (lambda t, x: t.nn.functional.fold(x, (1, 1), 2), _z(2, 12, 0)),
    (lambda t, x: t.nn.functional.fold(x, (5, 6), 2), _z(2, 12, 20, dtype=np.int64)),
]


@pytest.mark.parametrize("fn,x", FOLD_ERRORS)
def test_fold_errors_match_torch(fn, x):
    nt, th = check_raises(fn, [x])
    assert str(nt) == str(th)
