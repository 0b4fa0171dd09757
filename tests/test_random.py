"""Random numbers: seeding, generators, state, and the distributions' statistics.

numtorch does not reproduce torch's random stream, so values are never compared with torch;
shapes, dtypes, errors and gradients are, and the statistics are checked with generous bounds.
"""

import math

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_raises

N = 40_000  # samples for the statistical checks; bounds below are about 6 standard errors


def _np(t):
    return t.detach().numpy().astype(np.float64)


def _same_meta(fn):
    """Shape and dtype (not values) of ``fn(numtorch)`` and ``fn(torch)`` agree."""
    a, b = fn(numtorch), fn(torch)
    assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
    assert a.requires_grad == b.requires_grad
    return a


# -- seeding --------------------------------------------------------------------------------------
SAMPLERS = {
    "rand": lambda t, **kw: t.rand(3, 4, **kw),
    "randn": lambda t, **kw: t.randn(3, 4, **kw),
    "randint": lambda t, **kw: t.randint(0, 100, (3, 4), **kw),
    "randperm": lambda t, **kw: t.randperm(10, **kw),
    "normal_tensor": lambda t, **kw: t.normal(t.zeros(3), t.ones(3), **kw),
    "normal_mean": lambda t, **kw: t.normal(t.zeros(3), 2.0, **kw),
    "normal_std": lambda t, **kw: t.normal(1.0, t.ones(3), **kw),
    "normal_size": lambda t, **kw: t.normal(0.0, 1.0, (3,), **kw),
    "bernoulli": lambda t, **kw: t.bernoulli(t.full((50,), 0.5), **kw),
    "bernoulli_p": lambda t, **kw: t.bernoulli(t.zeros(50), 0.5, **kw),
    "multinomial": lambda t, **kw: t.multinomial(t.ones(10), 5, **kw),
    "poisson": lambda t, **kw: t.poisson(t.full((10,), 3.0), **kw),
    "rand_like": lambda t, **kw: t.rand_like(t.zeros(5), **kw),
    "randn_like": lambda t, **kw: t.randn_like(t.zeros(5), **kw),
    "randint_like": lambda t, **kw: t.randint_like(t.zeros(5), 100, **kw),
    "uniform_": lambda t, **kw: t.empty(5).uniform_(**kw),
    "normal_": lambda t, **kw: t.empty(5).normal_(**kw),
    "bernoulli_": lambda t, **kw: t.empty(50).bernoulli_(0.5, **kw),
    "random_": lambda t, **kw: t.empty(5).random_(**kw),
    "exponential_": lambda t, **kw: t.empty(5).exponential_(**kw),
    "geometric_": lambda t, **kw: t.empty(20).geometric_(0.3, **kw),
    "log_normal_": lambda t, **kw: t.empty(5).log_normal_(**kw),
    "cauchy_": lambda t, **kw: t.empty(5).cauchy_(**kw),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_manual_seed_reproduces_and_different_seeds_differ(name):
    fn = SAMPLERS[name]
    numtorch.manual_seed(123)
    a = fn(numtorch)
    numtorch.manual_seed(123)
    b = fn(numtorch)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    numtorch.manual_seed(124)
    c = fn(numtorch)
    assert not np.array_equal(a.numpy(), c.numpy())


@pytest.mark.parametrize("name", SAMPLERS)
def test_every_sampler_takes_a_generator(name):
    fn = SAMPLERS[name]
    a = fn(numtorch, generator=numtorch.Generator().manual_seed(7))
    numtorch.manual_seed(0)
    b = fn(numtorch, generator=numtorch.Generator().manual_seed(7))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    # the generator's stream is its own: the default generator is left untouched
    numtorch.manual_seed(5)
    before = numtorch.get_rng_state()
    fn(numtorch, generator=numtorch.Generator().manual_seed(7))
    assert bool((numtorch.get_rng_state() == before).all())
    # and torch accepts the same keyword
    fn(torch, generator=torch.Generator().manual_seed(7))


def test_generators_are_independent_streams():
    g1 = numtorch.Generator().manual_seed(1)
    g2 = numtorch.Generator().manual_seed(1)
    a1 = numtorch.rand(5, generator=g1)
    numtorch.rand(7)  # drawing from the default generator does not move g2
    a2 = numtorch.rand(5, generator=g2)
    np.testing.assert_array_equal(a1.numpy(), a2.numpy())
    assert not np.array_equal(numtorch.rand(5, generator=g1).numpy(), a1.numpy())


def test_generator_api_matches_torch():
    for t in (numtorch, torch):
        g = t.Generator()
        assert g.manual_seed(5) is g
        assert g.initial_seed() == 5
        assert str(g.device) == "cpu"
        assert t.Generator(device="cpu").initial_seed() == torch.Generator().initial_seed()
        assert t.manual_seed(3) is t.default_generator
        assert t.initial_seed() == 3
    assert numtorch.manual_seed(-1).initial_seed() == torch.manual_seed(-1).initial_seed()
    assert numtorch.manual_seed(2.5).initial_seed() == torch.manual_seed(2.5).initial_seed()
    torch.manual_seed(0)


@pytest.mark.parametrize("fn", [lambda t: t.manual_seed(2 ** 64),
lambda t: t.manual_seed(-2 ** 63 - 1),
                                lambda t: t.manual_seed("a"),
                                lambda t: t.Generator().manual_seed(2 ** 64)])
def test_seed_errors_match_torch(fn):
    check_raises(fn)
    torch.manual_seed(0)


def test_seed_returns_a_new_nondeterministic_seed():
    s1 = numtorch.seed()
    assert isinstance(s1, int) and numtorch.initial_seed() == s1
    a = numtorch.rand(4)
    s2 = numtorch.seed()
    assert s2 != s1 and not bool((numtorch.rand(4) == a).all())
    g = numtorch.Generator()
    assert g.seed() == g.initial_seed()


def test_rng_state_round_trip():
    numtorch.manual_seed(11)
    state = numtorch.get_rng_state()
    assert state.dtype is numtorch.uint8 and state.dim() == 1
    a = numtorch.randn(6)
    numtorch.rand(3)
    numtorch.set_rng_state(state)
    np.testing.assert_array_equal(numtorch.randn(6).numpy(), a.numpy())
    assert numtorch.initial_seed() == 11


def test_generator_state_round_trip_and_clone():
    g = numtorch.Generator().manual_seed(3)
    numtorch.rand(2, generator=g)
    st = g.get_state()
    a = numtorch.rand(4, generator=g)
    g.set_state(st)
    np.testing.assert_array_equal(numtorch.rand(4, generator=g).numpy(), a.numpy())
    g.set_state(st)
    h = g.clone_state()
    np.testing.assert_array_equal(numtorch.rand(4, generator=h).numpy(), a.numpy())


@pytest.mark.parametrize("fn", [lambda t: t.set_rng_state(t.zeros(3)),
                                lambda t: t.set_rng_state([1, 2])])
def test_set_rng_state_rejects_non_byte_tensors(fn):
    check_raises(fn)


def test_set_rng_state_rejects_garbage_bytes():
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056 but "
                                           "found the input RNG state size to be 10"):
        numtorch.set_rng_state(numtorch.zeros(10, dtype=numtorch.uint8))


def test_fork_rng_restores_the_state():
    from numtorch._random import fork_rng

    numtorch.manual_seed(0)
    with fork_rng():
        numtorch.rand(10)
    a = numtorch.rand(3)
    numtorch.manual_seed(0)
    np.testing.assert_array_equal(numtorch.rand(3).numpy(), a.numpy())


# -- shapes and dtypes ----------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: t.rand(2, 3), lambda t: t.rand((2, 3)), lambda t: t.rand([]), lambda t: t.rand(()),
    lambda t: t.rand(0, 3), lambda t: t.rand(2, dtype=t.float64),
    lambda t: t.rand(2, dtype=t.float16),
    lambda t: t.rand(2, dtype=t.complex64), lambda t: t.rand(2, requires_grad=True),
    lambda t: t.randn(2, 3), lambda t: t.randn(4, dtype=t.float64),
    lambda t: t.randn(2, dtype=t.complex128), lambda t: t.randn(2, dtype=t.float16),
    lambda t: t.randint(5, (3,)), lambda t: t.randint(3, 10, (2, 2)),
    lambda t: t.randint(3, 5, (3,), dtype=t.float32),
    lambda t: t.randint(0, 2, (3,), dtype=t.bool),
    lambda t: t.randint(high=3, size=(2,)), lambda t: t.randint(0, 2 ** 40, (3,)),
    lambda t: t.randint(0, 255, (3,), dtype=t.uint8), lambda t: t.randperm(5),
    lambda t: t.randperm(0), lambda t: t.randperm(5, dtype=t.float32),
    lambda t: t.normal(t.zeros(2, 3), t.ones(3)), lambda t: t.normal(t.zeros(2), 1.0),
    lambda t: t.normal(0.0, t.ones(2, dtype=t.float64)),
    lambda t: t.normal(t.zeros(2), t.ones(2, dtype=t.float64)),
    lambda t: t.normal(t.zeros(2, dtype=t.float64), 1.0), lambda t: t.normal(0.0, 1.0, (2, 3)),
    lambda t: t.normal(0.0, 1.0, size=(2,), dtype=t.float64), lambda t: t.normal(2, 3, (2,)),
    lambda t: t.normal(0.0, 1.0, (2,), requires_grad=True), lambda t: t.normal(t.zeros(2)),
    lambda t: t.bernoulli(t.full((3,), 0.5)),
    lambda t: t.bernoulli(t.full((3,), 0.5, dtype=t.float64)),
    lambda t: t.bernoulli(t.tensor([1, 0]), 0.5), lambda t: t.bernoulli(t.zeros(3), 0.3),
    lambda t: t.multinomial(t.ones(3), 2), lambda t: t.multinomial(t.ones(2, 3), 2, True),
    lambda t: t.multinomial(t.ones(3, dtype=t.float64), 4, replacement=True),
    lambda t: t.poisson(t.ones(3)), lambda t: t.poisson(t.ones(3, dtype=t.float64)),
    lambda t: t.rand_like(t.ones(2, dtype=t.float64)), lambda t: t.randn_like(t.ones(2, 3)),
    lambda t: t.randn_like(t.ones(2, dtype=t.float16)), lambda t: t.randint_like(t.ones(2), 5),
    lambda t: t.randint_like(t.ones(2), 2, 5),
    lambda t: t.randint_like(t.ones(2, dtype=t.int32), 5),
    lambda t: t.rand_like(t.ones(2), dtype=t.float64),
])
def test_shapes_and_dtypes_match_torch(fn):
    _same_meta(fn)


def test_float32_stays_float32():
    assert numtorch.rand(3).dtype is numtorch.float32
    assert numtorch.randn(3).dtype is numtorch.float32
    assert numtorch.normal(numtorch.zeros(3), 1.0).dtype is numtorch.float32
    assert numtorch.empty(3).normal_().dtype is numtorch.float32
    assert numtorch.rand(3).numpy().dtype == np.float32


def test_default_dtype_float64_is_followed():
    numtorch.set_default_dtype(numtorch.float64)
    assert numtorch.rand(2).dtype is numtorch.float64
    assert numtorch.randn(2).dtype is numtorch.float64
    assert numtorch.normal(0.0, 1.0, (2,)).dtype is numtorch.float64


@pytest.mark.parametrize("fn", [
    lambda t: t.rand(2, dtype=t.int64), lambda t: t.randn(2, dtype=t.int64), lambda t: t.rand(-1),
    lambda t: t.rand(), lambda t: t.randn(2, -1), lambda t: t.rand(2.5),
    lambda t: t.randint(5, 3), lambda t: t.randint(5, 3, (3,)), lambda t: t.randint(5, 5, (3,)),
    lambda t: t.randint(0, 300, (3,), dtype=t.uint8),
    lambda t: t.randint(-5, 0, (3,), dtype=t.uint8),
    lambda t: t.randint(0, 300, (3,), dtype=t.int8),
    lambda t: t.randint(-200, 3, (3,), dtype=t.int8),
    lambda t: t.randint(0, 2 ** 40, (3,), dtype=t.int32), lambda t: t.randint(2.5, (2,)),
    lambda t: t.randint(0, 3, size=5), lambda t: t.randint(0, 3, (2,), requires_grad=True),
    lambda t: t.randint(0, 3, (2,), dtype=t.bool),
    lambda t: t.randperm(-1), lambda t: t.randperm(2.5), lambda t: t.randperm(300, dtype=t.uint8),
    lambda t: t.randperm(3000, dtype=t.float16), lambda t: t.randperm(3, dtype=t.bool),
    lambda t: t.normal(t.zeros(2, dtype=t.int64), 1.0), lambda t: t.normal(0.0, 1.0),
    lambda t: t.normal(t.zeros(2), -1.0), lambda t: t.normal(0.0, -1.0, (2,)),
    lambda t: t.normal(t.zeros(2), t.tensor([1.0, -1.0])),
    lambda t: t.normal(t.zeros(6), t.ones(2, 3)), lambda t: t.normal(t.zeros(2), t.ones(3)),
    lambda t: t.bernoulli(t.tensor([1.5])), lambda t: t.bernoulli(t.tensor([1, 0])),
    lambda t: t.bernoulli(t.ones(2), 1.5),
    lambda t: t.bernoulli(t.ones(2), p=t.tensor([0.5, 0.5])),
    lambda t: t.rand_like(t.ones(2, dtype=t.int32)), lambda t: t.randn_like([1.0]),
    lambda t: t.multinomial(t.tensor([0.0, 1.0]), 3),
    lambda t: t.multinomial(t.tensor([-1.0, 1.0]), 1),
    lambda t: t.multinomial(t.tensor([0.0, 0.0]), 1), lambda t: t.multinomial(t.ones(2, 3, 4), 1),
    lambda t: t.multinomial(t.tensor([1, 2]), 1), lambda t: t.multinomial(t.ones(2), 0),
    lambda t: t.multinomial(t.tensor([float("inf"), 1.0]), 1),
    lambda t: t.multinomial(t.tensor(1.0), 1),
    lambda t: t.poisson(t.tensor([-1.0])),
])
def test_sampler_errors_match_torch(fn):
    try:
        fn(torch)
    except Exception:  # noqa: BLE001 - only error cases are compared
        check_raises(fn)
        return
    _same_meta(fn)


def test_sampler_error_messages():
    check_raises(lambda t: t.rand(2, dtype=t.int64),
                 match="\"check_uniform_bounds\" not implemented for 'Long'")
    check_raises(lambda t: t.randint(5, 3, (3,)), match="from=5 >= to=3")
    check_raises(lambda t: t.randint(0, 300, (3,), dtype=t.uint8),
                 match="to - 1 is out of bounds for unsigned char")
    check_raises(lambda t: t.normal(t.zeros(2), -1.0), match="std >= 0.0, but found std -1")
    check_raises(lambda t: t.bernoulli(t.ones(2), 1.5), match="p=1.5")


# -- distributions --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_rand_is_uniform_on_the_unit_interval(dtype):
    x = _np(numtorch.rand(N, dtype=getattr(numtorch, dtype)))
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.01 and abs(x.var() - 1 / 12) < 0.005
    counts = np.histogram(x, bins=10, range=(0, 1))[0]
    assert counts.min() > N / 10 * 0.9


def test_rand_complex_draws_each_part_uniformly():
    x = numtorch.rand(N, dtype=numtorch.complex64).numpy()
    for part in (x.real, x.imag):
        assert part.min() >= 0 and part.max() < 1 and abs(part.mean() - 0.5) < 0.01


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_randn_is_standard_normal(dtype):
    x = _np(numtorch.randn(N, dtype=getattr(numtorch, dtype)))
    assert abs(x.mean()) < 0.03 and abs(x.std() - 1.0) < 0.03
    assert abs(np.mean(np.abs(x) < 1.0) - 0.6827) < 0.02  # the normal's central mass
    assert abs(np.mean(x ** 3)) < 0.1  # no skew


def test_complex_randn_has_unit_total_variance():
    x = numtorch.randn(N, dtype=numtorch.complex128).numpy()
    assert abs(x.real.var() - 0.5) < 0.03 and abs(x.imag.var() - 0.5) < 0.03
    assert abs(np.mean(np.abs(x) ** 2) - 1.0) < 0.05


@pytest.mark.parametrize("low, high, dtype", [(0, 10, "int64"), (-5, 5, "int32"),
                                              (3, 7, "float32"), (0, 256, "uint8"),
                                              (-128, 128, "int8"), (0, 2, "bool")])
def test_randint_covers_its_range_uniformly(low, high, dtype):
    x = numtorch.randint(low, high, (N,), dtype=getattr(numtorch, dtype))
    assert x.dtype is getattr(numtorch, dtype)
    v = x.numpy().astype(np.int64)
    assert v.min() == low and v.max() == high - 1
    counts = np.bincount(v - low, minlength=high - low)
    expect = N / (high - low)
    assert np.all(np.abs(counts - expect) < 6 * math.sqrt(expect) + 1)


def test_randint_large_bounds():
    x = numtorch.randint(2 ** 40, 2 ** 41, (1000,))
    assert int(x.min()) >= 2 ** 40 and int(x.max()) < 2 ** 41


@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_randperm_is_a_permutation(n):
    p = numtorch.randperm(n)
    assert p.dtype is numtorch.int64
    assert sorted(p.tolist()) == list(range(n))


def test_randperm_positions_are_uniform():
    counts = np.zeros((4, 4))
    for _ in range(2000):
        p = numtorch.randperm(4).numpy()
        counts[np.arange(4), p] += 1
    assert np.all(np.abs(counts - 500) < 6 * math.sqrt(500 * 0.75))


@pytest.mark.parametrize("make", [
    lambda t: (t.normal(t.full((N,), 2.0), t.full((N,), 3.0)), 2.0, 3.0),
    lambda t: (t.normal(t.full((N,), -1.0), 0.5), -1.0, 0.5),
    lambda t: (t.normal(4.0, t.full((N,), 2.0)), 4.0, 2.0),
    lambda t: (t.normal(1.0, 2.0, (N,)), 1.0, 2.0),
    lambda t: (t.normal(t.full((N // 4, 4), 1.0), t.full((4,), 0.5)), 1.0, 0.5),
    lambda t: (t.empty(N).normal_(3.0, 0.25), 3.0, 0.25),
    lambda t: (t.empty(N, dtype=t.float64).normal_(), 0.0, 1.0),
])
def test_normal_forms_have_the_requested_moments(make):
    x, mean, std = make(numtorch)
    v = _np(x)
    assert abs(v.mean() - mean) < 6 * std / math.sqrt(v.size)
    assert abs(v.std() - std) < 0.03 * std


def test_normal_with_zero_std_is_the_mean():
    x = numtorch.normal(numtorch.arange(4.0), 0.0)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_bernoulli_probability(p):
    for x in (numtorch.bernoulli(numtorch.full((N,), p)),
              numtorch.bernoulli(numtorch.zeros(N, dtype=numtorch.float64), p),
              numtorch.empty(N).bernoulli_(p),
              numtorch.empty(N).bernoulli_(numtorch.full((N,), p))):
        v = _np(x)
        assert set(np.unique(v)) <= {0.0, 1.0}
        assert abs(v.mean() - p) < 6 * math.sqrt(p * (1 - p) / N) + 1e-9


def test_bernoulli_per_element_probabilities():
    probs = numtorch.tensor([0.0, 1.0, 0.0, 1.0])
    for _ in range(5):
        assert numtorch.bernoulli(probs).tolist() == [0.0, 1.0, 0.0, 1.0]
        assert numtorch.empty(4, dtype=numtorch.int64).bernoulli_(probs).tolist() == [0, 1, 0, 1]


def test_multinomial_with_replacement_follows_the_weights():
    w = numtorch.tensor([1.0, 2.0, 3.0, 4.0])
    s = numtorch.multinomial(w, N, replacement=True)
    assert s.dtype is numtorch.int64 and s.shape == (N,)
    freq = np.bincount(s.numpy(), minlength=4) / N
    assert np.all(np.abs(freq - np.array([0.1, 0.2, 0.3, 0.4])) < 0.015)


def test_multinomial_without_replacement_gives_distinct_indices():
    w = numtorch.rand(8, 10) + 0.01
    s = numtorch.multinomial(w, 10)
    assert s.shape == (8, 10)
    for row in s.tolist():
        assert sorted(row) == list(range(10))
    # rows are independent distributions: a one-hot row always draws its category first
    w = numtorch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    assert numtorch.multinomial(w, 1).tolist() == [[2], [0]]


def test_multinomial_without_replacement_favours_heavy_categories():
    w = numtorch.tensor([1.0, 8.0, 1.0])
    first = numtorch.multinomial(w.expand(N, 3).contiguous(), 1).numpy()[:, 0]
    assert abs(np.mean(first == 1) - 0.8) < 0.02


def test_multinomial_takes_zero_weight_categories_last():
    # torch fills the remaining draws with the zero-weight categories, lowest index first
    same = [numtorch.multinomial(numtorch.tensor([1.0, 0.0, 0.0]), 2).tolist(),
            torch.multinomial(torch.tensor([1.0, 0.0, 0.0]), 2).tolist()]
    assert same[0] == same[1]


def test_poisson_mean_and_variance():
    v = _np(numtorch.poisson(numtorch.full((N,), 4.0)))
    assert np.all(v == np.round(v)) and v.min() >= 0
    assert abs(v.mean() - 4.0) < 0.06 and abs(v.var() - 4.0) < 0.2


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_like_samplers_keep_the_inputs_shape_and_dtype(dtype):
    src = numtorch.ones(300, 4, dtype=getattr(numtorch, dtype))
    if dtype != "int32":
        x = numtorch.rand_like(src)
        assert x.shape == (300, 4) and x.dtype is src.dtype and 0 <= float(x.min())
        y = numtorch.randn_like(src)
        assert y.dtype is src.dtype and abs(float(y.mean())) < 0.2
    z = numtorch.randint_like(src, 3, 6)
    assert z.dtype is src.dtype and float(z.min()) >= 3 and float(z.max()) <= 5


# -- in-place samplers ----------------------------------------------------------------------------
def test_uniform_range():
    v = _np(numtorch.empty(N).uniform_(-2.0, 3.0))
    assert v.min() >= -2.0 and v.max() < 3.0
    assert abs(v.mean() - 0.5) < 0.05 and abs(v.var() - 25 / 12) < 0.1


@pytest.mark.parametrize("dtype, hi", [("float32", 2 ** 24), ("float64", 2 ** 53),
                                       ("int8", 127), ("uint8", 255), ("int32", 2 ** 31 - 1),
                                       ("bool", 1), ("float16", 2 ** 11)])
def test_random_without_bounds_covers_the_dtypes_exact_integers(dtype, hi):
    x = numtorch.empty(N, dtype=getattr(numtorch, dtype)).random_()
    v = x.numpy().astype(np.float64)
    assert v.min() >= 0 and v.max() <= hi and np.all(v == np.round(v))
    assert v.max() > hi / 2 or hi == 1


def test_random_with_bounds():
    assert sorted(set(numtorch.empty(N).random_(5).tolist())) == [0, 1, 2, 3, 4]
    assert sorted(set(numtorch.empty(N).random_(-3, -1).tolist())) == [-3, -2]
    assert set(numtorch.empty(N, dtype=numtorch.int64).random_(2, 4).tolist()) == {2, 3}
    v = numtorch.empty(N).random_(3, None).numpy()
    assert v.min() >= 3 and v.max() > 2 ** 23


def test_exponential_geometric_log_normal_cauchy_statistics():
    e = _np(numtorch.empty(N).exponential_(2.0))
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.02
    g = _np(numtorch.empty(N).geometric_(0.25))
    assert g.min() >= 1 and np.all(g == np.round(g)) and abs(g.mean() - 4.0) < 0.15
    ln = _np(numtorch.empty(N, dtype=numtorch.float64).log_normal_(0.5, 0.25))
    assert ln.min() > 0 and abs(np.log(ln).mean() - 0.5) < 0.01
    c = _np(numtorch.empty(N).cauchy_(1.0, 2.0))
    assert abs(np.median(c) - 1.0) < 0.1
    assert abs(np.median(np.abs(c - 1.0)) - 2.0) < 0.15  # half the interquartile range


def test_in_place_samplers_return_self_and_bump_the_version():
    x = numtorch.empty(4)
    for fill in (lambda t: t.uniform_(), lambda t: t.normal_(), lambda t: t.bernoulli_(),
                 lambda t: t.random_(10), lambda t: t.exponential_(), lambda t: t.geometric_(0.5),
                 lambda t: t.log_normal_(), lambda t: t.cauchy_()):
        v = x._version
        assert fill(x) is x and x._version == v + 1


@pytest.mark.parametrize("fn", [
    lambda t: t.empty(2).uniform_(2, 1), lambda t: t.empty(2, dtype=t.int64).uniform_(),
    lambda t: t.empty(2).normal_(0, -1), lambda t: t.empty(2).exponential_(0),
    lambda t: t.empty(2).exponential_(-1), lambda t: t.empty(2, dtype=t.int64).exponential_(),
    lambda t: t.empty(2).geometric_(0), lambda t: t.empty(2).geometric_(1),
    lambda t: t.empty(2).log_normal_(1, 0), lambda t: t.empty(2).cauchy_(0, 0),
    lambda t: t.empty(2).random_(5, 3), lambda t: t.empty(2, dtype=t.uint8).random_(-1, 3),
    lambda t: t.empty(2, dtype=t.uint8).random_(0, 300),
    lambda t: t.empty(2, dtype=t.int8).random_(0, 200),
    lambda t: t.empty(2, dtype=t.int16).random_(0, 2 ** 20),
    lambda t: t.empty(2, dtype=t.bool).random_(0, 3),
    lambda t: t.empty(2).bernoulli_(1.5), lambda t: t.empty(2).bernoulli_(t.tensor([1.5, 0.0])),
    lambda t: t.empty(2, dtype=t.int64).normal_(),
    lambda t: t.ones(3, requires_grad=True).uniform_(),
    lambda t: t.ones(3, requires_grad=True).normal_(),
])
def test_in_place_sampler_errors_match_torch(fn):
    check_raises(fn)


def test_in_place_samplers_on_integer_tensors():
    _same_meta(lambda t: t.empty(3, dtype=t.int64).geometric_(0.5))
    _same_meta(lambda t: t.empty(3, dtype=t.int64).bernoulli_(t.tensor([0.3, 0.5, 0.1])))
    _same_meta(lambda t: t.empty(3, dtype=t.int32).random_())
    _same_meta(lambda t: t.empty(3, dtype=t.uint8).random_())


# -- autograd -------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda t, m, s: t.normal(m, s), lambda t, m, s: t.normal(m, 2.0),
    lambda t, m, s: t.normal(1.0, s), lambda t, m, s: t.bernoulli(t.sigmoid(m)),
    lambda t, m, s: t.poisson(s * 3),
])
def test_samplers_have_zero_gradients_like_torch(make):
    outs = []
    for t in (numtorch, torch):
        m = t.zeros(3, requires_grad=True)
        s = t.full((3,), 2.0, requires_grad=True)
        y = make(t, m, s)
        assert y.requires_grad
        g = t.autograd.grad(y, [m, s], t.ones(3), allow_unused=True)
        outs.append([None if v is None else v.tolist() for v in g])
    # torch has no gradient formula for poisson's rate; numtorch gives zero there
    assert [v or [0.0] * 3 for v in outs[0]] == [v or [0.0] * 3 for v in outs[1]]


@pytest.mark.parametrize("method, name", [("uniform_", "Uniform"), ("normal_", "Normal"),
                                          ("bernoulli_", "Bernoulli"), ("random_", "Random"),
                                          ("exponential_", "Exponential"),
                                          ("log_normal_", "LogNormal"), ("cauchy_", "Cauchy")])
def test_in_place_samplers_on_non_leaves_cut_the_gradient(method, name):
    for t in (numtorch, torch):
        x = t.zeros(3, requires_grad=True)
        y = x * 1
        getattr(y, method)()
        assert type(y.grad_fn).__name__.startswith(name) or y.grad_fn.name().startswith(name)
        (g,) = t.autograd.grad(y.sum(), [x], allow_unused=True)
        assert g is None or g.tolist() == [0.0, 0.0, 0.0]


def test_in_place_samplers_under_no_grad_work_on_leaves():
    w = numtorch.empty(3, 4, requires_grad=True)
    with numtorch.no_grad():
        w.uniform_(-0.1, 0.1)
        w.normal_(0, 0.02)
    assert w.requires_grad and w.is_leaf and float(w.abs().max()) < 0.2


def test_unseeded_processes_draw_different_numbers_as_torch_does():
    # torch seeds its default generator from OS entropy at start-up; a fresh Generator() keeps
    # the fixed seed 67280421310721
    import subprocess
    import sys

    code = ("import numtorch as t; print(t.initial_seed(), t.rand(1).item(), "
            "t.Generator().initial_seed())")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(2)]
    assert runs[0][:2] != runs[1][:2]
    assert runs[0][2] == runs[1][2] == str(torch.Generator().initial_seed())
    assert 0 <= int(runs[0][0]) < 2 ** 64
