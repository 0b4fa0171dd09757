"""Hyperparameter checks shared by the optimizers (torch's ValueError messages).

Hyperparameters may be 1-element tensors (``lr=torch.tensor(0.01)``), as in torch; messages
show them as Python numbers, as torch's do.
"""

from .._tensor import Tensor

__all__ = ["check_nonneg", "check_lr", "check_betas", "check_tensor_lr", "check_tensor_betas",
           "check_fused", "number"]


def number(value):
    """``value`` as torch prints it in a message: a 1-element tensor becomes a Python number."""
    return value.item() if isinstance(value, Tensor) and value.numel() == 1 else value


def check_nonneg(value, what):
    """Raise ValueError ``Invalid <what>: value`` unless ``value >= 0``."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {number(value)}")


def check_lr(lr, strict=False):
    """A learning rate: a number or a 1-element tensor, ``>= 0`` (``> 0`` when ``strict``)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not (0.0 < lr if strict else 0.0 <= lr):
        raise ValueError(f"Invalid learning rate: {number(lr)}")


def check_betas(betas):
    """Both betas must lie in [0, 1)."""
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {number(betas[i])}")


def check_tensor_lr(lr, foreach, capturable):
    """Adam and AdamW refuse a tensor ``lr`` on the foreach path unless capturable."""
    if isinstance(lr, Tensor) and foreach and not capturable:
        raise ValueError("lr as a Tensor is not supported for capturable=False and "
                         "foreach=True")


def check_tensor_betas(betas, foreach, capturable):
    """Adam and AdamW take two float betas or two 1-element tensor betas (not on the foreach
    path unless capturable)."""
    if not (all(isinstance(b, float) for b in betas) or all(isinstance(b, Tensor)
                                                             for b in betas)):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, b in enumerate(betas):
        if isinstance(b, Tensor):
            if foreach and not capturable:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                 "capturable=False and foreach=True")
            if b.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


def check_fused(fused, foreach, differentiable):
    """The optimizers with a fused kernel in torch (SGD, Adam, AdamW, Adagrad) refuse these
    combinations."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
