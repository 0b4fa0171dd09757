"""Hyperparameter checks shared by the optimizers (torch's ValueError messages)."""

__all__ = ["check_nonneg", "check_betas"]


def check_nonneg(value, what):
    """Raise ValueError ``Invalid <what>: value`` unless ``value >= 0``."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")


def check_betas(betas):
    """Both betas must lie in [0, 1)."""
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
