"""``numtorch.onnx``: torch.onnx's public names and export options, errors for what cannot be
exported, and a word_language_model-style program run unchanged through ``numtorch.run``."""

import inspect
import io
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch as real_torch
import torch.onnx

import numtorch
import numtorch.onnx as nonnx
from numtorch import nn
from numtorch.autograd import graph, inplace
from tests.onnx_helpers import expected, op_types, roundtrip, run, session


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _export(model, args, **kwargs):
    f = io.BytesIO()
    nonnx.export(model, args, f, **kwargs)
    return onnx.load_from_string(f.getvalue()), f.getvalue()


# -- the public surface -----------------------------------------------------------------------


def test_names_and_enums_match_torch():
    assert numtorch.onnx is nonnx
    for name in ("export", "is_in_onnx_export", "errors", "OnnxExporterError", "ONNXProgram",
                 "TrainingMode", "OperatorExportTypes", "register_custom_op_symbolic",
                 "unregister_custom_op_symbolic", "select_model_mode_for_export"):
        assert hasattr(real_torch.onnx, name) and hasattr(nonnx, name), name
    for enum in ("TrainingMode", "OperatorExportTypes"):
        theirs = getattr(real_torch.onnx, enum).__members__
        ours = getattr(nonnx, enum).__members__
        assert {k: int(v) for k, v in ours.items()} == {k: int(v) for k, v in theirs.items()}
        for k in ours:
            assert str(ours[k]) == str(theirs[k]) and repr(ours[k]) == repr(theirs[k])
    assert sorted(nonnx.errors.__all__) == sorted(real_torch.onnx.errors.__all__)


def test_export_signature_matches_torch():
    ours = inspect.signature(nonnx.export).parameters
    theirs = inspect.signature(real_torch.onnx.export).parameters
    assert list(ours) == list(theirs)
    for name, p in theirs.items():
        assert ours[name].kind == p.kind, name
        default = p.default
        if hasattr(default, "name"):  # torch's pybind enums
            assert ours[name].default.name == default.name, name
        else:
            assert ours[name].default == default, name


def test_error_classes_and_messages_match_torch():
    ours, theirs = nonnx.errors, real_torch.onnx.errors
    for name in ("UnsupportedOperatorError", "SymbolicValueError"):
        assert issubclass(getattr(ours, name), nonnx.OnnxExporterError)
        assert issubclass(getattr(theirs, name), real_torch.onnx.OnnxExporterError)
    assert issubclass(nonnx.OnnxExporterError, RuntimeError)
    assert issubclass(ours.OnnxExporterWarning, UserWarning)
    for args in (("aten::foo", 17, None), ("aten::bar", 9, 11)):
        assert str(ours.UnsupportedOperatorError(*args)) == \
            str(theirs.UnsupportedOperatorError(*args))


def test_is_in_onnx_export_and_mode_restored():
    seen = []

    class M(nn.Module):
        def forward(self, x):
            seen.append((numtorch.onnx.is_in_onnx_export(), self.training))
            return x * 2
    m = M().train()
    _export(m, (numtorch.randn(3),))
    assert seen == [(True, False)] and m.training
    assert not numtorch.onnx.is_in_onnx_export()
    seen.clear()
    _export(m, (numtorch.randn(3),), training=nonnx.TrainingMode.PRESERVE)
    assert seen == [(True, True)]
    with nonnx.select_model_mode_for_export(m, nonnx.TrainingMode.EVAL):
        assert not m.training
    assert m.training
    with pytest.raises(TypeError, match="TrainingMode"), \
            nonnx.select_model_mode_for_export(m, 0):
        pass


# -- options ----------------------------------------------------------------------------------


def test_path_file_object_and_return_values(tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh())
    x = numtorch.randn(2, 3)
    prog = nonnx.export(model, (x,), tmp_path / "a.onnx")
    assert isinstance(prog, nonnx.ONNXProgram)
    with pytest.warns(DeprecationWarning):
        assert nonnx.export(model, x, str(tmp_path / "b.onnx"), dynamo=False,
                            opset_version=18) is None
    buf = io.BytesIO()
    nonnx.export(model, (x,), buf)
    a, b = (tmp_path / "a.onnx").read_bytes(), (tmp_path / "b.onnx").read_bytes()
    assert a == b == buf.getvalue()
    np.testing.assert_allclose(prog(x)[0].numpy(), expected(model, x)[0], rtol=1e-5)
    prog.save(tmp_path / "c.onnx", keep_initializers_as_inputs=True)
    names = [i.name for i in onnx.load(tmp_path / "c.onnx").graph.input]
    assert names == ["input", "0.weight", "0.bias"]
    assert nonnx.export(model, (x,)).model_proto.graph.node  # no file: only the program


def test_names_params_and_initializers():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = numtorch.randn(5, 3)
    proto, _ = _export(model, (x,), input_names=["x"], output_names=["y"],
                       dynamic_axes={"x": [0], "y": [0]})
    assert [i.name for i in proto.graph.input] == ["x"]
    assert [o.name for o in proto.graph.output] == ["y"]
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "x_dynamic_axes_1"
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "y_dynamic_axes_1"
    assert sorted(i.name for i in proto.graph.initializer) == sorted(model.state_dict())
    assert proto.producer_name == "numtorch"
    proto, data = _export(model, (x,), export_params=False)
    assert [i.name for i in proto.graph.input] == ["input", "0.weight", "0.bias", "2.weight",
                                                   "2.bias"]
    assert not proto.graph.initializer
    feed = {"input": x.numpy(), **{k: v.numpy() for k, v in model.state_dict().items()}}
    np.testing.assert_allclose(session(data).run(None, feed)[0], expected(model, x)[0],
                               rtol=1e-5)
    proto, _ = _export(model, (x,), keep_initializers_as_inputs=True)
    assert len(proto.graph.input) == 5 and len(proto.graph.initializer) == 4
    with pytest.warns(UserWarning, match="Provided key nope for dynamic axes"):
        _export(model, (x,), dynamic_axes={"nope": [0]})


def test_opsets_and_kwargs():
    model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.LayerNorm(4), nn.GELU())
    x = numtorch.randn(1, 2, 6, 6)
    for opset in (11, 14, 18, 23):
        proto = roundtrip(model, (x,), opset_version=opset)
        assert proto.opset_import[0].version == opset
    assert "LayerNormalization" not in op_types(roundtrip(model, (x,), opset_version=16))
    assert _export(model, (x,))[0].opset_import[0].version == 18  # torch's defaults
    with pytest.warns(DeprecationWarning):
        assert _export(model, (x,), dynamo=False)[0].opset_import[0].version == 20
    for bad in (10, 24):
        with pytest.raises(nonnx.OnnxExporterError, match=f"Unsupported onnx_opset_version: "
                                                          f"{bad}"):
            _export(model, (x,), opset_version=bad)

    class Two(nn.Module):
        def forward(self, a, b=None, scale=1.0):
            return a * scale + b
    a, b = numtorch.randn(2), numtorch.randn(2)
    proto, data = _export(Two(), (a, {"b": b, "scale": 3.0}))
    assert [i.name for i in proto.graph.input] == ["a", "b"]
    np.testing.assert_allclose(run(session(data), (a, b))[0], (a * 3 + b).numpy(), rtol=1e-6)
    proto, _ = _export(Two(), (a,), kwargs={"b": b})
    assert [i.name for i in proto.graph.input] == ["a", "b"]


def test_outputs_that_are_inputs_or_constants():
    class M(nn.Module):
        def forward(self, x, unused):
            return x, numtorch.ones(2), x + 1, x
    x = numtorch.randn(2)
    proto, data = _export(M(), (x, numtorch.randn(3)))
    got = run(session(data), (x, numtorch.randn(3)))
    want = [x.numpy(), np.ones(2, np.float32), (x + 1).numpy(), x.numpy()]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)
    assert len(proto.graph.output) == 4


def test_training_mode_export():
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(0.5))
    proto, data = _export(model, (numtorch.randn(8, 4),), training=nonnx.TrainingMode.TRAINING)
    assert "RandomUniformLike" in op_types(proto)
    y = run(session(data), (numtorch.randn(8, 4),))[0]
    assert y.shape == (8, 4) and ((y == 0).mean() > 0.1)
    assert model.training  # back in the mode it was in


def test_custom_symbolics():
    def gelu_as_relu(g, x, approximate):
        return g.op("Relu", x)
    nonnx.register_custom_op_symbolic("aten::gelu", gelu_as_relu, 9)
    try:
        proto, data = _export(nn.Sequential(nn.Linear(3, 3), nn.GELU()),
                              (numtorch.randn(2, 3),))
        assert "Relu" in op_types(proto) and "Gelu" not in op_types(proto)
        assert (run(session(data), (-numtorch.ones(2, 3) * 100,))[0] >= 0).all()
    finally:
        nonnx.unregister_custom_op_symbolic("aten::gelu", 9)
    assert "Gelu" in op_types(_export(nn.GELU(), (numtorch.randn(2),), opset_version=20)[0])
    with pytest.raises(ValueError, match="domain::name"):
        nonnx.register_custom_op_symbolic("gelu", gelu_as_relu, 9)

    class Clip(numtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x, lo):
            return x.clamp(min=lo)

        @staticmethod
        def backward(ctx, g):
            return g, None

        @staticmethod
        def symbolic(g, x, lo):
            return g.op("Clip", x, g.op("Constant", value_t=numtorch.tensor(lo)))
    proto = roundtrip(Lambda(lambda x: Clip.apply(x, 0.25)), (numtorch.randn(5),))
    assert op_types(proto) == ["Constant", "Clip"]


# -- what cannot be exported ------------------------------------------------------------------


def test_unsupported_op_is_named():
    with pytest.raises(nonnx.errors.UnsupportedOperatorError,
                       match=r"Exporting the operator '.*Cholesky' to ONNX opset version 18"):
        _export(Lambda(lambda x: numtorch.linalg.cholesky(x @ x.mT + numtorch.eye(3))),
                (numtorch.randn(3, 3),))
    lstm = nn.LSTM(2, 3, proj_size=2)
    with pytest.raises(nonnx.errors.UnsupportedOperatorError, match="LSTM with proj_size"):
        _export(Lambda(lambda x: lstm(x)[0]), (numtorch.randn(4, 2, 2),))
    with pytest.raises(nonnx.errors.UnsupportedOperatorError, match="PackedSequence"):
        packed = nn.utils.rnn.pack_padded_sequence(numtorch.randn(4, 2, 2), [4, 2])
        _export(Lambda(lambda p: lstm(p)[1][0]), (packed,))


def test_stale_tensor_after_a_write_through_another_view():
    def fn(x):
        y = x * 2
        torch_diag = numtorch.diagonal(y)
        torch_diag.add_(1)
        return y
    with pytest.raises(nonnx.errors.UnsupportedOperatorError,
                       match="in-place write into a traced tensor .* version 18"):
        _export(Lambda(fn), (numtorch.randn(3, 3),))


def test_inexpressible_dynamic_size():
    model = Lambda(lambda x: x.sum() + numtorch.zeros(x.shape[0] ** 3 + 1).sum())
    with pytest.raises(nonnx.errors.SymbolicValueError, match="dynamic axes"):
        _export(model, (numtorch.randn(3),), dynamic_axes={"x": {0: "n"}})


def test_size_dependent_control_flow_falls_back_with_a_warning():
    model = Lambda(lambda x: x * 2 if x.shape[0] < 4 else x.exp())
    with pytest.warns(nonnx.errors.OnnxExporterWarning, match="different calls"):
        proto, _ = _export(model, (numtorch.randn(3),), dynamic_axes={"x": {0: "n"}})
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "n"
    with pytest.warns(nonnx.errors.OnnxExporterWarning, match="first run"):
        _export(Lambda(lambda x: x.sum() + numtorch.randn(3)), (numtorch.randn(3),),
                dynamic_axes={"x": {0: "n"}}, do_constant_folding=False)


def test_extra_runs_for_dynamic_axes_leave_the_model_as_one_run_would():
    class Cache(nn.Module):
        def __init__(self):
            super().__init__()
            self.mask = None
            self.bn = nn.BatchNorm1d(2)

        def forward(self, x):
            if self.mask is None or self.mask.size(0) != x.size(0):
                self.mask = numtorch.ones(x.size(0), 2).tril()
            return self.bn(x) * self.mask
    m = Cache()
    x = numtorch.randn(5, 2)
    once = Cache()
    once.train()
    with numtorch.no_grad():
        once(x)
    _export(m.eval(), (x,), dynamic_axes={"x": {0: "n"}})
    assert m.mask.shape == (5, 2)
    roundtrip(m, (x,), (numtorch.randn(3, 2),), dynamic_axes={"x": {0: "n"}})
    m.train()
    with warnings.catch_warnings():  # the batch statistics reach the update outside ops
        warnings.simplefilter("ignore", nonnx.errors.OnnxExporterWarning)
        _export(m, (x,), training=nonnx.TrainingMode.TRAINING, dynamic_axes={"x": {0: "n"}})
    np.testing.assert_allclose(m.bn.running_mean.numpy(), once.bn.running_mean.numpy(),
                               rtol=1e-6)
    assert int(m.bn.num_batches_tracked) == 1


def test_hooks_are_removed_even_after_an_error():
    apply = graph.Op.__dict__["apply"]
    rnn_forward = nn.modules.rnn.RNNBase.__dict__["forward"]

    class Bad(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(2, 2)

        def forward(self, x):
            self.rnn(x)
            raise ValueError("boom")
    m = Bad()
    with pytest.raises(ValueError, match="boom"):
        _export(m, (numtorch.randn(3, 1, 2),))
    assert graph.Op.__dict__["apply"] is apply and inplace._TRACE[0] is None
    assert nn.modules.rnn.RNNBase.__dict__["forward"] is rnn_forward
    assert "forward" not in m.rnn.__dict__ and not nonnx.is_in_onnx_export()


def test_missing_onnx_package_names_the_extra(monkeypatch):
    from numtorch.onnx import _onnx

    monkeypatch.setattr(_onnx, "_CACHE", [])
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match=r"numtorch\[onnx\]"):
        _export(nn.Linear(2, 2), (numtorch.randn(1, 2),))


# -- a program written for torch, run unchanged ---------------------------------------------

PROGRAM = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import torch.onnx

    class RNNModel(nn.Module):
        def __init__(self, ntoken, ninp, nhid, nlayers):
            super().__init__()
            self.ntoken = ntoken
            self.drop = nn.Dropout(0.2)
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=0.2)
            self.decoder = nn.Linear(nhid, ntoken)

        def forward(self, input, hidden):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
            return nn.functional.log_softmax(decoded, dim=1), hidden

    torch.manual_seed(0)
    model = RNNModel(40, 8, 12, 2)
    model.eval()
    seq_len, batch_size = 6, 2
    dummy_input = torch.LongTensor(seq_len * batch_size).zero_().view(-1, batch_size)
    hidden = (torch.zeros(2, batch_size, 12), torch.zeros(2, batch_size, 12))
    torch.onnx.export(model, (dummy_input, hidden), "model.onnx",
                      input_names=["input", "h0", "c0"],
                      output_names=["logp", "hn", "cn"],
                      dynamic_axes={"input": {0: "seq", 1: "batch"}, "h0": {1: "batch"},
                                    "c0": {1: "batch"}, "logp": {0: "rows"}})
    import onnxruntime
    sess = onnxruntime.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    x = torch.randint(0, 40, (9, 3))
    h = (torch.randn(2, 3, 12), torch.randn(2, 3, 12))
    got = sess.run(None, {"input": x.numpy(), "h0": h[0].numpy(), "c0": h[1].numpy()})
    with torch.no_grad():
        logp, (hn, cn) = model(x, h)
    for g, w in zip(got, (logp, hn, cn)):
        assert g.shape == tuple(w.shape), (g.shape, w.shape)
        assert abs(g - w.numpy()).max() < 1e-4
    print("exported ok", [i.name for i in sess.get_inputs()])
''')


def test_word_language_model_program_runs_unchanged(tmp_path):
    (tmp_path / "main.py").write_text(PROGRAM)
    root = str(Path(__file__).parents[1])
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    with warnings.catch_warnings():
        proc = subprocess.run([sys.executable, "-m", "numtorch.run", "main.py"], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=240,
                              check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "exported ok ['input', 'h0', 'c0']" in proc.stdout
