"""Which quantized module each float module becomes (static, dynamic, QAT), which modules get
qconfigs propagated, and the quantized forms of float functions."""

import copy

from numtorch import nn
from numtorch.ao.nn import intrinsic as nni
from numtorch.ao.nn import qat as nnqat
from numtorch.ao.nn import quantized as nnq
from numtorch.ao.nn.intrinsic import qat as nniqat
from numtorch.ao.nn.intrinsic import quantized as nniq
from numtorch.ao.nn.intrinsic.quantized import dynamic as nniqd
from numtorch.ao.nn.qat import dynamic as nnqatd
from numtorch.ao.nn.quantized import dynamic as nnqd
from numtorch.nn import functional as F
from numtorch.nn.utils.parametrize import type_before_parametrizations
from numtorch.ops import quantized_pointwise as _qp

from .fake_quantize import (default_fixed_qparams_range_0to1_fake_quant,
                            default_fixed_qparams_range_neg1to1_fake_quant)
from .stubs import DeQuantStub, QuantStub
from .utils import get_combined_dict

__all__ = ["DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS",
           "DEFAULT_STATIC_QUANT_MODULE_MAPPINGS", "DEFAULT_QAT_MODULE_MAPPINGS",
           "DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS", "DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS",
           "DEFAULT_MODULE_TO_ACT_POST_PROCESS", "DEFAULT_STATIC_SPARSE_QUANT_MODULE_MAPPINGS",
           "DEFAULT_DYNAMIC_SPARSE_QUANT_MODULE_MAPPINGS", "no_observer_set",
           "get_default_static_quant_module_mappings",
           "get_default_static_quant_reference_module_mappings",
           "get_embedding_static_quant_module_mappings",
           "get_default_static_sparse_quant_module_mappings", "get_static_quant_module_class",
           "get_dynamic_quant_module_class", "get_default_qat_module_mappings",
           "get_embedding_qat_module_mappings", "get_default_dynamic_quant_module_mappings",
           "get_default_dynamic_sparse_quant_module_mappings",
           "get_default_qconfig_propagation_list", "get_default_compare_output_module_list",
           "get_default_float_to_quantized_operator_mappings", "get_quantized_operator"]

# numtorch has no reference quantized modules (torch.ao.nn.quantized.reference) nor sparse
# quantized ones (torch.ao.nn.sparse): those tables hold only what numtorch can convert to
DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS = {QuantStub: nnq.Quantize,
                                                  DeQuantStub: nnq.DeQuantize}

DEFAULT_STATIC_QUANT_MODULE_MAPPINGS = {
    QuantStub: nnq.Quantize, DeQuantStub: nnq.DeQuantize, nn.BatchNorm2d: nnq.BatchNorm2d,
    nn.BatchNorm3d: nnq.BatchNorm3d, nn.Dropout: nnq.Dropout, nn.Conv1d: nnq.Conv1d,
    nn.Conv2d: nnq.Conv2d, nn.Conv3d: nnq.Conv3d, nn.ConvTranspose1d: nnq.ConvTranspose1d,
    nn.ConvTranspose2d: nnq.ConvTranspose2d, nn.ConvTranspose3d: nnq.ConvTranspose3d,
    nn.ELU: nnq.ELU, nn.Embedding: nnq.Embedding, nn.EmbeddingBag: nnq.EmbeddingBag,
    nn.GroupNorm: nnq.GroupNorm, nn.Hardswish: nnq.Hardswish,
    nn.InstanceNorm1d: nnq.InstanceNorm1d, nn.InstanceNorm2d: nnq.InstanceNorm2d,
    nn.InstanceNorm3d: nnq.InstanceNorm3d, nn.LayerNorm: nnq.LayerNorm,
    nn.LeakyReLU: nnq.LeakyReLU, nn.modules.linear.NonDynamicallyQuantizableLinear: nnq.Linear,
    nn.Linear: nnq.Linear, nn.ReLU6: nnq.ReLU6, nn.PReLU: nnq.PReLU,
    nnq.FloatFunctional: nnq.QFunctional,
    nni.BNReLU2d: nniq.BNReLU2d, nni.BNReLU3d: nniq.BNReLU3d, nni.ConvReLU1d: nniq.ConvReLU1d,
    nni.ConvReLU2d: nniq.ConvReLU2d, nni.ConvReLU3d: nniq.ConvReLU3d,
    nni.ConvAdd2d: nniq.ConvAdd2d, nni.ConvAddReLU2d: nniq.ConvAddReLU2d,
    nni.LinearReLU: nniq.LinearReLU, nni.LinearLeakyReLU: nniq.LinearLeakyReLU,
    nni.LinearTanh: nniq.LinearTanh,
    nniqat.ConvBn1d: nnq.Conv1d, nniqat.ConvBn2d: nnq.Conv2d, nniqat.ConvBn3d: nnq.Conv3d,
    nniqat.ConvBnReLU1d: nniq.ConvReLU1d, nniqat.ConvBnReLU2d: nniq.ConvReLU2d,
    nniqat.ConvBnReLU3d: nniq.ConvReLU3d, nniqat.ConvReLU2d: nniq.ConvReLU2d,
    nniqat.ConvReLU3d: nniq.ConvReLU3d, nniqat.LinearReLU: nniq.LinearReLU,
    nniqat.LinearBn1d: nnq.Linear, nnqat.Linear: nnq.Linear, nnqat.Conv2d: nnq.Conv2d,
    nnqat.Conv3d: nnq.Conv3d,
}

DEFAULT_QAT_MODULE_MAPPINGS = {
    nn.Conv2d: nnqat.Conv2d, nn.Conv3d: nnqat.Conv3d, nn.Linear: nnqat.Linear,
    nn.modules.linear.NonDynamicallyQuantizableLinear: nnqat.Linear,
    nni.ConvBn1d: nniqat.ConvBn1d, nni.ConvBn2d: nniqat.ConvBn2d,
    nni.ConvBn3d: nniqat.ConvBn3d, nni.ConvBnReLU1d: nniqat.ConvBnReLU1d,
    nni.ConvBnReLU2d: nniqat.ConvBnReLU2d, nni.ConvBnReLU3d: nniqat.ConvBnReLU3d,
    nni.ConvReLU2d: nniqat.ConvReLU2d, nni.ConvReLU3d: nniqat.ConvReLU3d,
    nni.LinearReLU: nniqat.LinearReLU, nni.LinearBn1d: nniqat.LinearBn1d,
}

DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS = {
    nn.GRUCell: nnqd.GRUCell, nn.Linear: nnqd.Linear, nnqatd.Linear: nnqd.Linear,
    nn.modules.linear.NonDynamicallyQuantizableLinear: nnqd.Linear, nn.LSTM: nnqd.LSTM,
    nn.GRU: nnqd.GRU, nn.LSTMCell: nnqd.LSTMCell, nn.RNNCell: nnqd.RNNCell,
    nni.LinearReLU: nniqd.LinearReLU, nn.EmbeddingBag: nnq.EmbeddingBag,
    nn.Embedding: nnq.Embedding,
}

_INCLUDE_QCONFIG_PROPAGATE_LIST = {nn.Sequential}

DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS = {
    F.elu: _qp.elu, F.hardswish: _qp.hardswish, F.instance_norm: _qp.instance_norm,
    F.layer_norm: _qp.layer_norm, F.leaky_relu: _qp.leaky_relu,
    F.dropout: lambda input, p=0.5, training=False, inplace=False: input,
}

DEFAULT_MODULE_TO_ACT_POST_PROCESS = {
    nn.Hardsigmoid: default_fixed_qparams_range_0to1_fake_quant,
    nn.Sigmoid: default_fixed_qparams_range_0to1_fake_quant,
    nn.Softmax: default_fixed_qparams_range_0to1_fake_quant,
    nn.Tanh: default_fixed_qparams_range_neg1to1_fake_quant,
}

DEFAULT_STATIC_SPARSE_QUANT_MODULE_MAPPINGS = {}
DEFAULT_DYNAMIC_SPARSE_QUANT_MODULE_MAPPINGS = {}


def no_observer_set():
    """Modules that get no observers inserted (torch: its quantizable LSTM and attention,
    which numtorch does not have)."""
    return set()


def get_default_static_quant_module_mappings():
    """A copy of the float -> statically quantized module table."""
    return copy.deepcopy(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS)


def get_default_static_quant_reference_module_mappings():
    """A copy of the float -> reference quantized module table."""
    return copy.deepcopy(DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS)


def get_embedding_static_quant_module_mappings():
    """The static table with QAT embeddings converting to quantized ones."""
    mapping = copy.deepcopy(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS)
    mapping[nnqat.EmbeddingBag] = nnq.EmbeddingBag
    mapping[nnqat.Embedding] = nnq.Embedding
    return mapping


def get_default_static_sparse_quant_module_mappings():
    return copy.deepcopy(DEFAULT_STATIC_SPARSE_QUANT_MODULE_MAPPINGS)


def _lookup(table, cls):
    found = table.get(cls, None)
    if found is None:
        raise AssertionError(f"Floating point module class {str(cls)} does not have a "
                             f"corresponding quantized module class")
    return copy.deepcopy(found)


def get_static_quant_module_class(float_module_class, additional_static_quant_mapping=None,
                                  is_reference=False):
    """The statically quantized class for a float module class."""
    base = DEFAULT_REFERENCE_STATIC_QUANT_MODULE_MAPPINGS if is_reference else \
        DEFAULT_STATIC_QUANT_MODULE_MAPPINGS
    return _lookup(get_combined_dict(base, additional_static_quant_mapping or {}),
                   float_module_class)


def get_dynamic_quant_module_class(float_module_class, additional_dynamic_quant_mapping=None):
    """The dynamically quantized class for a float module class."""
    return _lookup(get_combined_dict(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS,
                                     additional_dynamic_quant_mapping or {}),
                   float_module_class)


def get_default_qat_module_mappings():
    """A copy of the float -> QAT module table."""
    return copy.deepcopy(DEFAULT_QAT_MODULE_MAPPINGS)


def get_embedding_qat_module_mappings():
    """The QAT table with embeddings included."""
    mapping = copy.deepcopy(DEFAULT_QAT_MODULE_MAPPINGS)
    mapping[nn.EmbeddingBag] = nnqat.EmbeddingBag
    mapping[nn.Embedding] = nnqat.Embedding
    return mapping


def get_default_dynamic_quant_module_mappings():
    """The float -> dynamically quantized module table."""
    return DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS


def get_default_dynamic_sparse_quant_module_mappings():
    return DEFAULT_DYNAMIC_SPARSE_QUANT_MODULE_MAPPINGS


def get_default_qconfig_propagation_list():
    """Module classes that get a qconfig in prepare."""
    return copy.deepcopy(set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS)
                         | set(DEFAULT_QAT_MODULE_MAPPINGS)
                         | set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS)
                         | _INCLUDE_QCONFIG_PROPAGATE_LIST)


def get_default_compare_output_module_list():
    """Module classes whose outputs the numeric suite compares."""
    return copy.deepcopy(set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS.values())
                         | set(DEFAULT_QAT_MODULE_MAPPINGS.values())
                         | set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS.values())
                         | set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS)
                         | set(DEFAULT_QAT_MODULE_MAPPINGS)
                         | set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS)
                         | _INCLUDE_QCONFIG_PROPAGATE_LIST)


def get_default_float_to_quantized_operator_mappings():
    return copy.deepcopy(DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS)


def get_quantized_operator(float_op):
    """The quantized form of a float function (``F.elu`` -> quantized elu, ...)."""
    found = DEFAULT_FLOAT_TO_QUANTIZED_OPERATOR_MAPPINGS.get(float_op)
    if found is None:
        raise AssertionError(f"Operator {str(float_op)} does not have corresponding "
                             f"quantized op")
    return found


def _get_special_act_post_process(module):
    return DEFAULT_MODULE_TO_ACT_POST_PROCESS.get(type_before_parametrizations(module))


def _has_special_act_post_process(module):
    return module.training and type(module) in DEFAULT_MODULE_TO_ACT_POST_PROCESS
