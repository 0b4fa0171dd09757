"""dtype objects and type promotion, compared with torch for every pair of dtypes."""

import copy
import itertools
import pickle

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, check_raises

NAMES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
         "complex64", "complex128"]
if numtorch._dtype._BF16_AVAILABLE:  # bfloat16 needs the optional ml_dtypes package
    NAMES.append("bfloat16")
PAIRS = list(itertools.product(NAMES, NAMES))
SCALARS = [True, False, 2, -3, 2.5, -0.5, 1 + 2j, np.float64(1.5), np.int64(3), np.bool_(True),
           np.float32(0.5), np.int8(-2)]
# ``np.float64(1) + tensor`` runs NumPy's operator first; numtorch's Tensor does not (yet) ask
# NumPy to defer (torch sets __array_priority__), so NumPy scalars stay on the right here
_REFLECTED = {"radd", "rsub", "rdiv"}


def _complex32(th_dtype):
    # torch promotes float16 with complex to complex32 (ComplexHalf); NumPy has no such type,
    # so numtorch gives complex64 there (documented in numtorch._dtype)
    return th_dtype == torch.complex32


def _same(nt_value, th_value):
    if isinstance(th_value, torch.dtype):
        if _complex32(th_value):
            assert nt_value is numtorch.complex64
            return
        assert nt_value is getattr(numtorch, str(th_value)[6:]), f"{nt_value} != {th_value}"
    else:
        assert nt_value == th_value


def _outcome(fn, lib):
    try:
        return ("ok", fn(lib))
    except Exception as e:  # noqa: BLE001 - the exception class is the compared outcome
        return ("raises", type(e))


_OPS = {
    "add": lambda t, a, b: (a + b).dtype,
    "sub": lambda t, a, b: t.sub(a, b).dtype,
    "mul": lambda t, a, b: (a * b).dtype,
    "div": lambda t, a, b: (a / b).dtype,
    "eq": lambda t, a, b: (a == b).dtype,
    "where": lambda t, a, b: t.where(t.ones((), dtype=t.bool), a, b).dtype,
    "result_type": lambda t, a, b: t.result_type(a, b),
    "maximum": lambda t, a, b: t.maximum(a, b).dtype,
    "floor_divide": lambda t, a, b: (a // b).dtype,
    "remainder": lambda t, a, b: (a % b).dtype,
    "pow": lambda t, a, b: (a ** b).dtype,
    "lt": lambda t, a, b: (a < b).dtype,
    "atan2": lambda t, a, b: t.atan2(a, b).dtype,
    "bitwise_and": lambda t, a, b: (a & b).dtype,
    "logical_xor": lambda t, a, b: t.logical_xor(a, b).dtype,
}


def _check(nt, th, where):
    """Both libraries returned the same dtype (or value), or raised the same kind of error."""
    assert nt[0] == th[0], f"{where}: numtorch {nt}, torch {th}"
    if th[0] == "ok":
        _same(nt[1], th[1])
    else:
        base = [c for c in th[1].__mro__ if c.__module__ == "builtins"][0]
        assert issubclass(nt[1], base), f"{where}: numtorch raised {nt[1]}, torch {th[1]}"


def _compare(fn, where=""):
    _check(_outcome(fn, numtorch), _outcome(fn, torch), where)


def _tensor(lib, name, shape):
    return lib.ones(shape, dtype=getattr(lib, name))


@pytest.mark.parametrize("op", sorted(_OPS))
@pytest.mark.parametrize("shapes", [((2,), (2,)), ((2,), ()), ((), (2,)), ((), ())],
                         ids=["dim-dim", "dim-0d", "0d-dim", "0d-0d"])
def test_tensor_tensor_promotion_matches_torch(op, shapes):
    fn = _OPS[op]
    s0, s1 = shapes
    for a, b in PAIRS:
        where = f"{op}({a}{list(s0)}, {b}{list(s1)})"
        run = lambda t, a=a, b=b: fn(t, _tensor(t, a, s0), _tensor(t, b, s1))  # noqa: E731
        if _complex32(torch.result_type(_tensor(torch, a, s0), _tensor(torch, b, s1))):
            # numtorch computes in complex64 what torch computes in complex32: compare with
            # torch on the float32 version of the float16 operand
            up = {"float16": "float32"}
            th = _outcome(lambda t: fn(t, _tensor(t, up.get(a, a), s0),
                                       _tensor(t, up.get(b, b), s1)), torch)
            _check(_outcome(run, numtorch), th, where)
            continue
        _compare(run, where)


@pytest.mark.parametrize("op", ["add", "radd", "sub", "rsub", "mul", "div", "rdiv", "eq", "lt",
                                "pow", "maximum_0d", "where", "result_type"])
@pytest.mark.parametrize("shape", [(2,), ()], ids=["dim", "0d"])
def test_tensor_scalar_promotion_matches_torch(op, shape):
    fns = {
        "add": lambda t, x, s: (x + s).dtype,
        "radd": lambda t, x, s: (s + x).dtype,
        "sub": lambda t, x, s: (x - s).dtype,
        "rsub": lambda t, x, s: (s - x).dtype,
        "mul": lambda t, x, s: (x * s).dtype,
        "div": lambda t, x, s: (x / s).dtype,
        "rdiv": lambda t, x, s: (s / x).dtype,
        "eq": lambda t, x, s: (x == s).dtype,
        "lt": lambda t, x, s: (x < s).dtype,
        "pow": lambda t, x, s: (x ** s).dtype,
        "maximum_0d": lambda t, x, s: t.maximum(x, t.tensor(s)).dtype,
        "where": lambda t, x, s: t.where(x == x, x, s).dtype,
        "result_type": lambda t, x, s: t.result_type(x, s),
    }
    fn = fns[op]
    for name in NAMES:
        for s in SCALARS:
            if isinstance(s, np.generic) and (op == "maximum_0d" or op in _REFLECTED):
                # torch.tensor(numpy scalar) keeps the NumPy dtype (a different case), and
                # ``np.float64(1) + tensor`` is NumPy's operator, not the tensor's
                continue
            nt = _outcome(lambda t: fn(t, _tensor(t, name, shape), s), numtorch)
            th = _outcome(lambda t: fn(t, _tensor(t, name, shape), s), torch)
            where = f"{op}({name}{list(shape)}, {s!r})"
            if th[0] == "ok" and _complex32(th[1]):
                assert nt == ("ok", numtorch.complex64), where
                continue
            if th[0] == "raises" and name == "float16" and isinstance(s, complex):
                continue  # torch has no complex32 kernel for this op; numtorch uses complex64
            assert nt[0] == th[0], f"{where}: numtorch {nt}, torch {th}"
            if th[0] == "ok":
                _same(nt[1], th[1])


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_promote_types_and_can_cast_match_torch(a, b):
    da, db = getattr(numtorch, a), getattr(numtorch, b)
    ta, tb = getattr(torch, a), getattr(torch, b)
    _same(numtorch.promote_types(da, db), torch.promote_types(ta, tb))
    assert numtorch.can_cast(da, db) == torch.can_cast(ta, tb)


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_inplace_result_casts_like_torch(a, b):
    # x.add_(y) writes the promoted result into x's dtype, or raises when it cannot be cast
    def fn(t):
        x, y = _tensor(t, a, (2,)), _tensor(t, b, (2,))
        x.add_(y) if a != "bool" or b != "bool" else x.logical_or_(y)
        return x.dtype

    _compare(fn)


def test_result_type_of_scalars_only_matches_torch():
    for a, b in itertools.product([True, 2, 2.5, 1j], repeat=2):
        _same(numtorch.result_type(a, b), torch.result_type(a, b))


@pytest.mark.parametrize("fn", [
    lambda t: t.promote_types(t.float32, "float64"),
    lambda t: t.promote_types(1, t.float32),
    lambda t: t.can_cast(t.float32, None),
    lambda t: t.set_default_dtype(t.int64),
    lambda t: t.set_default_dtype(t.complex64),
    lambda t: t.set_default_dtype("float64"),
    lambda t: t.set_default_dtype(float),
], ids=["promote_str", "promote_type", "can_cast_none", "default_int", "default_complex",
        "default_str", "default_pytype"])
def test_bad_dtype_arguments_raise_type_error(fn):
    nt_exc, th_exc = check_raises(fn)
    assert isinstance(th_exc, TypeError)


# ---------------------------------------------------------------------------------------------
# defaults


@pytest.mark.parametrize("name", ["int64", "int32", "int8", "uint8", "bool"])
def test_true_division_of_integers_gives_default_float(name):
    check_op(lambda t, x: (x / (x.long() + 1), x / 2, 3 / (x.long() + 1),
                           t.true_divide(x, 4), x.float() / 2),
             [np.array([1, 2, 3]).astype(name)], grad=False)


@pytest.mark.parametrize("default", ["float32", "float64", "float16"])
def test_set_default_dtype_changes_python_floats(default):
    def fn(t):
        t.set_default_dtype(getattr(t, default))
        try:
            i = t.tensor([1, 2])
            return [t.get_default_dtype(), t.tensor([1.5]).dtype, t.tensor(2.5).dtype,
                    t.tensor([1, 2]).dtype, (i * 1.5).dtype, (i / 2).dtype, t.sqrt(i).dtype,
                    t.result_type(i, 1.5), t.ones(2).dtype, t.zeros(1).dtype,
                    t.tensor([True]).dtype, (t.ones(2, dtype=t.float32) + 1.5).dtype]
        finally:
            t.set_default_dtype(t.float32)

    for a, b in zip(fn(numtorch), fn(torch)):
        _same(a, b)
    assert numtorch.get_default_dtype() is numtorch.float32


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_default_dtype_decides_complex_scalars(default):
    def fn(t):
        t.set_default_dtype(getattr(t, default))
        try:
            return [t.tensor([1 + 1j]).dtype, (t.tensor([1]) * 1j).dtype,
                    t.result_type(t.tensor([1]), 2j), (t.ones(2, dtype=t.float32) * 1j).dtype]
        finally:
            t.set_default_dtype(t.float32)

    for a, b in zip(fn(numtorch), fn(torch)):
        _same(a, b)


# ---------------------------------------------------------------------------------------------
# dtype objects

ALIASES = [("half", "float16"), ("float", "float32"), ("double", "float64"), ("short", "int16"),
           ("int", "int32"), ("long", "int64"), ("cfloat", "complex64"),
           ("cdouble", "complex128")]


@pytest.mark.parametrize("alias,name", ALIASES)
def test_dtype_aliases_are_the_same_object(alias, name):
    assert getattr(torch, alias) is getattr(torch, name)  # the oracle agrees
    assert getattr(numtorch, alias) is getattr(numtorch, name)


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes_match_torch(name):
    nd, td = getattr(numtorch, name), getattr(torch, name)
    assert isinstance(nd, numtorch.dtype)
    assert repr(nd) == repr(td)
    assert str(nd) == str(td)
    assert nd.is_floating_point == td.is_floating_point
    assert nd.is_complex == td.is_complex
    assert nd.is_signed == td.is_signed
    assert nd.itemsize == td.itemsize
    assert nd.abbr == td.abbr
    _same(nd.to_real(), td.to_real())
    assert nd == nd and nd != numtorch.float32 if name != "float32" else nd == numtorch.float32
    assert hash(nd) == hash(getattr(numtorch, name))


@pytest.mark.parametrize("name", NAMES)
def test_dtype_to_complex_matches_torch(name):
    def fn(t):
        return getattr(t, name).to_complex()

    if name == "float16":  # complex32, the dtype object, in both (no tensors of it here)
        assert fn(numtorch) is numtorch.complex32 and fn(torch) is torch.complex32
        return
    _compare(fn)


@pytest.mark.parametrize("name", NAMES)
def test_dtype_pickles_and_copies_to_the_same_object(name):
    d = getattr(numtorch, name)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(d, protocol)) is d
    assert copy.copy(d) is d
    assert copy.deepcopy(d) is d
    assert pickle.loads(pickle.dumps({"dtype": d, "list": [d, numtorch.float32]})) == \
        {"dtype": d, "list": [d, numtorch.float32]}


def test_dtype_cannot_be_created_or_ordered():
    check_raises(lambda t: t.dtype())
    check_raises(lambda t: t.float32 < t.float64)


@pytest.mark.parametrize("name", NAMES)
def test_tensor_dtype_queries_match_torch(name):
    def fn(t):
        x = t.ones(2, dtype=getattr(t, name))
        return [x.is_floating_point(), x.is_complex(), x.element_size(), x.dtype.is_signed,
                str(x.dtype), x.itemsize]

    assert fn(numtorch) == fn(torch)


def test_python_number_defaults_match_torch():
    def fn(t):
        return [t.tensor(1).dtype, t.tensor(1.0).dtype, t.tensor(True).dtype,
                t.tensor(1j).dtype, t.tensor([1, 2.5]).dtype, t.tensor([True, 2]).dtype,
                t.tensor([1, 2j]).dtype, t.tensor(np.float64(1.5)).dtype,
                t.tensor(np.array([1], dtype=np.int16)).dtype]

    for a, b in zip(fn(numtorch), fn(torch)):
        _same(a, b)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                                  "float8_e5m2fnuz", "float8_e8m0fnu"])
def test_finfo_of_float8_formats_matches_torch(name):
    # numtorch has no float8 arrays, but programs read the formats' limits (fp8 KV caches)
    t, n = torch.finfo(getattr(torch, name)), numtorch.finfo(getattr(numtorch, name))
    for attr in ("bits", "max", "min", "eps", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(n, attr) == getattr(t, attr), attr
    assert repr(n) == repr(t)
