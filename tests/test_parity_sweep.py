"""Small parity defects found in passing, each checked against torch: integer wrap-around of
out-of-range Python numbers, reduced-precision normalisation, messages and exception classes
torch gives for bad input, 0-d and empty inputs of losses and random functions."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import _builtin_base, assert_same


def _run(fn, lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn(lib)
        except Exception as e:  # noqa: BLE001 - the exception is the result compared
            r = e
    return r, [(x.category, str(x.message)) for x in w]


def _comparable(a, b):
    """bfloat16 tensors as float32 ones (torch has no NumPy bfloat16), dtypes checked first."""
    if isinstance(b, torch.Tensor) and b.dtype == torch.bfloat16:
        assert isinstance(a, numtorch.Tensor) and str(a.dtype) == str(b.dtype), f"{a!r}"
        return a.float(), b.float()
    if isinstance(b, (torch.device, torch.dtype)):
        return repr(a), repr(b)
    return a, b


def _same(fn, rtol=0, atol=0, warns=True):
    """``fn(numtorch)`` and ``fn(torch)`` give the same values/dtypes/shapes, or raise the same
    builtin class with the same message; and the same warnings unless ``warns`` is False."""
    (a, wa), (b, wb) = _run(fn, numtorch), _run(fn, torch)
    if isinstance(b, Exception):
        assert isinstance(a, Exception), f"numtorch returned {a!r}; torch raised {b!r}"
        assert isinstance(a, _builtin_base(type(b))), f"{a!r} vs {b!r}"
        assert str(a) == str(b).split(" (Triggered internally")[0], f"{a} vs {b}"
    else:
        assert not isinstance(a, Exception), f"numtorch raised {a!r}; torch gave {b!r}"
        if isinstance(b, (list, tuple)):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                assert_same(*_comparable(x, y), rtol, atol)
        else:
            assert_same(*_comparable(a, b), rtol, atol)
    if warns:
        assert wa == [(c, m.split(" (Triggered internally")[0]) for c, m in wb], f"{wa} != {wb}"


# -- rms_norm in half precision -------------------------------------------------------------------
def _rms(t, dt, value=None, weight_dt=None, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 4)) * 100 if value is None else np.full((3, 4), value)
    w = None if weight_dt is None else t.tensor(rng.standard_normal(4), dtype=weight_dt)
    return t.nn.functional.rms_norm(t.tensor(x, dtype=dt), (4,), w)


RMS = [("f16-300", lambda t: _rms(t, t.float16, 300.)),
       ("f16-small", lambda t: _rms(t, t.float16, 0.01)),
       ("f16-random", lambda t: _rms(t, t.float16)),
       ("bf16-small", lambda t: _rms(t, t.bfloat16, 0.01)),
       ("bf16-huge", lambda t: _rms(t, t.bfloat16, 3e30)),
       ("bf16-random", lambda t: _rms(t, t.bfloat16)),
       ("f16-f32-weight", lambda t: _rms(t, t.float16, weight_dt=t.float32)),
       ("bf16-f64-weight", lambda t: _rms(t, t.bfloat16, weight_dt=t.float64)),
       ("f32-f64-weight", lambda t: _rms(t, t.float32, weight_dt=t.float64)),
       ("f64-f16-weight", lambda t: _rms(t, t.float64, weight_dt=t.float16)),
       ("module-f16", lambda t: t.nn.RMSNorm(4, dtype=t.float16)(t.full((2, 4), 300.,
                                                                       dtype=t.float16))),
       ("module-bf16", lambda t: t.nn.RMSNorm(4, dtype=t.bfloat16)(t.full((2, 4), .01,
                                                                         dtype=t.bfloat16))),
       ("module-f32-on-f16", lambda t: t.nn.RMSNorm(4)(t.full((2, 4), 300., dtype=t.float16)))]


@pytest.mark.parametrize("name,fn", RMS, ids=[c[0] for c in RMS])
def test_rms_norm_reduced_precision(name, fn):
    # torch warns once per process about mixed dtypes (not reproducible per call)
    _same(lambda t: fn(t).detach(), rtol=1e-2, atol=1e-3, warns=False)


def test_rms_norm_half_gradient():
    rng = np.random.default_rng(1)
    x, w, g = rng.standard_normal((3, 4)) * 200, rng.standard_normal(4), rng.standard_normal(
        (3, 4))
    res = []
    for t in (numtorch, torch):
        xt = t.tensor(x, dtype=t.float16, requires_grad=True)
        wt = t.tensor(w, dtype=t.float16, requires_grad=True)
        t.nn.functional.rms_norm(xt, (4,), wt).backward(t.tensor(g, dtype=t.float16))
        res.append((xt.grad, wt.grad))
    for a, b in zip(*res):
        assert_same(a, b, 2e-2, 2e-3)
        assert bool(np.isfinite(a.numpy()).all())


# -- allocations too large: torch's errors, counted in the result's bytes -----------------------
_BIG = 2 ** 40


def _expanded(t, dt=None):
    return t.ones(1, dtype=dt).expand(_BIG)


ALLOC = [
    ("arange", lambda t: t.arange(_BIG)),
    ("arange-float", lambda t: t.arange(0, _BIG, 1.)),
    ("arange-int8", lambda t: t.arange(_BIG, dtype=t.int8)),
    ("arange-2**62", lambda t: t.arange(2 ** 62)),
    ("arange-size-2**63", lambda t: t.arange(2 ** 63 - 1)),
    ("arange-span-overflows", lambda t: t.arange(-2 ** 63 + 1, 2 ** 63 - 1)),
    ("arange-step-2", lambda t: t.arange(0, 2 ** 63 - 1, 2)),
    ("arange-float-1e19", lambda t: t.arange(0., 1e19)),
    ("arange-int32-1e19", lambda t: t.arange(0, 1e19, dtype=t.int32)),
    ("linspace", lambda t: t.linspace(0, 1, _BIG)),
    ("linspace-f64", lambda t: t.linspace(0, 1, _BIG, dtype=t.float64)),
    ("linspace-2**62", lambda t: t.linspace(0, 1, 2 ** 62)),
    ("logspace", lambda t: t.logspace(0, 1, _BIG)),
    ("logspace-int8", lambda t: t.logspace(0, 1, _BIG, dtype=t.int8)),
    ("randperm", lambda t: t.randperm(_BIG)),
    ("randperm-2**62", lambda t: t.randperm(2 ** 62)),
    ("randint", lambda t: t.randint(0, 10, (_BIG,))),
    ("randint-int8", lambda t: t.randint(0, 5, (_BIG,), dtype=t.int8)),
    ("randint-2d-overflow", lambda t: t.randint(0, 10, (2 ** 32, 2 ** 32))),
    ("randint-like", lambda t: t.randint_like(_expanded(t), 5)),
    ("normal-size", lambda t: t.normal(0., 1., (_BIG,))),
    ("normal-size-f64", lambda t: t.normal(0., 1., (_BIG,), dtype=t.float64)),
    ("bernoulli", lambda t: t.bernoulli(_expanded(t))),
    ("bernoulli-p", lambda t: t.bernoulli(_expanded(t, t.float64), 0.5)),
    ("multinomial", lambda t: t.multinomial(t.ones(4), _BIG, replacement=True)),
    ("multinomial-rows", lambda t: t.multinomial(t.ones(3, 4), _BIG, replacement=True)),
    ("zeros-like", lambda t: t.zeros_like(_expanded(t))),
    ("zeros-like-int8", lambda t: t.zeros_like(_expanded(t), dtype=t.int8)),
    ("ones-like", lambda t: t.ones_like(_expanded(t))),
    ("full-like", lambda t: t.full_like(_expanded(t), 2.)),
    ("empty-like", lambda t: t.empty_like(_expanded(t))),
    ("empty-strided", lambda t: t.empty_strided((_BIG,), (1,))),
    ("empty-strided-2d", lambda t: t.empty_strided((2 ** 20, 2 ** 20), (2 ** 20, 1))),
    ("hann", lambda t: t.hann_window(_BIG)),
    ("hann-symmetric", lambda t: t.hann_window(_BIG, periodic=False)),
    ("kaiser", lambda t: t.kaiser_window(_BIG)),
    ("hamming-f64", lambda t: t.hamming_window(_BIG, dtype=t.float64)),
    ("blackman-2**62", lambda t: t.blackman_window(2 ** 62)),
]


@pytest.mark.parametrize("name,fn", ALLOC, ids=[c[0] for c in ALLOC])
def test_allocation_errors(name, fn):
    _same(fn)


def test_arange_sizes_unchanged():
    for args in [(10,), (10, 0, -3), (0, 10, 3), (-5, 5, 3), (5, -5, -3), (0, 0), (1, 1, -1),
                 (0.5, 2.5, .5)]:
        _same(lambda t: t.arange(*args))


# -- device strings and size overflow ----------------------------------------------------------
DEVICE_STRINGS = ["float32", "torch.float32", "foo", "cuda:x", "cpu:0", "cuda:-1", "xyz:0", "",
                  "cpu:1:2", "CPU", "Cuda:0", "cuda:01", "cuda: 1", " cuda", "cuda:1.0", "cpu0",
                  "cuda_x", "a_b:0", "cp-u", "x:y:0", "cuda:2147483648", "cpu:", ":0", "meta",
                  "hpu:1"]


@pytest.mark.parametrize("text", DEVICE_STRINGS)
def test_device_strings(text):
    _same(lambda t: t.device(text))


def test_to_device_string_message():
    _same(lambda t: t.ones(2).to("float32"))
    _same(lambda t: t.ones(2).to(device="float32"))


def _first_line(fn):
    """torch appends a C++ backtrace to its overflow messages: compare the first line."""
    (a, _), (b, _) = _run(fn, numtorch), _run(fn, torch)
    assert type(a) is type(b) is TypeError, (a, b)
    assert str(a) == str(b).split("\n")[0] + '"'


@pytest.mark.parametrize("fn", [
    lambda t: t.empty(2 ** 63), lambda t: t.empty(2 ** 64), lambda t: t.empty(2, 2 ** 63),
    lambda t: t.empty(-2 ** 63 - 1), lambda t: t.zeros(2 ** 63), lambda t: t.empty((2 ** 63,)),
    lambda t: t.empty(size=(2 ** 63,)), lambda t: t.randn(2 ** 63),
    lambda t: t.full((2 ** 63,), 1.), lambda t: t.Tensor(2 ** 63)])
def test_size_overflow(fn):
    _first_line(fn)


# -- pin_memory=True without an accelerator ------------------------------------------------------
def _no_accelerator():
    from numtorch import backend

    return backend.cupy_or_none() is None


PIN = [
    ("zeros", lambda t: t.zeros(2, pin_memory=True)),
    ("zeros-empty", lambda t: t.zeros(0, pin_memory=True)),
    ("zeros-negative", lambda t: t.zeros(-1, pin_memory=True)),
    ("zeros-out", lambda t: t.zeros(2, out=t.ones(2), pin_memory=True)),
    ("ones", lambda t: t.ones(2, pin_memory=True)),
    ("empty", lambda t: t.empty(2, pin_memory=True).shape),
    ("empty-cpu", lambda t: t.empty(2, pin_memory=True, device="cpu").shape),
    ("full", lambda t: t.full((2,), 1., pin_memory=True)),
    ("full-bad-value", lambda t: t.full((2,), "a", pin_memory=True)),
    ("tensor", lambda t: t.tensor([1.], pin_memory=True)),
    ("tensor-bad-data", lambda t: t.tensor("a", pin_memory=True)),
    ("scalar-tensor", lambda t: t.scalar_tensor(1., pin_memory=True)),
    ("rand", lambda t: t.rand(2, pin_memory=True)),
    ("rand-int-dtype", lambda t: t.rand(2, dtype=t.int64, pin_memory=True)),
    ("randn", lambda t: t.randn(2, pin_memory=True)),
    ("randint", lambda t: t.randint(5, (2,), pin_memory=True)),
    ("randint-bad-range", lambda t: t.randint(5, 3, (2,), pin_memory=True)),
    ("randperm", lambda t: t.randperm(3, pin_memory=True)),
    ("randperm-negative", lambda t: t.randperm(-1, pin_memory=True)),
    ("normal", lambda t: t.normal(0., 1., (2,), pin_memory=True)),
    ("arange", lambda t: t.arange(3, pin_memory=True)),
    ("arange-step-0", lambda t: t.arange(0, 1, 0, pin_memory=True)),
    ("range-no-pin", lambda t: t.range(0, 3, pin_memory=True)),
    ("linspace", lambda t: t.linspace(0, 1, 3, pin_memory=True)),
    ("linspace-negative", lambda t: t.linspace(0, 1, -1, pin_memory=True)),
    ("logspace", lambda t: t.logspace(0, 1, 3, pin_memory=True)),
    ("eye", lambda t: t.eye(2, pin_memory=True)),
    ("eye-negative", lambda t: t.eye(-1, pin_memory=True)),
    ("empty-strided", lambda t: t.empty_strided((2,), (1,), pin_memory=True).shape),
    ("zeros-like", lambda t: t.zeros_like(t.ones(2), pin_memory=True)),
    ("zeros-like-false", lambda t: t.zeros_like(t.ones(2), pin_memory=False)),
    ("ones-like", lambda t: t.ones_like(t.ones(2), pin_memory=True)),
    ("empty-like", lambda t: t.empty_like(t.ones(2), pin_memory=True).shape),
    ("full-like", lambda t: t.full_like(t.ones(2), 1., pin_memory=True)),
    ("rand-like", lambda t: t.rand_like(t.ones(2), pin_memory=True)),
    ("randn-like", lambda t: t.randn_like(t.ones(2), pin_memory=True)),
    ("randint-like", lambda t: t.randint_like(t.ones(2), 3, pin_memory=True)),
    ("hann", lambda t: t.hann_window(4, pin_memory=True)),
    ("hann-negative", lambda t: t.hann_window(-1, pin_memory=True)),
    ("kaiser", lambda t: t.kaiser_window(4, pin_memory=True)),
    ("bartlett", lambda t: t.bartlett_window(4, pin_memory=True)),
    ("fftfreq", lambda t: t.fft.fftfreq(4, pin_memory=True)),
    ("rfftfreq", lambda t: t.fft.rfftfreq(4, pin_memory=True)),
    ("new-zeros", lambda t: t.ones(2).new_zeros(2, pin_memory=True)),
    ("new-ones", lambda t: t.ones(2).new_ones((2,), pin_memory=True)),
    ("new-empty", lambda t: t.ones(2).new_empty(2, pin_memory=True)),
    ("new-full", lambda t: t.ones(2).new_full((2,), 1., pin_memory=True)),
]


@pytest.mark.skipif(not _no_accelerator(), reason="pinning works where CUDA is available")
@pytest.mark.parametrize("name,fn", PIN, ids=[c[0] for c in PIN])
def test_pin_memory_without_accelerator(name, fn):
    _same(fn)


# -- Python integers beyond an integer dtype: wrapped, or torch's overflow errors ----------------
def _i8(t, dt=None):
    return t.tensor([1, 2, 3], dtype=dt or t.int8)


def _inplace(name, *args, **kw):
    return lambda t: getattr(_i8(t), name)(*args, **kw)


WRAP = [
    ("add_-300", _inplace("add_", 300)), ("sub_-300", _inplace("sub_", 300)),
    ("mul_-300", _inplace("mul_", 300)), ("mul_-2**40", _inplace("mul_", 2 ** 40)),
    ("iadd-300", _inplace("__iadd__", 300)), ("isub-300", _inplace("__isub__", 300)),
    ("imul-300", _inplace("__imul__", 300)), ("ior-300", _inplace("__ior__", 300)),
    ("iand-300", _inplace("__iand__", 300)), ("ifloordiv-300", _inplace("__ifloordiv__", 300)),
    ("add_-alpha-100", _inplace("add_", 3, alpha=100)),
    ("add_-300-alpha-2", _inplace("add_", 300, alpha=2)),
    ("add_-2**63-alpha-2", _inplace("add_", 2 ** 63, alpha=2)),
    ("add_-alpha-300", _inplace("add_", 3, alpha=300)),
    ("add_-alpha--128", _inplace("add_", 1, alpha=-128)),
    ("add_-alpha--129", _inplace("add_", 1, alpha=-129)),
    ("add_-tensor-alpha-300", lambda t: _i8(t).add_(_i8(t), alpha=300)),
    ("add_-tensor-alpha-100", lambda t: _i8(t).add_(_i8(t), alpha=100)),
    ("sub_-alpha-300", _inplace("sub_", 3, alpha=300)),
    ("add_-2**63", _inplace("add_", 2 ** 63)), ("add_--2**63", _inplace("add_", -2 ** 63)),
    ("add_-2**64-1", _inplace("add_", 2 ** 64 - 1)), ("add_-2**64", _inplace("add_", 2 ** 64)),
    ("add_--2**63-1", _inplace("add_", -2 ** 63 - 1)),
    ("int8-view-mul_", lambda t: _i8(t)[1:].mul_(300)),
    ("uint8-add_--1", lambda t: _i8(t, t.uint8).add_(-1)),
    ("uint8-add_-1000", lambda t: _i8(t, t.uint8).add_(1000)),
    ("uint8-sub_-300", lambda t: _i8(t, t.uint8).sub_(300)),
    ("uint8-mul_--1", lambda t: _i8(t, t.uint8).mul_(-1)),
    ("uint8-add-alpha--1", lambda t: t.add(_i8(t, t.uint8), 1, alpha=-1)),
    ("uint8-add-alpha--255", lambda t: t.add(_i8(t, t.uint8), 1, alpha=-255)),
    ("uint8-add-alpha--256", lambda t: t.add(_i8(t, t.uint8), 1, alpha=-256)),
    ("uint8-add-alpha-256", lambda t: t.add(_i8(t, t.uint8), 1, alpha=256)),
    ("int16-add_-70000", lambda t: _i8(t, t.int16).add_(70000)),
    ("int32-add_-2**33", lambda t: _i8(t, t.int32).add_(2 ** 33)),
    ("int32-add-alpha-2**31", lambda t: t.add(_i8(t, t.int32), 1, alpha=2 ** 31)),
    ("int64-add_-2**63", lambda t: _i8(t, t.int64).add_(2 ** 63)),
    ("int64-add-alpha-2**63", lambda t: t.add(_i8(t, t.int64), 1, alpha=2 ** 63)),
    ("add-300", lambda t: _i8(t) + 300), ("radd-300", lambda t: 300 + _i8(t)),
    ("rsub-300", lambda t: 300 - _i8(t)), ("mul-2**40", lambda t: _i8(t) * 2 ** 40),
    ("add-2**64", lambda t: _i8(t) + 2 ** 64), ("add--2**63-1", lambda t: _i8(t) - 2 ** 63 - 1),
    ("gt-2**64", lambda t: _i8(t) > 2 ** 64),
    ("float-add-2**64", lambda t: t.ones(2) + 2 ** 64),
    ("float-add_-2**64", lambda t: t.ones(2).add_(2 ** 64)),
    ("float-add_-2**63", lambda t: t.ones(2).add_(2 ** 63)),
    ("float-grad-add-2**64", lambda t: t.ones(2, requires_grad=True) + 2 ** 64),
    ("add-alpha-300", lambda t: t.add(_i8(t), 3, alpha=300)),
    ("sub-tensor-alpha-300", lambda t: t.sub(_i8(t), _i8(t), alpha=300)),
    ("add-int8-float-alpha-300", lambda t: t.add(_i8(t), t.ones(3), alpha=300)),
    ("f16-alpha-1e5", lambda t: t.add(t.ones(2, dtype=t.float16), 1, alpha=1e5)),
    ("f32-alpha-1e39", lambda t: t.add(t.ones(2), 1, alpha=1e39)),
    ("bf16-alpha-1e39", lambda t: t.add(t.ones(2, dtype=t.bfloat16), 1, alpha=1e39)),
    ("addcmul-value-300", lambda t: t.addcmul(_i8(t), _i8(t), _i8(t), value=300)),
    ("addcmul-value-300.5", lambda t: t.addcmul(_i8(t), _i8(t), _i8(t), value=300.5)),
    ("addcmul-value-1.5", lambda t: t.addcmul(_i8(t), _i8(t), _i8(t), value=1.5)),
    ("addcmul_-value-300", lambda t: _i8(t).addcmul_(_i8(t), _i8(t), value=300)),
    ("addcmul-f16-value-1e5", lambda t: t.addcmul(*[t.ones(2, dtype=t.float16)] * 3,
                                                  value=1e5)),
    ("addcdiv-f32-value-1e39", lambda t: t.addcdiv(*[t.ones(2)] * 3, value=1e39)),
    ("pow-127", lambda t: _i8(t) ** 127), ("pow-128", lambda t: _i8(t) ** 128),
    ("pow_-300", lambda t: _i8(t).pow_(300)), ("pow--300", lambda t: _i8(t) ** -300),
    ("uint8-pow-256", lambda t: _i8(t, t.uint8) ** 256),
    ("f16-pow-1e5", lambda t: t.ones(2, dtype=t.float16) ** 1e5),
    ("f16-pow-70000", lambda t: t.ones(2, dtype=t.float16) ** 70000),
    ("f16-pow-inf", lambda t: t.ones(2, dtype=t.float16) ** float("inf")),
    ("f32-pow-1e39", lambda t: t.full((2,), 2.) ** 1e39),
    ("300-pow-int8", lambda t: t.pow(300, _i8(t))),
]


@pytest.mark.parametrize("name,fn", WRAP, ids=[c[0] for c in WRAP])
def test_integer_scalars_wrap_or_raise(name, fn):
    _same(fn)


# -- NumPy data torch cannot hold: torch's wording ----------------------------------------------
_BAD_ARRAYS = [
    ("object", lambda: np.array([1], dtype=object)), ("str", lambda: np.array(["a"])),
    ("bytes", lambda: np.array([b"a"])),
    ("datetime", lambda: np.array([1], dtype="datetime64[s]")),
    ("timedelta", lambda: np.array([1], dtype=np.timedelta64)),
    ("longdouble", lambda: np.array([1], dtype=np.longdouble)),
    ("clongdouble", lambda: np.array([1], dtype=np.clongdouble)),
    ("structured", lambda: np.zeros(1, dtype=[("a", np.int8)])),
    ("object-2d", lambda: np.array([[1, 2]], dtype=object)),
    ("big-endian-int", lambda: np.array([1], dtype=">i4")),
    ("big-endian-float", lambda: np.array([1], dtype=">f8")),
    ("datetime-scalar", lambda: np.datetime64(1, "s")),
    ("longdouble-scalar", lambda: np.longdouble(1)), ("str-scalar", lambda: np.str_("a")),
    ("list", lambda: [1, 2]),
]


@pytest.mark.parametrize("fn", ["from_numpy", "tensor", "as_tensor", "asarray"])
@pytest.mark.parametrize("name,make", _BAD_ARRAYS, ids=[c[0] for c in _BAD_ARRAYS])
def test_unconvertible_numpy_data(fn, name, make):
    (a, _), (b, _) = _run(lambda t: getattr(t, fn)(make()), numtorch), \
        _run(lambda t: getattr(t, fn)(make()), torch)
    if not isinstance(b, Exception):  # e.g. tensor([1, 2]): nothing to compare here
        assert not isinstance(a, Exception), a
        return
    assert type(a) is type(b), (a, b)
    # torch's list of supported dtypes names uint16/32/64, which numtorch does not have yet
    head = "The only supported types are:"
    assert str(a).split(head)[0] == str(b).split(head)[0]


# -- Tensor.type() with CUDA names on a machine without CUDA -----------------------------------
def _dt_dev(r):
    return (str(r.dtype), str(r.device))


TYPE_CASES = [
    ("cuda-name", lambda t: _dt_dev(t.ones(2).type("torch.cuda.FloatTensor"))),
    ("cuda-name-kw", lambda t: _dt_dev(t.ones(2).type(dtype="torch.cuda.FloatTensor"))),
    ("cuda-bad-name", lambda t: _dt_dev(t.ones(2).type("torch.cuda.Foo"))),
    ("cuda-dtype-name", lambda t: _dt_dev(t.ones(2).type("torch.cuda.float64"))),
    ("cuda-class", lambda t: _dt_dev(t.ones(2).type(t.cuda.FloatTensor))),
    ("cuda-half-class", lambda t: _dt_dev(t.ones(2).type(t.cuda.HalfTensor))),
    ("cuda-constructor", lambda t: t.cuda.FloatTensor(2)),
    ("int", lambda t: t.ones(2).type(3)),
    ("python-float", lambda t: t.ones(2).type(float)),
    ("object", lambda t: t.ones(2).type(object)),
    ("tensor-class", lambda t: _dt_dev(t.ones(2, dtype=t.float64).type(t.Tensor))),
    ("cpu-class", lambda t: _dt_dev(t.ones(2).type(t.DoubleTensor))),
    ("cpu-name", lambda t: _dt_dev(t.ones(2).type("torch.DoubleTensor"))),
    ("none", lambda t: t.ones(2).type()),
]


@pytest.mark.skipif(not _no_accelerator(), reason="CUDA names work where CUDA is available")
@pytest.mark.parametrize("name,fn", TYPE_CASES, ids=[c[0] for c in TYPE_CASES])
def test_type_names_without_cuda(name, fn):
    _same(fn)


# -- losses of 0-d inputs -------------------------------------------------------------------------
def _s(t, v, rg=False):
    return t.tensor(v, dtype=t.float64, requires_grad=rg)


LOSSES_0D = {
    "bce_with_logits": lambda t, x, y, r: t.nn.functional.binary_cross_entropy_with_logits(
        x, y, reduction=r),
    "bce_with_logits_weights": lambda t, x, y, r: t.nn.functional.binary_cross_entropy_with_logits(
        x, y, weight=_s(t, 2.), pos_weight=_s(t, 3.), reduction=r),
    "bce": lambda t, x, y, r: t.nn.functional.binary_cross_entropy(t.sigmoid(x), y, reduction=r),
    "bce_weight": lambda t, x, y, r: t.nn.functional.binary_cross_entropy(
        t.sigmoid(x), y, weight=_s(t, 2.), reduction=r),
    "mse": lambda t, x, y, r: t.nn.functional.mse_loss(x, y, reduction=r),
    "l1": lambda t, x, y, r: t.nn.functional.l1_loss(x, y, reduction=r),
    "smooth_l1": lambda t, x, y, r: t.nn.functional.smooth_l1_loss(x, y, reduction=r),
    "huber": lambda t, x, y, r: t.nn.functional.huber_loss(x, y, reduction=r),
    "soft_margin": lambda t, x, y, r: t.nn.functional.soft_margin_loss(x, y, reduction=r),
    "kl_div": lambda t, x, y, r: t.nn.functional.kl_div(x, y, reduction=r),
    "kl_div_log_target": lambda t, x, y, r: t.nn.functional.kl_div(x, y, reduction=r,
                                                                   log_target=True),
    "poisson_nll": lambda t, x, y, r: t.nn.functional.poisson_nll_loss(x, y, reduction=r),
    "poisson_nll_full": lambda t, x, y, r: t.nn.functional.poisson_nll_loss(
        x, y + 3, log_input=False, full=True, reduction=r),
    "gaussian_nll": lambda t, x, y, r: t.nn.functional.gaussian_nll_loss(x, y, _s(t, 1.5),
                                                                         reduction=r),
    "hinge_embedding": lambda t, x, y, r: t.nn.functional.hinge_embedding_loss(
        x, t.sign(y - 0.5), reduction=r),
    "margin_ranking": lambda t, x, y, r: t.nn.functional.margin_ranking_loss(x, y, _s(t, 1.),
                                                                             reduction=r),
    "cosine_embedding": lambda t, x, y, r: t.nn.functional.cosine_embedding_loss(
        x, y, _s(t, 1.), reduction=r),
    "cross_entropy_probs": lambda t, x, y, r: t.nn.functional.cross_entropy(x, y, reduction=r),
    "cross_entropy_int_target": lambda t, x, y, r: t.nn.functional.cross_entropy(
        x, t.tensor(0), reduction=r, label_smoothing=2.),
    "cross_entropy_index": lambda t, x, y, r: t.nn.functional.cross_entropy(
        x, t.tensor([0]), reduction=r),
    "nll": lambda t, x, y, r: t.nn.functional.nll_loss(x, t.tensor(0), reduction=r),
    "multilabel_margin": lambda t, x, y, r: t.nn.functional.multilabel_margin_loss(
        x, t.tensor(0), reduction=r),
    "multilabel_soft_margin": lambda t, x, y, r: t.nn.functional.multilabel_soft_margin_loss(
        x, y, reduction=r),
    "multi_margin": lambda t, x, y, r: t.nn.functional.multi_margin_loss(x, t.tensor(0),
                                                                         reduction=r),
    "triplet": lambda t, x, y, r: t.nn.functional.triplet_margin_loss(x, y, x * 2, reduction=r),
    "triplet_distance": lambda t, x, y, r: t.nn.functional.triplet_margin_with_distance_loss(
        x, y, x * 2, reduction=r),
    "ctc": lambda t, x, y, r: t.nn.functional.ctc_loss(x, t.tensor(0), t.tensor(1), t.tensor(1),
                                                       reduction=r),
}


def _loss_and_grad(name, red):
    def fn(t):
        x = _s(t, 0.3, rg=True)
        out = LOSSES_0D[name](t, x, _s(t, 0.7), red)
        out.backward(t.tensor(1.7, dtype=out.dtype).expand(out.shape))
        return out.detach(), x.grad
    return fn


@pytest.mark.parametrize("red", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", list(LOSSES_0D))
def test_losses_of_0d_inputs(name, red):
    _same(_loss_and_grad(name, red), rtol=1e-12, atol=1e-12)


def test_loss_input_dims_for_ctc():
    _same(lambda t: t.nn.functional.ctc_loss(t.ones(3), t.tensor([0]), t.tensor([1]),
                                             t.tensor([1])))
    _same(lambda t: t.nn.functional.ctc_loss(t.ones(3, 2, 2, 2), t.tensor([0]), t.tensor([1]),
                                             t.tensor([1])))


# -- random functions on 0-d and empty tensors (shapes, dtypes, nodes, errors; not values) -------
def _meta(r):
    if isinstance(r, tuple):
        return tuple(_meta(x) for x in r)
    if isinstance(r, (numtorch.Tensor, torch.Tensor)):
        return (tuple(r.shape), str(r.dtype), r.requires_grad,
                r.grad_fn.name() if r.grad_fn is not None else None)
    return r


_SHAPES = {"0d": (), "empty": (0, 3), "empty1d": (0,)}


def _p(t, shape, dt=None, rg=False):
    return t.full(shape, 0.5, dtype=dt or t.float32, requires_grad=rg)


SAMPLERS = [
    ("poisson", lambda t, s: t.poisson(_p(t, s))),
    ("poisson-f64", lambda t, s: t.poisson(_p(t, s, t.float64))),
    ("poisson-grad", lambda t, s: t.poisson(_p(t, s, rg=True))),
    ("bernoulli", lambda t, s: t.bernoulli(_p(t, s))),
    ("bernoulli-p", lambda t, s: t.bernoulli(_p(t, s), 0.3)),
    ("bernoulli-grad", lambda t, s: t.bernoulli(_p(t, s, rg=True))),
    ("bernoulli_", lambda t, s: _p(t, s).bernoulli_()),
    ("bernoulli_-tensor", lambda t, s: _p(t, s).bernoulli_(_p(t, s))),
    ("multinomial", lambda t, s: t.multinomial(_p(t, s), 1)),
    ("multinomial-2-replacement", lambda t, s: t.multinomial(_p(t, s), 2, replacement=True)),
    ("normal-tensor-float", lambda t, s: t.normal(_p(t, s, rg=True), 1.)),
    ("normal-float-tensor", lambda t, s: t.normal(0., _p(t, s, rg=True))),
    ("normal-tensor-tensor", lambda t, s: t.normal(_p(t, s, rg=True), _p(t, s, rg=True))),
    ("normal_", lambda t, s: _p(t, s).normal_()),
    ("uniform_", lambda t, s: _p(t, s).uniform_()),
    ("exponential_", lambda t, s: _p(t, s).exponential_()),
    ("geometric_", lambda t, s: _p(t, s).geometric_(0.5)),
    ("log_normal_", lambda t, s: _p(t, s).log_normal_()),
    ("cauchy_", lambda t, s: _p(t, s).cauchy_()),
    ("random_", lambda t, s: _p(t, s).random_()),
    ("random_-to", lambda t, s: _p(t, s).random_(10)),
    ("random_-int64", lambda t, s: _p(t, s, t.int64).random_(2, 10)),
    ("random_-bool", lambda t, s: _p(t, s, t.bool).random_()),
    ("rand_like", lambda t, s: t.rand_like(_p(t, s, t.float64))),
    ("randn_like", lambda t, s: t.randn_like(_p(t, s))),
    ("randint_like", lambda t, s: t.randint_like(_p(t, s, t.int8), 5)),
    ("dropout", lambda t, s: t.nn.functional.dropout(_p(t, s), 0.5)),
    ("alpha_dropout", lambda t, s: t.nn.functional.alpha_dropout(_p(t, s), 0.5)),
    ("rrelu", lambda t, s: t.nn.functional.rrelu(_p(t, s), training=True)),
]


@pytest.mark.parametrize("shape", list(_SHAPES))
@pytest.mark.parametrize("name,fn", SAMPLERS, ids=[c[0] for c in SAMPLERS])
def test_samplers_on_0d_and_empty_inputs(name, fn, shape):
    _same(lambda t: _meta(fn(t, _SHAPES[shape])))


@pytest.mark.parametrize("fn", [
    lambda t: t.multinomial(t.ones(2, 0), 1), lambda t: t.multinomial(t.ones(2, 0), 1, True),
    lambda t: t.multinomial(t.ones(2, 0), 2, True), lambda t: t.multinomial(t.ones(0, 2), 1),
    lambda t: t.multinomial(t.ones(0, 2), 3, True), lambda t: t.multinomial(t.tensor(1.), 1),
    lambda t: t.multinomial(t.ones(0), 1, True), lambda t: t.multinomial(t.zeros(3), 1, True)])
def test_multinomial_of_empty_weights(fn):
    _same(lambda t: _meta(fn(t)))


# -- LinAlgError as torch names it ---------------------------------------------------------------
def _caught(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the result examined
        return e
    raise AssertionError("no exception")


@pytest.mark.parametrize("fn", [
    lambda t: t.linalg.inv(t.zeros(2, 2)), lambda t: t.linalg.cholesky(-t.eye(2)),
    lambda t: t.linalg.solve(t.zeros(2, 2), t.ones(2)), lambda t: t.inverse(t.zeros(3, 2, 2)),
    lambda t: t.cholesky_inverse(t.zeros(2, 2)),
    lambda t: t.cholesky_inverse(t.tensor([[0., 0.], [2., 1.]]), upper=True),
    lambda t: t.cholesky_inverse(t.tensor([[[1., 0.], [0., 1.]], [[1., 0.], [2., 0.]]]))])
def test_linalg_error_class(fn):
    import pickle

    a, b = _caught(lambda: fn(numtorch)), _caught(lambda: fn(torch))
    assert str(a) == str(b)
    ta, tb = type(a), type(b)
    assert (ta.__name__, ta.__qualname__) == (tb.__name__, tb.__qualname__) == (
        "_LinAlgError", "_LinAlgError")
    assert ta.__module__ == "numtorch" and tb.__module__ == "torch._C"  # torch._C is numtorch
    assert [c.__name__ for c in ta.__mro__] == [c.__name__ for c in tb.__mro__]
    assert numtorch.linalg.LinAlgError is ta is numtorch._LinAlgError
    assert repr(a) == repr(b)
    assert type(pickle.loads(pickle.dumps(a))) is ta


def test_cholesky_inverse_of_regular_factors_unchanged():
    _same(lambda t: t.cholesky_inverse(t.tensor([[2., 0.], [1., 1.]], dtype=t.float64)),
          rtol=1e-12, atol=1e-12)
    _same(lambda t: t.cholesky_inverse(t.zeros(2, 0, 0)))


# -- NumPy's floating-point warnings in threads started after import --------------------------------
def _in_fresh_thread(lib):
    import threading

    box = {}

    def work():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                a = lib.log(lib.zeros(2))
                b = lib.zeros(2) / lib.zeros(2)
                c = lib.tensor([1e5]).half()
                d = lib.softmax(lib.full((3,), float("-inf")), 0)
                box["r"] = (a.tolist(), b.isnan().tolist(), c.tolist(), d.isnan().tolist())
            except Exception as e:  # noqa: BLE001 - the exception is the result compared
                box["r"] = repr(e)

    th = threading.Thread(target=work)
    th.start()
    th.join()
    return box["r"]


def test_fp_errors_silent_in_new_threads():
    assert _in_fresh_thread(numtorch) == _in_fresh_thread(torch)


def test_users_numpy_still_warns_in_new_threads():
    import threading

    box = {}

    def work():
        numtorch.ones(1) + 1
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            np.log(np.zeros(1))
        box["w"] = [x.category for x in w]

    th = threading.Thread(target=work)
    th.start()
    th.join()
    assert box["w"] == [RuntimeWarning]


# -- differentiable optimizers: the update enters the graph ---------------------------------------
def _hypergradient(cls_name, steps=3, **kw):
    def fn(t):
        w0 = t.tensor([1.0, -2.0, 0.5], dtype=t.float64, requires_grad=True)
        h = t.tensor(0.7, dtype=t.float64, requires_grad=True)
        p = w0.clone()  # a non-leaf parameter, as in meta-learning
        opt = getattr(t.optim, cls_name)([p], lr=0.1, differentiable=True, **kw)
        for k in range(steps):
            p.grad = h * w0 * (k + 1) - 0.3
            opt.step()
        gw, gh = t.autograd.grad((p ** 2).sum(), [w0, h])
        return p.detach(), gw, gh, p.grad_fn.name()
    return fn


DIFF_OPT = [
    ("SGD", {}), ("SGD", {"weight_decay": 0.1}), ("SGD", {"momentum": 0.9}),
    ("SGD", {"momentum": 0.9, "dampening": 0.3}),
    ("SGD", {"momentum": 0.9, "nesterov": True, "weight_decay": 0.05}),
    ("SGD", {"maximize": True, "momentum": 0.5}),
    ("Adam", {}), ("Adam", {"weight_decay": 0.1}), ("Adam", {"maximize": True}), ("AdamW", {}),
    ("AdamW", {"weight_decay": 0.2, "maximize": True}),
]


@pytest.mark.parametrize("cls_name,kw", DIFF_OPT, ids=[f"{c}-{k}" for c, k in DIFF_OPT])
def test_differentiable_optimizer_records_the_update(cls_name, kw):
    # torch's differentiable Adam rounds its bias corrections in float32: agreement to ~1e-8
    _same(_hypergradient(cls_name, **kw), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("cls_name", ["Adam", "AdamW"])
def test_differentiable_amsgrad_fails_as_torch(cls_name):
    (a, _), (b, _) = (_run(_hypergradient(cls_name, amsgrad=True), lib)
                      for lib in (numtorch, torch))
    assert type(a) is type(b) is RuntimeError
    head = "one of the variables needed for gradient computation has been modified by an " \
           "inplace operation"
    assert str(a).startswith(head) and str(b).startswith(head)


def test_differentiable_leaf_and_plain_steps():
    def leaf(t):
        p = t.tensor([1.0, 2.0], requires_grad=True)
        opt = t.optim.SGD([p], lr=0.1, differentiable=True)
        p.grad = t.ones(2)
        opt.step()

    _same(leaf)

    def plain(t):  # nothing has history: the update is the ordinary one
        p = t.tensor([1.0, 2.0, 3.0])
        opt = t.optim.Adam([p], lr=0.1, differentiable=True)
        for _ in range(2):
            p.grad = t.tensor([0.5, -1.0, 2.0])
            opt.step()
        return p

    _same(plain, rtol=1e-6, atol=1e-7)


def test_differentiable_without_graph_support_refuses_loudly():
    w0 = numtorch.ones(2, requires_grad=True)
    p = w0 * 1.0
    opt = numtorch.optim.RMSprop([p], lr=0.1, differentiable=True)
    p.grad = numtorch.ones(2)
    with pytest.raises(RuntimeError, match="cannot yet record"):
        opt.step()


# -- stack without autograd: one array stack, same results ---------------------------------------
def _stacked(fn):
    def run(t):
        r = fn(t)
        return r, (r.requires_grad, r.grad_fn.name() if r.grad_fn is not None else None,
                   r.is_contiguous())
    return run


STACKS = [
    ("plain", lambda t: t.stack([t.arange(6.).reshape(2, 3), t.ones(2, 3)])),
    ("dim-last", lambda t: t.stack([t.arange(6.).reshape(2, 3), t.ones(2, 3)], dim=-1)),
    ("dim-1", lambda t: t.stack([t.arange(6.).reshape(2, 3), t.ones(2, 3)], 1)),
    ("0-d", lambda t: t.stack([t.tensor(1), t.tensor(2)])),
    ("empty", lambda t: t.stack([t.ones(0, 2), t.ones(0, 2)], 1)),
    ("promoted", lambda t: t.stack([t.ones(2, dtype=t.int32), t.ones(2, dtype=t.float64)])),
    ("views", lambda t: t.stack([t.arange(6.).reshape(2, 3).t(), t.ones(3, 2)])),
    ("requires-grad", lambda t: t.stack([t.ones(2, requires_grad=True), t.ones(2)])),
    ("under-no-grad", lambda t: _no_grad_stack(t)),
    ("inference", lambda t: _inference_stack(t)),
]


def _no_grad_stack(t):
    with t.no_grad():
        return t.stack([t.ones(2, requires_grad=True), t.ones(2)])


def _inference_stack(t):
    with t.inference_mode():
        r = t.stack([t.ones(2), t.ones(2)])
    assert r.is_inference()
    return r


@pytest.mark.parametrize("name,fn", STACKS, ids=[c[0] for c in STACKS])
def test_stack_without_graph(name, fn):
    _same(_stacked(fn))


def test_default_collate_stacks_once():
    from numtorch.utils.data import default_collate

    batch = [numtorch.full((3, 4, 4), float(i)) for i in range(5)]
    out = default_collate(batch)
    assert out.shape == (5, 3, 4, 4) and out.grad_fn is None
    assert [float(out[i, 0, 0, 0]) for i in range(5)] == [0., 1., 2., 3., 4.]


# -- fast float32 sampling: right distributions, dtypes and bounds -----------------------------------
def _ks(x, cdf):
    import scipy.stats as st

    return st.kstest(np.asarray(x, dtype=np.float64).ravel(), cdf).pvalue


@pytest.mark.parametrize("make", [
    lambda: numtorch.randn(300, 700), lambda: numtorch.empty(300, 700).normal_(),
    lambda: (numtorch.empty(300, 700).normal_(2., 3.) - 2.) / 3.,
    lambda: numtorch.normal(numtorch.zeros(300, 700), 1.),
    lambda: numtorch.randn(300, 700, dtype=numtorch.complex64).real * 2 ** 0.5,
    lambda: numtorch.nn.init.normal_(numtorch.empty(300, 700))])
def test_float32_normal_samples(make):
    import scipy.stats as st

    numtorch.manual_seed(3)
    x = make()
    assert x.dtype in (numtorch.float32,)
    assert _ks(x.numpy(), st.norm.cdf) > 1e-4
    numtorch.manual_seed(3)
    assert bool((make() == x).all())  # seeded streams repeat


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64"])
def test_uniform_stays_below_its_upper_bound(dt):
    import scipy.stats as st

    d = getattr(numtorch, dt)
    for lo, hi in [(0., 1.), (-1., 1.), (0., 0.3)]:
        x = numtorch.empty(200000, dtype=d).uniform_(lo, hi)
        assert x.dtype is d
        assert float(x.min()) >= lo and float(x.max()) < hi
    if dt in ("float32", "float64"):
        assert _ks(numtorch.empty(200000, dtype=d).uniform_(-1., 1.).numpy(),
                   st.uniform(-1, 2).cdf) > 1e-4


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_normal_is_rounded_from_float32(dt):
    x = numtorch.empty(100000, dtype=getattr(numtorch, dt)).normal_(5., 2.)
    assert x.dtype is getattr(numtorch, dt)
    v = x.float().numpy()
    assert abs(v.mean() - 5) < 0.05 and abs(v.std() - 2) < 0.05


@pytest.mark.parametrize("m,s,a,b", [(0., 1., -2., 2.), (0., 0.02, -0.04, 0.04),
                                     (1., 2., -1., 5.), (0., 1., 1., 3.)])
def test_trunc_normal_distribution(m, s, a, b):
    import scipy.stats as st

    numtorch.manual_seed(0)
    x = numtorch.nn.init.trunc_normal_(numtorch.empty(100, 1000), m, s, a, b)
    v = x.numpy()
    assert v.min() >= a and v.max() <= b
    assert _ks(v, st.truncnorm((a - m) / s, (b - m) / s, loc=m, scale=s).cdf) > 1e-4


TRI = [(3, 3), (3, 4, 1), (4, 3, -1), (3, 3, -5), (3, 3, 5), (0, 3), (3, 0), (1, 1), (5, 2, 1),
       (2, 5, -1), (6, 6, 2)]


@pytest.mark.parametrize("fn", ["tril_indices", "triu_indices"])
def test_tri_indices(fn):
    for args in TRI:
        _same(lambda t: getattr(t, fn)(*args))
    _same(lambda t: getattr(t, fn)(3, 3, dtype=t.int32))
    for bad in (lambda t: getattr(t, fn)(-1, 3), lambda t: getattr(t, fn)(3, -2),
                lambda t: getattr(t, fn)(3, 3, dtype=t.float32),
                lambda t: getattr(t, fn)(3, 3, dtype=t.uint8),
                lambda t: getattr(t, fn)(2 ** 20, 2 ** 20)):
        _same(bad)
    if _no_accelerator():
        _same(lambda t: getattr(t, fn)(3, 3, pin_memory=True))


def test_float_of_a_grad_tensor_warns_once_per_process():
    import subprocess
    import sys

    script = ("import sys, warnings\n"
              "t = __import__(sys.argv[1])\n"
              "x = t.tensor(1.5, requires_grad=True)\n"
              "with warnings.catch_warnings(record=True) as w:\n"
              "    warnings.simplefilter('always')\n"
              "    int(x); x.item(); bool(x); float(x.detach())\n"
              "    n0 = len(w)\n"
              "    float(x * 2); float(x); complex(x)\n"
              "print(n0, [str(m.message).split(' (Triggered')[0] for m in w])\n")
    out = [subprocess.run([sys.executable, "-c", script, lib], capture_output=True, text=True,
                          check=True).stdout for lib in ("numtorch", "torch")]
    assert out[0] == out[1]
