"""legacy.nn layers against the same computation in real torch (output, gradInput and the
accumulated parameter gradients), with Lua's argument orders and 1-based numbering."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import numtorch
from numtorch.legacy import nn

from ._compare import check_module, close, nt

R = np.random.default_rng(1)


def rand(*shape):
    return nt(R.standard_normal(shape))


def _lua_dist(x, w):
    # ||x - w_j||, with Lua's gradient (x - w_j) / (||x - w_j|| + 1e-7)
    sq = (x[:, :, None] - w[None]).pow(2).sum(1)
    d = sq.detach().sqrt()
    return d + (sq - sq.detach()) / (2 * (d + 1e-7))


CASES = {
    "Linear-2d": (lambda: nn.Linear(4, 3), lambda: rand(5, 4),
                  lambda x, w, b: TF.linear(x, w, b)),
    "Linear-1d": (lambda: nn.Linear(4, 3), lambda: rand(4), lambda x, w, b: TF.linear(x, w, b)),
    "Linear-nobias": (lambda: nn.Linear(4, 3, bias=False), lambda: rand(2, 4),
                      lambda x, w: x @ w.t()),
    "Bilinear": (lambda: nn.Bilinear(3, 4, 2), lambda: [rand(5, 3), rand(5, 4)],
                 lambda x, w, b: TF.bilinear(x[0], x[1], w, b)),
    "SpatialConvolution-4d": (
        lambda: nn.SpatialConvolution(3, 4, 3, 2, 2, 1, 1, 0), lambda: rand(2, 3, 6, 7),
        lambda x, w, b: TF.conv2d(x, w, b, stride=(1, 2), padding=(0, 1))),
    "SpatialConvolution-3d": (
        lambda: nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1), lambda: rand(2, 5, 5),
        lambda x, w, b: TF.conv2d(x[None], w, b, padding=1)[0]),
    "SpatialFullConvolution": (
        lambda: nn.SpatialFullConvolution(3, 2, 3, 3, 2, 2, 1, 1, 1, 1),
        lambda: rand(2, 3, 4, 4),
        lambda x, w, b: TF.conv_transpose2d(x, w, b, 2, 1, 1)),
    "VolumetricConvolution": (
        lambda: nn.VolumetricConvolution(2, 3, 2, 3, 2, 1, 2, 1, 1, 0, 1),
        lambda: rand(2, 2, 4, 5, 6),
        lambda x, w, b: TF.conv3d(x, w, b, (1, 1, 2), (1, 1, 0))),
    "SpatialMaxPooling-ceil": (
        lambda: nn.SpatialMaxPooling(2, 2, 2, 2).ceil(), lambda: rand(2, 3, 5, 5),
        lambda x: TF.max_pool2d(x, 2, 2, ceil_mode=True)),
    "SpatialMaxPooling-pad": (
        lambda: nn.SpatialMaxPooling(3, 2, 2, 1, 1, 0), lambda: rand(3, 5, 6),
        lambda x: TF.max_pool2d(x[None], (2, 3), (1, 2), (0, 1))[0]),
    "SpatialAveragePooling": (
        lambda: nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1), lambda: rand(2, 2, 6, 6),
        lambda x: TF.avg_pool2d(x, 3, 2, 1)),
    "SpatialAveragePooling-exclude": (
        lambda: nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1).setCountExcludePad(),
        lambda: rand(2, 2, 6, 6),
        lambda x: TF.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
    "SpatialAveragePooling-stride1": (
        lambda: nn.SpatialAveragePooling(2, 2), lambda: rand(1, 4, 4),
        lambda x: TF.avg_pool2d(x[None], 2, 1)[0]),
    "ReLU": (lambda: nn.ReLU(), lambda: rand(3, 4), lambda x: TF.relu(x)),
    "Threshold": (lambda: nn.Threshold(0.2, -3.0), lambda: rand(3, 4),
                  lambda x: TF.threshold(x, 0.2, -3.0)),
    "HardTanh": (lambda: nn.HardTanh(-0.5, 0.7), lambda: rand(3, 4),
                 lambda x: TF.hardtanh(x, -0.5, 0.7)),
    "ELU": (lambda: nn.ELU(0.7), lambda: rand(3, 4), lambda x: TF.elu(x, 0.7)),
    "PReLU-shared": (lambda: nn.PReLU(), lambda: rand(2, 3, 4), lambda x, w: TF.prelu(x, w)),
    "PReLU-planes-4d": (lambda: nn.PReLU(3), lambda: rand(2, 3, 2, 2),
                        lambda x, w: TF.prelu(x, w)),
    "PReLU-planes-3d": (lambda: nn.PReLU(3), lambda: rand(3, 2, 2),
                        lambda x, w: TF.prelu(x[None], w)[0]),
    "Tanh": (lambda: nn.Tanh(), lambda: rand(3, 4), torch.tanh),
    "Sigmoid": (lambda: nn.Sigmoid(), lambda: rand(3, 4), torch.sigmoid),
    "SoftMax-1d": (lambda: nn.SoftMax(), lambda: rand(5), lambda x: TF.softmax(x, 0)),
    "SoftMax-2d": (lambda: nn.SoftMax(), lambda: rand(3, 5), lambda x: TF.softmax(x, 1)),
    "SoftMax-3d": (lambda: nn.SoftMax(), lambda: rand(3, 2, 2), lambda x: TF.softmax(x, 0)),
    "LogSoftMax-4d": (lambda: nn.LogSoftMax(), lambda: rand(2, 3, 2, 2),
                      lambda x: TF.log_softmax(x, 1)),
    "SoftPlus": (lambda: nn.SoftPlus(2, 3), lambda: rand(3, 4) * 3,
                 lambda x: TF.softplus(x, 2, 3)),
    "LookupTable": (lambda: nn.LookupTable(5, 3), lambda: numtorch.tensor([[1, 5, 2], [5, 5, 3]]),
                    lambda x, w: TF.embedding(x - 1, w)),
    "LookupTable-padding": (
        lambda: nn.LookupTable(5, 3, 2), lambda: numtorch.tensor([1, 2, 2, 4]),
        lambda x, w: TF.embedding(x - 1, w, padding_idx=1)),
    "CMul-batch": (lambda: nn.CMul(3, 4), lambda: rand(2, 3, 4), lambda x, w: x * w),
    "CMul-single": (lambda: nn.CMul(3, 4), lambda: rand(3, 4), lambda x, w: x * w),
    "Mul": (lambda: nn.Mul(), lambda: rand(2, 3), lambda x, w: x * w),
    "Add": (lambda: nn.Add(4), lambda: rand(3, 4), lambda x, b: x + b),
    "Add-scalar": (lambda: nn.Add(1, True), lambda: rand(3, 4), lambda x, b: x + b),
    "MulConstant": (lambda: nn.MulConstant(-2.5), lambda: rand(3, 4), lambda x: x * -2.5),
    "Normalize-2": (lambda: nn.Normalize(2), lambda: rand(3, 4),
                    lambda x: x / (x.pow(2).sum(1, keepdim=True) + 1e-10).sqrt()),
    "Normalize-1-vector": (lambda: nn.Normalize(1), lambda: rand(4),
                           lambda x: x / (x.abs().sum() + 1e-10)),
    "Normalize-inf": (lambda: nn.Normalize(math.inf), lambda: rand(3, 4),
                      lambda x: x / (x.abs().amax(1, keepdim=True) + 1e-10)),
    "Euclidean": (lambda: nn.Euclidean(4, 3), lambda: rand(5, 4), lambda x, w: _lua_dist(x, w)),
    "Cosine": (lambda: nn.Cosine(4, 3), lambda: rand(5, 4),
               lambda x, w: (x @ w.t()) / ((x.norm(dim=1, keepdim=True) + 1e-12)
                                           * (w.norm(dim=1) + 1e-12))),
    "MM": (lambda: nn.MM(), lambda: [rand(3, 4), rand(4, 2)], lambda x: x[0] @ x[1]),
    "MM-batch-trans": (lambda: nn.MM(True, True), lambda: [rand(2, 4, 3), rand(2, 5, 4)],
                       lambda x: x[0].transpose(1, 2) @ x[1].transpose(1, 2)),
    "JoinTable": (lambda: nn.JoinTable(2), lambda: [rand(2, 3), rand(2, 1), rand(2, 2)],
                  lambda x: torch.cat(x, 1)),
    "JoinTable-batch": (lambda: nn.JoinTable(1, 1), lambda: [rand(2, 3), rand(2, 1)],
                        lambda x: torch.cat(x, 1)),
    "JoinTable-negative": (lambda: nn.JoinTable(-1), lambda: [rand(2, 3), rand(2, 1)],
                           lambda x: torch.cat(x, 1)),
    "SelectTable": (lambda: nn.SelectTable(2), lambda: [rand(2, 3), rand(4), rand(1)],
                    lambda x: x[1] * 1),
    "SelectTable-negative": (lambda: nn.SelectTable(-1), lambda: [rand(2, 3), rand(4)],
                             lambda x: x[1] * 1),
    "CAddTable": (lambda: nn.CAddTable(), lambda: [rand(2, 3), rand(2, 3), rand(2, 3)],
                  lambda x: x[0] + x[1] + x[2]),
    "View-batch": (lambda: nn.View(6), lambda: rand(4, 2, 3), lambda x: x.reshape(4, 6)),
    "View-single": (lambda: nn.View(3, 2), lambda: rand(2, 3), lambda x: x.reshape(3, 2)),
    "View-minus-one": (lambda: nn.View(-1, 2), lambda: rand(4, 3), lambda x: x.reshape(6, 2)),
    "View-numInputDims": (lambda: nn.View(6).setNumInputDims(2), lambda: rand(1, 2, 3),
                          lambda x: x.reshape(1, 6)),
    "Reshape": (lambda: nn.Reshape(6), lambda: rand(4, 2, 3), lambda x: x.reshape(4, 6)),
    "Reshape-whole": (lambda: nn.Reshape(3, 2), lambda: rand(2, 3), lambda x: x.reshape(3, 2)),
    "Reshape-batchmode": (lambda: nn.Reshape(2, 2, True), lambda: rand(3, 4),
                          lambda x: x.reshape(3, 2, 2)),
    "Transpose": (lambda: nn.Transpose((1, 2), (2, 3)), lambda: rand(2, 3, 4),
                  lambda x: x.transpose(0, 1).transpose(1, 2)),
    "Narrow": (lambda: nn.Narrow(2, 2, 2), lambda: rand(3, 5), lambda x: x[:, 1:3]),
    "Narrow-negative-offset": (lambda: nn.Narrow(2, -2, 2), lambda: rand(3, 5),
                               lambda x: x[:, 3:5]),
    "Narrow-negative-length": (lambda: nn.Narrow(1, 2, -1), lambda: rand(5, 2),
                               lambda x: x[1:]),
    "Replicate": (lambda: nn.Replicate(3, 2), lambda: rand(2, 4),
                  lambda x: x[:, None].expand(2, 3, 4)),
    "Replicate-batch": (lambda: nn.Replicate(3, 1, 1), lambda: rand(2, 4),
                        lambda x: x[:, None].expand(2, 3, 4)),
    "Squeeze": (lambda: nn.Squeeze(), lambda: rand(2, 1, 3, 1), lambda x: x.squeeze()),
    "Squeeze-dim": (lambda: nn.Squeeze(2), lambda: rand(2, 1, 3, 1), lambda x: x.squeeze(1)),
    "Squeeze-batch-of-one": (lambda: nn.Squeeze(None, 2), lambda: rand(1, 1, 3),
                             lambda x: x.reshape(1, 3)),
    "Unsqueeze": (lambda: nn.Unsqueeze(2), lambda: rand(2, 3), lambda x: x[:, None]),
    "Unsqueeze-batch": (lambda: nn.Unsqueeze(1, 1), lambda: rand(2, 3), lambda x: x[:, None]),
    "Padding-after": (lambda: nn.Padding(2, 2), lambda: rand(2, 3),
                      lambda x: TF.pad(x, (0, 2))),
    "Padding-before-value": (lambda: nn.Padding(1, -1, None, 5.0), lambda: rand(2, 3),
                             lambda x: TF.pad(x, (0, 0, 1, 0), value=5.0)),
    "Padding-batch": (lambda: nn.Padding(1, 2, 1), lambda: rand(2, 3),
                      lambda x: TF.pad(x, (0, 2))),
    "Padding-index": (lambda: nn.Padding(2, -1, 2, 0, 2), lambda: rand(2, 3),
                      lambda x: torch.cat([x[:, :1], torch.zeros(2, 1, dtype=x.dtype),
                                           x[:, 1:]], 1)),
    "Identity": (lambda: nn.Identity(), lambda: rand(2, 3), lambda x: x * 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_matches_torch(name):
    make, make_input, reference = CASES[name]
    check_module(make(), make_input(), reference)


def test_temporal_convolution_lua_formula():
    # Lua: output[t][i] = bias[i] + sum_k sum_j weight[i][(k-1)*inputFrameSize + j]
    #                                          * input[dW*(t-1)+k][j]
    m = nn.TemporalConvolution(3, 2, 2, 2).double()
    x = R.standard_normal((7, 3))
    out = m.forward(nt(x)).numpy()
    w, b = m.weight.numpy(), m.bias.numpy()
    n_out = (7 - 2) // 2 + 1
    want = np.empty((n_out, 2))
    for t in range(n_out):
        window = x[2 * t:2 * t + 2].reshape(-1)
        want[t] = b + w @ window
    np.testing.assert_allclose(out, want, rtol=1e-12)
    # and against torch's conv1d on the same layout, batched
    def ref(x_, w_, b_):
        return TF.conv1d(x_.transpose(1, 2), w_.reshape(2, 2, 3).transpose(1, 2), b_,
                         2).transpose(1, 2)

    check_module(m, rand(2, 7, 3), ref)


def test_linear_lua_formula_and_layout():
    m = nn.Linear(4, 3).double()
    assert tuple(m.weight.shape) == (3, 4)  # outputSize x inputSize
    x, go = R.standard_normal((5, 4)), R.standard_normal((5, 3))
    out = m.forward(nt(x))
    np.testing.assert_allclose(out.numpy(), x @ m.weight.numpy().T + m.bias.numpy())
    m.zeroGradParameters()
    gi = m.backward(nt(x), nt(go), 2.0)
    np.testing.assert_allclose(gi.numpy(), go @ m.weight.numpy())
    np.testing.assert_allclose(m.gradWeight.numpy(), 2.0 * go.T @ x)
    np.testing.assert_allclose(m.gradBias.numpy(), 2.0 * go.sum(0))
    bound = 1 / math.sqrt(4)  # Lua's reset: U(-1/sqrt(inputSize), 1/sqrt(inputSize))
    assert float(m.weight.abs().max()) <= bound


def test_lookup_table_max_norm_and_errors():
    m = nn.LookupTable(4, 3, 0, 1.0).double()
    m.weight.mul_(10)
    out = m.forward(numtorch.tensor([1, 3]))
    np.testing.assert_allclose(out.norm(dim=1).numpy(), [1.0, 1.0], rtol=1e-6)
    assert float(m.weight[1].norm()) > 1.5  # rows not looked up are untouched
    gi = m.backward(numtorch.tensor([1, 3]), numtorch.ones(2, 3, dtype=numtorch.float64))
    assert gi.dtype == numtorch.int64 and gi.tolist() == [0, 0]
    with pytest.raises(IndexError, match="count from 1"):
        m.forward(numtorch.tensor([0, 1]))
    with pytest.raises(IndexError, match="count from 1"):
        m.forward(numtorch.tensor([5]))


def test_batch_normalization_train_and_evaluate():
    m = nn.BatchNormalization(3, 1e-5, 0.3).double()
    x = rand(6, 3)
    rm, rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    check_module(m, x, lambda x_, w, b: TF.batch_norm(x_, rm, rv, w, b, True, 0.3, 1e-5))
    close(m.running_mean, rm)
    close(m.running_var, rv)
    m.evaluate()
    check_module(m, rand(4, 3), lambda x_, w, b: TF.batch_norm(x_, rm, rv, w, b, False))
    s = nn.SpatialBatchNormalization(2, affine=False).double()
    rm2, rv2 = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    check_module(s, rand(3, 2, 4, 4),
                 lambda x_: TF.batch_norm(x_, rm2, rv2, None, None, True, 0.1, 1e-5))
    close(s.running_var, rv2)
    with pytest.raises(RuntimeError, match="only mini-batch supported"):
        m.forward(rand(3))


def test_dropout_versions():
    x = rand(200, 10)
    d = nn.Dropout(0.25).double()
    out = d.forward(x)
    noise = d.noise.numpy()
    assert set(np.unique(noise)) <= {0.0, 1 / 0.75}
    assert 0.15 < (noise == 0).mean() < 0.35
    close(out, x * d.noise)
    go = rand(200, 10)
    close(d.backward(x, go), go * d.noise)
    d.evaluate()
    close(d.forward(x), x)
    v1 = nn.Dropout(0.25, True).double()
    v1.forward(x)
    assert set(np.unique(v1.noise.numpy())) <= {0.0, 1.0}
    close(v1.evaluate().forward(x), x * 0.75)
    with pytest.raises(ValueError, match="illegal percentage"):
        nn.Dropout(1.0)
    s = nn.SpatialDropout(0.5).double()
    y = s.forward(rand(4, 6, 3, 3)).numpy()
    per_map = np.abs(y).reshape(4, 6, 9).max(-1)
    assert ((per_map == 0) | (np.abs(y).reshape(4, 6, 9).min(-1) > 0)).all()
    assert tuple(s.noise.shape) == (4, 6, 1, 1)
    x3 = rand(6, 3, 3)
    close(s.evaluate().forward(x3), x3 * 0.5)


def test_inplace_modules_write_into_input():
    x = rand(3, 4)
    keep = x.clone()
    r = nn.ReLU(True).double()
    out = r.forward(x)
    assert out is x
    close(x, keep.clamp(min=0))
    go = rand(3, 4)
    close(r.backward(x, go), go * (keep > 0))
    a, b = rand(2, 2), rand(2, 2)
    a0 = a.clone()
    c = nn.CAddTable(True).double()
    assert c.forward([a, b]) is a
    close(a, a0 + b)


def test_euclidean_zero_distance_gradient_is_zero():
    m = nn.Euclidean(3, 2).double()
    x = m.weight[:, 0].clone()
    out = m.forward(x)
    assert float(out[0]) == 0.0
    gi = m.backward(x, nt(np.array([1.0, 0.0])))
    assert np.isfinite(gi.numpy()).all()
