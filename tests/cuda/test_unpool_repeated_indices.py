"""max_unpool on the CuPy stand-in where several inputs name one output position.

On a GPU, a fancy-index write whose index repeats is a race between threads (the H100 and the
H200 each showed a few of 288 outputs taking another input's value than torch's). numtorch's
device path instead scatters each input's position with an int64 atomic max and gathers the
winner: the input that names a position last wins, as in torch's CPU loop, whatever the thread
order. The stand-in lets the first write of a racing scatter win, so a path that wrote the
values directly would fail here.
"""

import numpy as np
import pytest
import torch

import numtorch
from tests.cuda import standin


def _unpool(lib, device, nd, y, idx, kw, out=None):
    """The unpooled values and the input's gradient, and the host synchronisations of the
    forward and backward (on the stand-in)."""
    yt = lib.tensor(y, device=device, requires_grad=True)
    it = lib.tensor(idx, device=device)
    g = lib.tensor(np.random.default_rng(5).standard_normal(
        _out_shape(y.shape, nd, kw)).astype(y.dtype), device=device)
    before = standin.STATS.get("sync", 0)
    r = getattr(lib.nn.functional, f"max_unpool{nd}d")(yt, it, output_size=out, **kw)
    r.backward(g)
    syncs = standin.STATS.get("sync", 0) - before
    return r.detach().cpu().numpy(), yt.grad.cpu().numpy(), syncs


def _out_shape(shape, nd, kw):
    k, s = kw["kernel_size"], kw.get("stride", kw["kernel_size"])
    return shape[:-nd] + tuple((n - 1) * s + k for n in shape[-nd:])


def _repeats(idx):
    """How many (plane, position) pairs are named by more than one input."""
    planes = idx.reshape(idx.shape[0] * idx.shape[1], -1)
    return sum(int((np.bincount(p) > 1).sum()) for p in planes)


# overlapping pools (stride 1) name a window's maximum from several outputs (their values made
# distinct, so which one lands matters); random indices into a few positions name most of
# them many times
def _pooled(nd, shape, kw, dtype):
    x = torch.from_numpy(np.random.default_rng(nd).standard_normal(shape).astype(dtype))
    y, i = getattr(torch.nn.functional, f"max_pool{nd}d")(x, return_indices=True, **kw)
    y = y.numpy() + np.arange(y.numel(), dtype=dtype).reshape(y.shape)
    return y, i.numpy()


def _random(nd, shape, dtype):
    rng = np.random.default_rng(3)
    y = rng.standard_normal(shape).astype(dtype)
    return y, rng.integers(0, 5, shape)


K3S1, K4S1, K2S1, K2 = ({"kernel_size": 3, "stride": 1}, {"kernel_size": 4, "stride": 1},
                        {"kernel_size": 2, "stride": 1}, {"kernel_size": 2})
CASES = [
    ("pool2d_overlapping", 2, lambda dt: _pooled(2, (2, 3, 9, 9), K3S1, dt), K3S1),
    ("pool1d_overlapping", 1, lambda dt: _pooled(1, (2, 4, 16), K4S1, dt), K4S1),
    ("pool3d_overlapping", 3, lambda dt: _pooled(3, (1, 2, 5, 5, 5), K2S1, dt), K2S1),
    ("random2d", 2, lambda dt: _random(2, (2, 3, 4, 6), dt), K2),
    ("random1d", 1, lambda dt: _random(1, (3, 2, 12), dt), K2),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,nd,make,kw", CASES, ids=[c[0] for c in CASES])
def test_repeated_indices_take_the_last_input_as_torch(name, nd, make, kw, dtype):
    y, idx = make(dtype)
    assert _repeats(idx) > 0
    want, want_grad, _ = _unpool(torch, "cpu", nd, y, idx, kw)
    with standin.active():
        standin.reset_stats()
        got, got_grad, syncs = _unpool(numtorch, "cuda", nd, y, idx, kw)
    cpu, cpu_grad, _ = _unpool(numtorch, "cpu", nd, y, idx, kw)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, cpu)
    np.testing.assert_array_equal(got_grad, want_grad)
    np.testing.assert_array_equal(cpu_grad, want_grad)
    assert syncs == 1  # the index range check (torch's "Found an invalid max index"), only


def test_the_stand_in_races_a_repeated_write_as_a_gpu():
    """What the test above guards against: a plain scatter lets another write win."""
    with standin.active() as cp:
        a = cp.zeros(3)
        a[cp.asarray([1, 1, 2])] = cp.asarray([4.0, 5.0, 6.0])
        got = a.get()
    assert got.tolist() == [0.0, 4.0, 6.0]  # NumPy (and torch's CPU) leave 5 at 1
