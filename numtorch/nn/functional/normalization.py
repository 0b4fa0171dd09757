"""nn.functional: normalization."""

__all__ = []
