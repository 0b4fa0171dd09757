"""torch.cuda.get_device_properties gives torch's properties object (attributes under torch's
names, torch's repr) over CuPy's dict of CUDA runtime fields, and is_bf16_supported answers from
the device's compute capability, so autocast("cuda", dtype=bfloat16) runs (nanoGPT picks bfloat16
on a GPU that supports it). On the CuPy stand-in (a compute capability 9.0 device)."""

import pytest
import torch

import numtorch
from tests.cuda import standin


@pytest.fixture
def gpu():
    with standin.active():
        yield


def test_properties_have_torch_names(gpu):
    p = numtorch.cuda.get_device_properties(0)
    assert type(p).__name__ == "_CudaDeviceProperties"
    assert p.name == numtorch.cuda.get_device_name(0)
    assert (p.major, p.minor) == numtorch.cuda.get_device_capability(0)
    assert p.total_memory == numtorch.cuda.mem_get_info()[1]
    assert p.multi_processor_count > 0
    assert repr(p).startswith(f"_CudaDeviceProperties(name='{p.name}', major={p.major}, "
                              f"minor={p.minor}, total_memory={p.total_memory // 2**20}MB, "
                              f"multi_processor_count={p.multi_processor_count}")
    with pytest.raises(AttributeError):
        p.major = 1
    assert numtorch.cuda.get_device_properties("cuda:0").name == p.name


def test_properties_from_the_runtime_struct():
    from numtorch.cuda._properties import _CudaDeviceProperties

    raw = {"name": b"NVIDIA H200", "major": 9, "minor": 0, "totalGlobalMem": 150 * 2**30,
           "multiProcessorCount": 132, "l2CacheSize": 60 * 2**20, "warpSize": 32,
           "uuid": bytes(range(16)), "integrated": 0, "pciBusID": 24}
    p = _CudaDeviceProperties(raw)
    assert (p.name, p.total_memory, p.L2_cache_size, p.warp_size, p.pci_bus_id) == \
        ("NVIDIA H200", 150 * 2**30, 60 * 2**20, 32, 24)
    assert p.uuid == "00010203-0405-0607-0809-0a0b0c0d0e0f"
    assert p.is_integrated == 0 and p.max_threads_per_block == 0  # absent fields read 0


def test_bf16_supported_and_cuda_bf16_autocast(gpu):
    assert numtorch.cuda.is_bf16_supported()
    assert numtorch.cuda.is_bf16_supported(including_emulation=False)
    a = numtorch.randn(4, 4, device="cuda")
    with numtorch.autocast("cuda", dtype=numtorch.bfloat16):
        assert (a @ a).dtype is numtorch.bfloat16
        assert numtorch.softmax(a, -1).dtype is numtorch.float32


def test_without_a_gpu_as_torch():
    assert numtorch.cuda.is_bf16_supported() == torch.cuda.is_bf16_supported() is False
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        numtorch.cuda.get_device_properties(0)
