"""Parity fixes of probe 46, tensors and ops (oracle: real torch at test time): complex to
bool casts, uint64 data past int64's range, ..."""

import pytest

from tests.oracle import same


def _c(t):
    return t.tensor([0 + 2j, 0j, 1.5 + 0j])


def _setb(t, index, value):
    b = t.zeros(3, dtype=t.bool)
    b[index] = value
    return b


def _copyb(t):
    b = t.zeros(3, dtype=t.bool)
    return b.copy_(_c(t))


# -- 1. casts ---------------------------------------------------------------------------------

CASTS = {
    "complex_to_bool": lambda t: _c(t).to(t.bool),
    "complex_bool_method": lambda t: _c(t).bool(),
    "complex128_to_bool": lambda t: _c(t).double().to(t.complex128).bool(),
    "complex_copy_into_bool": _copyb,
    "complex_setitem_bool_slice": lambda t: _setb(t, slice(None), _c(t)),
    "complex_setitem_bool_number": lambda t: _setb(t, 0, 2j),
    "complex_setitem_bool_0d": lambda t: _setb(t, 1, t.tensor(2j)),
    "complex_setitem_bool_mask_0d": lambda t: _setb(t, t.tensor([True, False, True]),
                                                    t.tensor(2j)),
}


@pytest.mark.parametrize("name", sorted(CASTS))
def test_casts(name):
    same(CASTS[name])


# -- 2. creation ------------------------------------------------------------------------------

CREATE = {
    "u64_big_list": lambda t: t.tensor([2 ** 63, 1], dtype=t.uint64),
    "u64_big_scalar": lambda t: t.tensor(2 ** 64 - 1, dtype=t.uint64),
    "u64_big_nested": lambda t: t.tensor([[2 ** 64 - 1, 0], [3, 2 ** 63]], dtype=t.uint64),
    "u64_too_big": lambda t: t.tensor([2 ** 64], dtype=t.uint64),
    "u64_negative": lambda t: t.tensor([-1], dtype=t.uint64),
    "u64_negative_and_big": lambda t: t.tensor([-1, 2 ** 63], dtype=t.uint64),
    "u64_float": lambda t: t.tensor([1.5], dtype=t.uint64),
    "u64_float_scalar": lambda t: t.tensor(1.0, dtype=t.uint64),
    "u64_complex": lambda t: t.tensor([1 + 0j], dtype=t.uint64),
    "u64_bool": lambda t: t.tensor([True, False], dtype=t.uint64),
    "u64_ints": lambda t: t.tensor([[1, 2], [3, 4]], dtype=t.uint64),
    "i64_past_range": lambda t: t.tensor([2 ** 63]),
}


@pytest.mark.parametrize("name", sorted(CREATE))
def test_creation(name):
    same(CREATE[name])


# -- 3. histogram with bin edges that do not increase -----------------------------------------

def _hist_unsorted(t, k):
    g = t.Generator().manual_seed(k)
    n = int(t.randint(2, 9, (1,), generator=g))
    edges = t.randint(0, 10, (n,), generator=g).double()
    x = t.randint(-1, 11, (30,), generator=g).double()
    w = t.rand(30, generator=g, dtype=t.float64)
    return t.histogram(x, bins=edges, weight=w if k % 2 else None, density=k % 3 == 0)


@pytest.mark.parametrize("k", range(12))
def test_histogram_unsorted_edges(k):
    same(lambda t: _hist_unsorted(t, k), rtol=1e-12)


def test_histogram_unsorted_edges_small():
    same(lambda t: t.histogram(t.tensor([1., 2., 2.5, 3.]), bins=t.tensor([2., 1., 3.])))


# -- 4. method forms --------------------------------------------------------------------------

METHODS = {
    "broadcast_to_varargs": lambda t: t.ones(3).broadcast_to(2, 3),
    "broadcast_to_keyword": lambda t: t.ones(3).broadcast_to(size=(2, 3)),
    "broadcast_to_list": lambda t: t.ones(3).broadcast_to([2, -1]),
    "broadcast_to_none": lambda t: t.ones(3).broadcast_to(),
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_methods(name):
    same(METHODS[name])


# -- 5. sparse ----------------------------------------------------------------------------------

def _sparse_rg(t):
    i, v = t.tensor([[0, 1]]), t.tensor([3., 4.])
    s = t.sparse_coo_tensor(i, v, (2,), requires_grad=True)
    plain = t.sparse_coo_tensor(i, v, (2,))
    before = (v.requires_grad, plain.requires_grad, s.requires_grad)
    with t.no_grad():
        v[0] = 100.  # memory stays shared with both
    out = (s.to_dense() * 2).sum()
    out.backward()
    return before, plain.to_dense(), s.to_dense().detach(), v.grad is None, s.grad.to_dense()


SPARSE = {
    "coo_requires_grad_leaves_values": _sparse_rg,
}


@pytest.mark.parametrize("name", sorted(SPARSE))
def test_sparse(name):
    same(SPARSE[name])
