"""Session 41 parity fixes found by the user programs, each checked against torch at test time:
the ``__name__`` of torch.linalg/fft/special functions, sparse_coo_tensor's size check order,
the sign of a zero float remainder."""

import math

import pytest
import torch

import numtorch


def _public_functions(mod):
    return [n for n in dir(mod) if not n.startswith("_") and callable(getattr(mod, n))
            and not isinstance(getattr(mod, n), type)]


@pytest.mark.parametrize("ns", ["linalg", "fft", "special"])
def test_namespace_functions_carry_torch_builtin_names(ns):
    theirs, mine = getattr(torch, ns), getattr(numtorch, ns)
    names = _public_functions(theirs)
    assert names
    for name in names:
        assert getattr(mine, name).__name__ == getattr(theirs, name).__name__, name


def test_shared_functions_keep_their_top_level_names():
    for name in ("erf", "matmul", "digamma", "log1p", "expm1", "i0"):
        assert getattr(numtorch, name).__name__ == getattr(torch, name).__name__
    x = [[1.0, 2.0], [3.0, 4.0]]
    assert numtorch.linalg.matmul(numtorch.tensor(x), numtorch.tensor(x)).tolist() == \
        torch.linalg.matmul(torch.tensor(x), torch.tensor(x)).tolist()
    assert numtorch.special.erf(numtorch.tensor(0.5)).item() == torch.special.erf(torch.tensor(0.5)).item()


def _error(lib, fn):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001 - the class and message are compared
        return type(e).__name__, str(e)
    return None


CASES = [([0, 1], (2,), [1.0, 2.0]), ([0, 1], (2,), [[1.0, 2.0]]), ([0, 1], (2, 3), [1.0, 2.0]),
         ([0, 1], (2, 3), [[1.0, 2.0]]), ([0], (2,), [1.0, 2.0]), ([0], (2,), [[1.0, 2.0]]),
         ([0, 1, 0], (2, 2, 2), [1.0, 2.0]), ([[0, 1]], (2, 3, 4), [1.0, 2.0]),
         ([[0, 1]], (2, 3, 4), [[1.0, 2.0]]), ([[0, 1]], (3,), [1.0])]


@pytest.mark.parametrize("ind,size,vals", CASES)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sparse_coo_size_and_index_checks_in_torch_order(ind, size, vals):
    def fn(lib):
        return lib.sparse_coo_tensor(lib.tensor(ind), lib.tensor(vals), size)
    want = _error(torch, fn)
    assert want is not None
    assert _error(numtorch, fn) == want


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_zero_remainder_keeps_the_dividend_sign(dtype):
    a = [-0.0, 0.0, -4.0, 4.0, 3.0, -3.0, 0.0, -0.0, 5.5, -5.5, 6.0]
    b = [2.0, -2.0, 2.0, -2.0, math.inf, math.inf, math.inf, -math.inf, 0.0, -2.0, -3.0]
    for lib_a, lib_b in ((a, b), (a, 2.0), (a, -2.0)):
        want = torch.remainder(torch.tensor(lib_a, dtype=getattr(torch, dtype)),
                               torch.tensor(lib_b, dtype=getattr(torch, dtype)))
        got = numtorch.remainder(numtorch.tensor(lib_a, dtype=getattr(numtorch, dtype)),
                                 numtorch.tensor(lib_b, dtype=getattr(numtorch, dtype)))
        w, g = want.float().tolist(), got.float().tolist()
        assert [0 if math.isnan(v) else math.copysign(1, v) for v in w] == \
            [0 if math.isnan(v) else math.copysign(1, v) for v in g]
        assert str(w) == str(g)
    assert str(numtorch.tensor(-4.0) % 2) == str(torch.tensor(-4.0) % 2)
    x = numtorch.tensor([-4.0, 4.0])
    x %= 2
    assert str(x) == str(torch.tensor([-0.0, 0.0]))
