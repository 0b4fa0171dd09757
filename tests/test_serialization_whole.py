"""Whole models, optimizers and schedulers pickled by numtorch and loaded by real torch, and the
reverse, each library in its own process.

numtorch writes torch's class and function names (``torch.nn.modules.linear.Linear``), so real
torch rebuilds its own classes from numtorch's file and gets the same outputs; torch's names map
back to numtorch's objects on loading, and allow-lists compare by torch's names.
"""

import io
import json
import os
import pickle
import pickletools
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import numtorch
from numtorch._serialization import _names
from tests import _serialization_models as models
from tests._serialization_models import build, use

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = """
import json, os, sys
import numpy as np
os.environ["SERIALIZATION_MODELS_LIB"] = "torch"
import torch
from tests import _serialization_models as M
from tests._serialization_models import build, use
ours, theirs = sys.argv[1], sys.argv[2]
report = {{"expected": build(torch, M, theirs)}}
report["full"] = use(torch.load(ours, weights_only=False), torch)
allowed = [M.LSTMLanguageModel, M.TransformerModel, torch.nn.Linear, torch.nn.Embedding,
           torch.nn.LSTM, torch.nn.TransformerEncoder, torch.nn.TransformerEncoderLayer,
           torch.nn.modules.linear.NonDynamicallyQuantizableLinear, torch.nn.MultiheadAttention,
           torch.nn.LayerNorm, torch.nn.Dropout, torch.nn.ModuleList,
           torch.optim.Adam, torch.optim.lr_scheduler.StepLR, torch.nn.functional.relu,
           (torch.nn.functional.gelu, "torch.nn.functional.gelu")]
with torch.serialization.safe_globals([torch.nn.Linear]):
    report["linear_weights_only"] = str(torch.load(ours + ".linear", weights_only=True))
with torch.serialization.safe_globals(allowed):
    try:
        report["weights_only"] = use(torch.load(ours + ".models", weights_only=True), torch)
    except Exception as e:
        report["weights_only"] = repr(e)[-600:]
print(json.dumps(report))
"""


def _same(got, want):
    assert set(got) == set(want)
    for k in want:
        np.testing.assert_allclose(np.array(got[k]), np.array(want[k]), rtol=1e-5, atol=1e-5,
                                   err_msg=k)


@pytest.fixture(scope="module")
def trip(tmp_path_factory):
    root = tmp_path_factory.mktemp("whole")
    ours, theirs = str(root / "numtorch.pt"), str(root / "torch.pt")
    expected = build(numtorch, models, ours)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", _CHILD.format(), ours, theirs],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"ours": ours, "theirs": theirs, "expected": expected, "torch": report}


def _globals_in(path):
    data = zipfile.ZipFile(path).read(zipfile.ZipFile(path).namelist()[0])
    out = io.StringIO()
    pickletools.dis(data, out)
    return {line.split("GLOBAL", 1)[1].strip().strip("'")
            for line in out.getvalue().splitlines() if " GLOBAL " in line}


def test_numtorch_pickle_names_torch_classes(trip):
    names = _globals_in(trip["ours"])
    assert "torch.nn.modules.linear Linear" in names
    assert "torch.nn.modules.rnn LSTM" in names
    assert "torch.nn.modules.transformer TransformerEncoderLayer" in names
    assert "torch.optim.adam Adam" in names and "torch.optim.lr_scheduler StepLR" in names
    assert not [n for n in names if n.startswith("numtorch")], names


def test_torch_runs_numtorch_models(trip):
    _same(trip["torch"]["full"], trip["expected"])


def test_torch_weights_only_with_safe_globals(trip):
    assert trip["torch"]["linear_weights_only"].startswith("Linear(in_features=4")
    got = trip["torch"]["weights_only"]
    assert isinstance(got, dict), got
    _same(got, {k: v for k, v in trip["expected"].items() if k not in ("stepped", "lr")})


def test_numtorch_runs_torch_models(trip):
    _same(use(numtorch.load(trip["theirs"], weights_only=False), numtorch),
          trip["torch"]["expected"])


def test_numtorch_weights_only_compares_torch_names(trip):
    with pytest.raises(pickle.UnpicklingError, match=r"torch\.nn\.modules\.linear\.Linear"):
        numtorch.load(trip["theirs"] + ".linear")
    with numtorch.serialization.safe_globals([numtorch.nn.Linear]):
        lin = numtorch.load(trip["theirs"] + ".linear")
    assert type(lin) is numtorch.nn.Linear and isinstance(lin.weight, numtorch.nn.Parameter)
    nn = numtorch.nn
    allowed = [models.LSTMLanguageModel, models.TransformerModel, nn.Linear, nn.Embedding,
               nn.LSTM, nn.TransformerEncoder, nn.TransformerEncoderLayer,
               nn.modules.linear.NonDynamicallyQuantizableLinear, nn.MultiheadAttention,
               nn.LayerNorm, nn.Dropout, nn.ModuleList, numtorch.optim.Adam,
               numtorch.optim.lr_scheduler.StepLR, nn.functional.relu, nn.functional.gelu]
    with numtorch.serialization.safe_globals(allowed):
        obj = numtorch.load(trip["theirs"] + ".models")
    want = {k: v for k, v in trip["torch"]["expected"].items() if k not in ("stepped", "lr")}
    _same(use(obj, numtorch), want)


def test_names_map_to_torch_and_back():
    F = numtorch.nn.functional
    assert _names.torch_name(F.relu, F.relu.__module__, "relu") == (
        "torch.nn.functional", "relu")
    assert _names.torch_name(numtorch.nn.Linear, "numtorch.nn.modules.linear", "Linear") == (
        "torch.nn.modules.linear", "Linear")
    # private names that torch lacks keep numtorch's path
    private = _names.__dict__["_lookup"]
    assert _names.torch_name(private, _names.__name__, "_lookup") == (_names.__name__,
                                                                       "_lookup")
    assert _names.numtorch_object("torch.nn.modules.linear", "Linear") is numtorch.nn.Linear
    assert _names.numtorch_object("torch._C._nn", "gelu") is F.gelu
    assert _names.numtorch_object("torch.nn.modules.linear", "NoSuchThing") is \
        _names._MISSING
    assert "torch.nn.modules.linear.Linear" in _names.names_of(numtorch.nn.Linear)


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_every_protocol_writes_torch_names(protocol, tmp_path):
    # protocol 2 goes through the C pickler (names swapped after pickling), 4 and 5 through
    # the pure-Python one (STACK_GLOBAL strings)
    model = numtorch.nn.Sequential(numtorch.nn.Linear(2, 3), numtorch.nn.GELU(),
                                   numtorch.nn.LSTM(3, 2))
    path = tmp_path / "m.pt"
    numtorch.save({"m": model, "act": numtorch.nn.functional.relu}, path,
                  pickle_protocol=protocol)
    data = zipfile.ZipFile(path).read("m/data.pkl")
    strings = {a for op, a, _ in pickletools.genops(data) if isinstance(a, str)}
    text = " ".join(strings)
    assert "numtorch" not in text
    assert ("torch.nn.modules.linear" in strings or "torch.nn.modules.linear Linear" in text)
    back = numtorch.load(path, weights_only=False)
    assert type(back["m"][2]) is numtorch.nn.LSTM and back["act"] is numtorch.nn.functional.relu
    x = numtorch.randn(4, 1, 2)
    np.testing.assert_array_equal(back["m"][1](x).numpy(), model[1](x).numpy())


def test_torch_module_list_matches_the_installed_torch():
    from numtorch._serialization import _torch_modules

    assert set(_torch_modules._generate()) == _torch_modules.torch_modules()
