"""Exception classes (exactly) and messages against torch for a CUDA request on a machine
without CUDA, ``TensorDataset`` size mismatches, out-of-range ``index_select`` and ``histc`` on
integers (issue 12, item 15)."""

import pytest
import torch

import numtorch

CASES = {
    "tensor_dataset": lambda t: t.utils.data.TensorDataset(t.ones(3), t.ones(4)),
    "index_select_past_end": lambda t: t.ones(3, 4).index_select(0, t.tensor([3])),
    "index_select_negative": lambda t: t.ones(3, 4).index_select(0, t.tensor([-1])),
    "index_select_vector": lambda t: t.ones(3).index_select(0, t.tensor([7])),
    "histc_int64": lambda t: t.histc(t.tensor([1, 2, 3])),
    "histc_int32": lambda t: t.histc(t.tensor([1, 2, 3], dtype=t.int32)),
}

NO_CUDA_CASES = {
    "cuda": lambda t: t.ones(2).cuda(),
    "to_cuda": lambda t: t.ones(2).to("cuda"),
    "to_cuda_0": lambda t: t.ones(2).to("cuda:0"),
    "to_cuda_device": lambda t: t.ones(2).to(t.device("cuda")),
    "zeros_on_cuda": lambda t: t.zeros(2, device="cuda"),
    "tensor_on_cuda": lambda t: t.tensor([1.0], device="cuda"),
    "module_cuda": lambda t: t.nn.Linear(2, 2).cuda(),
    "module_to_cuda": lambda t: t.nn.Linear(2, 2).to("cuda"),
    "cuda_current_device": lambda t: t.cuda.current_device(),
    "cuda_synchronize": lambda t: t.cuda.synchronize(),
    "pin_memory": lambda t: t.ones(2).pin_memory(),
}


def _error(fn, lib):
    with pytest.raises(BaseException) as e:
        fn(lib)
    return type(e.value), str(e.value)


@pytest.mark.parametrize("name", list(CASES))
def test_error_class_and_message_match_torch(name):
    assert _error(CASES[name], numtorch) == _error(CASES[name], torch)


@pytest.mark.parametrize("name", list(NO_CUDA_CASES))
def test_cuda_requests_without_cuda_match_torch(name):
    if numtorch.cuda.is_available():  # with CuPy and a GPU these calls succeed
        NO_CUDA_CASES[name](numtorch)
        return
    # exactly torch's class (a plain AssertionError, so ``except AssertionError`` works and
    # ``type(e) is AssertionError`` holds) and message
    assert _error(NO_CUDA_CASES[name], numtorch) == _error(NO_CUDA_CASES[name], torch)
