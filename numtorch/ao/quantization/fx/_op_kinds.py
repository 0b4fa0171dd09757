"""Which operations FX graph mode quantization quantizes, and how (the native backend).

Each traced node is classified by its *op key* (the module class of a ``call_module`` node,
the function of a ``call_function`` node, the method name of a ``call_method`` node):

- ``WEIGHTED``: conv/linear modules (plain, fused, QAT): input and output observed, weight
  quantized at convert; become ``nnq``/``nniq`` (or dynamic ``nnqd``) modules.
- ``MODULE_LOWERED``: other modules with their own output observer that have a quantized
  counterpart (batch norm, dropout, some activations).
- ``BINARY``: ``add``/``mul``: two tensors -> own output observer, ``quantized.add``/``mul``;
  tensor and scalar -> output shares the input's observer, ``quantized.add``/``mul`` scalar.
- ``SHARE``: ops that work on quantized tensors as they are (pooling, shape ops, ``relu``,
  ``cat``): the output shares the input's observer.
- ``FIXED``: ``sigmoid``/``tanh``/``hardsigmoid``: fixed output parameters.
- ``F_LINEAR``: ``F.linear`` with a weight attribute.
- ``TORCH_ONLY``: quantized by torch's native backend but not by this implementation;
  ``prepare_fx`` raises for them rather than build a model that differs from torch's.
"""

import operator

import numtorch as torch

nn = torch.nn
F = torch.nn.functional


def _present(owner, names):
    return [getattr(owner, n) for n in names if hasattr(owner, n)]


def _tables():
    from numtorch.ao.nn import intrinsic as nni
    from numtorch.ao.nn import qat as nnqat
    from numtorch.ao.nn.intrinsic import qat as nniqat

    weighted = {nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Linear,
                nni.ConvReLU1d, nni.ConvReLU2d, nni.ConvReLU3d, nni.LinearReLU,
                nnqat.Conv1d, nnqat.Conv2d, nnqat.Conv3d, nnqat.Linear,
                nniqat.ConvReLU1d, nniqat.ConvReLU2d, nniqat.ConvReLU3d, nniqat.LinearReLU,
                nniqat.ConvBn1d, nniqat.ConvBn2d, nniqat.ConvBn3d,
                nniqat.ConvBnReLU1d, nniqat.ConvBnReLU2d, nniqat.ConvBnReLU3d,
                nniqat.LinearBn1d}
    weighted |= set(_present(nn, ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]))
    linear_like = {nn.Linear, nni.LinearReLU, nnqat.Linear, nniqat.LinearReLU,
                   nniqat.LinearBn1d}
    module_lowered = {nn.BatchNorm2d, nn.BatchNorm3d, nni.BNReLU2d, nni.BNReLU3d, nn.Dropout,
                      nn.ELU, nn.LeakyReLU, nn.Hardswish, nn.LayerNorm}
    module_lowered |= set(_present(nn, ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
                                        "Softmax"]))
    binary = {operator.add: "add", torch.add: "add", operator.mul: "mul", torch.mul: "mul"}
    relu_after_binary = {nn.ReLU, F.relu, torch.relu}
    share = set(_present(nn, ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
                              "AvgPool1d", "AvgPool2d", "AvgPool3d", "Hardtanh", "Identity",
                              "MaxPool1d", "MaxPool2d", "MaxPool3d", "PixelShuffle",
                              "PixelUnshuffle", "ReLU", "ReLU6"]))
    share |= set(_present(F, ["adaptive_avg_pool2d", "adaptive_avg_pool3d", "hardtanh",
                              "hardtanh_", "interpolate", "max_pool1d", "max_pool2d",
                              "max_pool3d", "relu", "relu6", "avg_pool2d", "avg_pool3d"]))
    share |= set(_present(torch, ["adaptive_avg_pool1d", "pixel_shuffle", "pixel_unshuffle",
                                  "avg_pool1d", "clamp", "flatten", "mean", "narrow",
                                  "repeat_interleave", "transpose", "squeeze", "stack",
                                  "unsqueeze", "cat"]))
    share |= {operator.floordiv}
    share |= {"contiguous", "clamp", "detach", "detach_", "mean", "permute", "repeat",
              "repeat_interleave", "reshape", "resize_", "relu", "relu_", "squeeze",
              "squeeze_", "transpose", "unsqueeze", "unsqueeze_", "view"}
    fixed_0to1 = {nn.Hardsigmoid, F.hardsigmoid, "hardsigmoid", "hardsigmoid_", nn.Sigmoid,
                  torch.sigmoid, "sigmoid", "sigmoid_"}
    fixed_neg1to1 = {nn.Tanh, torch.tanh, "tanh", "tanh_"}
    # functional ops lowered to a torch.ops.quantized op with an output grid (keyword
    # arguments torch drops when it lowers them)
    f_lowered = {F.hardswish: ("hardswish", ("inplace",)), F.elu: ("elu", ("inplace",)),
                 F.leaky_relu: ("leaky_relu", ()), F.layer_norm: ("layer_norm", ()),
                 F.dropout: ("dropout", ("inplace",))}
    torch_only_static = set(_present(nn, [
        "PReLU"]))
    torch_only_static |= set(_present(F, [
        "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
        "conv_transpose3d", "group_norm", "instance_norm"]))
    torch_only_static |= set(_present(torch, ["conv1d", "conv2d", "conv3d", "conv_transpose1d",
                                              "conv_transpose2d", "conv_transpose3d",
                                              "matmul"]))
    torch_only_dynamic = set(_present(nn, ["GRUCell", "LSTMCell", "RNNCell", "LSTM", "GRU"]))
    torch_only_weight_only = set(_present(nn, ["Embedding", "EmbeddingBag"]))
    return {"weighted": weighted, "linear_like": linear_like,
            "module_lowered": module_lowered, "binary": binary,
            "relu_after_binary": relu_after_binary, "share": share, "fixed_0to1": fixed_0to1,
            "fixed_neg1to1": fixed_neg1to1, "torch_only_static": torch_only_static,
            "f_lowered": f_lowered,
            "torch_only_dynamic": torch_only_dynamic,
            "torch_only_weight_only": torch_only_weight_only}


_CACHE = {}


def tables():
    """The op tables (built once, on first use)."""
    if not _CACHE:
        _CACHE.update(_tables())
    return _CACHE


def plain_weighted():
    """The float conv/linear classes that pair with a following ReLU as one pattern."""
    nn = torch.nn
    return (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Linear)


def op_key(node, modules):
    """What a node's qconfig and pattern are looked up by (module class, function or method
    name), or None for placeholders, attributes and the output."""
    if node.op == "call_module":
        return type(modules[node.target])
    if node.op in ("call_function", "call_method"):
        return node.target
    return None


def _hashable(key):
    try:
        hash(key)
    except TypeError:
        return False
    return True


def classify(key):
    """The kind of an op key: one of ``weighted``, ``module_lowered``, ``binary``, ``share``,
    ``fixed``, ``f_linear``, ``torch_only`` or None (not quantized)."""
    if key is None or not _hashable(key):
        return None
    t = tables()
    if key in t["weighted"]:
        return "weighted"
    if key in t["module_lowered"]:
        return "module_lowered"
    if key in t["binary"]:
        return "binary"
    if key in t["share"]:
        return "share"
    if key in t["fixed_0to1"] or key in t["fixed_neg1to1"]:
        return "fixed"
    if key is F.linear:
        return "f_linear"
    if key in t["f_lowered"]:
        return "f_lowered"
    if key in t["torch_only_static"] or key in t["torch_only_dynamic"] \
            or key in t["torch_only_weight_only"]:
        return "torch_only"
    return None


def describe(key):
    """A readable name of an op key for error messages."""
    if isinstance(key, str):
        return f"Tensor.{key}"
    if isinstance(key, type):
        return f"{key.__module__.replace('numtorch', 'torch')}.{key.__name__}"
    mod = getattr(key, "__module__", None) or ""
    return f"{mod.replace('numtorch', 'torch')}.{getattr(key, '__name__', key)}"


def _special_lists():
    """The ops torch's lowering runs on quantized tensors when they sit between a dequantize
    and a quantize (whatever their qconfig): ``run`` ops work on quantized tensors as they
    are; ``module`` ones become their quantized module; ``unsupported`` ones torch lowers to
    quantized kernels numtorch's FX path does not build."""
    nn, F = torch.nn, torch.nn.functional
    run = set(_present(F, ["hardsigmoid", "sigmoid", "adaptive_avg_pool2d",
                           "adaptive_avg_pool3d", "hardtanh", "hardtanh_", "interpolate",
                           "max_pool1d", "max_pool2d", "max_pool3d", "relu", "relu6",
                           "avg_pool2d", "avg_pool3d", "pixel_shuffle", "pixel_unshuffle"]))
    run |= set(_present(torch, ["sigmoid", "tanh", "adaptive_avg_pool1d", "avg_pool1d",
                                "clamp", "flatten", "mean", "channel_shuffle", "narrow",
                                "transpose", "repeat_interleave", "squeeze", "stack",
                                "unsqueeze", "cat"]))
    run |= {operator.floordiv}
    run |= {"hardsigmoid", "hardsigmoid_", "sigmoid", "sigmoid_", "tanh", "tanh_", "clamp",
            "mean", "relu", "relu_", "contiguous", "detach", "detach_", "permute", "repeat",
            "repeat_interleave", "reshape", "resize_", "shape", "size", "squeeze",
            "squeeze_", "transpose", "unsqueeze", "unsqueeze_", "view"}
    run |= set(_present(nn, ["Hardsigmoid", "Sigmoid", "Tanh", "AdaptiveAvgPool1d",
                             "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AvgPool1d",
                             "AvgPool2d", "AvgPool3d", "Hardtanh", "MaxPool1d", "MaxPool2d",
                             "MaxPool3d", "ReLU", "ReLU6", "ChannelShuffle", "Identity",
                             "PixelShuffle", "PixelUnshuffle"]))
    module = set(tables()["module_lowered"])
    unsupported = set(_present(F, ["elu", "hardswish", "instance_norm", "layer_norm",
                                   "leaky_relu", "dropout"]))
    unsupported |= set(_present(nn, ["PReLU"]))
    return {"run": run, "module": module, "unsupported": unsupported}


def special_kind(node, modules):
    """``run``, ``module``, ``unsupported`` (see :func:`_special_lists`) or None."""
    key = op_key(node, modules)
    if key is None or not _hashable(key):
        return None
    if "special" not in _CACHE:
        _CACHE["special"] = _special_lists()
    for kind, members in _CACHE["special"].items():
        if key in members:
            return kind
    return None
