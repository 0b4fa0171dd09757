"""Which fused module a sequence of module types becomes (conv/linear with batch norm and
ReLU), and the fuser functions that build them."""

import itertools

from numtorch import nn
from numtorch.ao.nn import intrinsic as nni
from numtorch.nn.utils import fusion as _fusion

from .utils import MatchAllNode, get_combined_dict

__all__ = ["fuse_conv_bn", "fuse_conv_bn_relu", "fuse_linear_bn", "fuse_convtranspose_bn",
           "get_fuser_method", "get_fuser_method_new"]


def _check_bn(bn, out, what):
    if bn.num_features != out:
        raise AssertionError(f"Output channel of {what} must match num_features of "
                             f"{type(bn).__name__}.")
    if not bn.affine:
        raise AssertionError(f"Only support fusing {type(bn).__name__} with affine set to True")
    if not bn.track_running_stats:
        raise AssertionError(f"Only support fusing {type(bn).__name__} with "
                             f"tracking_running_stats set to True")


def fuse_conv_bn(is_qat, conv, bn):
    """Conv followed by batch norm: a ``ConvBn`` module for QAT, else one conv with the
    batch norm folded in (both in eval mode)."""
    if conv.training != bn.training:
        raise AssertionError("Conv and BN both must be in the same mode (train or eval).")
    if is_qat:
        _check_bn(bn, conv.out_channels, type(conv).__name__)
        fused = {nn.Conv1d: nni.ConvBn1d, nn.Conv2d: nni.ConvBn2d,
                 nn.Conv3d: nni.ConvBn3d}.get(type(conv))
        if fused is None:
            raise NotImplementedError(f"Cannot fuse train modules: {(conv, bn)}")
        return fused(conv, bn)
    return _fusion.fuse_conv_bn_eval(conv, bn)


def fuse_conv_bn_relu(is_qat, conv, bn, relu):
    """Conv, batch norm and ReLU: ``ConvBnReLU`` for QAT, else ``ConvReLU`` around the conv
    with the batch norm folded in."""
    if not conv.training == bn.training == relu.training:
        raise AssertionError("Conv and BN both must be in the same mode (train or eval).")
    if is_qat:
        _check_bn(bn, conv.out_channels, type(conv).__name__)
        fused = {nn.Conv1d: nni.ConvBnReLU1d, nn.Conv2d: nni.ConvBnReLU2d,
                 nn.Conv3d: nni.ConvBnReLU3d}.get(type(conv))
        if fused is None:
            raise NotImplementedError(f"Cannot fuse train modules: {(conv, bn, relu)}")
        return fused(conv, bn, relu)
    fused = {nn.Conv1d: nni.ConvReLU1d, nn.Conv2d: nni.ConvReLU2d,
             nn.Conv3d: nni.ConvReLU3d}.get(type(conv))
    if fused is None:
        raise NotImplementedError(f"Cannot fuse eval modules: {(conv, bn, relu)}")
    return fused(_fusion.fuse_conv_bn_eval(conv, bn), relu)


def fuse_linear_bn(is_qat, linear, bn):
    """Linear followed by batch norm: ``LinearBn1d`` for QAT, else one folded Linear."""
    if linear.training != bn.training:
        raise AssertionError("Linear and BN both must be in the same mode (train or eval).")
    if is_qat:
        _check_bn(bn, linear.out_features, "Linear")
        return nni.LinearBn1d(linear, bn)
    return _fusion.fuse_linear_bn_eval(linear, bn)


def fuse_convtranspose_bn(is_qat, convt, bn):
    """Transposed conv followed by batch norm, folded (eval only)."""
    if convt.training != bn.training:
        raise AssertionError("ConvTranspose and BN both must be in the same mode (train or "
                             "eval).")
    if is_qat:
        raise Exception("Fusing ConvTranspose+BatchNorm not yet supported in QAT.")  # noqa
    return _fusion.fuse_conv_bn_eval(convt, bn, transpose=True)


def _sequential_wrapper2(sequential):
    def fuser_method(is_qat, m1, m2):
        return sequential(m1, m2)
    return fuser_method


_DEFAULT_OP_LIST_TO_FUSER_METHOD = {
    (nn.Conv1d, nn.BatchNorm1d): fuse_conv_bn,
    (nn.Conv1d, nn.BatchNorm1d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv2d, nn.BatchNorm2d): fuse_conv_bn,
    (nn.Conv2d, nn.BatchNorm2d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv3d, nn.BatchNorm3d): fuse_conv_bn,
    (nn.Conv3d, nn.BatchNorm3d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv1d, nn.ReLU): _sequential_wrapper2(nni.ConvReLU1d),
    (nn.Conv2d, nn.ReLU): _sequential_wrapper2(nni.ConvReLU2d),
    (nn.Conv3d, nn.ReLU): _sequential_wrapper2(nni.ConvReLU3d),
    (nn.Linear, nn.BatchNorm1d): fuse_linear_bn,
    (nn.Linear, nn.ReLU): _sequential_wrapper2(nni.LinearReLU),
    (nn.BatchNorm2d, nn.ReLU): _sequential_wrapper2(nni.BNReLU2d),
    (nn.BatchNorm3d, nn.ReLU): _sequential_wrapper2(nni.BNReLU3d),
    (nn.ConvTranspose1d, nn.BatchNorm1d): fuse_convtranspose_bn,
    (nn.ConvTranspose2d, nn.BatchNorm2d): fuse_convtranspose_bn,
    (nn.ConvTranspose3d, nn.BatchNorm3d): fuse_convtranspose_bn,
}


def get_fuser_method(op_list, additional_fuser_method_mapping=None):
    """The fuser for a tuple of module types (raising when there is none)."""
    mappings = get_combined_dict(_DEFAULT_OP_LIST_TO_FUSER_METHOD,
                                 additional_fuser_method_mapping or {})
    fuser = mappings.get(op_list, None)
    if fuser is None:
        raise AssertionError(f"did not find fuser method for: {op_list} ")
    return fuser


def _reverse2(f):
    def reversed(is_qat, x, y):
        return f(is_qat, y, x)
    return reversed


def _reverse3(f):
    def reversed(is_qat, x, w):
        y, z = w
        return f(is_qat, z, y, x)
    return reversed


def _get_valid_patterns(op_pattern):
    """Every pattern ``op_pattern`` matches once any element may be a wildcard."""
    if isinstance(op_pattern, (tuple, list)):
        return list(itertools.product(*[_get_valid_patterns(p) for p in op_pattern]))
    return [op_pattern, MatchAllNode]


def get_fuser_method_new(op_pattern, fuser_method_mapping):
    """The fuser for a (possibly nested) pattern, trying wildcard variants in order."""
    fuser = None
    for pattern in _get_valid_patterns(op_pattern):
        fuser = fuser_method_mapping.get(pattern)
        if fuser is not None:
            break
    if fuser is None:
        raise AssertionError(f"did not find fuser method for: {op_pattern} ")
    return fuser
