"""nn.functional: distance."""

__all__ = []
