"""Session 49 quantization parity: numtorch against real torch at test time (int8 results
compared exactly)."""

import warnings

import numpy as np
import pytest
import torch

import numtorch as nt

warnings.filterwarnings("ignore", message=".*deprecated.*")


def _pair(ints, zp, dt):
    x = ((ints - zp) * 0.5).astype(np.float32)
    return (nt.quantize_per_tensor(nt.tensor(x), 0.5, zp, getattr(nt, dt)),
            torch.quantize_per_tensor(torch.tensor(x), 0.5, zp, getattr(torch, dt)))


_POOLS = {
    "ada_half": lambda F, t: F.adaptive_avg_pool2d(t, 3),
    "ada_odd": lambda F, t: F.adaptive_avg_pool2d(t, (4, 5)),
    "ada_one": lambda F, t: F.adaptive_avg_pool2d(t, 1),
    "avg2": lambda F, t: F.avg_pool2d(t, 2),
    "avg_pad": lambda F, t: F.avg_pool2d(t, 3, stride=2, padding=1),
    "avg_pad_nc": lambda F, t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False),
    "avg_ceil": lambda F, t: F.avg_pool2d(t, 2, 2, ceil_mode=True),
    "avg_div": lambda F, t: F.avg_pool2d(t, 2, divisor_override=3),
    "avg1d": lambda F, t: F.avg_pool1d(t[0], 3),
    "ada3d": lambda F, t: F.adaptive_avg_pool3d(t, (1, 2, 2)),
}


@pytest.mark.parametrize("name", sorted(_POOLS))
@pytest.mark.parametrize("zp,dt", [(0, "quint8"), (1, "quint8"), (3, "qint8"), (-5, "qint8"),
                                   (100, "quint8")])
def test_average_pools_round_the_stored_integers(name, zp, dt):
    # torch rounds the average of the stored integers (ties to even), so an odd zero point
    # moved ties by one quantum when the centred average was rounded
    rng = np.random.RandomState(abs(zp) + len(name))
    lo, hi = (0, 255) if dt == "quint8" else (-128, 127)
    a, b = _pair(rng.randint(lo, hi + 1, size=(2, 3, 6, 6)), zp, dt)
    fn = _POOLS[name]
    got = fn(nt.nn.functional, a)
    want = fn(torch.nn.functional, b)
    assert got.q_scale() == want.q_scale() and got.q_zero_point() == want.q_zero_point()
    np.testing.assert_array_equal(got.int_repr().numpy(), want.int_repr().numpy())


@pytest.mark.parametrize("dt", ["quint8", "qint8"])
def test_channels_last_quantized(dt):
    rng = np.random.RandomState(0)
    a, b = _pair(rng.randint(0, 100, size=(2, 3, 4, 5)), 7, dt)
    ga = a.contiguous(memory_format=nt.channels_last)
    gb = b.contiguous(memory_format=torch.channels_last)
    assert ga.stride() == gb.stride()
    assert ga.is_contiguous(memory_format=nt.channels_last)
    np.testing.assert_array_equal(ga.int_repr().numpy(), gb.int_repr().numpy())
    ta, tb = a.to(memory_format=nt.channels_last), b.to(memory_format=torch.channels_last)
    assert ta.stride() == tb.stride()
    pa = nt.nn.functional.adaptive_avg_pool2d(ga, (3, 2))
    pb = torch.nn.functional.adaptive_avg_pool2d(gb, (3, 2))
    np.testing.assert_array_equal(pa.int_repr().numpy(), pb.int_repr().numpy())
    ma = nt.nn.functional.max_pool2d(ga, 2)
    mb = torch.nn.functional.max_pool2d(gb, 2)
    np.testing.assert_array_equal(ma.int_repr().numpy(), mb.int_repr().numpy())
