"""``torch.accelerator``: torch's answers on a machine without an accelerator, and numtorch's
CUDA device behind the API on the CuPy stand-in."""

import warnings

import pytest
import torch

import numtorch
from tests.cuda import standin

_CALLS = ["current_device_index", "current_device_idx", "synchronize", "current_stream",
          "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
          "max_memory_reserved", "memory_stats", "reset_peak_memory_stats",
          "reset_accumulated_memory_stats", "get_device_capability", "get_memory_info"]


@pytest.mark.parametrize("name", _CALLS)
def test_without_an_accelerator_errors_match_torch(name):
    if numtorch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    msgs = []
    for lib in (numtorch, torch):
        with warnings.catch_warnings(record=True) as caught, pytest.raises(RuntimeError) as e:
            warnings.simplefilter("always")
            getattr(lib.accelerator, name)()
        msgs.append((str(e.value), [(w.category, str(w.message)) for w in caught]))
    assert msgs[0] == msgs[1]


def test_cpu_only_answers_match_torch():
    if numtorch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    for lib in (numtorch, torch):
        assert not lib.accelerator.is_available() and lib.accelerator.device_count() == 0
        assert lib.accelerator.current_accelerator() is None
        with lib.accelerator.device_index(None):
            pass
        with pytest.raises(RuntimeError, match="none is available"):
            lib.accelerator.set_device_index(0)
    assert set(numtorch.accelerator.__all__) <= set(dir(torch.accelerator))


def test_accelerator_is_the_cuda_device():
    with standin.active():
        acc = numtorch.accelerator
        assert acc.is_available() and acc.current_accelerator() == numtorch.device("cuda")
        acc.set_device_index(0)
        with pytest.warns(FutureWarning, match="Use `set_device_index` instead"):
            acc.set_device_idx(numtorch.device("cuda:0"))
        assert acc.current_device_index() == 0
        with acc.device_index("cuda:0"):
            assert acc.current_device_index() == 0
        x = numtorch.ones(1000, device="cuda")
        acc.synchronize()
        assert acc.memory_allocated() >= 4000 and acc.max_memory_allocated() >= 4000
        assert acc.current_stream() == numtorch.cuda.current_stream()
        free, total = acc.get_memory_info()
        assert 0 <= free <= total
        assert numtorch.float16 in acc.get_device_capability()["supported_dtypes"]
        with pytest.raises(ValueError, match="doesn't match the current accelerator"):
            acc.set_device_index("cpu")
        del x
        acc.empty_cache()
