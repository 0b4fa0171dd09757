"""Tensors on two devices in one op: torch's CUDA kernels that check their arguments one by one
name the first argument on another device than the first tensor argument, and the wrapper that
checked; elementwise ops say "found at least two devices". The cat and mm messages are torch
2.11's on an H200 (a user-style program run there); the others follow the same rule with the
arguments torch's kernels take. On the CuPy stand-in."""

import pytest

import numtorch
from tests.cuda import standin

F = numtorch.nn.functional
SAME = "Expected all tensors to be on the same device, but "


@pytest.fixture
def x():
    with standin.active():
        yield numtorch.ones(2, 3, device="cuda")


CASES = {
    "cat": (lambda x: numtorch.cat([x, numtorch.ones(2, 3)]),
            "got tensors is on cpu, different from other tensors on cuda:0 (when checking "
            "argument in method wrapper_CUDA_cat)"),
    "cat_cpu_first": (lambda x: numtorch.cat([numtorch.ones(2, 3), x]),
                      "got tensors is on cuda:0, different from other tensors on cpu (when "
                      "checking argument in method wrapper_CUDA_cat)"),
    "mm": (lambda x: x @ numtorch.ones(3, 2),
           "got mat2 is on cpu, different from other tensors on cuda:0 (when checking argument "
           "in method wrapper_CUDA_mm)"),
    "bmm": (lambda x: numtorch.bmm(x[None], numtorch.ones(1, 3, 2)),
            "got mat2 is on cpu, different from other tensors on cuda:0 (when checking argument "
            "in method wrapper_CUDA_bmm)"),
    "linear_bias": (lambda x: F.linear(numtorch.ones(4, 3), x, numtorch.ones(2, device="cuda")),
                    "got mat1 is on cpu, different from other tensors on cuda:0 (when checking "
                    "argument in method wrapper_CUDA_addmm)"),
    "linear": (lambda x: F.linear(x, numtorch.ones(2, 3)),
               "got mat2 is on cpu, different from other tensors on cuda:0 (when checking "
               "argument in method wrapper_CUDA_mm)"),
    "embedding": (lambda x: F.embedding(numtorch.tensor([0, 1]), x),
                  "got index is on cpu, different from other tensors on cuda:0 (when checking "
                  "argument in method wrapper_CUDA__index_select)"),
    "gather": (lambda x: x.gather(1, numtorch.zeros(2, 1, dtype=numtorch.long)),
               "got index is on cpu, different from other tensors on cuda:0 (when checking "
               "argument in method wrapper_CUDA_gather)"),
    "add": (lambda x: x + numtorch.ones(3), "found at least two devices, cuda:0 and cpu!"),
    # the GPU first whatever the operand order (torch 2.11 on an H200)
    "add_cpu_first": (lambda x: numtorch.ones(3) + x,
                      "found at least two devices, cuda:0 and cpu!"),
    "where": (lambda x: numtorch.where(x > 0, x, numtorch.ones(2, 3)),
              "found at least two devices, cuda:0 and cpu!"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_device_mismatch_words(x, case):
    fn, words = CASES[case]
    with pytest.raises(RuntimeError) as info:
        fn(x)
    assert str(info.value) == SAME + words


def test_cpu_scalars_still_combine(x):
    assert (x @ numtorch.ones(3, 2, device="cuda") * numtorch.tensor(2.0)).device.type == "cuda"
    assert numtorch.cat([x, x]).device.type == "cuda"


def test_invalid_ordinal_is_an_accelerator_error(x):
    # torch 2.11 on an H200: AcceleratorError (a RuntimeError), 'CUDA error: invalid device ordinal'
    with pytest.raises(numtorch.AcceleratorError, match="^CUDA error: invalid device ordinal"):
        numtorch.ones(2, device="cuda:7")
    assert issubclass(numtorch.AcceleratorError, RuntimeError)
