"""``torch.ops.quantized``: the operators by torch's names and argument orders, bit-exact with
torch's fbgemm kernels on the same inputs (packed weights from the ``*_prepack`` operators)."""

import warnings

import numpy as np
import torch

import numtorch as nt

warnings.filterwarnings("ignore")


def _run(t):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2, 4, 7, 7)).astype(np.float32)
    Y = rng.standard_normal((2, 4, 7, 7)).astype(np.float32)
    W = (rng.standard_normal((6, 4, 3, 3)) * 0.3).astype(np.float32)
    B = rng.standard_normal(6).astype(np.float32)
    WL = (rng.standard_normal((5, 28)) * 0.3).astype(np.float32)
    o = t.ops.quantized
    qx = t.quantize_per_tensor(t.from_numpy(X), 0.05, 64, t.quint8)
    qy = t.quantize_per_tensor(t.from_numpy(Y), 0.03, 100, t.quint8)
    qw = t.quantize_per_tensor(t.from_numpy(W), 0.01, 0, t.qint8)
    qwl = t.quantize_per_channel(t.from_numpy(WL), t.tensor([0.01, 0.02, 0.01, 0.03, 0.02],
                                                              dtype=t.float64),
                                 t.zeros(5, dtype=t.int64), 0, t.qint8)
    xl = X.reshape(-1, 28)[:6]
    pc = o.conv2d_prepack(qw, t.from_numpy(B), [1, 1], [1, 1], [1, 1], 1)
    p1 = o.conv1d_prepack(t.quantize_per_tensor(t.from_numpy(W[:, :, 0]), 0.01, 0, t.qint8),
                          None, [2], [1], [1], 1)
    pl = o.linear_prepack(qwl, t.from_numpy(B[:5]))
    qxl = t.quantize_per_tensor(t.from_numpy(xl), 0.05, 64, t.quint8)
    return {
        "add": o.add(qx, qy, 0.07, 50), "add_relu": o.add_relu(qx, qy, 0.07, 50),
        "mul": o.mul(qx, qy, 0.09, 40), "mul_relu": o.mul_relu(qx, qy, 0.09, 40),
        "add_scalar": o.add_scalar(qx, 0.7), "mul_scalar": o.mul_scalar(qx, 1.5),
        "cat": o.cat([qx, qy], 1, 0.06, 60), "cat_default": o.cat([qx, qy], 0, None, None),
        "cat_relu": o.cat_relu([qx, qy], 1, 0.06, 60),
        "conv2d": o.conv2d(qx, pc, 0.1, 70), "conv2d_relu": o.conv2d_relu(qx, pc, 0.1, 70),
        "conv2d_unpack": o.conv2d_unpack(pc)[0], "conv1d": o.conv1d(qx[:, :, 0], p1, 0.1, 70),
        "linear": o.linear(qxl, pl, 0.2, 60), "linear_relu": o.linear_relu(qxl, pl, 0.2, 60),
        "linear_dynamic": o.linear_dynamic(t.from_numpy(xl), pl),
        "linear_dynamic_reduced": o.linear_dynamic(t.from_numpy(xl), pl, True),
        "linear_unpack": o.linear_unpack(pl)[0],
        "relu6": o.relu6(qx), "hardswish": o.hardswish(qx, 0.04, 20),
        "sigmoid": o.sigmoid(qx, 1 / 256.0, 0), "leaky_relu": o.leaky_relu(qx, 0.1, False, 0.05, 64),
        "elu": o.elu(qx, 0.05, 60), "elu_scaled": o.elu(qx, 0.05, 60, 0.5, 1.2, 0.8),
        "softmax": o.softmax(qx, 1, 1 / 256.0, 0), "threshold": o.threshold(qx, 0.3, 1.0),
        "layer_norm": o.layer_norm(qx, [7, 7], None, None, 1e-5, 0.05, 64),
        "batch_norm2d": o.batch_norm2d(qx, t.ones(4), t.zeros(4), t.zeros(4), t.ones(4), 1e-5,
                                       0.05, 64),
        "matmul": o.matmul(qx, qy, 0.5, 64),
    }


def test_ops_quantized_match_torch_bit_for_bit():
    before = torch.backends.quantized.engine, nt.backends.quantized.engine
    # fbgemm: x86's oneDNN conv2d_relu operator skips the ReLU (the module does not)
    torch.backends.quantized.engine = nt.backends.quantized.engine = "fbgemm"
    try:
        want, got = _run(torch), _run(nt)
    finally:
        torch.backends.quantized.engine, nt.backends.quantized.engine = before
    assert sorted(got) == sorted(want)
    for name, b in want.items():
        a = got[name]
        assert repr(a.dtype) == repr(b.dtype) and tuple(a.shape) == tuple(b.shape), name
        if not b.is_quantized:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0, atol=1e-6, err_msg=name)
            continue
        if b.qscheme() == torch.per_tensor_affine:
            assert (a.q_scale(), a.q_zero_point()) == (b.q_scale(), b.q_zero_point()), name
        np.testing.assert_array_equal(a.int_repr().numpy(), b.int_repr().numpy(), err_msg=name)
