"""Strided input gradients and strided transposed convolutions with many channels take the
channels-last col2im (``conv_col2im``): values, gradients and second order against torch."""

import pytest

from numtorch.ops import conv as conv_ops
from numtorch.ops import conv_col2im
from tests.nn._conv_cases import conv as _conv
from tests.nn._conv_cases import conv_t as _conv_t
from tests.oracle import check_op


@pytest.fixture
def watched(monkeypatch):
    """Calls of the channels-last col2im while the test runs (the sub-pixel path, which takes
    kernels that are multiples of the stride first, is off: it has its own tests in
    tests/test_convt_s39_subpixel.py)."""
    monkeypatch.setattr(conv_ops, "_SUBPIXEL", False)
    calls = []
    real = conv_col2im.input_grad

    def spy(*args):
        calls.append(args[1].shape)
        return real(*args)

    monkeypatch.setattr(conv_col2im, "input_grad", spy)
    return calls


CASES = [
    (_conv(2, stride=2, padding=1), [(2, 32, 7, 6), (3, 32, 3, 3), (3,)]),
    (_conv(2, stride=(2, 3), padding=(0, 2), dilation=(2, 1)), [(2, 32, 9, 8), (2, 32, 2, 3)]),
    (_conv(1, stride=3, padding=1), [(3, 33, 11), (2, 33, 4)]),
    (_conv(3, stride=2, padding=1), [(1, 32, 4, 5, 3), (2, 32, 3, 2, 3)]),
    # dcgan's generator layers: k4 s2 p1 transposed, and an output padding
    (_conv_t(2, stride=2, padding=1), [(2, 4, 3, 3), (4, 32, 4, 4), (32,)]),
    (_conv_t(2, stride=2, padding=1, output_padding=1), [(2, 3, 3, 2), (3, 32, 3, 3)]),
    # kernels reaching the stride: the taps below it are assigned, the rest of the buffer zeroed
    (_conv_t(2, stride=(3, 2), padding=(1, 0), output_padding=(2, 1)),
     [(2, 3, 3, 2), (3, 32, 4, 2), (32,)]),
    (_conv_t(1, stride=2, output_padding=1), [(2, 5, 4), (5, 32, 2)]),
    (_conv(2, stride=(2, 1), padding=(1, 0)), [(2, 32, 7, 5), (3, 32, 4, 1)]),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_channels_last_col2im_matches_torch(watched, case):
    fn, shapes = CASES[case]
    check_op(fn, shapes)
    assert watched


@pytest.mark.parametrize("block_bytes", [1, 1 << 20])  # one sample per GEMM, or the batch
@pytest.mark.parametrize("fn,shapes", [
    (_conv_t(2, stride=2, padding=1), [(5, 16, 4, 4), (16, 48, 4, 4), (48,)]),
    # a reused block buffer: its zeroed border must not keep the previous block's values
    (_conv_t(2, stride=3, padding=1, output_padding=2), [(5, 6, 3, 4), (6, 40, 4, 3)]),
    (_conv(2, stride=2, dilation=(1, 2)), [(5, 40, 9, 9), (6, 40, 3, 2)]),
])
def test_channels_last_col2im_float32_in_blocks(monkeypatch, watched, block_bytes, fn, shapes):
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(conv_ops, "_MIN_BLOCK_COLUMNS", 1)
    check_op(fn, shapes, dtype="float32", second_order=False)
    assert watched


def test_few_channels_keep_channels_first_col2im(watched):
    check_op(_conv_t(2, stride=2, padding=1), [(2, 8, 3, 3), (8, 3, 4, 4)],
             second_order=False)
    assert not watched
