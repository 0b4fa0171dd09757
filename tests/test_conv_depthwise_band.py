"""Depthwise stride-1 convolutions with large kernels on narrow maps as banded GEMMs
(``conv_depthwise_band``, ConvNeXt's 7x7) against torch: values and input/weight/bias
gradients with random cotangents (second order in float64), float32 with non-contiguous and
channels-last inputs, asymmetric ('same' with an even kernel) and one-sided padding,
rectangular kernels, kernels cut where they meet only padding, and the shapes that keep the
other kernels."""

import pytest

from numtorch.ops import conv_depthwise_band
from tests.oracle import check_module, check_op


@pytest.fixture
def paths(conv_paths):
    return conv_paths


def _dw(channels_last=False, **kw):
    def fn(t, x, w, *b):
        if channels_last:
            x = x.contiguous(memory_format=t.channels_last)
        return t.nn.functional.conv2d(x, w, *b, groups=w.shape[0], **kw)
    return fn


BAND = [
    (_dw(padding=3), [(2, 4, 6, 6), (4, 1, 7, 7), (4,)]),  # ConvNeXt's block
    (_dw(padding=3), [(3, 2, 4, 5), (2, 1, 7, 7), (2,)]),  # kernel rows/columns cut
    (_dw(), [(2, 3, 9, 6), (3, 1, 5, 5)]),  # no padding
    (_dw(padding=(0, 4)), [(1, 3, 8, 5), (3, 1, 5, 5), (3,)]),  # one-sided
    (_dw(padding="same"), [(2, 3, 7, 7), (3, 1, 4, 4)]),  # asymmetric: 1 before, 2 after
    (_dw(padding=(3, 2)), [(2, 3, 6, 6), (3, 1, 7, 5), (3,)]),  # rectangular
]


@pytest.mark.parametrize("case", range(len(BAND)))
def test_band_matches_torch(paths, case):
    fn, shapes = BAND[case]
    check_op(fn, shapes)
    assert "forward-depthwise-band" in paths and "weight-depthwise-band" in paths


@pytest.mark.parametrize("case", [0, 4])
def test_float32_non_contiguous(paths, case):
    fn, shapes = BAND[case]
    check_op(fn, shapes, dtype="float32", second_order=False, non_contiguous=True)
    assert "forward-depthwise-band" in paths


def test_channels_last_input(paths):
    check_op(_dw(channels_last=True, padding=3), [(2, 8, 5, 5), (8, 1, 7, 7), (8,)],
             dtype="float32", second_order=False)
    assert "forward-depthwise-band" in paths


def test_unbatched_input(paths):
    check_op(lambda t, x, w: t.nn.functional.conv2d(x, w, padding=2, groups=3),
             [(3, 6, 6), (3, 1, 5, 5)])
    assert "forward-depthwise-band" in paths


@pytest.mark.parametrize("fn,shapes,path", [
    (_dw(padding=1), [(2, 4, 6, 6), (4, 1, 3, 3)], "forward-depthwise-gemv"),  # 9 taps
    (_dw(padding=3), [(1, 2, 24, 24), (2, 1, 7, 7)], "forward-depthwise-gemv"),  # wide map
    (_dw(padding=3, dilation=2), [(1, 2, 6, 6), (2, 1, 5, 5)], "forward-depthwise-gemv"),
])
def test_other_shapes_keep_their_kernels(paths, fn, shapes, path):
    check_op(fn, shapes, second_order=False)
    assert path in paths and "forward-depthwise-band" not in paths


def test_operand_limit_keeps_the_tap_rows(monkeypatch, paths):
    monkeypatch.setattr(conv_depthwise_band, "MAX_OPERAND_BYTES", 1)
    check_op(_dw(padding=3), [(2, 4, 6, 6), (4, 1, 7, 7)], second_order=False)
    assert "forward-depthwise-band" not in paths


def test_convnext_block_trains_as_torch(paths):
    """dwconv 7x7 -> channels-last LayerNorm -> MLP -> layer scale -> residual."""
    def build(t):
        class Block(t.nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.dw = t.nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
                self.norm = t.nn.LayerNorm(dim, eps=1e-6)
                self.fc1, self.fc2 = t.nn.Linear(dim, 4 * dim), t.nn.Linear(4 * dim, dim)
                self.gamma = t.nn.Parameter(t.full((dim,), 0.5))

            def forward(self, x):
                y = self.dw(x).permute(0, 2, 3, 1)
                y = self.fc2(t.nn.functional.gelu(self.fc1(self.norm(y)))) * self.gamma
                return x + y.permute(0, 3, 1, 2)
        return Block()
    check_module(build, [(2, 8, 8, 8)])
    assert "forward-depthwise-band" in paths and "weight-depthwise-band" in paths
