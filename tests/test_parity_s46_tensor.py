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
