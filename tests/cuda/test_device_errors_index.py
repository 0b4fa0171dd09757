"""Index ops whose index numtorch holds as a plain array (not a graph input) on a GPU tensor
with the index on the CPU: torch's CUDA kernels refuse it with the per-argument device error
(index_select's text is torch 2.11's on an H200: numtorch returned a result there); take, put_
and masked_select follow the same generated check. Plain ``x[index]`` with a CPU index stays
allowed, as in torch. On the CuPy stand-in."""

import pytest

import numtorch
from tests.cuda import standin

SAME = "Expected all tensors to be on the same device, but got "


@pytest.fixture
def x():
    with standin.active():
        yield numtorch.arange(12.0).reshape(3, 4).to("cuda")


def _msg(arg, method):
    return (f"{SAME}{arg} is on cpu, different from other tensors on cuda:0 (when checking "
            f"argument in method {method})")


CASES = {
    "index_select": (lambda x: x.index_select(1, numtorch.tensor([0, 2])),
                     _msg("index", "wrapper_CUDA__index_select")),
    "index_select_fn": (lambda x: numtorch.index_select(x, 0, numtorch.tensor([1])),
                        _msg("index", "wrapper_CUDA__index_select")),
    "take": (lambda x: x.take(numtorch.tensor([0, 5])), _msg("index", "wrapper_CUDA__take")),
    "put_": (lambda x: x.clone().put_(numtorch.tensor([0, 5]), numtorch.ones(2, device="cuda")),
             _msg("index", "wrapper_CUDA__put_")),
    "masked_select": (lambda x: x.masked_select(numtorch.ones(3, 4, dtype=numtorch.bool)),
                      _msg("mask", "wrapper_CUDA__masked_select")),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_cpu_index_on_a_gpu_tensor_raises_torchs_error(x, case):
    fn, message = CASES[case]
    with pytest.raises(RuntimeError) as e:
        fn(x)
    assert str(e.value) == message


def test_same_device_and_plain_indexing_still_work(x):
    i = numtorch.tensor([0, 2])
    assert x.index_select(1, i.to("cuda")).tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    assert x.take(numtorch.tensor([0, 5], device="cuda")).tolist() == [0.0, 5.0]
    assert x[i].tolist() == [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]]  # torch allows it
    m = numtorch.tensor([True, False, True], device="cuda")
    assert x.masked_select(m[:, None]).tolist() == [0.0, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 11.0]
    # a CPU tensor with a CPU index: untouched by the check
    assert numtorch.arange(4.0).index_select(0, i).tolist() == [0.0, 2.0]
