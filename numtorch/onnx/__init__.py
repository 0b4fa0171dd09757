"""``torch.onnx``: export a model to an ONNX file.

``export`` runs the model once on example inputs while recording every numtorch op it calls,
then writes the recorded graph with the ``onnx`` package (the ``onnx`` extra; imported only
when exporting). Dynamic axes are found by running the model again at other sizes (see
``_dynamic``). What is exportable, and what is not, is listed in ``docs`` of the README.

Note:
    Unlike torch, ``dynamo=True`` (torch's default) does not need ``onnxscript``: both
    settings use the same tracing exporter; ``dynamo=True`` returns an ``ONNXProgram`` and
    ``dynamo=False`` returns None, as in torch.
"""

import contextlib
import warnings

from . import errors
from ._enums import OperatorExportTypes, TrainingMode
from ._program import ONNXProgram
from .errors import OnnxExporterError

__all__ = [
    "ONNXProgram",
    "OnnxExporterError",
    "OperatorExportTypes",
    "TrainingMode",
    "errors",
    "export",
    "is_in_onnx_export",
    "register_custom_op_symbolic",
    "select_model_mode_for_export",
    "unregister_custom_op_symbolic",
]

producer_name = "numtorch"


def __getattr__(name):
    if name == "producer_version":
        from .. import __version__

        return __version__
    raise AttributeError(f"module 'numtorch.onnx' has no attribute '{name}'")


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None,
           output_names=None, opset_version=None, dynamo=True, external_data=True,
           dynamic_shapes=None, custom_translation_table=None, report=False, optimize=True,
           verify=False, profile=False, dump_exported_program=False, artifacts_dir=".",
           export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None,
           training=TrainingMode.EVAL, operator_export_type=OperatorExportTypes.ONNX,
           do_constant_folding=True, custom_opsets=None, export_modules_as_functions=False,
           autograd_inlining=True):
    """Export ``model`` to ONNX by tracing one call ``model(*args, **kwargs)``.

    Args:
        model (nn.Module or callable): what to export.
        args (tuple or Tensor): example inputs; a trailing dict holds keyword inputs.
        f (str, PathLike or file object, optional): where to write the ``.onnx`` file.
        kwargs (dict, optional): more keyword inputs.
        verbose (bool, optional): print the exported graph.
        input_names (list of str, optional): names of the input tensors in order (the rest
            are named after ``forward``'s parameters).
        output_names (list of str, optional): names of the output tensors in order.
        opset_version (int, optional): ONNX opset, 11 to 23 (default 18, or 20 with
            ``dynamo=False``, as torch).
        dynamo (bool): return an ``ONNXProgram`` (True) or None (False); see the Note above.
        external_data (bool): store the weights beside a model over 2 GB.
        dynamic_shapes: a dict or tuple mirroring the inputs whose entries map dims to names;
            read like ``dynamic_axes``.
        export_params (bool): store the parameters in the file; if False they become
            inputs of the graph.
        keep_initializers_as_inputs (bool): also list the parameters as graph inputs.
        dynamic_axes (dict, optional): ``{name: {dim: axis_name}}`` or ``{name: [dims]}`` for
            inputs and outputs whose sizes may change.
        training (TrainingMode): the mode the model is exported in (default EVAL).
        operator_export_type (OperatorExportTypes): only standard ONNX is produced.
        do_constant_folding (bool): compute everything that depends only on the weights.
        custom_opsets (dict, optional): opset versions of custom domains.

    Returns:
        ONNXProgram or None: an ``ONNXProgram`` when ``dynamo`` is True.

    Raises:
        errors.UnsupportedOperatorError: an op of the model has no ONNX translation.
        errors.SymbolicValueError: a size that follows a dynamic axis cannot be expressed.

    The arguments ``custom_translation_table``, ``report``, ``optimize``, ``verify``,
    ``profile``, ``dump_exported_program``, ``artifacts_dir``,
    ``export_modules_as_functions`` and ``autograd_inlining`` belong to torch's exporters
    and are accepted without effect.
    """
    from ._export import export_model

    if not dynamo:
        warnings.warn("torch.onnx.export(..., dynamo=False) selects torch's legacy "
                      "TorchScript exporter, which torch has deprecated; numtorch exports the "
                      "same way either way", DeprecationWarning, stacklevel=2)
    if dynamic_shapes is not None and dynamic_axes is None:
        dynamic_axes = _axes_from_shapes(model, args, kwargs, dynamic_shapes)
    if opset_version is None:  # torch's defaults: 18 for its dynamo exporter, 20 for the other
        opset_version = 18 if dynamo else 20
    proto = export_model(model, args, kwargs, None, input_names=input_names,
                         output_names=output_names, opset_version=opset_version,
                         dynamic_axes=dynamic_axes, export_params=export_params,
                         keep_initializers_as_inputs=keep_initializers_as_inputs,
                         training=training, do_constant_folding=do_constant_folding,
                         custom_opsets=custom_opsets, verbose=verbose,
                         external_data=external_data)
    program = ONNXProgram(proto)
    if f is not None:
        program.save(f, external_data=external_data)
    return program if dynamo else None


def _axes_from_shapes(model, args, kwargs, dynamic_shapes):
    """``dynamic_shapes`` (torch.export's form, by argument) as ``dynamic_axes``."""
    import inspect

    try:
        params = list(inspect.signature(model.forward if hasattr(model, "forward") else model)
                      .parameters)
    except (TypeError, ValueError):
        params = []
    if isinstance(dynamic_shapes, dict):
        items = dynamic_shapes.items()
    else:
        items = ((params[i] if i < len(params) else f"input_{i}", s)
                 for i, s in enumerate(dynamic_shapes))
    out = {}
    for name, spec in items:
        if isinstance(spec, dict):
            out[name] = {int(d): getattr(v, "__name__", None) or str(v) for d, v in
                         spec.items() if v is not None}
    return out


def is_in_onnx_export():
    """Whether an ``export`` call is running the model right now."""
    from ._export import is_exporting

    return is_exporting()


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """Use ``symbolic_fn(g, *inputs)`` to export the operator ``symbolic_name``
    (``"aten::gelu"``-style; the numtorch ops that torch calls by that name are covered).

    ``g.op("Name", *inputs, attr_f=1.0, ...)`` adds an ONNX node (a ``"domain::Name"`` for a
    custom domain), as in torch.
    """
    from ._convert import CUSTOM

    if not isinstance(symbolic_name, str) or "::" not in symbolic_name:
        raise ValueError(f"Failed to register operator {symbolic_name}. The symbolic name "
                         "must match the format domain::name, and should start with a letter "
                         "and contain only alphanumerical characters")
    CUSTOM[symbolic_name] = (symbolic_fn, opset_version)


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    """Forget a function registered with ``register_custom_op_symbolic``."""
    from ._convert import CUSTOM

    CUSTOM.pop(symbolic_name, None)


@contextlib.contextmanager
def select_model_mode_for_export(model, mode):
    """Put ``model`` in the mode ``mode`` (a TrainingMode) for the ``with`` block."""
    if not isinstance(mode, TrainingMode):
        raise TypeError(f"'mode' should be a torch.onnx.TrainingMode enum, but got "
                        f"'{type(mode)}'.")
    was = getattr(model, "training", None)
    if was is not None and mode != TrainingMode.PRESERVE:
        model.train(mode == TrainingMode.TRAINING)
    try:
        yield
    finally:
        if was is not None and mode != TrainingMode.PRESERVE:
            model.train(was)
