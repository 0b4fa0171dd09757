"""The stand-in's ufuncs return the dtypes CuPy's do (``standin/_types.py``).

CuPy runs the first type loop of a ufunc that its inputs cast to safely, so where a ufunc has
no bfloat16 loop (``where``, ``clip``, ``round``, ``logical_not``, ``rsqrt``, most of
``cupyx.scipy.special``) bfloat16 inputs come back float32, and a bfloat16 array with a Python
float picks the float32 loop (``numpy.result_type(0.0, bfloat16)`` is float64, so the weak
scalar does not fit ``EE->E``). nanoGPT's ``masked_fill(mask, -inf)`` under bfloat16 autocast
failed on an H200 this way; NumPy (and the stand-in before) kept bfloat16.

Where the real package is installed (``import cupy`` needs no GPU), every recorded ufunc's
choice is compared with CuPy's own ``_Ops._guess_routine_from_in_types``.
"""

import ml_dtypes
import numpy as np
import pytest

from tests.cuda import standin
from tests.cuda.standin import _types

cp, cupyx = standin.modules()
BF16 = np.dtype(ml_dtypes.bfloat16)
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


def _dev(dtype, shape=(2, 3)):
    return cp.asarray((np.arange(np.prod(shape)).reshape(shape) % 3 - 1).astype(dtype))


def _mask(shape=(2, 3)):
    return cp.asarray(np.arange(np.prod(shape)).reshape(shape) % 2 == 0)


@pytest.mark.parametrize("y", ["array", -np.inf, 0.0, 1])
def test_where_of_bfloat16_is_float32_as_on_the_gpu(y):
    x = _dev(BF16)
    other = x if y == "array" else y
    r = cp.where(_mask(), x, other)
    assert r.dtype == F32  # '?ff->f': CuPy's where has no bfloat16 loop
    expect = np.where(_mask().get(), x.get().astype(F32),
                      x.get().astype(F32) if y == "array" else np.float32(y))
    np.testing.assert_array_equal(r.get(), expect)


@pytest.mark.parametrize("dtype", [F16, F32, F64, np.dtype(np.int32), np.dtype(bool)])
def test_where_keeps_the_types_cupy_has_loops_for(dtype):
    x = _dev(dtype)
    assert cp.where(_mask(), x, x).dtype == dtype
    if dtype.kind == "f":
        assert cp.where(_mask(), x, -np.inf).dtype == dtype  # a weak float fits 'e'/'f'/'d'


def test_where_takes_a_numpy_bool_condition():
    r = cp.where(np.float32(0.5) == 0, _dev(BF16), 1.0)  # a NumPy bool has astype too
    assert r.dtype == F32 and (r.get() == 1.0).all()


def test_where_mixes_as_cupy_promotes():
    assert cp.where(_mask(), _dev(F16), _dev(F32)).dtype == F32
    assert cp.where(_mask(), _dev(BF16), _dev(F16)).dtype == F32
    assert cp.where(_mask(), _dev(np.int32), 0.5).dtype == F64
    assert cp.where(_mask(), _dev(BF16), _dev(F64)).dtype == F64


def test_bfloat16_arithmetic_with_python_scalars():
    x = _dev(BF16)
    assert (x + x).dtype == BF16
    assert (x * 2).dtype == BF16  # result_type(0, bfloat16) is bfloat16: 'EE->E'
    assert (x * 2.0).dtype == F32  # result_type(0.0, bfloat16) is float64: 'ff->f'
    assert (x - np.float32(2)).dtype == F32  # a NumPy scalar is strong
    assert (x + _dev(F16)).dtype == F32
    assert (_dev(F16) * 2.0).dtype == F16
    np.testing.assert_array_equal((x * 2.0).get(), x.get().astype(F32) * 2)


def test_functions_without_bfloat16_loops():
    x = _dev(BF16)
    assert x.clip(0.0, 1.0).dtype == F32  # _clip: 'eee->e', 'fff->f' but no 'EEE'
    assert cp.clip(x, 0.0, 1.0).dtype == F32
    assert x.round().dtype == F32  # _round_ufunc: 'fq->f'
    assert cp.around(x, 1).dtype == F32
    assert cp.logical_not(x).dtype == np.dtype(bool)
    assert cupyx.rsqrt(x).dtype == F32
    assert cp.exp(x).dtype == BF16 and cp.tanh(x).dtype == BF16
    with pytest.raises(TypeError, match="Unsupported type"):
        x.clip(None, 1.0)  # CuPy fills missing bounds of float ('f') and integer kinds only


def test_float16_kept_where_cupy_keeps_it_and_special_goes_to_float64():
    h = _dev(F16)
    assert h.clip(0.0, 1.0).dtype == F16
    assert cp.around(h, 1).dtype == F16
    assert cupyx.rsqrt(h).dtype == F16
    assert cupyx.scipy.special.erf(h).dtype == F64  # its loops are 'e->d', 'f->f', 'd->d'
    assert cupyx.scipy.special.erf(_dev(BF16)).dtype == F32


def test_integer_rules():
    i = _dev(np.int32)
    assert (i + 1).dtype == np.dtype(np.int32)
    assert (i * 1.5).dtype == F64
    assert (i / 2).dtype == F64
    assert (i < 2 ** 40).dtype == np.dtype(bool)  # comparisons take the int as int64
    with pytest.raises(OverflowError):
        i + 2 ** 40  # the weak int is stored as int32, as CuPy's CScalar does


def test_dtype_keyword_and_refusals():
    assert cp.add(_dev(F16), _dev(F16), dtype=F32).dtype == F32
    assert cp.divide(_dev(np.int32), 2, dtype=F16).dtype == F16  # out_ops: float loops
    with pytest.raises(TypeError, match="boolean subtract"):
        cp.subtract(_dev(bool), _dev(bool))
    with pytest.raises(TypeError, match=r"Wrong type .* of arguments for cupy_bitwise_and"):
        cp.bitwise_and(_dev(F32), _dev(F32))


def test_out_receives_the_loops_type_cast_as_cupy_casts():
    x = _dev(BF16)
    out = cp.empty((2, 3), dtype=BF16)
    r = cp.multiply(x, 2.0, out=out)  # float32 loop; float32 -> bfloat16 is same_kind
    assert r is out and out.dtype == BF16
    np.testing.assert_array_equal(out.get(), (x.get().astype(F32) * 2).astype(BF16))
    i = cp.empty((2, 3), dtype=np.int32)
    with pytest.raises(TypeError, match="Cannot cast output operand from dtype"):
        cp.multiply(_dev(F32), 2.0, out=i)


# every recorded ufunc against CuPy's own resolution, over array dtypes and Python scalars
_ARRAY_TYPES = [np.dtype(c) for c in "?bBhiqQefd"] + [BF16, np.dtype("F")]
_SCALARS = [(np.dtype(np.int64), int), (np.dtype(np.float64), float),
            (np.dtype(np.complex128), complex)]


def _real_ufuncs():
    cupy = pytest.importorskip("cupy")
    import importlib

    import cupyx as real_cupyx  # noqa: F401
    import cupyx.scipy.special  # noqa: F401

    private = {"where": "cupy._sorting.search._where_ufunc",
               "clip": "cupy._core._routines_math._clip",
               "around": "cupy._core.core._round_ufunc",
               "nan_to_num": "cupy._math.misc._nan_to_num",
               "isclose": "cupy._logic.comparison._is_close"}
    out = {}
    for key in _types._TYPES["ufuncs"]:
        if key in private:
            mod, _, attr = private[key].rpartition(".")
            out[key] = getattr(importlib.import_module(mod), attr)
        else:
            mod, _, attr = ("cupy." + key if not key.startswith("cupyx") else key).rpartition(".")
            out[key] = getattr(importlib.import_module(mod), attr)
    assert all(isinstance(u, cupy.ufunc) for u in out.values())
    return out


def _combos(nin):
    if nin == 1:
        return [((t,), None) for t in _ARRAY_TYPES]
    if nin == 2:
        combos = [((a, b), None) for a in _ARRAY_TYPES for b in _ARRAY_TYPES]
        for a in _ARRAY_TYPES:
            for st, w in _SCALARS:
                combos += [((a, st), (False, w)), ((st, a), (w, False))]
        return combos
    # three or more inputs (where, clip, isclose, nan_to_num, special functions): an array
    # dtype first, then that dtype or a Python scalar in every other slot (``where``'s first
    # slot is its bool condition)
    combos = []
    for a in _ARRAY_TYPES:
        for b, wb in [(a, False)] + _SCALARS:
            combos.append(((a,) + (b,) * (nin - 1), None if not wb else
                           (False,) + (wb,) * (nin - 1)))
            combos.append(((np.dtype(bool), a) + (b,) * (nin - 2), None if not wb else
                           (False, False) + (wb,) * (nin - 2)))
    return combos


def _cupy_choice(u, types, weaks):
    """CuPy's loop for ``types``/``weaks``, applying its weak-scalar check first (a cdef
    function in ``_kernel.pyx``, mirrored in ``_types.resolve``)."""
    if weaks is not None:
        arrays = [_types._kind_score(t.type) for t, w in zip(types, weaks) if not w]
        scalars = [_types._kind_score(w) for w in weaks if w]
        if not arrays or max(arrays) < max(scalars):
            weaks = None
    op = u._ops._guess_routine_from_in_types(tuple(types), weaks)
    if op is None:
        return None
    return op.in_types, op.out_types, op.error_func is not None


def test_every_recorded_ufunc_resolves_as_cupy():
    real = _real_ufuncs()
    checked = 0
    for key, u in real.items():
        for types, weaks in _combos(u.nin):
            want = _cupy_choice(u, types, weaks)
            try:
                got = _types.resolve(key, types, weaks)
            except TypeError:
                assert want is None or want[2], (key, types, weaks, want)
                continue
            assert want is not None and not want[2], (key, types, weaks, got)
            assert got == (want[0], want[1]), (key, types, weaks, got, want)
            checked += 1
    assert checked > 10000


def test_recorded_loops_are_the_installed_cupys():
    real = _real_ufuncs()
    for key, u in real.items():
        mine = ["".join(t.char for t in i) + "->" + "".join(t.char for t in o)
                for i, o, _ in _types.loops(key)]
        theirs = [t for t in u.types if "V" not in t.split("->")[0]]
        assert mine == theirs, key
