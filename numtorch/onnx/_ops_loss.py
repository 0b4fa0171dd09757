"""Converters of the fused losses: mse/l1/smooth_l1/huber and cross entropy of class
indices."""

import numpy as np

from ._convert import converter
from .errors import SymbolicValueError, UnsupportedOperatorError

_ATEN = {"l1": "aten::l1_loss", "smooth_l1": "aten::smooth_l1_loss", "huber": "aten::huber_loss"}


def _reduced(ctx, loss, reduction):
    if reduction == "none":
        return loss
    return ctx.b.reduce("ReduceMean" if reduction == "mean" else "ReduceSum", loss, None, 0)


@converter("PointwiseLoss", aten="aten::mse_loss")
def _pointwise_loss(ctx):
    b = ctx.b
    dt = ctx.out().dtype
    d = b.op("Sub", ctx.x(0, dt), ctx.x(1, dt))
    kind, p = ctx.static("kind"), ctx.static("p")
    if kind != "mse":  # as torch's exporter, which has no symbolic for these
        raise UnsupportedOperatorError(_ATEN[kind] if p or kind != "smooth_l1" else
                                       "aten::l1_loss", ctx.opset, None)
    loss = b.op("Mul", d, d)
    ctx.set(_reduced(ctx, loss, ctx.static("reduction")))


@converter("CrossEntropyIndex", aten="aten::cross_entropy_loss")
def _cross_entropy(ctx):
    if float(ctx.static("label_smoothing", 0.0)):
        raise SymbolicValueError("Unsupported: ONNX does not support label_smoothing",
                                 "label_smoothing")
    _class_loss(ctx, "SoftmaxCrossEntropyLoss")


@converter("NLLLoss", aten="aten::nll_loss_nd")
def _nll(ctx):
    _class_loss(ctx, "NegativeLogLikelihoodLoss")


def _class_loss(ctx, onnx_op):
    """ONNX's class-index loss ``onnx_op`` of (input, target[, class weights]) with the op's
    reduction and ignore_index."""
    b = ctx.b
    dt = ctx.out().dtype
    weight = ctx.p("weight")
    inputs = [ctx.x(0, dt), ctx.x(1, np.int64)]
    if weight is not None:
        inputs.append(b.const(np.asarray(weight, dt)))
    ctx.set(b.op(onnx_op, *inputs, reduction=ctx.static("reduction"),
                 ignore_index=int(ctx.static("ignore_index"))))


@converter("BinaryCrossEntropyWithLogits", aten="aten::binary_cross_entropy_with_logits")
def _bce_logits(ctx):
    """w ((1 - t) x + l softplus(-x)), l = 1 + (p - 1) t, softplus(-x) written stably as
    relu(-x) + log(1 + exp(-|x|))."""
    b = ctx.b
    dt = ctx.out().dtype
    x, t = ctx.x(0, dt), ctx.x(1, dt)
    one = b.const(np.ones((), dt))
    sp = b.op("Add", b.op("Relu", b.op("Neg", x)),
              b.op("Log", b.op("Add", one, b.op("Exp", b.op("Neg", b.op("Abs", x))))))
    pos = ctx.p("pos_weight")
    if pos is not None:
        lw = b.op("Add", one, b.op("Mul", b.const(np.asarray(pos, dt) - 1), t))
        sp = b.op("Mul", lw, sp)
    loss = b.op("Add", b.op("Mul", b.op("Sub", one, t), x), sp)
    weight = ctx.p("weight")
    if weight is not None:
        loss = b.op("Mul", loss, b.const(np.asarray(weight, dt)))
    ctx.set(_reduced(ctx, loss, ctx.static("reduction")))
