# ruff: noqa: PLC3002  (each case builds its tensor and writes it in one expression)
"""Gap (s37): in-place ops and out= whose operand shares the written memory under another
version counter.

torch judges overlap by storage: ``x.data`` (a new version counter over x's storage) and its
views are refused like views of x (``x.add_(x.data.t())`` raises "some elements of the input
tensor and the written-to tensor refer to a single memory location"). Two ``from_numpy`` of
one array are two storages in torch: never refused (numtorch computes them as if cloned,
torch in its kernel's order, so only layouts where the two agree are compared). Every case
runs in both libraries and compares the result or the exception class and message, and the
memory after a refusal.
"""

import numpy as np
import pytest
import torch

import numtorch


def _mk(T):
    return T.arange(9.).reshape(3, 3)


CASES = {
    "data_t": lambda T: (lambda x: x.add_(x.data.t()))(_mk(T)),
    "data_same": lambda T: (lambda x: x.add_(x.data))(_mk(T)),
    "data_scalar": lambda T: (lambda x: x.add_(x.data[0, 0]))(_mk(T)),
    "data_row_into_row": lambda T: (lambda x: x[0].add_(x.data[:, 0]))(_mk(T)),
    "data_shifted_rows": lambda T: (lambda x: x[1:].add_(x.data[:-1]))(_mk(T)),
    "data_copy_t": lambda T: (lambda x: x.copy_(x.data.t()))(_mk(T)),
    "data_sub_alpha": lambda T: (lambda x: x.sub_(x.data.t(), alpha=2))(_mk(T)),
    "data_addcmul": lambda T: (lambda x: x.addcmul_(x.data.t(), x))(_mk(T)),
    "data_clamp": lambda T: (lambda x: x.clamp_(min=x.data.t()))(_mk(T)),
    "data_mul_t": lambda T: (lambda x: x.mul_(x.data.t()))(_mk(T)),
    "data_self_written": lambda T: (lambda x: x.data.mul_(x.t()))(_mk(T)),
    "data_of_view": lambda T: (lambda x: x[1].add_(x.data[1:, 1]))(_mk(T)),
    "data_out_t": lambda T: (lambda x: T.add(x, 1, out=x.data.t()))(_mk(T)),
    "data_exp_out": lambda T: (lambda x: T.exp(x, out=x.data.t()))(_mk(T)),
    "data_mul_out_same": lambda T: (lambda x: T.mul(x, 2, out=x.data))(_mk(T)),
    "data_addmm_unchecked": lambda T: (lambda x: x.addmm_(x.data.t(), x))(_mk(T)),
    "detach_t": lambda T: (lambda x: x.add_(x.detach().t()))(_mk(T)),
    "detach_rows": lambda T: (lambda x: x[1:].add_(x.detach()[:-1]))(_mk(T)),
    "fresh_operand": lambda T: (lambda x: x.add_(x.data.t() + 0))(_mk(T)),
    "graph_tensor_detached_t": lambda T: (lambda x: (lambda y: y.add_(y.detach().t()))(
        x * 1))(_mk(T).requires_grad_()),
    "from_numpy_same": lambda T: (lambda a: T.from_numpy(a).add_(T.from_numpy(a)))(
        np.arange(9.).reshape(3, 3)),
    "from_numpy_shifted": lambda T: (lambda a: T.from_numpy(a[1:]).add_(
        T.from_numpy(a[:-1])))(np.arange(9.)),
    "from_numpy_view_of_one": lambda T: (lambda a: T.from_numpy(a)[1:].add_(
        T.from_numpy(a[:-1])))(np.arange(9.)),
    "from_numpy_data_t": lambda T: (lambda x: x.add_(x.data.t()))(
        T.from_numpy(np.arange(9.).reshape(3, 3))),
    "from_numpy_view_data": lambda T: (lambda x: x[1:].add_(x.data[:-1]))(
        T.from_numpy(np.arange(12.).reshape(4, 3))),
    "from_numpy_out": lambda T: (lambda a: T.add(T.from_numpy(a), 1, out=T.from_numpy(a)))(
        np.arange(4.)),
}


# torch leaves addmm_ unchecked and computes it reading memory BLAS is writing; numtorch
# computes it as if cloned: only "no refusal" is compared
KERNEL_ORDER = {"data_addmm_unchecked"}


def _outcome(T, name):
    try:
        r = CASES[name](T)
    except RuntimeError as e:
        return "raise", str(e)
    return "ok", r.detach().numpy().copy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name):
    ref = _outcome(torch, name)
    got = _outcome(numtorch, name)
    assert got[0] == ref[0], (got, ref)
    if ref[0] == "raise":
        assert got[1] == ref[1]
    elif name not in KERNEL_ORDER:
        np.testing.assert_array_equal(got[1], ref[1])


@pytest.mark.parametrize("spelling", ["data_t", "data_out", "data_scalar"])
def test_memory_unchanged_after_refusal(spelling):
    x = numtorch.arange(9.).reshape(3, 3)
    before = x.numpy().copy()
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        if spelling == "data_t":
            x.add_(x.data.t())
        elif spelling == "data_out":
            numtorch.add(x, 1, out=x.data.t())
        else:
            x.add_(x.data[0, 0])
    np.testing.assert_array_equal(x.numpy(), before)


def test_from_numpy_still_shares_memory():
    a = np.zeros((2, 3), dtype=np.float32)
    t = numtorch.from_numpy(a)
    t += 1
    t[0, 1] = 5
    assert a.tolist() == [[1.0, 5.0, 1.0], [1.0, 1.0, 1.0]]
    a[1, 2] = 7
    assert t[1, 2].item() == 7
    assert numtorch.from_numpy(a.T).stride() == torch.from_numpy(a.T).stride()
    assert numtorch.from_numpy(a[:, 1:]).storage_offset() == \
        torch.from_numpy(a[:, 1:]).storage_offset()
    assert numtorch.from_numpy(np.zeros((2, 0))).shape == (2, 0)
