"""Shared by the ONNX export tests: export a model, check the file, run it in onnxruntime and
compare with numtorch's own outputs (at the example inputs and at other sizes)."""

import io

import numpy as np
import onnx
import onnxruntime as ort

import numtorch
import numtorch.onnx
from numtorch.onnx._trace import flatten


def session(data):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])


def run(sess, args):
    args = args if isinstance(args, tuple) else (args,)
    flat = flatten(args)
    names = [i.name for i in sess.get_inputs()]
    feed = {n: np.asarray(t.detach().numpy(), order="C") for n, t in zip(names, flat)}
    return sess.run(None, feed)


def expected(model, args):
    args = args if isinstance(args, tuple) else (args,)
    kwargs = {}
    if args and isinstance(args[-1], dict):
        args, kwargs = args[:-1], args[-1]
    with numtorch.no_grad():
        out = model(*args, **kwargs)
    return [t.numpy() for t in flatten(out)]


def roundtrip(model, args, *others, rtol=1e-4, atol=1e-5, **kwargs):
    """Export ``model`` on ``args``; check the file and compare onnxruntime with numtorch on
    ``args`` and each of ``others``. Returns the ModelProto."""
    if hasattr(model, "eval"):
        model.eval()
    f = io.BytesIO()
    numtorch.onnx.export(model, args, f, **kwargs)
    data = f.getvalue()
    proto = onnx.load_from_string(data)
    onnx.checker.check_model(proto, full_check=True)
    sess = session(data)
    for a in (args, *others):
        got = run(sess, a)
        want = expected(model, a)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape, (g.shape, w.shape)
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return proto


def op_types(proto):
    return [n.op_type for n in proto.graph.node]
