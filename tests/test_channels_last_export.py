"""A channels-last model exports to ONNX: the layout nodes numtorch records for channels-last
convolution, pooling and resizing become ONNX Identity nodes, and onnxruntime's result equals
numtorch's."""

import io

import numpy as np

import numtorch


def test_channels_last_model_exports_and_runs_in_onnxruntime():
    import onnxruntime as ort

    nn = numtorch.nn
    numtorch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Upsample(scale_factor=2),
                      nn.AdaptiveAvgPool2d(2)).to(memory_format=numtorch.channels_last)
    x = numtorch.randn(1, 3, 8, 8).to(memory_format=numtorch.channels_last)
    f = io.BytesIO()
    numtorch.onnx.export(m, (x,), f)
    sess = ort.InferenceSession(f.getvalue())
    (out,) = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})
    np.testing.assert_allclose(out, m(x).detach().numpy(), rtol=1e-5, atol=1e-6)
