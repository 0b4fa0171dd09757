"""``torch.ao.quantization.quantize_fx``: FX graph mode quantization.

``prepare_fx`` traces a model with :mod:`numtorch.fx`, fuses conv/linear/batch norm/ReLU
patterns, and inserts observers where the native backend (x86/fbgemm/qnnpack) quantizes;
``prepare_qat_fx`` does the same with fake quantizers and QAT modules; ``convert_fx`` turns
the calibrated (or trained) model into a GraphModule of quantized modules and
``torch.ops.quantized`` calls.

``convert_to_reference_fx`` gives the reference model instead: quantize/dequantize pairs and
reference conv/linear modules (:mod:`numtorch.ao.nn.quantized.reference`).

Note: numtorch quantizes the patterns users build models from (conv/linear modules plain and
fused, batch norm, ReLU, add/mul, cat, pooling, shape ops, sigmoid/tanh/hardsigmoid,
``F.linear``, dynamic Linear). The other ops torch's native backend quantizes (functional
convs, ``ConvTranspose``, layer/group/instance norm, ``matmul``, ``PReLU``, ``Softmax``, RNNs,
embeddings) make ``prepare_fx`` raise ``NotImplementedError`` unless their qconfig is None;
custom configs (prepare/convert/fuse), backend configs and ``_equalization_config`` raise
``NotImplementedError`` too.
"""

import warnings

from numtorch.fx import GraphModule

from .qconfig_mapping import QConfigMapping
from .quantize import DEPRECATION_WARNING, _deprecated  # noqa: F401

__all__ = ["convert_fx", "convert_to_reference_fx", "fuse_fx", "prepare_fx", "prepare_qat_fx"]


def _check_is_graph_module(model):
    if not isinstance(model, GraphModule):  # torch raises ValueError here
        raise ValueError(  # noqa: TRY004
            "input model must be a GraphModule, Got type:" + str(type(model))
            + " Please make sure to follow the tutorials.")


def _unsupported(name, value):
    if value is not None:
        raise NotImplementedError(f"numtorch's FX graph mode quantization does not support "
                                  f"{name} yet")


def _swap_ff_with_fxff(model):
    from numtorch.ao.nn.quantized import FloatFunctional, FXFloatFunctional

    for name, child in list(model.named_children()):
        if isinstance(child, FloatFunctional):
            del model._modules[name]
            model._modules[name] = FXFloatFunctional()
        else:
            _swap_ff_with_fxff(child)


def _trace(model):
    from .fx.tracer import QuantizationTracer

    tracer = QuantizationTracer([], [])
    graph = tracer.trace(model)
    return GraphModule(model, graph), tracer


def _fuse_fx(graph_module, is_qat):
    from .fx.fuse import fuse

    _check_is_graph_module(graph_module)
    return fuse(graph_module, is_qat)


def _prepare_fx(model, qconfig_mapping, is_qat, example_inputs, prepare_custom_config=None,
                _equalization_config=None, backend_config=None):
    from .fx.prepare import prepare

    _unsupported("prepare_custom_config", prepare_custom_config)
    _unsupported("_equalization_config", _equalization_config)
    _unsupported("backend_config", backend_config)
    if qconfig_mapping is None:
        qconfig_mapping = QConfigMapping()
    if isinstance(qconfig_mapping, dict):
        warnings.warn("Passing a QConfig dictionary to prepare is deprecated and will not be "
                      "supported in a future version. Please pass in a QConfigMapping "
                      "instead.", FutureWarning, stacklevel=3)
        qconfig_mapping = QConfigMapping.from_dict(qconfig_mapping)
    _swap_ff_with_fxff(model)
    graph_module, tracer = _trace(model)
    graph_module = _fuse_fx(graph_module, is_qat)
    return prepare(graph_module, qconfig_mapping, is_qat, tracer.node_name_to_scope)


def fuse_fx(model, fuse_custom_config=None, backend_config=None):
    """Trace ``model`` and fuse conv/linear/batch norm + batch norm/ReLU patterns (eval mode:
    batch norm folded into the conv or linear)."""
    _unsupported("fuse_custom_config", fuse_custom_config)
    _unsupported("backend_config", backend_config)
    graph_module, _ = _trace(model)
    return _fuse_fx(graph_module, False)


def prepare_fx(model, qconfig_mapping, example_inputs, prepare_custom_config=None,
               _equalization_config=None, backend_config=None):
    """A GraphModule of ``model`` (in eval mode) with observers where ``qconfig_mapping``
    asks for quantization; run calibration data through it, then :func:`convert_fx`."""
    _deprecated()
    return _prepare_fx(model, qconfig_mapping, False, example_inputs, prepare_custom_config,
                       _equalization_config, backend_config)


def prepare_qat_fx(model, qconfig_mapping, example_inputs, prepare_custom_config=None,
                   backend_config=None):
    """A GraphModule of ``model`` (in train mode) with QAT modules and fake quantizers; train
    it, then :func:`convert_fx`."""
    _deprecated()
    return _prepare_fx(model, qconfig_mapping, True, example_inputs, prepare_custom_config,
                       None, backend_config)


def _convert_fx(graph_module, is_reference, convert_custom_config=None,
                qconfig_mapping=None, backend_config=None):
    from .fx.convert import convert

    _unsupported("convert_custom_config", convert_custom_config)
    _unsupported("qconfig_mapping", qconfig_mapping)
    _unsupported("backend_config", backend_config)
    _check_is_graph_module(graph_module)
    return convert(graph_module, is_reference)


def convert_fx(graph_module, convert_custom_config=None, _remove_qconfig=True,
               qconfig_mapping=None, backend_config=None, keep_original_weights=False):
    """The quantized model of a prepared and calibrated GraphModule (converted in place)."""
    _deprecated()
    return _convert_fx(graph_module, False, convert_custom_config, qconfig_mapping,
                       backend_config)


def convert_to_reference_fx(graph_module, convert_custom_config=None, _remove_qconfig=True,
                            qconfig_mapping=None, backend_config=None):
    """The reference quantized model (quantize/dequantize around float ops)."""
    return _convert_fx(graph_module, True, convert_custom_config, qconfig_mapping,
                       backend_config)
