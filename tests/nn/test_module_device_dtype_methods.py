"""Module.bfloat16 / compile / xpu / ipu / mtia and Tensor.mtia against torch."""
import pytest
import torch

import numtorch


def _model(lib):
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))


def _same_weights():
    a, b = _model(torch), _model(numtorch)
    with torch.no_grad():
        for ta, tb in zip(a.state_dict().values(), b.state_dict().values()):
            ta.copy_(torch.tensor(tb.cpu().tolist(), dtype=ta.dtype))
    return a, b


def test_bfloat16_casts_floats_only_and_returns_self():
    a, b = _same_weights()
    assert a.bfloat16() is a and b.bfloat16() is b
    for (ka, ta), (kb, tb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb and str(ta.dtype) == str(tb.dtype)
        assert ta.float().tolist() == tb.float().cpu().tolist()
    x = [[1.5, -2.0], [0.25, 3.0]]
    ya = a(torch.tensor(x, dtype=torch.bfloat16))
    yb = b(numtorch.tensor(x, dtype=numtorch.bfloat16))
    assert str(yb.dtype) == str(ya.dtype)
    # one bfloat16 step apart at most (torch's batch norm rounds its bfloat16 steps its own way)
    assert torch.allclose(ya.float(), torch.tensor(yb.float().cpu().tolist()), atol=2 ** -7)


def test_compile_in_place_keeps_keys_and_checks_backend():
    a, b = _model(torch), _model(numtorch)
    assert a.compile() is None and b.compile() is None
    assert list(a.state_dict()) == list(b.state_dict())
    with pytest.raises(Exception) as ea:
        a.compile(backend="no-such-backend")
    with pytest.raises(Exception) as eb:
        b.compile(backend="no-such-backend")
    assert type(eb.value).__name__ == type(ea.value).__name__


@pytest.mark.parametrize("name", ["xpu", "ipu", "mtia"])
@pytest.mark.parametrize("what", ["module", "tensor"])
def test_absent_devices_raise_torchs_error(name, what):
    objs = {"module": (_model(torch), _model(numtorch)), "tensor": (torch.ones(2), numtorch.ones(2))}
    ta, tb = objs[what]
    with pytest.raises(Exception) as ea:
        getattr(ta, name)()
    with pytest.raises(type(ea.value)) as eb:
        getattr(tb, name)()
    assert str(eb.value) == str(ea.value)


MTIA_CALLS = ["is_available", "device_count", "is_initialized", "init", "current_device",
              "synchronize", "empty_cache", "memory_allocated", "memory_stats",
              "is_bf16_supported", "set_device", "get_device_capability", "get_device_properties",
              "current_stream", "default_stream", "get_rng_state", "initial_seed", "seed",
              "seed_all", "manual_seed", "manual_seed_all", "max_memory_allocated",
              "reset_peak_memory_stats", "record_memory_history", "snapshot", "get_rng_state_all"]


@pytest.mark.parametrize("name", MTIA_CALLS)
def test_torch_mtia_answers_as_torch_without_the_backend(name):
    args = {"set_device": (0,), "manual_seed": (0,), "manual_seed_all": (0,)}.get(name, ())

    def outcome(lib):
        try:
            return ("ok", getattr(lib.mtia, name)(*args))
        except Exception as e:  # the class and words are what is compared
            return (type(e).__name__, str(e))

    assert outcome(numtorch) == outcome(torch)
