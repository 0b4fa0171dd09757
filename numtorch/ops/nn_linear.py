"""The fused affine map behind ``nn.functional.linear``: ``y = x @ W^T + b`` as one op.

Why a primitive (design doc, section 8): a linear layer is the hottest path of every MLP. As a
composite it is three nodes (``t``, ``matmul``, ``add``), a second output-sized temporary for the
bias add, and a central un-broadcast sum for the bias gradient. Fused, it is one GEMM on a
transposed view (BLAS reads it without a copy), an in-place bias add on the GEMM's own output,
and one node. Its backward is composed of numtorch ops, so double backward still works.
"""

from ..autograd.graph import Op

__all__ = ["linear_fused"]


class LinearFused(Op):
    """y = x @ W^T (+ b); dx = g @ W, dW = g^T @ x (batch dims folded), db = sum of g rows."""

    def forward(self, x, w, b=None):
        self.save_inputs(x, w)
        out_features = w.shape[0]
        if x.ndim == 2:
            y = self.xp.matmul(x, w.T)
        else:
            # fold the batch dims into rows: one large GEMM instead of one per batch entry
            y = self.xp.matmul(x.reshape(-1, x.shape[-1]), w.T)
            y = y.reshape(x.shape[:-1] + (out_features,))
        if b is not None:
            y += b  # y is the GEMM's fresh output, so adding in place allocates nothing
        return y

    def backward(self, grad):
        x, w = self.saved_inputs()
        needs = self.needs_input_grad
        gx = gw = gb = None
        if needs[0]:
            gx = grad @ w
        if needs[1] or (len(needs) > 2 and needs[2]):
            g2 = grad if grad.ndim == 2 else grad.reshape(-1, grad.shape[-1])
            if needs[1]:
                x2 = x if x.ndim == 2 else x.reshape(-1, x.shape[-1])
                gw = g2.mT @ x2
            if len(needs) > 2 and needs[2]:
                gb = g2.sum(0)
        return (gx, gw) if len(needs) == 2 else (gx, gw, gb)


def linear_fused(input, weight, bias=None):
    """``input @ weight.T + bias`` for operands checked by ``nn.functional.linear``.

    The caller guarantees: ``input`` at least 2-D, ``weight`` 2-D with
    ``weight.shape[1] == input.shape[-1]``, ``bias`` None or 1-D of ``weight.shape[0]``
    elements, all floating point of one dtype.
    """
    if bias is None:
        return LinearFused.apply(input, weight)
    return LinearFused.apply(input, weight, bias)
