"""Torch's names for the graph nodes of numtorch's ops (``type(y.grad_fn).__name__``).

numtorch's op classes are cut differently from torch's autograd formulas: one ``Reshape`` is
torch's view, squeeze and unsqueeze, one ``MatMul`` its dot, mv, mm and batched matmul. Users
see the node names in tensor reprs (``grad_fn=<MulBackward0>``) and code branches on them, so
each op's node is named as torch would name it for the same call.

``RULES`` maps an op class (``module.QualName``) to a name, or to a function of the recorded
node (its parameters, ``_in_meta`` and ``_out_meta``) returning one. Ops missing here are named
``<Class>Backward0``, which is torch's name for most elementwise ops. A function that reuses
an op under a name its parameters cannot tell (``t()`` versus ``permute``) passes
``node_name=...`` to ``apply`` or calls ``graph.rename_node`` on its result instead.
"""

__all__ = ["RULES"]


def _ndims(node):
    return [None if m is None else len(m[0]) for m in node._in_meta]


def _all_dims(node, dims):
    return len(dims) == len(node._in_meta[0][0]) and not node.__dict__.get("keepdim", False)


# -- shape ops ------------------------------------------------------------------------------
def _is_full(s, size):
    """Whether slice ``s`` keeps a whole dim of ``size`` (torch records no node for it)."""
    return s.start in (None, 0) and s.step in (None, 1) and (s.stop is None or s.stop >= size)


def _getitem(node):
    """Torch applies a basic index one entry at a time (select, slice, unsqueeze), skipping
    whole-dim slices; the node is the last step recorded, or an alias when none is."""
    index, shape = node.index, node.in_shape
    if len(index) == 2 and index[1] is Ellipsis and type(index[0]) is slice:
        return "SliceBackward0"  # ``x[:]``: one slice is always recorded
    n_used = sum(1 for i in index if i is not None and i is not Ellipsis)
    name, dim = "AliasBackward0", 0
    for item in index:
        if item is None:
            name = "UnsqueezeBackward0"
        elif item is Ellipsis:
            dim += len(shape) - n_used
        elif type(item) is slice:
            if not _is_full(item, shape[dim]):
                name = "SliceBackward0"
            dim += 1
        else:
            name = "SelectBackward0"
            dim += 1
    return name


def _reshape(node):
    kind = node.__dict__.get("kind")
    if kind == "squeeze":
        return "SqueezeBackward1"
    if kind == "unsqueeze":
        return "UnsqueezeBackward0"
    if not node.__dict__.get("is_view", True):
        return "UnsafeViewBackward0"  # reshape had to copy: torch's clone + _unsafe_view
    return "ViewBackward0"


def _matmul(node):
    a, b = _ndims(node)
    if a == 1 and b == 1:
        return "DotBackward0"
    if a == 2 and b == 1:
        return "MvBackward0"
    if a == 1 and b == 2:
        return "SqueezeBackward4"  # torch: (v[None] @ m).squeeze_(0)
    if a == 2 and b == 2:
        return "MmBackward0"
    if b >= 3 and (a == 2 or (a >= 3 and _batch_numel(node, 0) == 1 < _batch_numel(node, 1))):
        # torch folds the other operand and transposes back, then makes it contiguous
        return "CloneBackward0"
    return "UnsafeViewBackward0"


def _batch_numel(node, i):
    n = 1
    for s in node._in_meta[i][0][:-2]:
        n *= s
    return n


# -- reductions -----------------------------------------------------------------------------
def _sum(node):
    return "SumBackward0" if _all_dims(node, node.dims) else "SumBackward1"


def _mean(node):
    return "MeanBackward0" if _all_dims(node, node.dims) else "MeanBackward1"


def _prod(node):
    return "ProdBackward0" if _all_dims(node, node.dims) else "ProdBackward1"


def _amax(node):
    return "AmaxBackward0" if node.fn == "max" else "AminBackward0"


def _max_dim(node):
    return "MaxBackward0" if node.fn == "max" else "MinBackward0"


# -- elementwise ----------------------------------------------------------------------------
def _scalar_first(node):
    return node._in_meta[0] is None


def _sub(node):
    return "RsubBackward1" if _scalar_first(node) else "SubBackward0"


def _div(node):
    return "MulBackward0" if _scalar_first(node) else "DivBackward0"  # torch: other * x^-1


def _pow(node):
    return "PowBackward2" if _scalar_first(node) else "PowBackward1"


def _scatter(node):
    if node.__dict__.get("is_add"):
        return "ScatterAddBackward0"
    if node.reduce is not None:
        return "ScatterReduceBackward0"
    return "ScatterBackward1" if node._in_meta[-1] is None else "ScatterBackward0"  # a value


# -- nn ops ---------------------------------------------------------------------------------
def _linear(node):
    bias = len(node._in_meta) > 2 and node._in_meta[2] is not None
    nd = node._in_meta[0] and len(node._in_meta[0][0])
    if nd == 2:
        return "AddmmBackward0" if bias else "MmBackward0"
    if nd == 1:
        return "ViewBackward0" if bias else "SqueezeBackward4"
    return "ViewBackward0" if bias else "UnsafeViewBackward0"


def _pool(kind):
    def rule(node):
        n = len(node.kernel)
        if n == 1:
            return "SqueezeBackward1"  # torch pools 1-D inputs as 2-D and squeezes
        if kind == "max":
            return f"MaxPool{n}DWithIndicesBackward0"
        return f"AvgPool{n}DBackward0"
    return rule


def _nll(node):
    nd = len(node.in_shape) if "in_shape" in node.__dict__ else len(node._in_meta[0][0])
    if nd <= 2:
        return "NllLossBackward0"
    # torch runs other ranks than 4 as (N, C, H, W) through its 2-d kernel and views an
    # unreduced result back to the target's shape
    if nd != 4 and node.__dict__.get("reduction") == "none":
        return "ViewBackward0"
    return "NllLoss2DBackward0"


def _cross_entropy(node):
    if node.__dict__.get("label_smoothing"):
        return "AddBackward0"  # torch mixes the smoothed term in with an add
    return _nll(node)


def _pointwise_loss(node):
    kind = node.kind
    if kind == "l1":  # torch's l1_loss is a composite: |x - t| then the reduction
        return {"mean": "MeanBackward0", "sum": "SumBackward0"}.get(node.reduction,
                                                                    "AbsBackward0")
    return {"mse": "MseLossBackward0", "smooth_l1": "SmoothL1LossBackward0",
            "huber": "HuberLossBackward0"}[kind]


def _normalize_affine(node):
    if 0 in node.dims:
        return "NativeBatchNormBackward0"
    return "NativeLayerNormBackward0"


_OPS = "numtorch.ops."
RULES = {
    # shape
    _OPS + "indexing.GetItem": _getitem,
    _OPS + "indexing.AdvGetItem": "IndexBackward0",
    _OPS + "shape.Reshape": _reshape,
    _OPS + "join.Cat": "CatBackward0",
    _OPS + "_lautil.Triangle": lambda node: "TriuBackward0" if node.upper else "TrilBackward0",
    _OPS + "structure.DiagPut": "DiagEmbedBackward0",
    _OPS + "structure.DiagGet": "DiagonalBackward0_copy",
    _OPS + "_resample.ConstantPad": "ConstantPadNdBackward0",
    # arithmetic
    _OPS + "elementwise.Sub": _sub,
    _OPS + "division.Div": _div,
    _OPS + "elementwise.PowScalar": "PowBackward0",
    _OPS + "elementwise.Pow": _pow,
    _OPS + "matmul.MatMul": _matmul,
    _OPS + "comparison.Clamp": "ClampBackward1",
    _OPS + "unary.Round": lambda node: "RoundBackward1" if node.decimals else "RoundBackward0",
    _OPS + "unary.Log1p": "Log1PBackward0",
    _OPS + "division.FloorDivide": "NotImplemented",
    _OPS + "gather.Scatter": _scatter,
    _OPS + "cast.Cast": "ToCopyBackward0",
    _OPS + "cast.ToDevice": "ToCopyBackward0",
    # reductions
    _OPS + "reduction.Sum": _sum,
    _OPS + "reduction.Mean": _mean,
    _OPS + "reduction.Prod": _prod,
    _OPS + "reduction.Amax": _amax,
    _OPS + "reduction.MaxDim": _max_dim,
    _OPS + "_statistics.Var": lambda node: "StdBackward0" if node.root else "VarBackward0",
    _OPS + "_statistics.Norm": "LinalgVectorNormBackward0",
    _OPS + "_statistics.LogSumExp": "LogsumexpBackward0",
    # nn
    _OPS + "linear_fused.LinearFused": _linear,
    _OPS + "conv.Conv": "ConvolutionBackward0",
    _OPS + "conv.ConvTranspose": "ConvolutionBackward0",
    _OPS + "norm_ops.NormalizeAffine": _normalize_affine,
    _OPS + "pooling.MaxPool": _pool("max"),
    _OPS + "pooling.AvgPool": _pool("avg"),
    _OPS + "loss_ops.NLLLoss": _nll,
    _OPS + "loss_ops.CrossEntropyIndex": _cross_entropy,
    _OPS + "loss_ops.PointwiseLoss": _pointwise_loss,
    _OPS + "_activation_base.Select": "WhereBackward0",
}
