"""The small namespaces touched at start-up: cuda (without a GPU), backends, accelerator,
jit/compile no-ops, thread counts, deterministic flags."""

import pytest
import torch

import numtorch


def test_cuda_without_gpu_matches_torch_cpu_build():
    assert numtorch.cuda.is_available() is torch.cuda.is_available() is False
    assert numtorch.cuda.device_count() == torch.cuda.device_count() == 0
    for fn in (numtorch.cuda.current_device, numtorch.cuda.synchronize,
               lambda: numtorch.cuda.Stream(), lambda: numtorch.cuda.Event(),
               lambda: numtorch.ones(2).cuda(), lambda: numtorch.cuda.FloatTensor(2)):
        with pytest.raises((RuntimeError, AssertionError, TypeError)):  # torch's classes
            fn()
    numtorch.cuda.manual_seed(0)
    numtorch.cuda.manual_seed_all(0)
    numtorch.cuda.empty_cache()
    assert numtorch.cuda.memory_allocated() == 0
    assert not isinstance(numtorch.ones(2), numtorch.cuda.FloatTensor)


def test_cuda_comm_on_cpu_devices():
    x = numtorch.arange(6.0)
    parts = numtorch.cuda.comm.scatter(x, devices=["cpu", "cpu"])
    assert [p.tolist() for p in parts] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert numtorch.cuda.comm.gather(parts, destination=-1).tolist() == x.tolist()
    assert numtorch.cuda.comm.reduce_add(parts, destination="cpu").tolist() == [3.0, 5.0, 7.0]
    copies = numtorch.cuda.comm.broadcast(x, ["cpu", "cpu"])
    copies[0][0] = 9.0
    assert x[0].item() == 0.0


def test_backends_flags_are_accepted():
    numtorch.backends.cudnn.deterministic = True
    numtorch.backends.cudnn.benchmark = False
    assert numtorch.backends.cudnn.deterministic is True
    with numtorch.backends.cudnn.flags(enabled=False):
        assert numtorch.backends.cudnn.enabled is False
    assert numtorch.backends.cudnn.enabled is True
    numtorch.backends.cudnn.deterministic = False
    assert numtorch.backends.mps.is_available() is torch.backends.mps.is_available() is False
    assert numtorch.accelerator.is_available() is False
    assert numtorch.accelerator.current_accelerator() is None


def test_compile_and_jit_return_their_input():
    def f(x):
        return x * 2

    assert numtorch.compile(f) is f
    assert numtorch.compile()(f) is f
    # jit's script and trace wrap what they are given (tests/test_parity_s50_programs.py)
    assert not numtorch.jit.is_scripting()


def test_thread_count_round_trip():
    n = numtorch.get_num_threads()
    numtorch.set_num_threads(1)
    assert numtorch.get_num_threads() == 1
    numtorch.set_num_threads(n)
    assert numtorch.get_num_threads() == n
    with pytest.raises(RuntimeError):
        numtorch.set_num_threads(0)


def test_deterministic_flags():
    numtorch.use_deterministic_algorithms(True, warn_only=True)
    assert numtorch.are_deterministic_algorithms_enabled()
    assert numtorch.is_deterministic_algorithms_warn_only_enabled()
    numtorch.use_deterministic_algorithms(False)
    assert not numtorch.are_deterministic_algorithms_enabled()
    numtorch.set_float32_matmul_precision("high")
    assert numtorch.get_float32_matmul_precision() == "high"
    numtorch.set_float32_matmul_precision("highest")
    assert isinstance(numtorch.__version__, str)


def test_seed_spelling_nn_distributed_data_parallel():
    """The 1.4 docs' ``torch.nn.DistributedDataParallel`` is the nn.parallel class."""
    assert numtorch.nn.DistributedDataParallel is numtorch.nn.parallel.DistributedDataParallel
