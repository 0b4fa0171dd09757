"""``ONNXProgram``: what ``export(..., dynamo=True)`` returns."""

import numpy as np


class ONNXProgram:
    """An exported model: its ``model_proto``, ``save()`` to a file, and calling it runs the
    graph with onnxruntime (a test extra) on numtorch tensors.

    Args:
        model_proto: the ``onnx.ModelProto``.
        exported_program: always None here (torch keeps its ``torch.export`` program).
    """

    def __init__(self, model_proto, exported_program=None):
        self.model_proto = model_proto
        self.exported_program = exported_program
        self._session = None

    @property
    def model(self):
        """The model (torch gives an onnx_ir model; here it is the ModelProto)."""
        return self.model_proto

    def __repr__(self):
        return f"ONNXProgram(model_proto=<graph with {len(self.model_proto.graph.node)} nodes>)"

    def save(self, destination, *, include_initializers=True, keep_initializers_as_inputs=False,
             external_data=None):
        """Write the model to ``destination`` (a path or a binary file object)."""
        from ._export import save

        proto = self.model_proto
        if not include_initializers or keep_initializers_as_inputs:
            proto = _variant(proto, include_initializers, keep_initializers_as_inputs)
        save(proto, destination, True if external_data is None else external_data)

    def optimize(self):
        """Accepted for torch's API: the graph is already folded when exported."""

    def initialize_inference_session(self, initializer=None):
        """Create the onnxruntime session ``__call__`` uses."""
        if initializer is not None:
            self._session = initializer(self.model_proto.SerializeToString())
            return
        try:
            import onnxruntime
        except ImportError as e:
            raise ImportError("running an ONNXProgram needs onnxruntime "
                              "(`pip install onnxruntime`)") from e
        self._session = onnxruntime.InferenceSession(
            self.model_proto.SerializeToString(), providers=["CPUExecutionProvider"])

    def release(self):
        """Drop the inference session."""
        self._session = None

    def __call__(self, *args, **kwargs):
        """Run the model on tensors; returns a list of tensors."""
        from .. import from_numpy
        from ._trace import flatten, host

        if self._session is None:
            self.initialize_inference_session()
        flat = flatten((args, kwargs))
        names = [i.name for i in self._session.get_inputs()]
        feed = {n: np.asarray(host(t.detach()._array), order="C") for n, t in zip(names, flat)}
        return [from_numpy(np.asarray(o)) for o in self._session.run(None, feed)]


def _variant(proto, include_initializers, as_inputs):
    from ._onnx import onnx_modules

    onnx = onnx_modules()[0]
    out = onnx.ModelProto()
    out.CopyFrom(proto)
    if as_inputs:
        have = {i.name for i in out.graph.input}
        for init in out.graph.initializer:
            if init.name not in have:
                out.graph.input.append(onnx.helper.make_tensor_value_info(
                    init.name, init.data_type, list(init.dims)))
    if not include_initializers:
        del out.graph.initializer[:]
    return out


__all__ = ["ONNXProgram"]
