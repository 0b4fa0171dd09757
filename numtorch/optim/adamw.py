"""AdamW: Adam with decoupled weight decay (torch's ``optim.adamw``)."""

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter); ``weight_decay`` defaults to
    0.01 and shrinks the weights directly instead of being added to the gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


from ._functional import adamw  # noqa: E402,F401  (torch.optim.adamw.adamw)
