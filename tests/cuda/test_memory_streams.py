"""Pinned memory, DataLoader(pin_memory=True), streams and events, memory statistics: on the
CuPy stand-in, and torch's behaviour of the same API on a machine without CUDA."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from numtorch.utils.data import DataLoader, TensorDataset
from tests.cuda import standin


@pytest.fixture
def cuda():
    with standin.active():
        standin.reset_stats()
        yield


def test_pin_memory(cuda):
    x = numtorch.arange(6.0).reshape(2, 3)
    assert not x.is_pinned()
    p = x.pin_memory()
    assert p.is_pinned() and p.device.type == "cpu" and p is not x
    np.testing.assert_array_equal(p.numpy(), x.numpy())
    assert p.pin_memory() is p  # pinned already
    assert p[1].is_pinned()  # a view of pinned memory is pinned
    assert not (p + 1).is_pinned()
    # an asynchronous copy to the GPU from pinned memory
    standin.reset_stats()
    y = p.to("cuda", non_blocking=True)
    assert standin.STATS["h2d_async"] == 1
    np.testing.assert_array_equal(y.cpu().numpy(), x.numpy())
    with pytest.raises(RuntimeError, match="cannot pin 'torch.cuda.FloatTensor' only dense CPU"):
        y.pin_memory()
    assert not y.is_pinned()


def test_pin_memory_keeps_the_graph(cuda):
    x = numtorch.ones(3, requires_grad=True)
    p = x.pin_memory()
    assert p.is_pinned() and p.requires_grad
    (p * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_dataloader_pins_batches(cuda):
    ds = TensorDataset(numtorch.arange(8.0).reshape(4, 2), numtorch.arange(4))
    loader = DataLoader(ds, batch_size=2, pin_memory=True)
    batches = list(loader)
    assert len(batches) == 2 == len(iter(loader))
    for xb, yb in batches:
        assert xb.is_pinned() and yb.is_pinned()
    assert not next(iter(DataLoader(ds, batch_size=2)))[0].is_pinned()
    # nested structures: dicts, named tuples, custom objects with pin_memory()
    loader = DataLoader([{"a": numtorch.ones(2), "b": [numtorch.zeros(1), "s"]}] * 2,
                        batch_size=2, pin_memory=True)
    batch = next(iter(loader))
    # (torch collates the strings as a tuple)
    assert batch["a"].is_pinned() and batch["b"][0].is_pinned() and batch["b"][1] == ("s", "s")


def test_dataloader_pin_memory_without_cuda_warns_as_torch():
    for lib in (torch, numtorch):
        ds = lib.utils.data.TensorDataset(lib.ones(4, 2))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            batch = next(iter(lib.utils.data.DataLoader(ds, batch_size=2, pin_memory=True)))
        assert not batch[0].is_pinned()
        assert any("no accelerator is found" in str(x.message) for x in w), lib


def test_ops_run_on_the_current_stream(cuda):
    s = numtorch.cuda.Stream()
    assert s != numtorch.cuda.current_stream() == numtorch.cuda.default_stream()
    x = numtorch.ones(4, device="cuda")
    with numtorch.cuda.stream(s):
        assert numtorch.cuda.current_stream() == s
        y = (x * 2).exp()
        assert standin.STATS["last_stream"].ptr == s.cuda_stream
    assert numtorch.cuda.current_stream() == numtorch.cuda.default_stream()
    z = y + 1
    assert standin.STATS["last_stream"].ptr == 0
    numtorch.cuda.current_stream().wait_stream(s)
    assert standin.STATS["waits"][-1][0] == 0
    with numtorch.cuda.stream(None):
        pass
    e0, e1 = numtorch.cuda.Event(enable_timing=True), numtorch.cuda.Event(enable_timing=True)
    e0.record()
    z = z * 3
    e1.record()
    e1.synchronize()
    assert e0.elapsed_time(e1) >= 0 and e1.query() and s.query()
    ev = s.record_event()
    ev.wait()
    numtorch.cuda.synchronize()
    assert hash(s) == hash(s) and "cuda_stream" in repr(s)


def test_memory_statistics_follow_the_pool(cuda):
    numtorch.cuda.empty_cache()
    numtorch.cuda.reset_peak_memory_stats()
    base = numtorch.cuda.memory_allocated()
    big = numtorch.empty(1 << 18, device="cuda")
    assert numtorch.cuda.memory_allocated() - base == 1 << 20
    assert numtorch.cuda.max_memory_allocated() >= base + (1 << 20)
    assert numtorch.cuda.memory_reserved() >= numtorch.cuda.memory_allocated()
    del big
    assert numtorch.cuda.memory_allocated() == base
    assert numtorch.cuda.max_memory_allocated() >= base + (1 << 20)  # the peak stays
    assert numtorch.cuda.max_memory_reserved() >= base + (1 << 20)
    numtorch.cuda.reset_peak_memory_stats()
    assert numtorch.cuda.max_memory_allocated() == base
    numtorch.cuda.empty_cache()
    assert numtorch.cuda.memory_reserved() == base
    free, total = numtorch.cuda.mem_get_info()
    assert 0 < free <= total
    stats = numtorch.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == base
    assert numtorch.cuda.memory_stats(0)["reserved_bytes.all.peak"] >= base


@pytest.mark.parametrize("call", [
    "memory_allocated()", "max_memory_allocated()", "memory_reserved()",
    "max_memory_reserved()", "empty_cache()", "memory_stats()", "mem_get_info()",
    "synchronize()", "current_stream()", "default_stream()", "Stream()", "Event()",
    "current_device()", "is_available()", "device_count()", "set_per_process_memory_fraction(0.5)",
])
def test_without_cuda_as_torch(call):
    try:
        want = eval("torch.cuda." + call)
    except BaseException as e:  # noqa: BLE001 - torch raises AssertionError for some
        with pytest.raises(type(e), match=str(e)[:30]):
            eval("numtorch.cuda." + call)
        return
    got = eval("numtorch.cuda." + call)
    assert got == want


def test_tensor_pin_memory_without_cuda_as_torch():
    for lib in (torch, numtorch):
        assert not lib.ones(2).is_pinned()
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is "
                                               "available"):
            lib.ones(2).pin_memory()
