"""The shortcuts numtorch's device path takes to keep its host time per op small (autograd.graph's
device checks, backend.device_of, the allocator hook) give what the general paths give: with one
GPU (the stand-in's case, and the usual one) and as if several were visible, where every array's
device is compared and CuPy's current device switched only when it differs."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch import backend
from numtorch.backend import _cupy
from tests.cuda import standin


@pytest.fixture
def cuda():
    with standin.active():
        standin.reset_stats()
        yield


@pytest.fixture(params=["one GPU", "several GPUs"])
def gpus(request, cuda, monkeypatch):
    if request.param == "several GPUs":  # the stand-in has one: only the shortcut is lifted
        monkeypatch.setattr(backend, "ONLY_DEVICE", None)
    return request.param


def _step(lib, device):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((5, 4)).astype(np.float32), device=device)
    w = lib.tensor(rng.standard_normal((3, 4)).astype(np.float32), device=device,
                   requires_grad=True)
    b = lib.zeros(3, device=device, requires_grad=True)
    y = lib.nn.functional.linear(x, w, b).relu()
    loss = (y * 0.5 + y.sum(0)).tanh().sum()
    loss.backward()
    with lib.no_grad():
        z = (x * 2 + 1).exp()
    return [t.detach().cpu().numpy() for t in (loss, w.grad, b.grad, z)]


def test_ops_and_gradients_as_on_the_host(gpus):
    got = _step(numtorch, "cuda")
    for a, e in zip(got, _step(torch, "cpu")):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)
    # the host rounds small float32 exp/tanh as torch's CPU kernels do (backend/_libm_f32.py),
    # the device path uses the array library's own kernels: an ulp apart, which tanh's slope
    # near saturation magnifies in the weight gradient (~1e-5 relative)
    for a, e in zip(got, _step(numtorch, "cpu")):
        np.testing.assert_allclose(a, e, rtol=2e-5, atol=1e-6)


def test_devices_of_device_arrays(gpus):
    x = numtorch.ones(3, device="cuda")
    assert x.device == numtorch.device("cuda", 0) and x.is_cuda
    assert backend.device_of(x._array) is _cupy.cuda_device(0)
    assert (x + 1).device == x.device and x.sum().device == x.device


def test_mixing_devices_still_refused(gpus):
    x = numtorch.ones(3, device="cuda")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x + numtorch.ones(3)
    # a CPU 0-d tensor beside a CUDA one is taken as a scalar, as torch does
    s = x * numtorch.tensor(2.0)
    assert s.device == x.device
    np.testing.assert_array_equal(s.cpu().numpy(), [2.0, 2.0, 2.0])


def test_current_device_switched_only_when_it_differs(cuda, monkeypatch):
    # several GPUs, the current one another than the array's: the op runs inside a ``with``
    # on the array's device (counted here), and not when they agree
    monkeypatch.setattr(backend, "ONLY_DEVICE", None)
    entered = []
    device_cls = standin.modules()[0].cuda.Device
    enter = device_cls.__enter__
    monkeypatch.setattr(device_cls, "__enter__", lambda self: (entered.append(self.id),
                                                               enter(self))[1])
    x = numtorch.ones(3, device="cuda")
    (x + 1).exp()
    assert entered == []
    monkeypatch.setattr(standin.modules()[0].cuda, "get_device_id", lambda: 1)
    y = (x + 1).exp()
    assert entered == [0, 0]
    np.testing.assert_allclose(y.cpu().numpy(), np.exp([2.0, 2.0, 2.0]), rtol=1e-6)


@pytest.mark.parametrize("devices", [1, 2])
def test_allocator_statistics_with_one_or_several_gpus(cuda, monkeypatch, devices):
    # the allocator is specialised for one GPU; the general one keys its counters by device
    cp = standin.modules()[0]
    monkeypatch.setattr(cp.cuda.runtime, "getDeviceCount", lambda: devices)
    _cupy._track_peak_memory()
    try:
        cuda_ = numtorch.cuda
        cuda_.empty_cache()
        cuda_.reset_peak_memory_stats()
        cuda_.reset_accumulated_memory_stats()
        base = cuda_.memory_allocated()
        big = numtorch.empty(1 << 18, device="cuda")
        tmp = numtorch.empty(1 << 16, device="cuda")
        del tmp
        assert cuda_.memory_allocated() == base + (1 << 20)
        assert cuda_.max_memory_allocated() == base + (1 << 20) + (1 << 18)
        assert cuda_.max_memory_reserved() >= base + (1 << 20) + (1 << 18)
        assert cuda_.memory_stats()["allocated_bytes.all.allocated"] == (1 << 20) + (1 << 18)
        del big
        assert cuda_.max_memory_allocated() == base + (1 << 20) + (1 << 18)  # the peak stays
        cuda_.reset_peak_memory_stats()
        assert cuda_.max_memory_allocated() == base
        with cuda_.caching_allocator_disabled():  # the hook's other way through
            numtorch.ones(1, device="cuda")
            assert cuda_.memory_reserved() <= cuda_.memory_allocated() + 4
    finally:
        monkeypatch.undo()
        _cupy._track_peak_memory()


def test_contiguity_read_from_cupys_attribute(cuda):
    # the C attribute where the module has it (CuPy 14 and the stand-in), else flags
    cp = standin.modules()[0]
    assert backend.DEVICE_C_CONTIGUOUS is not backend._flags_c_contiguous
    a = cp.ones((3, 4), dtype=np.float32)
    for x in (a, a.T, a[:, ::2], a[1:], cp.ones(0)):
        assert backend.DEVICE_C_CONTIGUOUS(x) == backend._flags_c_contiguous(x) == \
            x.flags.c_contiguous


def _fan_out(lib, device):
    # y feeds three consumers: the engine sums their gradients (a new array, then in place)
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.standard_normal((4, 3)).astype(np.float32), device=device,
                   requires_grad=True)
    y = x * 2
    (y.exp() + y.sin() + y * 3).sum().backward()
    yt = x.t() * 2  # a transposed (not row-major) operand: the engine's sum takes the op
    ((yt.exp() + yt.cos()) * lib.arange(4.0, device=device)).sum().backward()
    return x.grad.cpu().numpy()


def test_gradients_meeting_at_one_node(gpus):
    np.testing.assert_allclose(_fan_out(numtorch, "cuda"), _fan_out(torch, "cpu"), rtol=1e-5)
