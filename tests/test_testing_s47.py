"""``torch.testing``: ``make_tensor`` draws the same tensor as torch for the same seed (every
dtype family, bounds, defaults, non-contiguous, memory formats, excluded zeros, ranges wider
than ``uniform_`` takes) and raises torch's errors and warning; ``assert_close`` reports
differences computed as torch computes them; factory functions word bad sizes as torch does;
``uniform_`` refuses a range wider than the dtype's maximum."""

import warnings

import pytest
import torch

import numtorch

INF = float("inf")

DRAWS = [
    ("float32", {}), ("float32", {"low": 0, "high": 1}), ("float64", {"low": -2, "high": 5}),
    ("float16", {}), ("bfloat16", {"low": 0.5, "high": 0.75}), ("complex64", {}),
    ("complex128", {"low": -1, "high": 1}), ("int64", {}), ("int32", {"low": 2, "high": 50}),
    ("int8", {"low": -1000, "high": 1000}), ("uint8", {}), ("uint8", {"low": -300, "high": 5}),
    ("int16", {"low": 1.2, "high": 2.5}), ("uint16", {}), ("uint32", {"low": -5, "high": 3}),
    ("bool", {}), ("bool", {"low": -1000, "high": 1000}),
    ("int64", {"low": -INF, "high": INF}), ("float32", {"low": -INF, "high": INF}),
    ("float32", {"low": -INF, "high": 0}), ("float16", {"low": -1e6, "high": 0}),
    ("float32", {"low": -2e38, "high": 2e38}), ("float32", {"low": 3.4e38, "high": 2e39}),
    ("complex64", {"low": -INF, "high": INF}),
    ("float32", {"noncontiguous": True}), ("int64", {"noncontiguous": True}),
    ("float32", {"exclude_zero": True, "low": -1, "high": 1}),
    ("int64", {"exclude_zero": True, "low": -1, "high": 2}),
    ("bool", {"exclude_zero": True}),
    ("float32", {"requires_grad": True, "noncontiguous": True}),
    ("float32", {"memory_format": "channels_last"}),
]


def _draw(lib, dt, kw, shape=(3, 4, 2, 5), seed=0):
    kw = dict(kw)
    if kw.get("memory_format"):
        kw["memory_format"] = getattr(lib, kw["memory_format"])
    lib.manual_seed(seed)
    return lib.testing.make_tensor(shape, dtype=getattr(lib, dt), device="cpu", **kw)


@pytest.mark.parametrize(("dt", "kw"), DRAWS, ids=[f"{d}-{sorted(k.items())}" for d, k in DRAWS])
def test_make_tensor_draws_what_torch_draws(dt, kw):
    want, got = _draw(torch, dt, kw), _draw(numtorch, dt, kw)
    assert str(got.dtype) == str(want.dtype)
    assert got.shape == want.shape and got.stride() == want.stride()
    assert got.is_contiguous() == want.is_contiguous()
    assert got.requires_grad == want.requires_grad and got.is_leaf == want.is_leaf
    assert got.detach().tolist() == want.detach().tolist()


@pytest.mark.parametrize("shape", [(), (1,), (0, 3), (7,), [2, 3]], ids=str)
def test_make_tensor_shapes_and_layouts(shape):
    for kw in ({"noncontiguous": True}, {}):
        want = _draw(torch, "float32", kw, shape=shape)
        got = _draw(numtorch, "float32", kw, shape=shape)
        assert (got.shape, got.stride(), got.tolist()) == (want.shape, want.stride(),
                                                             want.tolist())
    torch.manual_seed(1)
    numtorch.manual_seed(1)
    want = torch.testing.make_tensor(2, 3, dtype=torch.float32, device="cpu")
    got = numtorch.testing.make_tensor(2, 3, dtype=numtorch.float32, device="cpu")
    assert got.tolist() == want.tolist()


ERRORS = [
    ("float32", {"low": 2, "high": 1}), ("int64", {"low": 1, "high": 1}),
    ("int64", {"low": 1.5, "high": 1.5}), ("bool", {"low": 1.2, "high": 1.8}),
    ("int64", {"low": 1.2, "high": 1.8}), ("int64", {"low": 0.5, "high": 1}),
    ("float32", {"low": float("nan")}), ("int64", {"low": 2, "high": float("nan")}),
    ("float32", {"high": -20}), ("int64", {"high": -20}), ("bool", {"low": 3}),
    ("int8", {"low": 128, "high": 1000}), ("int8", {"low": -1000, "high": -128}),
    ("float16", {"low": 65504, "high": 1e6}), ("int64", {"low": 2 ** 63, "high": 2 ** 64}),
    ("uint16", {"low": 1e300, "high": INF}), ("int32", {"low": 1e300, "high": INF}),
    ("bfloat16", {"low": 1e300, "high": INF}), ("complex64", {"low": 1e300, "high": INF}),
    ("float32", {"low": -2e39, "high": -1e39}), ("int32", {"requires_grad": True}),
    ("float32", {"noncontiguous": True, "memory_format": "contiguous_format"}),
    ("float32", {"low": 1 + 1j, "high": 2.0}), ("quint8", {}),
]


def _error(lib, dt, kw, shape=(2,)):
    try:
        _draw(lib, dt, kw, shape=shape)
    except Exception as e:  # noqa: BLE001 - the class and text are compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize(("dt", "kw"), ERRORS,
                         ids=[f"{d}-{sorted(k.items())}" for d, k in ERRORS])
def test_make_tensor_errors_match_torch(dt, kw):
    want = _error(torch, dt, kw)
    assert want is not None
    assert _error(numtorch, dt, kw) == want


def test_make_tensor_shape_errors_and_equal_bounds_warning():
    for shape in [(-1,), (2.0,), (2, 3.0)]:
        assert _error(numtorch, "float32", {}, shape) == _error(torch, "float32", {}, shape)
    for lib in (torch, numtorch):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            out = _draw(lib, "float32", {"low": 3, "high": 3.0}, shape=(2,))
        assert out.tolist() == [3.0, 3.0]
        assert [(w.category, w.filename) for w in seen] == [(FutureWarning, __file__)]
        assert "`low==high`" in str(seen[0].message)


PAIRS = [
    (lambda L: L.tensor(1.0), lambda L: L.tensor(1.3)),
    (lambda L: L.tensor([1, 2]), lambda L: L.tensor([1, 3])),
    (lambda L: L.tensor([3], dtype=L.int32), lambda L: L.tensor([7], dtype=L.int32)),
    (lambda L: L.tensor(7, dtype=L.uint8), lambda L: L.tensor(3, dtype=L.uint8)),
    (lambda L: L.tensor([1.0], dtype=L.float16), lambda L: L.tensor([1.75], dtype=L.float16)),
    (lambda L: L.tensor([1.0], dtype=L.bfloat16), lambda L: L.tensor([1.7], dtype=L.bfloat16)),
    (lambda L: L.tensor([1 + 1j]), lambda L: L.tensor([1 + 2j])),
    (lambda L: L.tensor(1 + 1j), lambda L: L.tensor(1 + 3j)),
    (lambda L: L.tensor([1.0, 3.0]), lambda L: L.tensor([1.1, 3.3])),
    (lambda L: L.tensor(2.0, dtype=L.float64), lambda L: L.tensor(0.0, dtype=L.float64)),
]


def _message(lib, make_a, make_b):
    try:
        lib.testing.assert_close(make_a(lib), make_b(lib))
    except AssertionError as e:
        return str(e)
    return None


@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_assert_close_reports_differences_as_torch(i):
    want = _message(torch, *PAIRS[i])
    assert want is not None
    assert _message(numtorch, *PAIRS[i]) == want


SIZES = [((2.0,),), ((2, 3.0),), (2.0,), (2, 3.0), ([2.0],), ((True,),), ((2, "a"),),
         ((2, None),)]


@pytest.mark.parametrize("fn", ["empty", "zeros", "ones", "randn", "rand"])
@pytest.mark.parametrize("args", SIZES, ids=str)
def test_factory_size_errors_match_torch(fn, args):
    def error(lib):
        with pytest.raises(TypeError) as info:
            getattr(lib, fn)(*args)
        return str(info.value)

    assert error(numtorch) == error(torch)


def test_size_keyword_with_a_bad_first_entry():
    with pytest.raises(TypeError) as want:
        torch.empty(size=(2.0,))
    with pytest.raises(TypeError) as got:
        numtorch.empty(size=(2.0,))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize(("dt", "bound"), [("float64", 1e308), ("float16", 40000.0),
                                           ("bfloat16", 2e38), ("float32", 1.7014118346046923e38),
                                           ("complex64", 3e38), ("float32", 1e38)])
def test_uniform_refuses_a_range_wider_than_the_dtype(dt, bound):
    def run(lib):
        try:
            lib.manual_seed(0)
            return lib.empty(3, dtype=getattr(lib, dt)).uniform_(-bound, bound).tolist()
        except RuntimeError as e:
            return str(e)

    assert run(numtorch) == run(torch)
