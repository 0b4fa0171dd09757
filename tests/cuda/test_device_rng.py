"""Random numbers for CUDA tensors are drawn on the device, from per-GPU generators seeded by
``manual_seed`` (checked on the CuPy stand-in; torch's CPU wheel is the oracle for the API's
behaviour without CUDA)."""

import numpy as np
import pytest
import torch

import numtorch
from tests.cuda import standin


@pytest.fixture
def cuda():
    with standin.active():
        standin.reset_stats()
        yield


def _host(t):
    return t.cpu().numpy()


SAMPLERS = {
    "rand": lambda g: numtorch.rand(64, device="cuda", generator=g),
    "randn": lambda g: numtorch.randn(64, device="cuda", generator=g),
    "randn_f16": lambda g: numtorch.randn(64, device="cuda", dtype=numtorch.float16,
                                          generator=g),
    "rand_c64": lambda g: numtorch.rand(8, device="cuda", dtype=numtorch.complex64,
                                        generator=g),
    "randint": lambda g: numtorch.randint(0, 10, (64,), device="cuda", generator=g),
    "randperm": lambda g: numtorch.randperm(16, device="cuda", generator=g),
    "normal": lambda g: numtorch.normal(0.0, 1.0, (64,), device="cuda", generator=g),
    "normal_t": lambda g: numtorch.normal(numtorch.zeros(64, device="cuda"), 2.0, generator=g),
    "bernoulli": lambda g: numtorch.bernoulli(numtorch.full((64,), 0.5, device="cuda"),
                                              generator=g),
    "poisson": lambda g: numtorch.poisson(numtorch.full((64,), 3.0, device="cuda"),
                                          generator=g),
    "uniform_": lambda g: numtorch.empty(64, device="cuda").uniform_(-1, 1, generator=g),
    "normal_": lambda g: numtorch.empty(64, device="cuda").normal_(generator=g),
    "exponential_": lambda g: numtorch.empty(64, device="cuda").exponential_(generator=g),
    "random_": lambda g: numtorch.empty(64, device="cuda").random_(0, 5, generator=g),
    "cauchy_": lambda g: numtorch.empty(64, device="cuda").cauchy_(generator=g),
    "log_normal_": lambda g: numtorch.empty(64, device="cuda").log_normal_(generator=g),
    "geometric_": lambda g: numtorch.empty(64, device="cuda").geometric_(0.3, generator=g),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_samples_are_drawn_on_the_device_and_reproducible(cuda, name):
    draw = SAMPLERS[name]
    numtorch.manual_seed(5)
    standin.reset_stats()
    a = draw(None)
    # drawn by the device generator: no host draw copied over, no host sync
    assert a.device.type == "cuda"
    if name not in ("normal_t", "bernoulli", "poisson"):  # those build an input tensor first
        assert standin.STATS["h2d"] == 0, standin.STATS
    assert standin.STATS["sync"] == 0, standin.STATS
    numtorch.manual_seed(5)
    np.testing.assert_array_equal(_host(draw(None)), _host(a))
    g = numtorch.Generator(device="cuda").manual_seed(5)
    b = draw(g)
    np.testing.assert_array_equal(_host(draw(numtorch.Generator(device="cuda").manual_seed(5))),
                                  _host(b))


def test_dropout_mask_is_made_on_the_device(cuda):
    x = numtorch.ones(1000, device="cuda")
    standin.reset_stats()
    y = numtorch.nn.functional.dropout(x, 0.25)
    assert standin.STATS["h2d"] == 0 and standin.STATS["sync"] == 0, standin.STATS
    kept = _host(y) != 0
    assert 0.65 < kept.mean() < 0.85
    np.testing.assert_allclose(_host(y)[kept], 1 / 0.75, rtol=1e-6)


def test_distributions_on_the_device(cuda):
    numtorch.manual_seed(0)
    n = 20000
    u = _host(numtorch.rand(n, device="cuda"))
    z = _host(numtorch.randn(n, device="cuda"))
    k = _host(numtorch.randint(3, 7, (n,), device="cuda"))
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    assert set(np.unique(k)) == {3, 4, 5, 6}
    p = _host(numtorch.randperm(1000, device="cuda"))
    assert sorted(p.tolist()) == list(range(1000))


def test_manual_seed_seeds_the_gpu_generators(cuda):
    numtorch.manual_seed(11)
    assert numtorch.cuda.initial_seed() == 11
    a = numtorch.rand(8, device="cuda")
    numtorch.cuda.manual_seed(11)
    np.testing.assert_array_equal(_host(numtorch.rand(8, device="cuda")), _host(a))
    numtorch.cuda.manual_seed_all(12)
    assert numtorch.cuda.initial_seed() == 12
    b = numtorch.rand(8, device="cuda")
    assert not np.array_equal(_host(a), _host(b))
    # the GPU stream is its own: drawing on the CPU does not move it
    numtorch.manual_seed(3)
    c = numtorch.rand(8, device="cuda")
    numtorch.manual_seed(3)
    numtorch.rand(100)
    np.testing.assert_array_equal(_host(numtorch.rand(8, device="cuda")), _host(c))


def test_rng_state_round_trips(cuda):
    numtorch.manual_seed(1)
    state = numtorch.cuda.get_rng_state()
    assert state.device.type == "cpu" and state.dtype is numtorch.uint8
    a = numtorch.randn(16, device="cuda")
    numtorch.cuda.set_rng_state(state)
    np.testing.assert_array_equal(_host(numtorch.randn(16, device="cuda")), _host(a))
    states = numtorch.cuda.get_rng_state_all()
    assert len(states) == numtorch.cuda.device_count() == 1
    c = numtorch.randn(16, device="cuda")
    numtorch.cuda.set_rng_state_all(states)
    np.testing.assert_array_equal(_host(numtorch.randn(16, device="cuda")), _host(c))
    gens = numtorch.cuda.default_generators
    assert len(gens) == 1 and gens[0].device == numtorch.device("cuda", 0)
    gens[0].manual_seed(4)
    assert numtorch.cuda.initial_seed() == 4 and gens[0].initial_seed() == 4
    with pytest.raises(RuntimeError, match="not a numtorch CUDA generator state"):
        numtorch.cuda.set_rng_state(numtorch.zeros(3, dtype=numtorch.uint8))


def test_generator_on_cuda(cuda):
    g = numtorch.Generator(device="cuda")
    # as given, as torch reports it (torch 2.11 on an H200 printed 'cuda'); draws use GPU 0
    assert g.device == numtorch.device("cuda") and str(g.device) == "cuda"
    assert numtorch.Generator(device="cuda:0").device == numtorch.device("cuda", 0)
    g.manual_seed(2)
    state = g.get_state()
    a = numtorch.rand(5, device="cuda", generator=g)
    g.set_state(state)
    np.testing.assert_array_equal(_host(numtorch.rand(5, device="cuda", generator=g)), _host(a))
    assert g.initial_seed() == 2
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but "
                                           "found 'cuda'"):
        numtorch.rand(3, generator=g)
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but "
                                           "found 'cpu'"):
        numtorch.rand(3, device="cuda", generator=numtorch.Generator())


def test_fork_rng_restores_the_gpu_generators(cuda):
    numtorch.manual_seed(0)
    with numtorch.random.fork_rng():
        inside = numtorch.rand(4, device="cuda")
    after = numtorch.rand(4, device="cuda")
    np.testing.assert_array_equal(_host(after), _host(inside))
    with numtorch.random.fork_rng(devices=[]):
        numtorch.rand(4, device="cuda")
    assert not np.array_equal(_host(numtorch.rand(4, device="cuda")), _host(after))


def test_non_blocking_transfers(cuda):
    x = numtorch.arange(6.0)
    for y in (x.to("cuda", non_blocking=True), x.cuda(non_blocking=True),
              x.to(device="cuda", dtype=numtorch.float64, non_blocking=True),
              x.to("cuda", numtorch.float32, True)):
        assert y.device == numtorch.device("cuda", 0)
        np.testing.assert_array_equal(_host(y), np.arange(6.0))
    back = x.cuda().to("cpu", non_blocking=True)
    numtorch.cuda.synchronize()
    np.testing.assert_array_equal(back.numpy(), np.arange(6.0))


@pytest.mark.parametrize("call", [
    lambda t: t.cuda.manual_seed(3), lambda t: t.cuda.manual_seed_all(3),
    lambda t: t.cuda.seed(), lambda t: t.cuda.seed_all(), lambda t: t.cuda.initial_seed(),
    lambda t: t.cuda.get_rng_state(), lambda t: t.cuda.get_rng_state_all(),
    lambda t: t.cuda.set_rng_state(t.zeros(3, dtype=t.uint8)),
    lambda t: t.cuda.set_rng_state_all([]), lambda t: t.cuda.default_generators,
    lambda t: t.Generator(device="cuda"), lambda t: t.random.manual_seed(2).initial_seed(),
])
def test_the_api_without_cuda_behaves_as_torchs(call):
    """Seeding is silently lazy, reading a seed or a state raises torch's error."""
    try:
        want = call(torch)
    except BaseException as e:  # noqa: BLE001 - torch raises AssertionError here
        with pytest.raises(type(e)) as got:
            call(numtorch)
        assert str(got.value).split(".")[0] == str(e).split(".")[0]
        return
    assert call(numtorch) == want
