"""complex32 (chalf) at the dtype level as torch 2.13 has it (oracle: real torch at test
time): its properties, float16.to_complex(), promotion and casting rules, pickling; and the
half-precision complex builders' errors that torch raises too. (numtorch cannot hold
complex32 tensors: NumPy has no such element type; see numtorch/_dtype_extra.py.)"""

import pickle

import pytest

from tests.oracle import same


def test_complex32_dtype_properties():
    same(lambda t: (t.chalf is t.complex32, repr(t.chalf), str(t.complex32), t.chalf.is_complex,
                    t.chalf.itemsize, t.chalf.is_floating_point, t.chalf.is_signed,
                    t.chalf.to_real(), t.chalf.to_complex(), t.float16.to_complex(),
                    t.float16.to_complex().to_real(), pickle.loads(pickle.dumps(t.chalf))))


@pytest.mark.parametrize("other", ["float16", "bfloat16", "float32", "float64", "int64", "bool",
                                   "complex64", "complex128", "uint8"])
def test_complex32_promotion_and_casting(other):
    def run(t):
        o = getattr(t, other)
        return (t.promote_types(t.chalf, o), t.promote_types(o, t.chalf),
                t.can_cast(t.chalf, o), t.can_cast(o, t.chalf))

    same(run)


def test_polar_of_half_parts_refused_as_torch_does():
    same(lambda t: t.polar(t.ones(1, dtype=t.half), t.ones(1, dtype=t.half)))


def test_to_complex_of_other_dtypes():
    def run(t):
        out = []
        for d in (t.float32, t.float64, t.bfloat16, t.complex64, t.int32, t.bool):
            try:
                out.append(d.to_complex())
            except RuntimeError as e:
                out.append(str(e))
        return out

    same(run)
