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
custom configs are honoured for non-traceable modules and preserved attributes (their other
settings raise ``NotImplementedError``, as do backend configs and ``_equalization_config``).
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


def _trace(model, skipped_names=(), skipped_classes=()):
    from .fx.tracer import QuantizationTracer

    tracer = QuantizationTracer(skipped_names, skipped_classes)
    graph = tracer.trace(model)
    return GraphModule(model, graph), tracer


def _fuse_fx(graph_module, is_qat):
    from .fx.fuse import fuse

    _check_is_graph_module(graph_module)
    return fuse(graph_module, is_qat)


def _custom_config(cls, config, what):
    """``config`` as a ``cls`` (a dict is converted, with torch's warning); settings numtorch
    does not implement raise."""
    if config is None:
        return cls()
    if isinstance(config, dict):
        warnings.warn(f"Passing a {what}_dict to {what.split('_')[0]} is deprecated and will "
                      f"not be supported in a future version. Please pass in a "
                      f"{cls.__name__} instead.", FutureWarning, stacklevel=4)
        config = cls.from_dict(config)
    missing = config.unsupported()
    if missing:
        raise NotImplementedError(f"numtorch's FX graph mode quantization does not support "
                                  f"these {cls.__name__} settings yet: {', '.join(missing)}")
    return config


def _attach_preserved_attrs(model, preserved):
    for name, value in preserved.items():
        setattr(model, name, value)
    model.meta["_user_preserved_attributes"] = preserved


def _prepare_fx(model, qconfig_mapping, is_qat, example_inputs, prepare_custom_config=None,
                _equalization_config=None, backend_config=None):
    from .fx.custom_config import PrepareCustomConfig
    from .fx.prepare import prepare

    prepare_custom_config = _custom_config(PrepareCustomConfig, prepare_custom_config,
                                           "prepare_custom_config")
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
    preserved = {name: getattr(model, name) for name in prepare_custom_config.preserved_attributes
                 if hasattr(model, name)}
    graph_module, tracer = _trace(model, prepare_custom_config.non_traceable_module_names,
                                  prepare_custom_config.non_traceable_module_classes)
    graph_module = _fuse_fx(graph_module, is_qat)
    prepared = prepare(graph_module, qconfig_mapping, is_qat, tracer.node_name_to_scope)
    _attach_preserved_attrs(prepared, preserved)
    return prepared


def fuse_fx(model, fuse_custom_config=None, backend_config=None):
    """Trace ``model`` and fuse conv/linear/batch norm + batch norm/ReLU patterns (eval mode:
    batch norm folded into the conv or linear)."""
    from .fx.custom_config import FuseCustomConfig

    fuse_custom_config = _custom_config(FuseCustomConfig, fuse_custom_config,
                                        "fuse_custom_config")
    _unsupported("backend_config", backend_config)
    preserved = {name: getattr(model, name) for name in fuse_custom_config.preserved_attributes
                 if hasattr(model, name)}
    graph_module, _ = _trace(model)
    fused = _fuse_fx(graph_module, False)
    _attach_preserved_attrs(fused, preserved)
    return fused


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
    from .fx.custom_config import ConvertCustomConfig

    convert_custom_config = _custom_config(ConvertCustomConfig, convert_custom_config,
                                           "convert_custom_config")
    _unsupported("qconfig_mapping", qconfig_mapping)
    _unsupported("backend_config", backend_config)
    _check_is_graph_module(graph_module)
    preserved = {name: getattr(graph_module, name)
                 for name in convert_custom_config.preserved_attributes
                 if hasattr(graph_module, name)}
    quantized = convert(graph_module, is_reference)
    _attach_preserved_attrs(quantized, preserved)
    return quantized


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
