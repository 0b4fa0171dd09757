"""Cross-entropy with class-index targets on a GPU: ``CrossEntropyIndex``'s forward and its
backward op's forward in the general path's roundings with fewer launches
(``backend/_cupy_loss.py``: 33 -> 9 launches for a forward and backward with 'mean')."""

from ..backend import helpers_for
from ._accumulate import acc_dtype, fsum


def forward(op, x, t):
    """``CrossEntropyIndex.forward`` of 2-d scores without label smoothing on a device
    array, saving what its general path saves; None when the fused kernels do not apply."""
    h = helpers_for(op.xp)
    if op.label_smoothing or not h.ce_applies(x, t, op.weight):
        return None
    m = x.max(axis=1, keepdims=True)
    e = h.ce_exp(x, m)
    if e is None:
        return None
    s = e.sum(axis=1)
    rows = h.ce_rows(x, m, s, t, op.weight, op.ignore_index)
    if rows is None:
        return None
    loss, wt, t_safe = rows
    dt = loss.dtype
    red, factor = op.reduction, None
    if red != "none":
        total = fsum(loss, (0,), dtype=acc_dtype(dt))
        if red == "mean":
            out = h.loss_mean(total, fsum(wt, (0,), dtype=acc_dtype(dt)))
            if out is None:
                return None
            total, factor = out
        loss = total
    op.save_inputs(x)
    # the row index of the pick is only needed by the xp backward, which rebuilds it
    op.save(e=e, s=s, idx=(None, t_safe), flat=None, from_log=None, a=wt, b=wt, c=None,
            w_b=None, wt=wt, factor=factor)
    return loss


def grad(node, g):
    """``CrossEntropyIndexBackward.forward``'s input gradient in one launch, or None (the
    caller then runs its xp code)."""
    if node.c is not None or node.a is None or node.b is None or node.e.ndim != 2 \
            or node.idx[1].ndim != 1:
        return None
    return helpers_for(node.xp).ce_grad(node.e, g, node.factor, node.s, node.a, node.b,
                                        node.idx[1])
