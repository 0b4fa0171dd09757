"""Quantized kernels against torch's x86 CPU kernels across shapes, scales and zero points:
linear and convolution (static, dynamic, fused ReLU, per tensor and per channel weights)
bit for bit; elementwise ops, norms and pooling within one quantum; the exactness bound of the
float GEMM on integers."""

import warnings

import numpy as np
import pytest
import torch

import numtorch as nt
from numtorch.ao.nn.quantized.modules.linear import linear_prepack
from numtorch.ops import quantized_gemm as gemm
from numtorch.ops import quantized_nn as Q
from numtorch.ops import quantized_pointwise as P

warnings.filterwarnings("ignore", message=".*deprecated.*")
TQ = torch.ops.quantized


@pytest.fixture(autouse=True, scope="module")
def _x86_engine():
    old = torch.backends.quantized.engine
    torch.backends.quantized.engine = "x86"
    yield
    torch.backends.quantized.engine = old


def pair(x, scale, zp, dt="quint8"):
    return (nt.quantize_per_tensor(nt.tensor(x), scale, zp, getattr(nt, dt)),
            torch.quantize_per_tensor(torch.tensor(x), scale, zp, getattr(torch, dt)))


def weight_pair(w, rng, per_channel, axis=0):
    if per_channel:
        n = w.shape[axis]
        s = rng.uniform(0.002, 0.02, n)
        z = np.zeros(n, np.int64)
        return (nt.quantize_per_channel(nt.tensor(w), nt.tensor(s), nt.tensor(z), axis,
                                        nt.qint8),
                torch.quantize_per_channel(torch.tensor(w), torch.tensor(s), torch.tensor(z),
                                           axis, torch.qint8))
    return pair(w, float(rng.uniform(0.002, 0.02)), int(rng.integers(-3, 4)), "qint8")


def same_ints(a, b, tol=0):
    ai = a.int_repr().numpy().astype(np.int64)
    bi = b.int_repr().numpy().astype(np.int64)
    assert ai.shape == bi.shape
    assert np.abs(ai - bi).max(initial=0) <= tol
    assert a.q_scale() == b.q_scale() and a.q_zero_point() == b.q_zero_point()


@pytest.mark.parametrize("seed", range(6))
def test_linear_static_dynamic_bit_exact(seed):
    rng = np.random.default_rng(seed)
    m, k, n = int(rng.integers(1, 9)), int(rng.choice([3, 64, 700])), int(rng.integers(1, 33))
    x = (rng.standard_normal((m, k)) * rng.uniform(0.5, 4)).astype(np.float32)
    w = (rng.standard_normal((n, k)) * 0.3).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32) if seed % 3 else None
    xa, xb = pair(x, float(rng.uniform(0.01, 0.08)), int(rng.integers(0, 256)))
    for per_channel in (False, True):
        wa, wb = weight_pair(w, rng, per_channel)
        ba = None if b is None else nt.tensor(b)
        bb = None if b is None else torch.tensor(b)
        packed = TQ.linear_prepack(wb, bb)
        sy, zy = float(rng.uniform(0.05, 0.6)), int(rng.integers(0, 256))
        same_ints(Q.linear(xa, wa, ba, sy, zy), TQ.linear(xb, packed, sy, zy))
        same_ints(Q.linear(xa, wa, ba, sy, zy, relu=True),
                  TQ.linear_relu(xb, TQ.linear_prepack(wb, bb), sy, zy))
        for reduce_range in (False, True):
            ya = Q.linear_dynamic(nt.tensor(x), linear_prepack(wa, ba), reduce_range)
            yb = TQ.linear_dynamic(torch.tensor(x), packed, reduce_range)
            np.testing.assert_allclose(ya.numpy(), yb.numpy(), rtol=1e-6, atol=1e-5)


CONV_CASES = [  # nd, channels in/out, kernel, stride, padding, dilation, groups
    (1, 4, 6, 3, 1, 1, 1, 1), (1, 6, 4, 2, 2, 0, 1, 2), (2, 3, 8, 3, 1, 1, 1, 1),
    (2, 8, 8, 3, 2, 1, 2, 4), (2, 5, 7, 1, 1, 0, 1, 1), (2, 16, 4, 5, 1, 2, 1, 1),
    (3, 2, 3, 2, 1, 1, 1, 1),
]


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv_bit_exact(case):
    nd, cin, cout, k, stride, pad, dil, groups = CONV_CASES[case]
    rng = np.random.default_rng(100 + case)
    spatial = (9,) * nd if nd < 3 else (5, 6, 5)
    x = rng.standard_normal((2, cin) + spatial).astype(np.float32)
    w = (rng.standard_normal((cout, cin // groups) + (k,) * nd) * 0.3).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    xa, xb = pair(x, 0.03, int(rng.integers(0, 256)))
    prepack = getattr(TQ, f"conv{nd}d_prepack")
    run = getattr(TQ, f"conv{nd}d")
    for per_channel in (False, True):
        wa, wb = weight_pair(w, rng, per_channel)
        packed = prepack(wb, torch.tensor(b), [stride] * nd, [pad] * nd, [dil] * nd, groups)
        sy, zy = float(rng.uniform(0.05, 0.5)), int(rng.integers(0, 256))
        ya = Q.conv(nd, xa, wa, nt.tensor(b), (stride,) * nd, (pad,) * nd, (dil,) * nd,
                    groups, sy, zy)
        same_ints(ya, run(xb, packed, sy, zy))
        if nd == 2:  # a fresh pack: torch's x86 (oneDNN) kernels cache the first op's
            # primitive on the packed weight and would reuse it without the fused ReLU
            packed = prepack(wb, torch.tensor(b), [stride] * nd, [pad] * nd, [dil] * nd,
                             groups)
            ya = Q.conv(nd, xa, wa, nt.tensor(b), (stride,) * nd, (pad,) * nd, (dil,) * nd,
                        groups, sy, zy, relu=True)
            same_ints(ya, TQ.conv2d_relu(xb, packed, sy, zy))


def test_conv_transpose_within_one_quantum():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 4, 5, 6)).astype(np.float32)
    w = (rng.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    xa, xb = pair(x, 0.03, 70)
    wa, wb = weight_pair(w, rng, False)
    packed = TQ.conv_transpose2d_prepack(wb, torch.tensor(b), [2, 2], [1, 1], [1, 1], [1, 1], 1)
    ya = Q.conv(2, xa, wa, nt.tensor(b), (2, 2), (1, 1), (1, 1), 1, 0.1, 60, transposed=True,
                output_padding=(1, 1))
    same_ints(ya, TQ.conv_transpose2d(xb, packed, 0.1, 60), tol=1)


@pytest.mark.parametrize("dt", ["quint8", "qint8"])
def test_elementwise_and_norms_within_one_quantum(dt):
    rng = np.random.default_rng(3)
    z0 = 100 if dt == "quint8" else -3
    x = (rng.standard_normal((3, 6, 5, 5)) * 3).astype(np.float32)
    y = (rng.standard_normal((3, 6, 5, 5)) * 2).astype(np.float32)
    a1, b1 = pair(x, 0.05, z0, dt)
    a2, b2 = pair(y, 0.03, z0 + 20, dt)
    cases = [
        (P.add(a1, a2, 0.07, z0 + 5), TQ.add(b1, b2, 0.07, z0 + 5)),
        (P.add_relu(a1, a2, 0.07, z0), TQ.add_relu(b1, b2, 0.07, z0)),
        (P.mul(a1, a2, 0.2, z0), TQ.mul(b1, b2, 0.2, z0)),
        (P.cat([a1, a2], 0.06, z0, 1), TQ.cat([b1, b2], dim=1, scale=0.06, zero_point=z0)),
        (P.relu6(a1), TQ.relu6(b1)), (P.hardswish(a1, 0.04, z0), TQ.hardswish(b1, 0.04, z0)),
        (P.elu(a1, 0.04, z0), TQ.elu(b1, 0.04, z0)),
        (P.leaky_relu(a1, 0.1, False, 0.04, z0), TQ.leaky_relu(b1, 0.1, False, 0.04, z0)),
        (P.sigmoid(a1), torch.sigmoid(b1)), (P.tanh(a1), torch.tanh(b1)),
        (P.hardsigmoid(a1), torch.nn.functional.hardsigmoid(b1)),
        (P.layer_norm(a1, [5, 5], None, None, 1e-5, 0.05, z0),
         TQ.layer_norm(b1, [5, 5], None, None, 1e-5, 0.05, z0)),
    ]
    w, bias = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    mean, var = rng.standard_normal(6).astype(np.float32), rng.uniform(.5, 2, 6).astype(np.float32)
    cases += [
        (P.batch_norm(a1, nt.tensor(w), nt.tensor(bias), nt.tensor(mean), nt.tensor(var), 1e-5,
                      0.05, z0),
         TQ.batch_norm2d(b1, torch.tensor(w), torch.tensor(bias), torch.tensor(mean),
                         torch.tensor(var), 1e-5, 0.05, z0)),
        (P.group_norm(a1, 3, nt.tensor(w), nt.tensor(bias), 1e-5, 0.05, z0),
         TQ.group_norm(b1, 3, torch.tensor(w), torch.tensor(bias), 1e-5, 0.05, z0)),
        (P.instance_norm(a1, nt.tensor(w), nt.tensor(bias), 1e-5, 0.05, z0),
         TQ.instance_norm(b1, torch.tensor(w), torch.tensor(bias), 1e-5, 0.05, z0)),
    ]
    for c in (0.5, 13.0, -14.0, 30.0):
        cases.append((P.add_scalar(a1, c), TQ.add_scalar(b1, c)))
    for c in (0.5, -1.5, 0.0):
        cases.append((P.mul_scalar(a1, c), TQ.mul_scalar(b1, c)))
    for ours, theirs in cases:
        same_ints(ours, theirs, tol=1)


def test_float_pooling_and_views_on_quantized():
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((2, 3, 9, 8)) * 2).astype(np.float32)
    a, b = pair(x, 0.04, 90)
    F, G = nt.nn.functional, torch.nn.functional
    same_ints(F.max_pool2d(a, 3, 2, 1), G.max_pool2d(b, 3, 2, 1))
    same_ints(F.max_pool1d(a.flatten(2), 2), G.max_pool1d(b.flatten(2), 2))
    same_ints(F.adaptive_avg_pool2d(a, (2, 3)), G.adaptive_avg_pool2d(b, (2, 3)), tol=1)
    same_ints(F.avg_pool2d(a, 2), G.avg_pool2d(b, 2), tol=1)
    same_ints(nt.nn.MaxPool2d(2)(a), torch.nn.MaxPool2d(2)(b))
    same_ints(nt.ao.nn.quantized.functional.adaptive_avg_pool2d(a, 1),
              torch.ao.nn.quantized.functional.adaptive_avg_pool2d(b, 1), tol=1)
    same_ints(nt.ao.nn.quantized.functional.max_pool2d(a, 2),
              torch.ao.nn.quantized.functional.max_pool2d(b, 2))
    same_ints(F.relu(a).flatten(1), G.relu(b).flatten(1))


def test_exact_float_gemm_bound():
    assert gemm.exact_float_dtype(258, 255, 255) is np.float32  # 258 * 255**2 <= 2**24
    assert gemm.exact_float_dtype(259, 255, 255) is np.float64  # 259 * 255**2 > 2**24
    rng = np.random.default_rng(0)
    for k in (16, 1000, 5000):  # one float32 GEMM, float32 blocks, float64
        a = rng.integers(-255, 256, (7, k))
        b = rng.integers(-128, 128, (k, 5))
        want = a.astype(np.int64) @ b.astype(np.int64)
        np.testing.assert_array_equal(gemm.int_matmul(a, b), want)
        np.testing.assert_array_equal(gemm.IntWeight(b).matmul(a), want)
        a3 = a[:6].reshape(2, 3, k)  # leading batch dims, any layout
        np.testing.assert_array_equal(gemm.IntWeight(b).matmul(a3), want[:6].reshape(2, 3, 5))
        np.testing.assert_array_equal(gemm.IntWeight(b).matmul(a3.transpose(1, 0, 2)),
                                      want[:6].reshape(2, 3, 5).transpose(1, 0, 2))


def test_quantized_mul_is_torch_integer_formula():
    """quantized mul: (a - za) * (b - zb) times one float32 multiplier, bit for bit."""
    rng = np.random.default_rng(5)
    for dt, lo, hi in (("quint8", 0, 256), ("qint8", -128, 128)):
        for _ in range(6):
            x, y = (rng.standard_normal(3000).astype(np.float32) for _ in range(2))
            # scales from a short list make exact ties of the scaled products common
            sa, sb, so = (float(v) for v in rng.choice([0.01, 0.02, 0.03, 0.05, 0.09, 0.25], 3))
            za, zb, zo = (int(v) for v in rng.integers(lo, hi, 3))
            out = []
            for lib in (nt, torch):
                qa = lib.quantize_per_tensor(lib.from_numpy(x), sa, za, getattr(lib, dt))
                qb = lib.quantize_per_tensor(lib.from_numpy(y), sb, zb, getattr(lib, dt))
                if lib is torch:
                    out.append(torch.ops.quantized.mul(qa, qb, so, zo))
                else:
                    f = nt.ao.nn.quantized.QFunctional()
                    f.scale, f.zero_point = so, zo
                    out.append(f.mul(qa, qb))
            np.testing.assert_array_equal(out[0].int_repr().numpy(), out[1].int_repr().numpy())
