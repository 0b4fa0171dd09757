"""``torch._foreach_*`` against torch 2.13: every name torch has, values and dtypes for each
operand form (number, list of numbers, 0-d tensor, list of tensors, alpha), in-place forms
returning their list, gradients through the out-of-place forms, and torch's errors."""

import numpy as np
import pytest
import torch

import numtorch

RNG = np.random.default_rng(3)
SHAPES = [(3,), (2, 4), ()]


def _lists(L, positive=False, dtype="float64"):
    out = []
    for s in SHAPES:
        a = RNG.standard_normal(s)
        if positive:
            a = np.abs(a) + 0.5
        out.append(a)
    return out


def _make(L, arrays, dtype="float64"):
    return [L.tensor(a, dtype=getattr(L, dtype)) for a in arrays]


def _same(a, b):
    if isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), (type(a), type(b))
        for x, y in zip(a, b):
            _same(x, y)
        return
    if b is None:
        assert a is None
        return
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12,
                               equal_nan=True)


def _both(fn):
    try:
        want = fn(torch)
    except Exception as e:  # noqa: BLE001 - the oracle's class and message are the spec
        with pytest.raises(type(e)) as got:
            fn(numtorch)
        assert str(got.value) == str(e)
        return None
    got = fn(numtorch)
    _same(got, want)
    return got


def test_every_torch_name_exists():
    names = {n for n in dir(torch) if n.startswith("_foreach_")}
    missing = sorted(n for n in names if not hasattr(numtorch, n))
    assert not missing


UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
         "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
         "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"]


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    arrays = _lists(None, positive=name in ("log", "log10", "log2", "rsqrt", "sqrt", "acos",
                                            "asin"))
    if name in ("acos", "asin"):
        arrays = [a / 4 for a in arrays]
    _both(lambda L: getattr(L, f"_foreach_{name}")(_make(L, arrays)))

    def inplace(L):
        xs = _make(L, arrays)
        r = getattr(L, f"_foreach_{name}_")(xs)
        assert r is xs
        return xs

    _both(inplace)


BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "clamp_min", "clamp_max"]


def _operands(L, form):
    if form == "number":
        return 1.5
    if form == "int":
        return 2
    if form == "numbers":
        return [0.5, -2.0, 3]
    if form == "0-d tensor":
        return L.tensor(0.75, dtype=L.float64)
    if form == "tensors":
        return _make(L, ARR2)


ARR1 = _lists(None, positive=True)
ARR2 = _lists(None, positive=True)


@pytest.mark.parametrize("form", ["number", "int", "numbers", "0-d tensor", "tensors"])
@pytest.mark.parametrize("name", BINARY)
def test_binary(name, form):
    _both(lambda L: getattr(L, f"_foreach_{name}")(_make(L, ARR1), _operands(L, form)))

    def inplace(L):
        xs = _make(L, ARR1)
        r = getattr(L, f"_foreach_{name}_")(xs, _operands(L, form))
        assert r is xs
        return xs

    _both(inplace)


@pytest.mark.parametrize("name", ["add", "sub"])
@pytest.mark.parametrize("form", ["tensors", "0-d tensor"])
def test_alpha(name, form):
    _both(lambda L: getattr(L, f"_foreach_{name}")(_make(L, ARR1), _operands(L, form),
                                                   alpha=-2.5))


def test_number_to_the_powers():
    _both(lambda L: L._foreach_pow(2.0, _make(L, ARR1)))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", ["default", 2.0, [1.0, -1.0, 0.5], "tensor"])
def test_ternary(name, value):
    def run(L, inplace=False):
        args = []
        if value == "tensor":
            args.append(L.tensor([1.0, 2.0, -3.0], dtype=L.float64))
        elif value != "default":
            args.append(value)
        xs = _make(L, ARR1)
        fn = getattr(L, f"_foreach_{name}" + ("_" if inplace else ""))
        r = fn(xs, _make(L, ARR2), _make(L, ARR1), *args)
        return xs if inplace else r

    _both(run)
    _both(lambda L: run(L, True))


@pytest.mark.parametrize("weight", [0.3, [0.1, 0.5, 0.9], "tensors"])
def test_lerp(weight):
    def run(L, inplace=False):
        w = _make(L, ARR2) if weight == "tensors" else weight
        xs = _make(L, ARR1)
        if inplace:
            assert L._foreach_lerp_(xs, _make(L, ARR2), w) is xs
            return xs
        return L._foreach_lerp(xs, _make(L, ARR2), w)

    _both(run)
    _both(lambda L: run(L, True))


def test_value_keyword_takes_numbers_only():
    for L in (torch, numtorch):
        xs = _make(L, ARR1)
        with pytest.raises(TypeError):
            L._foreach_addcmul(xs, xs, xs, value=[1.0, 2.0, 3.0])
        with pytest.raises(TypeError):
            L._foreach_addcdiv(xs, xs, xs, value=L.ones(3, dtype=L.float64))


@pytest.mark.parametrize("ord", [2, 1, 0, float("inf"), 1.5])
def test_norm_and_powsum(ord):
    # float32: torch's list kernel and its vector_norm round the sum differently (1 ulp)
    a = numtorch._foreach_norm(_make(numtorch, ARR1, "float32"), ord)
    b = torch._foreach_norm(_make(torch, ARR1, "float32"), ord)
    for x, y in zip(a, b):
        assert x.dtype == numtorch.float32 and x.shape == ()
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=3e-7)
    _both(lambda L: L._foreach_norm(_make(L, ARR1), ord))
    _both(lambda L: L._foreach_norm(_make(L, ARR1, "float32"), ord, dtype=L.float64))
    if ord not in (0, float("inf")):
        _both(lambda L: L._foreach_powsum(_make(L, ARR1), ord))


def test_max_clone_mm_copy_zero():
    _both(lambda L: L._foreach_max(_make(L, ARR1)))
    _both(lambda L: L._foreach_clone(_make(L, ARR1)))
    mats = [RNG.standard_normal((2, 3)), RNG.standard_normal((4, 1))]
    rhs = [RNG.standard_normal((3, 2)), RNG.standard_normal((1, 5))]
    _both(lambda L: L._foreach_mm(_make(L, mats), _make(L, rhs)))

    def copy(L):
        xs = _make(L, ARR1)
        assert L._foreach_copy_(xs, _make(L, ARR2)) is xs
        return xs

    _both(copy)

    def zero(L):
        xs = _make(L, ARR1)
        assert L._foreach_zero_(xs) is xs
        return xs

    _both(zero)


def test_promotion_and_integer_inplace():
    _both(lambda L: L._foreach_add([L.ones(2, dtype=L.int64)], 1.5))
    _both(lambda L: L._foreach_add_([L.ones(2, dtype=L.int64)], 1.5))
    _both(lambda L: L._foreach_sqrt([L.tensor([4, 9])]))
    _both(lambda L: L._foreach_sign([L.tensor([-2, 0, 3])]))
    _both(lambda L: L._foreach_neg([L.tensor([True])]))
    _both(lambda L: L._foreach_norm([L.ones(2, dtype=L.int64)]))


ERRORS = {
    "empty list": lambda L: L._foreach_add([], 1),
    "tensor lists of two lengths": lambda L: L._foreach_add(_make(L, ARR1), _make(L, ARR2)[:1]),
    "scalar list length": lambda L: L._foreach_mul(_make(L, ARR1), [1.0, 2.0]),
    "non-scalar tensor": lambda L: L._foreach_mul(_make(L, ARR1), L.ones(2)),
    "copy_ lengths": lambda L: L._foreach_copy_(_make(L, ARR1), _make(L, ARR2)[:2]),
    "leaf in-place": lambda L: L._foreach_mul_([L.ones(2, requires_grad=True)], 3.0),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name):
    _both(ERRORS[name])


@pytest.mark.parametrize("name", ["not a list", "a string operand"])
def test_type_errors(name):
    for L in (torch, numtorch):
        with pytest.raises(TypeError):
            if name == "not a list":
                L._foreach_add(L.ones(2), 1)
            else:
                L._foreach_add([L.ones(2)], "x")


def test_gradients_through_out_of_place_forms():
    def run(L):
        xs = [t.requires_grad_() for t in _make(L, ARR1)]
        ys = _make(L, ARR2)
        a = L._foreach_mul(xs, ys)
        b = L._foreach_addcmul(a, xs, ys, value=0.5)
        c = L._foreach_exp(L._foreach_lerp(b, ys, 0.25))
        n = L._foreach_norm(c)
        total = sum(v * (i + 1) for i, v in enumerate(n))
        grads = L.autograd.grad(total, xs)
        return tuple(n) + tuple(grads)

    _both(run)


def test_ema_update_as_timm_writes_it():
    def run(L):
        L.manual_seed(0)
        m = L.nn.Linear(4, 3)
        ema = [p.detach().clone() for p in m.parameters()]
        with L.no_grad():
            for _ in range(3):
                for p in m.parameters():
                    p.add_(0.1)
                L._foreach_lerp_(ema, list(m.parameters()), 1 - 0.9)
                L._foreach_mul_(ema, 0.999)
                L._foreach_add_(ema, list(m.parameters()), alpha=0.001)
        return ema

    _both(run)
