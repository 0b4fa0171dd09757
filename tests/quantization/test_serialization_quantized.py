"""Quantized checkpoints both ways with real torch running in a separate Python process.

numtorch saves quantized tensors (per-tensor, per-channel, float-qparams, 4-bit, views),
quantized models' state dicts (packed weights included) and whole pickled quantized models;
a child process running torch loads them, describes what it got and runs the models on fixed
inputs, then saves its own for numtorch to load and run. Both sides build everything with the
same functions (numtorch mirrors torch's API), so the checks compare like with like.
"""

import inspect
import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import numtorch


def _qtensors(lib):
    rng = np.random.default_rng(7)

    def f(*shape):
        return lib.from_numpy(rng.standard_normal(shape).astype(np.float32))

    pt = lib.quantize_per_tensor(f(4, 6), 0.05, 3, lib.quint8)
    scales = lib.from_numpy(np.array([0.1, 0.02, 0.05]))
    return {
        "quint8": pt, "view": pt[1:3, 2:], "t": pt.t(), "shared": [pt, pt],
        "qint8": lib.quantize_per_tensor(f(3, 5), 0.02, -4, lib.qint8),
        "qint32": lib.quantize_per_tensor(f(5), 1e-3, 7, lib.qint32),
        "per_channel": lib.quantize_per_channel(f(3, 4), scales, lib.tensor([0, 1, -2]), 0,
                                                lib.qint8),
        "axis1": lib.quantize_per_channel(f(2, 3, 2), scales, lib.tensor([9, 0, 250]), 1,
                                          lib.quint8),
        "float_qparams": lib.quantize_per_channel(
            f(3, 5), scales.float(), lib.tensor([1.5, -0.25, 3.0]), 0, lib.quint8),
        "quint4x2": lib.quantize_per_channel(
            f(3, 6), scales.float() * 4, lib.tensor([7.5, 2.0, 8.25]), 0, lib.quint4x2),
    }


def _qdesc(t):
    """A JSON-able picture of one quantized tensor (its integers included)."""
    d = {"dtype": str(t.dtype), "shape": list(t.shape), "stride": list(t.stride()),
         "offset": int(t.storage_offset()), "qscheme": str(t.qscheme()),
         "ints": t.int_repr().numpy().astype(float).ravel().tolist()}
    if "per_tensor" in d["qscheme"]:
        d["qparams"] = [float(t.q_scale()), int(t.q_zero_point())]
    else:
        d["qparams"] = [t.q_per_channel_scales().numpy().astype(float).tolist(),
                        t.q_per_channel_zero_points().numpy().astype(float).tolist(),
                        int(t.q_per_channel_axis())]
    return d


def _describe(obj):
    return {k: ([_qdesc(e) for e in v] + [v[0] is v[1]] if isinstance(v, list) else _qdesc(v))
            for k, v in obj.items()}


def _models(lib, seed):
    """Quantized models built the same way by both libraries, weights drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    q = lib.ao.quantization
    lib.backends.quantized.engine = "x86"

    def fill(model):
        with lib.no_grad():
            for k, p in sorted(model.state_dict().items()):
                lo = 0.5 if k.endswith("running_var") else -0.6
                if p.dtype == lib.float32:
                    p.copy_(lib.from_numpy(rng.uniform(lo, lo + 1.2, tuple(p.shape))
                                           .astype(np.float32)))
        return model

    def static(model, fuse, shape):
        model = fill(model).eval()
        if fuse:
            model = q.fuse_modules(model, fuse)
        model.qconfig = q.get_default_qconfig("x86")
        model = q.prepare(model)
        model(lib.from_numpy(rng.standard_normal(shape).astype(np.float32)))
        return q.convert(model)

    models = {
        # Sequentials (no local classes), so that whole models pickle
        "conv": static(lib.nn.Sequential(
            q.QuantStub(), lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4), lib.nn.ReLU(),
            lib.nn.Flatten(), lib.nn.Linear(4 * 3 * 3, 5), q.DeQuantStub()),
            [["1", "2", "3"]], (2, 3, 5, 5)),
        "fc": static(lib.nn.Sequential(
            q.QuantStub(), lib.nn.Linear(6, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3),
            q.DeQuantStub()), [["1", "2"]], (4, 6)),
        "dynamic": q.quantize_dynamic(fill(lib.nn.Sequential(
            lib.nn.Linear(6, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3)))),
        "lstm": q.quantize_dynamic(fill(lib.nn.LSTM(6, 5, num_layers=2))),
        "gru": q.quantize_dynamic(fill(lib.nn.GRU(6, 4))),
    }
    bag = fill(lib.nn.EmbeddingBag(10, 6, mode="sum"))
    bag.qconfig = q.float_qparams_weight_only_qconfig
    models["bag"] = lib.ao.nn.quantized.EmbeddingBag.from_float(bag)
    bag4 = fill(lib.nn.EmbeddingBag(10, 6, mode="mean"))
    bag4.qconfig = q.float_qparams_weight_only_qconfig_4bit
    models["bag4"] = lib.ao.nn.quantized.EmbeddingBag.from_float(bag4)
    return models


def _run(lib, name, model):
    """``model``'s output on fixed inputs, as a float NumPy array."""
    rng = np.random.default_rng(3)
    if name.startswith("bag"):
        out = model(lib.tensor([1, 4, 4, 9, 0, 3]), lib.tensor([0, 2, 2]))
    elif name in ("lstm", "gru"):
        out = model(lib.from_numpy(rng.standard_normal((4, 2, 6)).astype(np.float32)))[0]
    elif name == "conv":
        out = model(lib.from_numpy(rng.standard_normal((2, 3, 5, 5)).astype(np.float32)))
    else:
        out = model(lib.from_numpy(rng.standard_normal((4, 6)).astype(np.float32)))
    return out.detach().numpy()


_CHILD = """
import json, os, sys, warnings
import numpy as np
import torch
warnings.simplefilter("ignore")
cfg = json.loads(sys.argv[1])
{helpers}
d = cfg["dir"]
report = {{"numtorch_q": _describe(torch.load(os.path.join(d, "nt_q.pt"), weights_only=True))}}
theirs = _qtensors(torch)
torch.save(theirs, os.path.join(d, "t_q.pt"))
report["torch_q"] = _describe(theirs)
states = torch.load(os.path.join(d, "nt_sd.pt"), weights_only=True)
for name, model in _models(torch, 11).items():
    model.load_state_dict(states[name])
    np.save(os.path.join(d, f"t_run_nt_sd_{{name}}.npy"), _run(torch, name, model))
whole = torch.load(os.path.join(d, "nt_whole.pt"), weights_only=False)
for name, model in whole.items():
    np.save(os.path.join(d, f"t_run_nt_whole_{{name}}.npy"), _run(torch, name, model))
report["whole_types"] = {{k: type(m).__module__ + "." + type(m).__qualname__
                          for k, m in whole.items()}}
models = _models(torch, 22)
torch.save({{k: m.state_dict() for k, m in models.items()}}, os.path.join(d, "t_sd.pt"))
torch.save(models, os.path.join(d, "t_whole.pt"))
for name, model in models.items():
    np.save(os.path.join(d, f"t_run_{{name}}.npy"), _run(torch, name, model))
print(json.dumps(report))
"""

# torch cannot run its own quantized convolutions once unpickled (their __setstate__ skips
# Module's), so numtorch's whole-model pickle going to torch leaves the conv model out
_TO_TORCH_WHOLE = ["fc", "dynamic", "lstm", "gru", "bag", "bag4"]


@pytest.fixture(scope="module")
def trip(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("qtrip"))
    warnings.simplefilter("ignore")
    numtorch.save(_qtensors(numtorch), os.path.join(d, "nt_q.pt"))
    ours = _models(numtorch, 11)
    numtorch.save({k: m.state_dict() for k, m in ours.items()}, os.path.join(d, "nt_sd.pt"))
    numtorch.save({k: ours[k] for k in _TO_TORCH_WHOLE}, os.path.join(d, "nt_whole.pt"))
    helpers = "\n".join(textwrap.dedent(inspect.getsource(f))
                        for f in (_qtensors, _qdesc, _describe, _models, _run))
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(helpers=helpers),
                           json.dumps({"dir": d})], capture_output=True, text=True,
                          timeout=300, cwd=d)
    assert proc.returncode == 0, f"torch child failed:\n{proc.stderr[-4000:]}"
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"dir": d, "report": report, "ours": ours}


def _load(d, name):
    return np.load(os.path.join(d, name))


def test_quantized_tensors_numtorch_to_torch(trip):
    assert trip["report"]["numtorch_q"] == _describe(_qtensors(numtorch))


def test_quantized_tensors_torch_to_numtorch(trip):
    loaded = numtorch.load(os.path.join(trip["dir"], "t_q.pt"))
    assert _describe(loaded) == trip["report"]["torch_q"]
    # views keep sharing their base's storage, as in torch
    assert loaded["view"].untyped_storage().data_ptr() == \
        loaded["quint8"].untyped_storage().data_ptr()


def _close(name, a, b):
    if name in ("conv", "fc"):  # static: outputs on the same grid, within one quantum
        np.testing.assert_allclose(a, b, rtol=0, atol=0.051)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["conv", "fc", "dynamic", "lstm", "gru", "bag", "bag4"])
def test_state_dicts_both_ways(trip, name):
    d = trip["dir"]
    # numtorch's state dict loaded into torch's model gives numtorch's outputs
    _close(name, _load(d, f"t_run_nt_sd_{name}.npy"), _run(numtorch, name, trip["ours"][name]))
    # and torch's state dict loaded into numtorch's model gives torch's outputs
    model = _models(numtorch, 5)[name]
    states = numtorch.load(os.path.join(d, "t_sd.pt"))
    model.load_state_dict(states[name])
    _close(name, _run(numtorch, name, model), _load(d, f"t_run_{name}.npy"))


@pytest.mark.parametrize("name", ["conv", "fc", "dynamic", "lstm", "gru", "bag", "bag4"])
def test_whole_model_pickles_both_ways(trip, name):
    d = trip["dir"]
    whole = numtorch.load(os.path.join(d, "t_whole.pt"), weights_only=False)
    model = whole[name]
    assert type(model).__module__.startswith("numtorch.")
    _close(name, _run(numtorch, name, model), _load(d, f"t_run_{name}.npy"))
    if name in _TO_TORCH_WHOLE:
        theirs = trip["report"]["whole_types"][name]
        ours = trip["ours"][name]
        assert theirs == "torch" + (type(ours).__module__ + "." +
                                    type(ours).__qualname__)[len("numtorch"):]
        _close(name, _load(d, f"t_run_nt_whole_{name}.npy"), _run(numtorch, name, ours))
