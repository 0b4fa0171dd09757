"""BatchNorm's batch counter (``num_batches_tracked``, bumped in place by every training
forward): the count, dtype, version, state_dict, views, int64 wrap-around, a TorchFunctionMode
seeing the ``add_``, inference tensors and a replaced counter match torch's."""

import numpy as np
import pytest
import torch

import numtorch


def _x(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("cls, shape", [("BatchNorm1d", (8, 4)), ("BatchNorm1d", (8, 4, 3)),
                                        ("BatchNorm2d", (4, 3, 2, 2))])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_counter_values_version_state(cls, shape, momentum):
    out = {}
    for lib in (torch, numtorch):
        bn = getattr(lib.nn, cls)(shape[1], momentum=momentum)
        ys = []
        for i in range(3):
            ys.append(bn(lib.tensor(_x(shape, i))).detach().numpy())
        bn.eval()
        ys.append(bn(lib.tensor(_x(shape, 5))).detach().numpy())
        c = bn.num_batches_tracked
        sd = bn.state_dict()
        out[lib.__name__] = (ys, c.item(), str(c.dtype), c.dim(), c._version,
                             bn.running_mean.numpy().copy(), bn.running_var.numpy().copy(),
                             sd["num_batches_tracked"].item(), list(sd))
    t, n = out["torch"], out["numtorch"]
    for a, b in zip(t[0], n[0]):  # the normalisation's own rounding is not under test here
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert t[1:5] == n[1:5]
    np.testing.assert_allclose(t[5], n[5], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(t[6], n[6], rtol=1e-6, atol=1e-7)
    assert t[7:] == n[7:]


def test_counter_shared_with_state_dict_and_views():
    # the buffer object is written in place: a state_dict taken earlier and a view see the count
    res = {}
    for lib in (torch, numtorch):
        bn = lib.nn.BatchNorm1d(3)
        sd = bn.state_dict()
        v = bn.num_batches_tracked.view(1)
        bn(lib.tensor(_x((5, 3))))
        bn(lib.tensor(_x((5, 3), 1)))
        res[lib.__name__] = (sd["num_batches_tracked"].item(), v.tolist(), v._version)
    assert res["torch"] == res["numtorch"]


def test_counter_near_int64_max_wraps_like_torch():
    res = {}
    for lib in (torch, numtorch):
        bn = lib.nn.BatchNorm1d(3)
        bn.num_batches_tracked.fill_(2 ** 63 - 1)
        bn(lib.tensor(_x((5, 3))))
        res[lib.__name__] = bn.num_batches_tracked.item()
    assert res["torch"] == res["numtorch"]


def test_function_mode_sees_the_counter_add():
    seen = {}
    for lib in (torch, numtorch):
        names = []

        class Log(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                self.names.append(getattr(func, "__name__", str(func)))
                return func(*args, **(kwargs or {}))

        bn = lib.nn.BatchNorm1d(3)
        mode = Log()
        mode.names = names
        with mode:
            bn(lib.tensor(_x((5, 3))))
        seen[lib.__name__] = ("add_" in names, bn.num_batches_tracked.item())
    assert seen["torch"] == seen["numtorch"] == (True, 1)


def test_inference_counter_outside_inference_mode_refused():
    res = {}
    for lib in (torch, numtorch):
        with lib.inference_mode():
            bn = lib.nn.BatchNorm1d(3)
        x = lib.tensor(_x((5, 3)))
        try:
            bn(x)
            res[lib.__name__] = None
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            res[lib.__name__] = (type(e).__name__, str(e))
    assert res["torch"] == res["numtorch"]
    assert res["torch"] is not None


def test_inference_mode_training_counts():
    res = {}
    for lib in (torch, numtorch):
        bn = lib.nn.BatchNorm1d(3)
        with lib.inference_mode():
            bn(lib.tensor(_x((5, 3))))
        res[lib.__name__] = (bn.num_batches_tracked.item(), bn.num_batches_tracked._version)
    assert res["torch"] == res["numtorch"]


def test_general_path_taken_for_a_replaced_counter(monkeypatch):
    # a counter that is not a plain 0-d int64 host tensor goes through add_ itself
    calls = []
    orig = numtorch.Tensor.add_

    def spy(self, *a, **k):
        calls.append(a)
        return orig(self, *a, **k)

    bn = numtorch.nn.BatchNorm1d(3)
    bn.num_batches_tracked = numtorch.zeros(1, dtype=numtorch.int64)  # 1-d: general path
    monkeypatch.setattr(numtorch.Tensor, "add_", spy)
    bn(numtorch.tensor(_x((5, 3))))
    assert calls == [(1,)]
    assert bn.num_batches_tracked.tolist() == [1]
