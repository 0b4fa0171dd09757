"""A user's post-training static quantization of a MobileNetV3-style block, written once and
run on both libraries: fuse_modules, prepare, calibration, convert, then inference through
quantized convs (depthwise too), Hardswish/ReLU6 modules, a squeeze-excitation gate
(adaptive pooling, Hardsigmoid, FloatFunctional.mul), nearest upsampling, ``x.mean([2, 3])``
and a float Sigmoid module left on a quantized tensor. The outputs equal torch's bit for bit
(x86 engine; its choices here are fbgemm's)."""

import warnings

import numpy as np
import pytest
import torch

import numtorch as nt

warnings.filterwarnings("ignore")


def _program(lib, engine):
    nn = lib.nn
    lib.backends.quantized.engine = engine

    class SE(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.fc1, self.relu = nn.Conv2d(c, c // 2, 1), nn.ReLU()
            self.fc2, self.hsig = nn.Conv2d(c // 2, c, 1), nn.Hardsigmoid()
            self.mul = nn.quantized.FloatFunctional()

        def forward(self, x):
            s = nn.functional.adaptive_avg_pool2d(x, 1)
            return self.mul.mul(self.hsig(self.fc2(self.relu(self.fc1(s)))), x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = lib.ao.quantization.QuantStub()
            self.conv, self.bn = nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8)
            self.act = nn.Hardswish()
            self.dw, self.bn2 = nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.BatchNorm2d(8)
            self.relu6, self.se = nn.ReLU6(), SE(8)
            self.up, self.sig = nn.Upsample(scale_factor=2), nn.Sigmoid()
            self.pool, self.fc = nn.AdaptiveAvgPool2d(1), nn.Linear(8, 5)
            self.dequant = lib.ao.quantization.DeQuantStub()

        def forward(self, x):
            x = self.act(self.bn(self.conv(self.quant(x))))
            x = self.up(self.se(self.relu6(self.bn2(self.dw(x)))))
            y = self.sig(x.mean([2, 3]))
            return self.dequant(self.fc(lib.flatten(self.pool(x), 1))), self.dequant(y)

    m, rng = Net(), np.random.default_rng(2)
    with lib.no_grad():
        for k, v in m.state_dict().items():
            if v.dtype == lib.float32:
                a = rng.standard_normal(tuple(v.shape)).astype(np.float32) * 0.4
                v.copy_(lib.from_numpy(np.abs(a) + 0.5 if "running_var" in k else a))
    m.eval()
    lib.ao.quantization.fuse_modules(m, [["conv", "bn"], ["dw", "bn2"], ["se.fc1", "se.relu"]],
                                     inplace=True)
    m.qconfig = lib.ao.quantization.get_default_qconfig(engine)
    lib.ao.quantization.prepare(m, inplace=True)
    for _ in range(3):
        m(lib.from_numpy(rng.standard_normal((4, 3, 16, 16)).astype(np.float32)))
    lib.ao.quantization.convert(m, inplace=True)
    out = m(lib.from_numpy(rng.standard_normal((2, 3, 16, 16)).astype(np.float32)))
    return [o.numpy() for o in out], repr(m)


@pytest.mark.parametrize("engine", ["x86"])
def test_mobile_block_static_quantization_matches_torch(engine):
    before = torch.backends.quantized.engine, nt.backends.quantized.engine
    try:
        got, got_repr = _program(nt, engine)
        want, want_repr = _program(torch, engine)
    finally:
        torch.backends.quantized.engine, nt.backends.quantized.engine = before
    assert got_repr == want_repr
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
