"""The common steps of the float16/bfloat16 updates (``_update_half`` of Adam, AdamW, RAdam,
NAdam, Adamax, Adagrad): torch runs a 16-bit parameter's step as a sequence of tensor ops, each
computing in float32 and rounding once to the 16-bit type, so these are written in tensor ops
too (the fused NumPy passes of the float32 path round the 16-bit values differently)."""

from .optimizer import _make


def half_grad(param, grad, group):
    """The gradient the step uses: negated for ``maximize``, plus ``weight_decay * param``
    (L2 decay), or, for decoupled decay (``decoupled_weight_decay``), the parameter shrunk
    by ``1 - lr * weight_decay`` first and the gradient as is."""
    g = _make(grad)
    if group["maximize"]:
        g = -g
    wd = group["weight_decay"]
    if wd != 0:
        if group.get("decoupled_weight_decay"):
            param.mul_(foreach_factor(param, group, 1 - group["lr"] * wd))
        else:
            g = g.add(param, alpha=wd)
    return g


def foreach_factor(t, group, factor):
    """The number a ``mul_`` by ``factor`` uses: torch's multi-tensor step (``foreach=True``)
    scales with ``_foreach_mul_``, which rounds a number to the 16-bit tensor's dtype first."""
    if group.get("foreach") and type(factor) is float:
        return float(t.dtype.np.type(factor))
    return factor


def half_moments(state, g, beta1, beta2, group=None):
    """Adam's running moments, updated in place: ``exp_avg`` lerped toward ``g`` by
    ``1 - beta1``, ``exp_avg_sq`` scaled by ``beta2`` plus ``(1 - beta2) * g * g``."""
    m, v = state["exp_avg"], state["exp_avg_sq"]
    m.lerp_(g, 1 - beta1)
    v.mul_(beta2 if group is None else foreach_factor(v, group, beta2))
    v.addcmul_(g, g, value=1 - beta2)
    return m, v
