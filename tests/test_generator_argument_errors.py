"""``generator=`` given something other than a ``torch.Generator``: torch's TypeError, worded
as its argument parser words it for each function (the short "argument 'generator' must be
torch.Generator, not <type>" or the listing of every overload). Each call runs in numtorch and
torch (``same``)."""

import numpy as np
import pytest

from tests.oracle import same

_BAD = [5, "x", 1.5, None.__class__, np.int64(3), [1], True]


def _calls():
    """(name, fn(t, g)): calls written as programs write them (keywords before ``generator``)."""
    return [
        ("randn", lambda t, g: t.randn(3, generator=g)),
        ("randn-dims", lambda t, g: t.randn(2, 3, generator=g)),
        ("randn-tuple", lambda t, g: t.randn((2, 3), generator=g)),
        ("randn-dtype", lambda t, g: t.randn(3, dtype=t.float64, generator=g)),
        ("randn-size-kw", lambda t, g: t.randn(size=(2, 3), generator=g)),
        ("rand", lambda t, g: t.rand(3, generator=g)),
        ("rand-list", lambda t, g: t.rand([2, 2], generator=g)),
        ("rand-Size", lambda t, g: t.rand(t.Size([2]), generator=g)),
        ("randint-high", lambda t, g: t.randint(5, (3,), generator=g)),
        ("randint-low-high", lambda t, g: t.randint(0, 5, (3,), generator=g)),
        ("randint-size-kw", lambda t, g: t.randint(5, size=(3,), generator=g)),
        ("randperm", lambda t, g: t.randperm(4, generator=g)),
        ("randperm-dtype", lambda t, g: t.randperm(4, dtype=t.int32, generator=g)),
        ("rand_like", lambda t, g: t.rand_like(t.zeros(3), generator=g)),
        ("randn_like", lambda t, g: t.randn_like(t.zeros(3), generator=g)),
        ("randint_like-high", lambda t, g: t.randint_like(t.zeros(3), 5, generator=g)),
        ("randint_like-low-high", lambda t, g: t.randint_like(t.zeros(3), 0, 5, generator=g)),
        ("normal-tensors", lambda t, g: t.normal(t.zeros(3), t.ones(3), generator=g)),
        ("normal-mean", lambda t, g: t.normal(t.zeros(3), generator=g)),
        ("normal-numbers", lambda t, g: t.normal(0.0, 1.0, (3,), generator=g)),
        ("normal-number-tensor", lambda t, g: t.normal(0.0, t.ones(3), generator=g)),
        ("bernoulli", lambda t, g: t.bernoulli(t.full((3,), 0.5), generator=g)),
        ("bernoulli-p", lambda t, g: t.bernoulli(t.zeros(3), 0.5, generator=g)),
        ("multinomial", lambda t, g: t.multinomial(t.ones(3), 2, generator=g)),
        ("poisson", lambda t, g: t.poisson(t.ones(3), generator=g)),
        ("T.bernoulli", lambda t, g: t.full((3,), 0.5).bernoulli(generator=g)),
        ("T.bernoulli-p", lambda t, g: t.zeros(3).bernoulli(0.5, generator=g)),
        ("T.multinomial", lambda t, g: t.ones(3).multinomial(1, generator=g)),
        ("random_", lambda t, g: t.zeros(3).random_(generator=g)),
        ("random_-to", lambda t, g: t.zeros(3).random_(5, generator=g)),
        ("random_-to-kw", lambda t, g: t.zeros(3).random_(to=5, generator=g)),
        ("random_-from-to", lambda t, g: t.zeros(3).random_(0, 5, generator=g)),
        ("random_-float", lambda t, g: t.zeros(3).random_(5.0, generator=g)),
        ("uniform_", lambda t, g: t.zeros(3).uniform_(generator=g)),
        ("uniform_-bounds", lambda t, g: t.zeros(3).uniform_(0, 1, generator=g)),
        ("normal_", lambda t, g: t.zeros(3).normal_(generator=g)),
        ("exponential_", lambda t, g: t.zeros(3).exponential_(generator=g)),
        ("bernoulli_-tensor", lambda t, g: t.zeros(3).bernoulli_(t.zeros(3), generator=g)),
        ("bernoulli_-p", lambda t, g: t.zeros(3).bernoulli_(0.3, generator=g)),
        ("bernoulli_", lambda t, g: t.zeros(3).bernoulli_(generator=g)),
        ("cauchy_", lambda t, g: t.zeros(3).cauchy_(generator=g)),
        ("log_normal_", lambda t, g: t.zeros(3).log_normal_(generator=g)),
        ("geometric_", lambda t, g: t.zeros(3).geometric_(0.5, generator=g)),
        ("init.uniform_", lambda t, g: t.nn.init.uniform_(t.zeros(3), generator=g)),
        ("init.normal_", lambda t, g: t.nn.init.normal_(t.zeros(3), generator=g)),
        # the listing describes the call as written: keywords by name and in torch's order,
        # defaults written out, a call through ** (the bound arguments stand in)
        ("randint-size-kw-3", lambda t, g: t.randint(0, 5, size=(3,), generator=g)),
        ("randint-all-kw", lambda t, g: t.randint(high=5, size=(3,), dtype=t.int64,
                                                  generator=g)),
        ("randperm-n-kw", lambda t, g: t.randperm(n=4, generator=g)),
        ("randn-default-kw", lambda t, g: t.randn(3, generator=g, dtype=None)),
        ("randn-kw-order", lambda t, g: t.randn(3, generator=g, device="cpu", dtype=None)),
        ("normal-std-default", lambda t, g: t.normal(t.zeros(3), 1.0, generator=g)),
        ("normal-std-kw", lambda t, g: t.normal(t.zeros(3), std=2.0, generator=g)),
        ("normal-size-kw", lambda t, g: t.normal(0, 1, size=(3,), generator=g)),
        ("bernoulli-p-kw", lambda t, g: t.bernoulli(t.zeros(3), p=0.5, generator=g)),
        ("bernoulli-out", lambda t, g: t.bernoulli(t.zeros(3), generator=g, out=t.empty(3))),
        ("bernoulli_-default", lambda t, g: t.zeros(3).bernoulli_(0.5, generator=g)),
        ("T.bernoulli-p-kw", lambda t, g: t.zeros(3).bernoulli(p=0.5, generator=g)),
        ("randn-double-star", lambda t, g: t.randn(3, **{"generator": g})),
        ("rand_like-dtype", lambda t, g: t.rand_like(t.zeros(3), dtype=t.float64,
                                                    generator=g)),
    ]


def _data_calls():
    """The data utilities: torch's refusal comes from the draw each makes first."""
    return [
        ("RandomSampler", lambda t, g: list(t.utils.data.RandomSampler(range(5), generator=g))),
        ("RandomSampler-replacement", lambda t, g: list(t.utils.data.RandomSampler(
            range(5), replacement=True, generator=g))),
        ("SubsetRandomSampler", lambda t, g: list(t.utils.data.SubsetRandomSampler(
            [0, 2, 4], generator=g))),
        ("WeightedRandomSampler", lambda t, g: list(t.utils.data.WeightedRandomSampler(
            [0.5, 0.5], 2, generator=g))),
        ("random_split", lambda t, g: t.utils.data.random_split(range(5), [2, 3], generator=g)),
        ("DataLoader-shuffle", lambda t, g: list(t.utils.data.DataLoader(
            range(5), shuffle=True, generator=g))),
        ("DataLoader", lambda t, g: list(t.utils.data.DataLoader(range(5), generator=g))),
    ]


@pytest.mark.parametrize("call", _calls() + _data_calls(), ids=lambda c: c[0])
def test_generator_that_is_an_int_is_refused_as_torch(call):
    same(lambda t: call[1](t, 5))


@pytest.mark.parametrize("bad", _BAD[1:], ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("call", [c for c in _calls() if c[0] in (
    "randn", "randperm", "multinomial", "uniform_", "random_", "T.bernoulli")],
    ids=lambda c: c[0])
def test_each_kind_of_wrong_generator_is_named(call, bad):
    same(lambda t: call[1](t, bad))


def test_wrong_generator_of_torch_types_is_named():
    def f(t):
        out = []
        for bad in (t.float32, t.device("cpu"), t.Size([1]), t.zeros(1), t.strided):
            for fn in (lambda g: t.rand(2, generator=g), lambda g: t.multinomial(
                    t.ones(2), 1, generator=g)):
                try:
                    fn(bad)
                except TypeError as e:
                    out.append(str(e))
        return out

    same(f)


def test_data_loader_refuses_when_iterated_not_when_built():
    def f(t):
        loader = t.utils.data.DataLoader(range(4), batch_size=2, generator=7)
        sampler = t.utils.data.RandomSampler(range(4), generator=7)
        try:
            iter(loader)
        except TypeError as e:
            return type(loader).__name__, len(sampler), str(e)

    same(f)


def test_a_real_generator_and_none_still_draw():
    def f(t):
        g = t.Generator().manual_seed(0)
        shapes = [t.randn(3, generator=g).shape, t.randint(5, (2,), generator=None).shape,
                  t.zeros(2).random_(0, 5, generator=g).shape,
                  t.zeros(2).bernoulli_(0.5, generator=g).shape,
                  len(list(t.utils.data.DataLoader(range(4), shuffle=True, generator=g)))]
        return shapes

    same(f)
