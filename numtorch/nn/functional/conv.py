"""nn.functional: conv."""

__all__ = []
