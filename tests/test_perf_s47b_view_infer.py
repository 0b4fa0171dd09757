"""Session 47 (perf2): ``view``/``reshape`` with one -1 beside positive Python ints resolve
the shape without the general parser; shapes, strides, aliasing, gradients and the errors of
the cases left to the parser (two -1s, zero sizes, misfits, non-int entries) match torch's."""

import numpy as np
import pytest
import torch

import numtorch

_OK = {
    "flat": ((2, 3, 4), (-1,)),
    "rows": ((12, 64, 65), (-1, 65)),
    "cols": ((6, 4), (6, -1)),
    "middle": ((2, 3, 4), (2, -1, 2)),
    "tuple_arg": ((2, 3, 4), ((-1, 4),)),
    "list_arg": ((2, 3, 4), ([3, -1],)),
    "empty": ((0, 5), (-1, 5)),
    "empty_flat": ((0, 5), (-1,)),
    "scalar": ((), (-1,)),
    "ones": ((1, 1, 3), (-1, 1)),
}

_BAD = {
    "two_free": ((2, 3, 4), (-1, -1)),
    "zero_and_free": ((0, 5), (0, -1)),
    "misfit": ((2, 3, 4), (-1, 5)),
    "below_minus_one": ((2, 3, 4), (-2, 12)),
    "float_entry": ((2, 3, 4), (-1, 4.0)),
}


def _arr(shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


@pytest.mark.parametrize("method", ["view", "reshape"])
@pytest.mark.parametrize("case", sorted(_OK))
def test_one_free_dim_matches_torch(case, method):
    shape, args = _OK[case]
    res = []
    for lib in (torch, numtorch):
        x = lib.tensor(_arr(shape), requires_grad=True)
        base = x * 2
        y = getattr(base, method)(*args)
        g = np.arange(y.numel(), dtype=np.float32).reshape(tuple(y.shape))
        y.backward(lib.tensor(g))
        with lib.no_grad():
            z = getattr(x.detach(), method)(*args)
        res.append((tuple(y.shape), y.stride(), y._base is base, y.detach().numpy().copy(),
                    x.grad.numpy().copy(), tuple(z.shape), z.stride(),
                    z.data_ptr() == x.data_ptr(), type(y.grad_fn).__name__))
    t, n = res
    assert t[:3] == n[:3] and t[5:] == n[5:]
    np.testing.assert_array_equal(t[3], n[3])
    np.testing.assert_array_equal(t[4], n[4])


@pytest.mark.parametrize("method", ["view", "reshape"])
@pytest.mark.parametrize("case", sorted(_BAD))
def test_parser_cases_raise_like_torch(case, method):
    shape, args = _BAD[case]
    res = []
    for lib in (torch, numtorch):
        x = lib.tensor(_arr(shape))
        try:
            getattr(x, method)(*args)
            res.append(None)
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            res.append((type(e).__name__, str(e).split("\n")[0]))
    assert res[0] == res[1]
    assert res[0] is not None


def test_non_contiguous_view_with_free_dim_refused_like_torch():
    res = []
    for lib in (torch, numtorch):
        x = lib.tensor(_arr((4, 6))).t()
        try:
            x.view(-1, 2)
            res.append(None)
        except RuntimeError as e:
            res.append(str(e))
        r = x.reshape(-1, 2)
        res.append((tuple(r.shape), r.stride(), r.numpy().tolist()))
    assert res[0] == res[2] and res[1] == res[3]
